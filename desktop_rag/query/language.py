"""Which language a question is in (English, German, French, Spanish, Italian or Portuguese),
for the refusals said in it: English unless the clues for another language are clear. The clues
are desktop_rag/languages.py's, which the store reads a passage's language by too."""

from __future__ import annotations

from desktop_rag.languages import (
    ENGLISH,
    FRENCH,
    GERMAN,
    ITALIAN,
    LANGUAGES,
    LEAST,
    LETTER_CAP,
    PORTUGUESE,
    REFUSED,
    SPANISH,
    language_among,
    language_of,
    scores,
)

__all__ = [
    "ENGLISH",
    "FRENCH",
    "GERMAN",
    "ITALIAN",
    "LANGUAGES",
    "LEAST",
    "LETTER_CAP",
    "PORTUGUESE",
    "REFUSED",
    "SPANISH",
    "language_among",
    "language_of",
    "scores",
]
