"""The core's fixed words that the window shows, said in the window's language.

The core is Qt-free and English: the command line prints its words, conversations store them
and the tests compare them. The window knows what the fixed ones mean (who wrote an answer,
a passage's page), so it says them itself with its own translated words; what it does not
know (a file's name, a heading, a note made of the answer's words) it shows as the core made it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from desktop_rag import locations
from desktop_rag.library_service import rebuild_meanwhile, switched_embedder
from desktop_rag.query.answer import not_found_note, unbacked_note, withheld_note
from desktop_rag.query.figures import unsupported_note as figures_note
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


# The notes under an answer are the core's sentences with a model's name or the answer's words
# in them (query/answer.py, query/figures.py). Each is matched against the core's own sentence
# made with SLOT where the name or the words go, so a note the core words differently, or one
# the window does not know, is shown as the core made it rather than translated wrongly.
SLOT = "\x00"


def _filled(text: str, template: str) -> str | None:
    """What `text` holds where `template` has its SLOT; None when it is not that sentence."""
    head, _, tail = template.partition(SLOT)
    if len(text) > len(head) + len(tail) and text.startswith(head) and text.endswith(tail):
        return text[len(head) : len(text) - len(tail)]
    return None


def note(text: str) -> str:
    """A note under an answer in the window's language, when it is one of the core's."""
    if text == withheld_note("", composed=True):
        return QCoreApplication.translate(
            "Words",
            "The model answered in words its sources do not hold, from what it knows rather "
            "than from your documents, so their own sentences are shown instead.",
        )
    if text == withheld_note(""):
        return QCoreApplication.translate(
            "Words",
            "The model answered in words its sources do not hold, from what it knows rather "
            "than from your documents, so its answer is not shown.",
        )
    if text == not_found_note(""):
        return QCoreApplication.translate(
            "Words",
            "The model found no answer in the sources, so the sentences of them that seem to "
            "answer are shown instead.",
        )
    if (model := _filled(text, withheld_note(SLOT, composed=True))) is not None:
        return QCoreApplication.translate(
            "Words",
            "{model} answered in words its sources do not hold, from what it knows rather than "
            "from your documents, so their own sentences are shown instead.",
        ).format(model=model)
    if (model := _filled(text, withheld_note(SLOT))) is not None:
        return QCoreApplication.translate(
            "Words",
            "{model} answered in words its sources do not hold, from what it knows rather than "
            "from your documents, so its answer is not shown.",
        ).format(model=model)
    if (model := _filled(text, not_found_note(SLOT))) is not None:
        return QCoreApplication.translate(
            "Words",
            "{model} found no answer in the sources, so the sentences of them that seem to "
            "answer are shown instead.",
        ).format(model=model)
    if (listed := _filled(text, unbacked_note((SLOT,)))) is not None:
        return QCoreApplication.translate(
            "Words",
            "The model's answer said {words}, which its sources do not, so their own sentences "
            "are shown instead.",
        ).format(words=listed)
    return text


def unsupported_note(figures: tuple[str, ...]) -> str:
    """figures.unsupported_note in the window's language: the figures an answer names that
    its sources lack."""
    said = figures_note(figures)
    if len(figures) == 1:
        listed = _filled(said, figures_note((SLOT,)))
        if listed is not None:
            return QCoreApplication.translate(
                "Words", "Check this answer: {figures} does not appear in its sources."
            ).format(figures=listed)
    else:
        several = figures_note((SLOT, SLOT)).replace(f"{SLOT}, {SLOT}", SLOT)
        listed = _filled(said, several)
        if listed is not None:
            return QCoreApplication.translate(
                "Words", "Check this answer: {figures} do not appear in its sources."
            ).format(figures=listed)
    return said


def recited_note(n: int, was: Sequence[int]) -> str:
    """claims.recited_note in the window's language: the answer is cited to source `n`, which
    holds its words, rather than to the sources the model cited (`was`)."""
    return QCoreApplication.translate(
        "Words", "Cited [{n}]: its words are there, not in {sources} as the model wrote."
    ).format(n=n, sources=", ".join(f"[{m}]" for m in was))


# Why a question was taken as its kind, as routing.Routed.line says it: the rules of
# query/kind.py, a kind the user chose, and a document question that names no document.
# Marked here for the translation files, translated where the kind bar shows them.
REASONS = frozenset(
    str(reason)
    for reason in (
        QT_TRANSLATE_NOOP("Words", "as you chose"),
        QT_TRANSLATE_NOOP("Words", "it asks about one document but names none"),
        QT_TRANSLATE_NOOP("Words", "asks for a summary or an outline"),
        QT_TRANSLATE_NOOP("Words", "asks for a summary"),
        QT_TRANSLATE_NOOP("Words", "asks what a document is about"),
        QT_TRANSLATE_NOOP("Words", "asks for a document's main points"),
        QT_TRANSLATE_NOOP("Words", "asks for the contents or the structure"),
        QT_TRANSLATE_NOOP("Words", "asks what a part or a document covers"),
        QT_TRANSLATE_NOOP("Words", "asks to read a document for the user"),
        QT_TRANSLATE_NOOP("Words", "asks which documents"),
        QT_TRANSLATE_NOOP("Words", "counts documents"),
        QT_TRANSLATE_NOOP("Words", "lists documents"),
        QT_TRANSLATE_NOOP("Words", "asks whether any document has it"),
        QT_TRANSLATE_NOOP("Words", "asks about the library or a collection"),
    )
)
OUTLINE_OF = "Outline of "  # routing.Routed.label's words before a document's name


def kind_line(line: str) -> str:
    """The kind bar's line (routing.Routed.line: "Listing documents (counts documents)",
    "Answering from passages") in the window's language; a line it does not know as is."""
    said, why = line, ""
    if line.endswith(")"):
        head, _, inner = line[:-1].rpartition(" (")
        if inner in REASONS:
            said, why = head, QCoreApplication.translate("Words", inner)
    if said == "Answering from passages":
        said = QCoreApplication.translate("Words", "Answering from passages")
    elif said == "Listing documents":
        said = QCoreApplication.translate("Words", "Listing documents")
    elif said.startswith(OUTLINE_OF):
        said = QCoreApplication.translate("Words", "Outline of {name}").format(
            name=said[len(OUTLINE_OF) :]
        )
    else:
        return line
    return f"{said} ({why})" if why else said


