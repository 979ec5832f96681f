"""A document row's "Outline": built off the GUI thread, shown in the chat as an answer whose
[n] open the cited pages, stopped by Stop; and with the real embedder on a real PDF."""

from __future__ import annotations

import re
import shutil
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QMenu

from tests.helpers.window import choose_in_context_menu, names
from tests.pdfgen import make_pdf

PAGES = [
    "1 Getting started\nUnpack the kettle and rinse it with clean water before the first use. "
    "Place the kettle on a flat and dry surface away from the edge of the table.",
    "2 Battery care\nThe battery charges fully in about two hours from the supplied adapter. "
    "Keep the battery away from heat and sunlight while it is charging.",
    "3 Cleaning\nDescale the kettle every month with a mixture of vinegar and water. "
    "Never put the kettle or its base in the dishwasher or under running water.",
]


def _outline_from_menu(window, qtbot, monkeypatch, path: str) -> None:
    """Right-click the file's row and choose Outline, as the user does."""
    from desktop_rag.gui import documents

    assert documents.QMenu is QMenu
    with qtbot.waitSignal(window.session.answer_finished, timeout=60_000):
        choose_in_context_menu(window, path, "Outline", monkeypatch)


@pytest.fixture
def manual(tmp_path: Path) -> Path:
    folder = tmp_path / "kettle"
    make_pdf(folder / "kettle.pdf", PAGES)
    return folder / "kettle.pdf"


def test_a_rows_outline_shows_in_the_chat_and_its_citations_open_their_pages(
    open_window, qtbot, monkeypatch, manual
) -> None:
    window = open_window()
    window.session.add_folder(str(manual.parent))
    qtbot.waitUntil(lambda: "kettle.pdf" in names(window, "indexed"), timeout=30_000)
    qtbot.waitUntil(lambda: not window.session.indexing, timeout=30_000)

    _outline_from_menu(window, qtbot, monkeypatch, str(manual))
    exchange = window.current.exchanges[-1]
    assert exchange.question == "Outline of kettle.pdf"
    assert exchange.answer.startswith("Outline of kettle.pdf (3 pages)")
    assert exchange.mode == "outline" and not exchange.error
    by_page = {s.page: s.n for s in exchange.sources}
    assert sorted(by_page) == [1, 2, 3]
    assert f"2 Battery care [{by_page[2]}]" in exchange.answer
    assert f"while it is charging. [{by_page[2]}]" in exchange.answer
    assert any(q.n == by_page[2] and "charging" in q.text for q in exchange.quotes)

    index = len(window.current.exchanges) - 1
    window.chat.view.anchorClicked.emit(QUrl(f"cite:{index}:{by_page[3]}"))
    qtbot.waitUntil(lambda: window.sources.current_page == 3, timeout=10_000)


def test_stop_cancels_an_outline_being_built_and_keeps_nothing(open_window, qtbot, manual) -> None:
    window = open_window()
    window.session.add_folder(str(manual.parent))
    qtbot.waitUntil(lambda: "kettle.pdf" in names(window, "indexed"), timeout=30_000)
    qtbot.waitUntil(lambda: not window.session.indexing, timeout=30_000)
    app = window.session.app
    embed = app.embedder.embed
    entered, release = threading.Event(), threading.Event()

    def held(texts):  # the outline's first sentences wait here until the test lets them go
        entered.set()
        release.wait(10)
        return embed(texts)

    app.embedder.embed = held
    try:
        with qtbot.waitSignal(window.session.answer_finished, timeout=30_000):
            window.outline(str(manual))
            qtbot.waitUntil(entered.is_set, timeout=10_000)
            window.session.stop_answer()
            release.set()
    finally:
        app.embedder.embed = embed
    exchange = window.current.exchanges[-1]
    assert exchange.stopped and not exchange.answer
    folder = app.settings.data_path / "outlines"
    assert not folder.exists() or not any(folder.iterdir())


