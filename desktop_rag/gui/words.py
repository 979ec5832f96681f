"""The core's fixed words that the window shows, said in the window's language.

The core is Qt-free and English: the command line prints its words, conversations store them
and the tests compare them. The window knows what the fixed ones mean (who wrote an answer,
a passage's page), so it says them itself with its own translated words; what it does not
know (a file's name, a heading, a note made of the answer's words) it shows as the core made it.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QCoreApplication

from desktop_rag import locations
from desktop_rag.types import AnswerMode

CONTEXT = "Words"  # the translations' context of these words (resources/i18n)


def answer_label(mode: str, model: str) -> str:
    """The muted line over an answer saying who wrote it (query/ability.describe's words)."""
    if mode == AnswerMode.WRITTEN:
        if not model:
            return QCoreApplication.translate("Words", "Written by the model from the sources")
        return QCoreApplication.translate("Words", "Written by {model} from the sources").format(
            model=model
        )
    if mode == AnswerMode.LISTING:
        return QCoreApplication.translate("Words", "Listing documents")
    if mode == AnswerMode.OUTLINE:
        return QCoreApplication.translate("Words", "Outline of the document, in its own sentences")
    if mode == AnswerMode.SUMMARY:
        if not model:
            return QCoreApplication.translate(
                "Words",
                "Summary written by the model; below it, the outline in the document's own "
                "sentences",
            )
        return QCoreApplication.translate(
            "Words",
            "Summary written by {model}; below it, the outline in the document's own sentences",
        ).format(model=model)
    return QCoreApplication.translate("Words", "From your documents' own sentences")


def place(path: str, page: int, section: str = "", *, short: bool = False) -> str:
    """locations.place with its page in the window's language: "S. 26" and "Seite 26" in
    German. A section's "§ 3.4" is the same in German, French and Spanish."""
    if short:
        words = QCoreApplication.translate("Words", "p. {page}", "a page, short").format(page=page)
    else:
        words = QCoreApplication.translate("Words", "page {page}").format(page=page)
    return locations.place(path, page, section, short=short, page_words=words)


def cite(path: str, page: int, section: str = "", *, short: bool = False) -> str:
    """locations.cite with its page in the window's language: "bericht.pdf, S. 26"."""
    return f"{os.path.basename(path)}, {place(path, page, section, short=short)}"