def rebuild_question(text: str) -> str:
    """LibraryService.rebuild_question in the window's language where the core's words are
    known: why (the embedder switched in the settings) and how long. A reason the window
    does not know (the index's own words on what differs) is shown as the core made it."""
    head, sep, tail = text.rpartition("\n\n")
    if not sep:
        return text
    if head == switched_embedder(True):
        head = QCoreApplication.translate(
            "Words",
            "Your library is now read by the multilingual embedder (Settings > “My documents "
            "are in several languages”), and its index was made by the English one, so it must "
            "be rebuilt. Until then it is searched by its words only.",
        )
    elif head == switched_embedder(False):
        head = QCoreApplication.translate(
            "Words",
            "Your library is read by the English embedder again, and its index was made by the "
            "multilingual one, so it must be rebuilt. Until then it is searched by its words "
            "only.",
        )
    minutes = next((int(w) for w in tail.split() if w.isdigit()), 0)
    if minutes and tail == rebuild_meanwhile(minutes * 60):
        tail = (
            QCoreApplication.translate(
                "Words",
                "A rebuild should take about 1 minute; the current index keeps answering "
                "meanwhile.",
            )
            if minutes == 1
            else QCoreApplication.translate(
                "Words",
                "A rebuild should take about {minutes} minutes; the current index keeps "
                "answering meanwhile.",
            ).format(minutes=minutes)
        )
    return f"{head}\n\n{tail}"
