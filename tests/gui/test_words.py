"""The core's fixed words in the window's language (gui/words.py, issue 46, item 3): a German
window labels a composed answer and names a source's page in German, where the core's words
stay English for the command line and the saved conversations."""

from __future__ import annotations

import html
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QLocale, QTranslator
from PySide6.QtWidgets import QApplication

from desktop_rag.conversations import Conversation, Exchange
from desktop_rag.gui import translation, words
from desktop_rag.gui.chat import ChatPane, plain_why
from desktop_rag.gui.doclist import DocumentListModel
from desktop_rag.gui.kindbar import KindBar
from desktop_rag.gui.models import SourcesModel
from desktop_rag.library_service import rebuild_meanwhile, switched_embedder
from desktop_rag.locations import cite, place
from desktop_rag.query.ability import describe
from desktop_rag.query.answer import not_found_note, unbacked_note, withheld_note
from desktop_rag.query.claims import recited_note
from desktop_rag.query.figures import unsupported_note
from desktop_rag.query.kind import (
    _DOCUMENT_RULES,
    _LIBRARY_RULES,
    DOCUMENT,
    LIBRARY,
    PASSAGE,
    Route,
    route,
)
from desktop_rag.routing import CHOSEN, Routed
from desktop_rag.types import AnswerMode, Explanation, Source

I18N = Path(__file__).resolve().parents[2] / "resources" / "i18n"
QUOTE = "Octopus blood is blue because of hemocyanin."
PDF = Source(1, "/docs/octopus.pdf", 26, 0.9, f"Blood. {QUOTE} More.")
MANUAL = Source(2, "/docs/manual.md", 3, 0.8, "Setup.", section="Guide › 3.4 Setup")
MODES = (
    AnswerMode.COMPOSED,
    AnswerMode.WRITTEN,
    AnswerMode.LISTING,
    AnswerMode.OUTLINE,
    AnswerMode.SUMMARY,
)


@pytest.fixture
def language(request, qapp: QApplication) -> Iterator[str]:
    """The window's translators for the test's locale (parametrized), removed after."""
    installed: list[QTranslator] = translation.install(qapp, QLocale(request.param), I18N)
    yield request.param
    for translator in installed:
        QCoreApplication.removeTranslator(translator)


# The core's notes under an answer, each with what the window must keep of it.
NOTES = [
    (withheld_note("tiny.gguf", composed=True), "tiny.gguf"),
    (withheld_note("tiny.gguf"), "tiny.gguf"),
    (withheld_note("", composed=True), ""),
    (withheld_note(""), ""),
    (not_found_note("my model.gguf"), "my model.gguf"),
    (not_found_note(""), ""),
    (unbacked_note(("1987", "Paris")), "1987, Paris"),
    (unbacked_note(tuple("abcdefg")), "a, b, c, d, e …"),
]
FIGURES = [("42 %",), ("1987", "12 kg")]


@pytest.mark.parametrize("language", ["en_US"], indirect=True)
def test_an_english_window_says_the_cores_words(language: str) -> None:
    """Untranslated, the window's words are the core's, word for word."""
    for mode in MODES:
        for model in ("tiny.gguf", ""):
            assert words.answer_label(mode, model) == describe(mode, model)
    for source in (PDF, MANUAL):
        for short in (False, True):
            assert words.place(source.path, source.page, source.section, short=short) == place(
                source.path, source.page, source.section, short=short
            )
            assert words.cite(source.path, source.page, short=short) == cite(
                source.path, source.page, short=short
            )
    for said, _ in NOTES:
        assert words.note(said) == said
    for figures in FIGURES:
        assert words.unsupported_note(figures) == unsupported_note(figures)
    assert words.recited_note(2, [1, 3]) == recited_note(2, [1, 3])


# A page, and a page in short, as each language writes it (French's are English's).
PAGES = {
    "de_DE": ("Seite 26", "S. 26"),
    "fr_FR": ("page 26", "p. 26"),
    "es_ES": ("página 26", "pág. 26"),
}


