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


# "the second one", "the last one", "the latter": an item of the previous answer.
_POINTS_AT = re.compile(
    r"\bthe (first|second|third|fourth|fifth|last|former|latter)\b(?: ones?\b)?|"
    r"\b(former|latter)\b",
    re.I,
)
_ORDINAL = {
    "first": 0,
    "second": 1,
    "third": 2,
    "fourth": 3,
    "fifth": 4,
    "last": -1,
    "former": 0,
    "latter": -1,
}
# Words of a pointing question that name no subject of its own.
_POINTER_WORDS = frozenset({*_ORDINAL, "one", "ones"})
_CITATION = re.compile(r"\s*\[\d+(?:\s*[,;–-]\s*\d+)*\]")
_LISTED = re.compile(r"^\s*(?:[-•*]|\d{1,2}[.)])\s+(.+?)\s*$", re.M)
# A word that ends a noun phrase on its right: "equine rotavirus were found" is "equine
# rotavirus".
_PHRASE_ENDS_TEXT = """is are was were be been have has had do does did can could may might will
    would should in on at to for from by with of that which who as than when where while"""
_PHRASE_ENDS = frozenset(_PHRASE_ENDS_TEXT.split())
ITEM_WORDS = 5


def answer_items(answer: str) -> list[str]:
    """The things an answer names in a row: its list's lines, or the parts of its first
    "A, B and C" (each on the left as long as the one on its right: "tested for equine
    coronavirus and equine rotavirus" names "equine coronavirus" and "equine rotavirus")."""
    text = _CITATION.sub("", answer)
    listed = [m.group(1).strip(" .;:") for m in _LISTED.finditer(text)]
    if len(listed) >= 2:
        return listed
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
        match = re.search(r"^(?P<left>.+?),?\s+(?:and|or)\s+(?P<right>[^,;:.!?()]+)", sentence)
        if match is None:
            continue
        right: list[str] = []
        for word in match.group("right").split():
            if word.lower() in _PHRASE_ENDS or len(right) == ITEM_WORDS:
                break
            right.append(word)
        parts = [p.strip() for p in match.group("left").split(",")]
        first = parts[0].split()[-len(right) :] if right else []
        items = [" ".join(first), *parts[1:], " ".join(right)]
        items = [i.strip(" .;:") for i in items if i.strip(" .;:")]
        if len(items) >= 2:
            return items
    return []


def pointed_item(question: str, answer: str) -> str | None:
    """The item of the previous answer a follow-up points at ("the second one"), if any."""
    found = _POINTS_AT.search(question)
    if found is None:
        return None
    items = answer_items(answer)
    k = _ORDINAL[(found.group(1) or found.group(2)).lower()]
    if not items or k >= len(items):
        return None
    return items[k]


# "it", "its", "that one", "this one": one thing the previous answer named. Other pointing
# words ("they", "these") leave the question as it was.
_SINGULAR = re.compile(r"\b(?:(?:that|this) one|its|it)\b", re.I)
_PLURAL_POINTING = _POINTING - {"it", "its", "itself", "this", "former", "latter", "same", "such"}
# "Is it possible to…", "Is it true that…", "does it take…": an "it" that stands for nothing.
_EMPTY_IT = re.compile(
    r"\bit\s+(?:(?:is|was|'s|be)\s+)?(?:possible|true|safe|likely|unlikely|known|necessary|"
    r"important|better|best|worth|ok|okay|useful|common|normal|hard|easy|difficult|advisable|"
    r"recommended|allowed|wise|time)\s+(?:to|that|whether|if|for)\b|\bit\s+takes?\b",
    re.I,
)
# The words an answer's subject may not start with: pronouns and "there" say nothing of it.
_NO_SUBJECT_TEXT = """it its they them their this these those there here he she we you i
    the a an some any no such one"""
_NO_SUBJECT = frozenset(_NO_SUBJECT_TEXT.split())
# "it" is one thing: a subject followed by "is" or "was", not "are" or "were".
_SINGULAR_BE = frozenset({"is", "was"})
_JOINING = frozenset({"and", "or", "&"})
_LABEL = re.compile(r"^[A-Z][a-z]+:\s+")
_LEAD = re.compile(r"^(?:\s|…)+|^According to \[\d+\],?\s*", re.I)