@pytest.mark.slow
def test_the_outline_of_a_real_pdf_with_bookmarks_with_the_real_embedder(
    open_window, qtbot, corpus: Path, tmp_path: Path
) -> None:
    pdf = corpus / "financebench" / "pdfs" / "AMCOR_2023Q4_EARNINGS.pdf"
    if not pdf.is_file():
        pytest.skip("the AMCOR earnings release is not in the corpus")
    folder = tmp_path / "reports"
    folder.mkdir()
    shutil.copy(pdf, folder / pdf.name)
    window = open_window(app_factory=None)
    window.session.add_folder(str(folder))
    qtbot.waitUntil(lambda: pdf.name in names(window, "indexed"), timeout=240_000)
    qtbot.waitUntil(lambda: not window.session.indexing, timeout=240_000)

    with qtbot.waitSignal(window.session.answer_finished, timeout=240_000):
        window.outline(str(folder / pdf.name))
    exchange = window.current.exchanges[-1]
    assert not exchange.error, exchange.error
    by_page = {s.page: s.n for s in exchange.sources}
    for title, page in (("Highlights", 1), ("Outlook and Other", 5), ("GAAP Balance Sheet", 9)):
        assert f"{title} [{by_page[page]}]" in exchange.answer
    index = len(window.current.exchanges) - 1
    window.chat.view.anchorClicked.emit(QUrl(f"cite:{index}:{by_page[5]}"))
    qtbot.waitUntil(lambda: window.sources.current_page == 5, timeout=30_000)


def test_a_model_that_writes_summarises_the_rows_outline_above_it(
    open_window, qtbot, monkeypatch, manual
) -> None:
    from tests.fakes import FakeLlm

    window = open_window()
    window.session.add_folder(str(manual.parent))
    qtbot.waitUntil(lambda: "kettle.pdf" in names(window, "indexed"), timeout=30_000)
    qtbot.waitUntil(lambda: not window.session.indexing, timeout=30_000)
    service = window.session.app.answer
    service.mode = "written"  # as a model that passed the ability rule
    service.use_llm(FakeLlm("Descale the kettle every month with vinegar and water [1][2][3]."))

    _outline_from_menu(window, qtbot, monkeypatch, str(manual))
    exchange = window.current.exchanges[-1]
    assert exchange.mode == "summary" and exchange.model == "fake", exchange.answer
    summary, outline = exchange.answer.split("\n\n", 1)
    assert summary.startswith("Descale the kettle every month")
    assert outline.startswith("Outline of kettle.pdf (3 pages)")
    shown = window.chat.view.toPlainText()
    assert "Summary written by fake" in shown and "Outline of kettle.pdf" in shown


@pytest.mark.slow
def test_a_papers_own_reference_numbers_are_not_links_in_its_outline(
    open_window, qtbot, corpus: Path, tmp_path: Path
) -> None:
    # Issue 41: "[16]" and "[10, 12]" of the article were links; a click said "[16] is not
    # one of this answer's sources". Only the outline's own [n] are links.
    folder = tmp_path / "papers"
    folder.mkdir()
    papers = ("1545.pdf", "1548.pdf", "1554.pdf", "1556.pdf")
    for name in papers:
        shutil.copy(corpus / "covid-qa" / "pdf" / name, folder / name)
    window = open_window(app_factory=None)
    window.session.add_folder(str(folder))
    qtbot.waitUntil(lambda: set(papers) <= names(window, "indexed"), timeout=240_000)
    qtbot.waitUntil(lambda: not window.session.indexing, timeout=240_000)
    for name in papers:
        with qtbot.waitSignal(window.session.answer_finished, timeout=240_000):
            window.outline(str(folder / name))
        index = len(window.current.exchanges) - 1
        exchange = window.current.exchanges[index]
        assert not exchange.error and exchange.sources, exchange.error
        # A reference mark sits before its sentence's stop ("the retina [1, 2] ."); the
        # outline's own [n] come after the stop.
        mark = re.search(r"\[\d+(?:\s*,\s*\d+)*\]\s*[.,;:)]", exchange.answer)
        assert mark is None, (name, exchange.answer[max(0, mark.start() - 60) : mark.end()])
        links = []
        block = window.chat.view.document().begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                href = fragment.charFormat().anchorHref()
                if href.startswith(f"cite:{index}:"):
                    links.append(int(href.rsplit(":", 1)[1]))
                it += 1
            block = block.next()
        assert links and all(exchange.source(n) is not None for n in links), (name, links)