@pytest.mark.parametrize("language", list(PAGES), indirect=True)
def test_each_label_and_page_is_in_the_windows_language(language: str) -> None:
    """Every answer's label differs from the English and from the others; the page is named
    as the language names it."""
    labels = [words.answer_label(mode, "tiny.gguf") for mode in MODES]
    labels.append(words.answer_label(AnswerMode.WRITTEN, ""))
    labels.append(words.answer_label(AnswerMode.SUMMARY, ""))
    english = [describe(mode, "tiny.gguf") for mode in MODES]
    english += [describe(AnswerMode.WRITTEN, ""), describe(AnswerMode.SUMMARY, "")]
    assert [a == b for a, b in zip(labels, english, strict=True)] == [False] * len(english)
    assert len(set(labels)) == len(labels)
    assert "tiny.gguf" in labels[1] and "tiny.gguf" in labels[4]
    page, short = PAGES[language]
    assert words.place(PDF.path, 26) == page and words.place(PDF.path, 26, short=True) == short
    assert words.cite(PDF.path, 26, short=True) == f"octopus.pdf, {short}"
    # A section is "§ 3.4 Setup" in every language.
    assert words.place(MANUAL.path, 3, MANUAL.section) == "§ 3.4 Setup"


def _chat(qtbot, exchange: Exchange) -> str:
    chat = ChatPane()
    qtbot.addWidget(chat)
    chat.show_conversation(Conversation(exchanges=[exchange]))
    return chat.view.toPlainText().replace("\xa0", " ")


@pytest.mark.parametrize("language", ["de_DE"], indirect=True)
def test_a_german_window_shows_a_composed_answer_in_german(language: str, qtbot) -> None:
    """The label over a composed answer and its source's page, as the chat draws them."""
    answer = f"{QUOTE} [1]"
    e = Exchange("Warum ist das Blut blau?", answer=answer, sources=[PDF, MANUAL], cited=[1])
    e.mode = AnswerMode.COMPOSED
    shown = _chat(qtbot, e)
    assert "Aus den eigenen Sätzen Ihrer Dokumente" in shown
    assert "From your documents' own sentences" not in shown
    assert "[1] S. 26" in shown and "p. 26" not in shown
    assert "[2] § 3.4 Setup" in shown

    written = Exchange("Warum?", answer="Blau [1].", sources=[PDF], cited=[1], model="tiny.gguf")
    written.mode = AnswerMode.WRITTEN
    shown = _chat(qtbot, written)
    assert "Von tiny.gguf aus den Quellen geschrieben" in shown
    assert "Written by" not in shown


@pytest.mark.parametrize("language", ["de_DE"], indirect=True)
def test_the_source_lists_name_the_page_in_german(language: str, qtbot) -> None:
    sources = SourcesModel()
    sources.set_sources([PDF, MANUAL])
    first = html.unescape(sources.data(sources.index(0, 0)))
    assert first == "[1] octopus.pdf, Seite 26"
    assert sources.data(sources.index(1, 0)) == "[2] manual.md, § 3.4 Setup"
    documents = DocumentListModel()
    documents.set_sources([PDF])
    assert documents.data(documents.index(0, 2)) == "S. 26"


@pytest.mark.parametrize("language", list(PAGES), indirect=True)
def test_the_cores_notes_in_the_windows_language(language: str) -> None:
    """Each note of the core is said in the window's language, keeping the model's name or the
    answer's words; a note the window does not know is shown as the core made it."""
    said = [words.note(text) for text, _ in NOTES]
    assert [a == b for a, b in zip(said, (t for t, _ in NOTES), strict=True)] == [False] * len(
        NOTES
    )
    assert all(kept in note for note, (_, kept) in zip(said, NOTES, strict=True))
    assert len(set(said)) == len(said)
    unknown = "The team library did not answer: its server is not reachable."
    assert words.note(unknown) == unknown
    for figures in FIGURES:
        note = words.unsupported_note(figures)
        assert note != unsupported_note(figures) and all(f in note for f in figures)
    recited = words.recited_note(2, [1, 3])
    assert recited != recited_note(2, [1, 3]) and "[2]" in recited and "[1], [3]" in recited


@pytest.mark.parametrize("language", ["de_DE"], indirect=True)
def test_a_german_window_says_why_an_answer_was_withheld(language: str, qtbot) -> None:
    """A written answer replaced by the sources' sentences: its note under it, in German."""
    answer = f"{QUOTE} [1]"
    e = Exchange("Warum ist das Blut blau?", answer=answer, sources=[PDF], cited=[1])
    e.mode = AnswerMode.COMPOSED
    e.note = withheld_note("tiny.gguf", composed=True)
    e.unsupported = ["1987"]
    shown = _chat(qtbot, e)
    assert "tiny.gguf hat mit Wörtern geantwortet" in shown
    assert "answered in words" not in shown


