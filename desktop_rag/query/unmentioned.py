"""The names a question asks about that no passage of the library mentions.

"How do I connect R to a Snowflake data warehouse?" asked of R's manuals finds passages on
databases and connections, and every sentence of them is a near miss: the cross-encoder gave
the best of them 0.2-0.6, as high as for questions the manuals do answer. What the documents
lack is the one name the question is about. So a question whose name (a product, a place, a
program: a capitalised word inside the sentence, an acronym, a CamelCase or dotted name, or a
run of them such as "Visual Studio Code") is in no passage, even with a letter or two off for
a misspelling, is answered "your documents don't seem to mention it" unless a sentence of the
sources answers it with the cross-encoder's near certainty (query/answer.py).

Plain words are left to the other checks: a user's "garbles" or "misbehaved" is missing from a
manual that answers the question in its own words, while a name is written the same way by
the user and the document.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

# Capitalised words that are not names of something a document would mention.
_NOT_NAME_WORDS = "i i'm i've i'd i'll ok okay hi hello please thanks yes no"
_NOT_NAMES = frozenset(_NOT_NAME_WORDS.split())
# A word as the user typed it: letters and digits, with inner dots, dashes, pluses or hashes
# (Node.js, COVID-19, C++, F#).
_TOKEN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9]|[.\-+#'’](?=[A-Za-z0-9+#]))*[+#]*")
_CODE = "{}\\<>/=_[]$%@"
# What a sentence, or a quotation within it, starts after: its first word is capitalised anyway.
_OPENS = ".?!:;\"“'‘(-–—"


class Mentions(Protocol):
    def mentions(self, words: str, fuzziness: int) -> bool: ...


def _is_name(token: str, starts_sentence: bool) -> bool:
    # A code with a figure ("FY2023", "Q2") or an abbreviation of three letters or fewer
    # ("FY", "US", "JnJ") is written out or spelt otherwise by the documents that answer it:
    # 16 of 20 financebench questions named one their filings never print so.
    if len(token) <= 3 or any(ch.isdigit() for ch in token) or token.lower() in _NOT_NAMES:
        return False
    word = token.split("'")[0].split("’")[0]
    if re.search(r"[a-z][A-Z]|[A-Z]{2}", word):  # DuckDB, iPhone, LaTeX, COVID, HCQ
        return True
    if re.search(r"[A-Za-z]\.[A-Za-z]", word):  # Node.js
        return True
    return word[0].isupper() and not starts_sentence


def names(question: str) -> list[str]:
    """The names in a question, in its order; neighbouring names are one ("Raspberry Pi")."""
    out: list[str] = []
    run: list[str] = []
    last_end = 0
    for m in _TOKEN.finditer(question):
        between = question[last_end : m.start()]
        before = question[: m.start()].rstrip()
        starts = not before or before[-1] in _OPENS
        token = m.group(0)
        # A word of code ("\\mathsf{Hello}", "Array<T>", "$HOME/Docs") is not a name.
        code = question[m.start() - 1 : m.start()] + question[m.end() : m.end() + 1]
        if any(ch in _CODE for ch in code):
            token = ""
        token = re.sub(r"['’]s$", "", token)
        if _is_name(token, starts):
            if run and between.strip() == "":
                run.append(token)
            else:
                if run:
                    out.append(" ".join(run))
                run = [token]
        elif run:
            out.append(" ".join(run))
            run = []
        last_end = m.end()
    if run:
        out.append(" ".join(run))
    first: dict[str, str] = {}
    for name in out:
        first.setdefault(name.lower(), name)
    return list(first.values())


def fuzziness(word: str) -> int:
    """The letters a misspelt name may be off by: none in a short one (too many other words
    are a letter from "Fira" or "Slack"), one up to nine letters, two beyond."""
    return 0 if len(word) <= 5 else 1 if len(word) <= 9 else 2


# English words a question is hardly asked without; a question with fewer than two of them,
# not opened by an English question word, is taken for another language's, where capitals
# mark nouns, not names ("den Drucker").
_ENGLISH_WORDS = (
    "a an the to of in on for with from about is are was were be do does did can could should "
    "would will i my me we our you your it its this that these those how what which who why "
    "when where there and or not"
)
_ENGLISH = frozenset(_ENGLISH_WORDS.split())


_OPENER_WORDS = "what which how why where when who can could does do is are should"
_OPENERS = frozenset(_OPENER_WORDS.split())


def english(question: str) -> bool:
    """Two of those words, or an English question's first word ("Which LaTeX package …")."""
    words = re.findall(r"[a-z]+", question.lower())
    return sum(w in _ENGLISH for w in words) >= 2 or bool(words and words[0] in _OPENERS)


def unmentioned(store: Mentions, question: str) -> list[str]:
    """The question's names that no passage holds (all of a name's words in one passage); none
    for a question not in English (`english`)."""
    if not english(question):
        return []
    missing = []
    for name in names(question):
        words = re.findall(r"[a-z0-9]+", name.lower())
        if not words:
            continue
        fuzz = fuzziness(words[0]) if len(words) == 1 else 0
        if not store.mentions(" ".join(words), fuzz):
            missing.append(name)
    return missing


def quoted(missing: Sequence[str]) -> str:
    """“Snowflake”, “Snowflake” or “Plumber”, “A”, “B” or “C”."""
    marks = [f"“{n}”" for n in missing[:3]]
    return marks[0] if len(marks) == 1 else ", ".join(marks[:-1]) + " or " + marks[-1]