def answer_subject(answer: str) -> str | None:
    """The one thing an answer is about, when it names one clearly: a bare answer ("Equine
    coronavirus [1].") or its first sentence's singular subject ("Equine coronavirus was
    detected…"). None when it lists several things, joins them ("A and B"), or its subject
    is plural, a pronoun, "there", an article's vaguer "the samples", or longer than
    ITEM_WORDS words."""
    if len(_LISTED.findall(_CITATION.sub("", answer))) >= 2:
        return None
    text = _CITATION.sub("", _LEAD.sub("", answer)).strip()
    first = re.split(r"(?<=[.!?])\s+|\n+", text, maxsplit=1)[0].strip(" .;:!?")
    first = _LABEL.sub("", first)  # "Text: Equine coronavirus…": a page's label, not a word
    words = first.split()
    bare = [w.lower().strip(",;:()") for w in words]
    # It starts as a sentence does: "According to [1], open Tools." names no subject.
    if not words or bare[0] in _NO_SUBJECT or not (words[0][:1].isupper() or words[0][0].isdigit()):
        return None
    if len(words) <= ITEM_WORDS and not set(bare) & _PHRASE_ENDS:
        phrase = words
    else:
        end = next((k for k, w in enumerate(bare) if w in _PHRASE_ENDS), len(words))
        if not 0 < end <= ITEM_WORDS or bare[end] not in _SINGULAR_BE:
            return None
        phrase = words[:end]
    subject = " ".join(phrase)
    if set(bare[: len(phrase)]) & _JOINING or any(c in subject for c in ",;:"):
        return None
    # A sentence's capital is not the name's: "Equine coronavirus" reads "equine coronavirus"
    # inside a question, but an acronym or a name keeps its capitals.
    head = phrase[0]
    if head[:1].isupper() and head[1:].islower():
        subject = head.lower() + subject[len(head) :]
    return subject


def resolve_pointer(question: str, answer: str) -> str | None:
    """The follow-up with its "it", "its", "that one" or "this one" replaced by the previous
    answer's one clear subject (`answer_subject`); None when it has no such word, points at
    more than one thing ("they"), uses "it" for nothing ("is it possible to…"), or the
    answer names no one subject: the question is then left as it was."""
    words = {w.lower() for w in _WORD.findall(question)}
    if words & _PLURAL_POINTING or _EMPTY_IT.search(question):
        return None
    if not _SINGULAR.search(question):
        return None
    subject = answer_subject(answer)
    if subject is None:
        return None
    return _SINGULAR.sub(subject, question)


def refers_back(question: str) -> bool:
    """Whether the question cannot be understood without the one before it."""
    if _CONTINUING.match(question) or _POINTS_AT.search(question):
        return True
    words = [w.lower() for w in _WORD.findall(question)]
    if set(words) & _POINTING:
        return True
    if len(content_words(question)) <= ELLIPSIS_WORDS:
        return True
    return len(words) <= FRAGMENT_WORDS and words[0] not in _QUESTION_OPENERS


def retrieval_query(question: str, history: Sequence[Turn]) -> str:
    """The question, joined to the previous one only when it refers back to it; one that
    points at an item of the previous answer ("and what about the second one?") is asked
    about that item (it was asked about the previous question's subject, the first item), and
    its "it" or "that one" is the previous answer's subject when it named one clearly."""
    if history and refers_back(question):
        item = pointed_item(question, history[-1].answer)
        if item is not None:
            return f"{history[-1].question} {item}"
        resolved = resolve_pointer(question, history[-1].answer)
        return f"{history[-1].question} {resolved or question}"
    return question


def answer_query(question: str, history: Sequence[Turn]) -> str:
    """What the composed answer answers: the follow-up itself when its "it" could be resolved
    ("Why is the octopus's blood blue?"), else what retrieval searched (`retrieval_query`: a
    bare "Why?" needs the question before it). Joined to the previous question, the follow-up
    was answered with the previous answer's sentences again."""
    if history and refers_back(question):
        previous = history[-1].answer
        if pointed_item(question, previous) is None:
            resolved = resolve_pointer(question, previous)
            if resolved is not None:
                return resolved
    return retrieval_query(question, history)


def matching(hits: Sequence[Hit], question: str) -> list[Hit]:
    """The hits that hold one of the question's own content words (all of them when it has
    none, as "Why?" has not)."""
    own = set(content_words(question)) - _POINTER_WORDS
    if not own:
        return list(hits)
    return [h for h in hits if own & set(content_words(h.text))]