# Every line the kind bar can be given: each rule of query/kind.py, a kind chosen, a document
# question naming no document, and a document whose name has brackets of its own.
RULES = [rule for rule, _ in (*_LIBRARY_RULES, *_DOCUMENT_RULES)] + [route("Summarise please").rule]
LINES = [
    Routed(Route(PASSAGE)).line,
    Routed(Route(PASSAGE, CHOSEN)).line,
    Routed(Route(PASSAGE), notice="no document").line,
    Routed(Route(LIBRARY, CHOSEN)).line,
    Routed(Route(DOCUMENT, CHOSEN), "/docs/report (1).pdf").line,
    *(Routed(Route(LIBRARY, rule)).line for rule in RULES),
    *(Routed(Route(DOCUMENT, rule), "/docs/report (1).pdf").line for rule in RULES),
]


def test_every_rule_of_the_kinds_is_known_to_the_window() -> None:
    """A rule added to query/kind.py needs its words here, or it shows in English."""
    assert "asks for a summary" in RULES and len(set(RULES)) > 10
    assert set(RULES) <= words.REASONS


@pytest.mark.parametrize("language", ["en_US"], indirect=True)
def test_an_english_kind_bar_says_the_routing_line(language: str) -> None:
    assert [words.kind_line(line) for line in LINES] == LINES


@pytest.mark.parametrize("language", list(PAGES), indirect=True)
def test_the_kind_bar_in_the_windows_language(language: str, qtbot) -> None:
    """Each line differs from the English and keeps a document's name, brackets and all."""
    said = [words.kind_line(line) for line in LINES]
    assert [a == b for a, b in zip(said, LINES, strict=True)] == [False] * len(LINES)
    assert all(
        "report (1).pdf" in s for s, line in zip(said, LINES, strict=True) if "report" in line
    )
    assert len(set(said)) == len(set(LINES))
    assert words.kind_line("Something new (a new rule)") == "Something new (a new rule)"
    bar = KindBar()
    qtbot.addWidget(bar)
    bar.show_kind(PASSAGE, Routed(Route(PASSAGE)).line)
    assert bar.label.text() == words.kind_line("Answering from passages")
    assert bar.label.text() != "Answering from passages"


# How the search ranked a passage ("Why these?"), as each language says it.
RANKED = Explanation(text_rank=3, text_score=7.5, vector_rank=1, similarity=0.61, sentence=0.9)
UNRANKED = Explanation(text_rank=None, vector_rank=None, demoted="navigation page")
WHY = {
    "en_US": (
        "3rd best match for your words · 1st closest in meaning · moved up for its best sentence",
        "none of your words · not among the closest in meaning · moved down: navigation page",
    ),
    "de_DE": (
        "an 3. Stelle nach Ihren Wörtern · an 1. Stelle nach der Bedeutung · wegen seines "
        "besten Satzes nach oben gerückt",
        "keines Ihrer Wörter · nach der Bedeutung nicht unter den nächsten · nach unten "
        "gerückt: navigation page",
    ),
    "fr_FR": (
        "n° 3 pour vos mots · n° 1 par le sens · remonté grâce à sa meilleure phrase",
        "aucun de vos mots · pas parmi les plus proches par le sens · descendu : navigation page",
    ),
}


@pytest.mark.parametrize("language", list(WHY), indirect=True)
def test_the_ranking_in_the_windows_words(language: str) -> None:
    """English keeps its 1st, 2nd, 3rd; a translation writes ranks its own way."""
    assert (plain_why(RANKED), plain_why(UNRANKED)) == WHY[language]


# The rebuild questions the core asks after the embedder was switched (issue 46, item 1).
SWITCHED = [
    switched_embedder(True) + "\n\n" + rebuild_meanwhile(60),
    switched_embedder(False) + "\n\n" + rebuild_meanwhile(600),
]


@pytest.mark.parametrize("language", ["en_US", "de_DE", "fr_FR", "es_ES"], indirect=True)
def test_the_rebuild_after_switching_the_embedder_is_asked_in_the_windows_language(
    language: str,
) -> None:
    said = [words.rebuild_question(q) for q in SWITCHED]
    if language == "en_US":
        assert said == SWITCHED
        return
    assert all(s != q for s, q in zip(said, SWITCHED, strict=True))
    assert " 1 " in said[0] and " 10 " in said[1]
    assert all(english not in s for s in said for english in ("embedder", "rebuilt", "meanwhile"))
    other = "The index in /x was built differently.\n\n" + rebuild_meanwhile(60)
    assert words.rebuild_question(other).startswith("The index in /x was built differently.")
    assert words.rebuild_question("anything else") == "anything else"
