"""Words of German, French, Spanish, Italian, Portuguese and Dutch passages for the full-text
index: each reduced to its stem by that language's Snowball stemmer.

The full-text index over the chunks' text stems every word as English, whatever its language,
so "Paket" and "Paketen", "installé" and "installer" stay different words and a question finds
a passage only by the very forms it uses. A chunk whose language is clear
(desktop_rag/languages.py) keeps its words stemmed as that language, its function words left
out, in a column of its own (`stems`) with a full-text index that neither stems nor drops stop
words again; a question in such a language is asked of its stems too. English passages, and
any passage whose language is not clear, have no stems: English libraries index and search as
before.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any

from desktop_rag.languages import (
    DUTCH,
    ENGLISH,
    FRENCH,
    GERMAN,
    ITALIAN,
    PORTUGUESE,
    SPANISH,
    listed,
    question_language,
    text_language,
)

# snowballstemmer's algorithm for each language stemmed.
ALGORITHMS = {
    GERMAN: "german",
    FRENCH: "french",
    SPANISH: "spanish",
    ITALIAN: "italian",
    PORTUGUESE: "portuguese",
    DUTCH: "dutch",
}
# Words as the full-text index's tokenizer splits them (on anything but letters and digits);
# the elided article of l'installation or dell'utente is a word of its own, left out as a stop
# word.
_TOKEN = re.compile(r"[^\W_]+")
_ELIDED = frozenset({
    "l", "d", "qu", "n", "c", "s", "j", "m", "t",  # French
    "dell", "all", "nell", "sull", "dall", "un", "quest", "quell",  # Italian
})  # fmt: skip
_local = threading.local()  # a stemmer keeps state while it works: one per thread


def _stemmer(lang: str) -> Any:
    stemmers: dict[str, Any] = getattr(_local, "stemmers", {})
    _local.stemmers = stemmers
    if lang not in stemmers:
        import snowballstemmer

        stemmers[lang] = snowballstemmer.stemmer(ALGORITHMS[lang])
    return stemmers[lang]


@lru_cache(maxsize=1 << 16)
def stem(lang: str, word: str) -> str:
    """One lower-case word's stem in `lang` (the words of a library repeat: each is stemmed
    once)."""
    return str(_stemmer(lang).stemWord(word))


@lru_cache(maxsize=len(ALGORITHMS))
def _stop_words(lang: str) -> frozenset[str]:
    return listed(lang) | _ELIDED


def stems_in(text: str, lang: str) -> str:
    """The text's words stemmed as `lang`, its stop words left out; "" for English or a
    language not stemmed."""
    if lang not in ALGORITHMS:
        return ""
    stop = _stop_words(lang)
    words = _TOKEN.findall(text.lower())
    return " ".join(stem(lang, w) for w in words if w not in stop)


def stems(text: str) -> str:
    """A passage's stems, as the `stems` column holds them: "" unless its language is clear and
    one of ALGORITHMS (so for English passages)."""
    lang = text_language(text)
    return "" if lang == ENGLISH else stems_in(text, lang)


def question_stems(question: str) -> str:
    """The question's words stemmed as its language when that is clearly one of ALGORITHMS,
    its function words left out; "" otherwise (an English question is asked as before)."""
    lang = question_language(question)
    return "" if lang == ENGLISH else stems_in(question, lang)
