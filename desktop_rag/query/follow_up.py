"""Follow-ups decided on evidence: does a question refer back, and do its hits match it?

A question leans on the previous one for retrieval only when it refers back to it: a pronoun
("does it…", "their dose"), an opening that continues ("and for children?", "what about…"),
or an ellipsis ("Why?", "In 2022?", "Side effects?"). Even then, a passage is
kept only if it holds one of the new question's own content words: joining "and France?" to a
question about a manual must not make the manual's pages relevant to France.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from desktop_rag.query.quote import content_words
from desktop_rag.types import Hit, Turn

# Words that point at something said before. "that" is left out: far more often it starts a
# relative clause ("the drug that treats…") than it points back.
_POINTING_TEXT = """
    it its itself they them their theirs themselves this these those he him his she her hers
    former latter same such"""
_POINTING = frozenset(_POINTING_TEXT.split())
_CONTINUING = re.compile(
    r"^\s*(?:and|but|or|also|then|so|what about|how about|same for|as for|what of)\b", re.I
)
_WORD = re.compile(r"[A-Za-z0-9']+")
# A question with at most this many content words of its own is an ellipsis ("Why?"), and so
# is a fragment of at most FRAGMENT_WORDS words that opens with no question word or verb
# ("Side effects?").
ELLIPSIS_WORDS = 1
FRAGMENT_WORDS = 3
_QUESTION_OPENERS_TEXT = """
    what which who whom whose when where why how is are was were do does did can could should
    would will has have had may might must shall tell list give explain describe name show"""
_QUESTION_OPENERS = frozenset(_QUESTION_OPENERS_TEXT.split())


def refers_back(question: str) -> bool:
    """Whether the question cannot be understood without the one before it."""
    if _CONTINUING.match(question):
        return True
    words = [w.lower() for w in _WORD.findall(question)]
    if set(words) & _POINTING:
        return True
    if len(content_words(question)) <= ELLIPSIS_WORDS:
        return True
    return len(words) <= FRAGMENT_WORDS and words[0] not in _QUESTION_OPENERS


def retrieval_query(question: str, history: Sequence[Turn]) -> str:
    """The question, joined to the previous one only when it refers back to it."""
    if history and refers_back(question):
        return f"{history[-1].question} {question}"
    return question


def matching(hits: Sequence[Hit], question: str) -> list[Hit]:
    """The hits that hold one of the question's own content words (all of them when it has
    none, as "Why?" has not)."""
    own = set(content_words(question))
    if not own:
        return list(hits)
    return [h for h in hits if own & set(content_words(h.text))]
