"""A library question's answer is a list of documents in a view of its own (gui/doclist.py):
each row its document's count of matching passages and best page, opening it there; and the
kind of question the rules chose is shown and can be changed (gui/kindbar.py)."""

from __future__ import annotations

import os
import shutil

import pytest
from PySide6.QtCore import Qt

from desktop_rag.gui.doclist import DocumentListModel
from desktop_rag.library import GUIDE_NAME
from desktop_rag.types import Source
from tests.helpers.window import WAIT_MS, ask, names, wait_indexed

REAL_MS = 240_000  # the first embedder load on a busy two-core machine is slow


def _indexed(window, qtbot, folder) -> None:
    window.session.add_folder(str(folder))
    qtbot.waitUntil(
        lambda: (
            {"zebra.pdf", "octopus.pdf", "penguin.pdf"} <= names(window, "indexed")
            and not window.session.indexing
        ),
        timeout=WAIT_MS,
    )


def _rows(window) -> list[list[str]]:
    model = window.doc_list.model
    return [
        [model.data(model.index(r, c)) for c in range(model.columnCount())]
        for r in range(model.rowCount())
    ]


def test_the_model_lists_documents_with_their_counts_and_best_pages(qtmodeltester) -> None:
    model = DocumentListModel()
    model.set_sources(
        [
            Source(1, "/lib/a/octopus.pdf", 2, 0.9, "Three hearts.", matches=3),
            Source(2, "/lib/zebra.pdf", 1, 0.0, ""),  # listed by its fields: no passage
        ]
    )
    qtmodeltester.check(model, force_py=True)
    cells = [[model.data(model.index(r, c)) for c in range(4)] for r in range(2)]
    assert cells == [["octopus.pdf", "3", "p. 2", "/lib/a"], ["zebra.pdf", "", "", "/lib"]]
    assert model.source(0).n == 1 and model.source(5) is None
    tip = model.data(model.index(0, 0), Qt.ItemDataRole.ToolTipRole)
    assert "/lib/a/octopus.pdf" in tip and "Three hearts." in tip


def test_a_library_question_shows_its_documents_and_a_row_opens_the_best_page(
    open_window, animal_pdfs, qtbot
):
    window = open_window()
    _indexed(window, qtbot, animal_pdfs)
    ask(window, qtbot, "Which of my documents mention hearts?")
    assert window.doc_list.isVisible()
    assert window.doc_list.heading.text().startswith("1 document mentions or discusses")
    (row,) = _rows(window)
    assert not window.doc_list.view.isColumnHidden(1)
    best = window.current.exchanges[-1].sources[0]
    assert row[:3] == ["octopus.pdf", str(best.matches), f"p. {best.page}"]
    with qtbot.waitSignal(window.sources.opened, timeout=WAIT_MS):
        window.doc_list.view.activated.emit(window.doc_list.model.index(0, 0))
    assert os.path.basename(window.sources.source.path) == "octopus.pdf"
    assert window.sources.current_page == best.page
    # A fact question's answer has no list of documents.
    ask(window, qtbot, "How many arms does an octopus have?")
    assert not window.doc_list.isVisible()


def test_a_counting_question_shows_the_count_and_the_list(open_window, animal_pdfs, qtbot):
    window = open_window()
    _indexed(window, qtbot, animal_pdfs)
    ask(window, qtbot, "How many PDFs do I have?")
    assert window.doc_list.isVisible()
    # The library holds the guide too: four PDFs.
    assert window.doc_list.heading.text().startswith("4 documents (PDF)")
    assert {r[0] for r in _rows(window)} >= {"zebra.pdf", "octopus.pdf", "penguin.pdf"}
    assert "penguin.pdf, 1 page [" in window.current.exchanges[-1].answer
    # Listed by their fields, they have no matching passages nor a best page to show.
    assert window.doc_list.view.isColumnHidden(1) and window.doc_list.view.isColumnHidden(2)


def test_the_kind_is_shown_and_the_user_can_answer_as_another(open_window, animal_pdfs, qtbot):
    window = open_window()
    _indexed(window, qtbot, animal_pdfs)
    ask(window, qtbot, "Which of my documents mention hearts?")
    assert window.kind_bar.isVisible()
    assert window.kind_bar.label.text() == "Listing documents (asks which documents)"
    asked = len(window.current.exchanges)
    # Ctrl+1: answer the same question from passages instead.
    with qtbot.waitSignal(window.session.answer_finished, timeout=WAIT_MS):
        qtbot.keyClick(window, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    last = window.current.exchanges[-1]
    assert len(window.current.exchanges) == asked + 1
    assert last.question == "Which of my documents mention hearts?"
    assert last.mode not in ("listing", "outline") and last.kind == "passage"
    assert window.kind_bar.label.text() == "Answering from passages (as you chose)"
    assert not window.doc_list.isVisible()
    # From the bar's menu: the outline of one document needs the document; none is named.
    with qtbot.waitSignal(window.session.answer_finished, timeout=WAIT_MS):
        window.kind_bar.action("library").trigger()
    assert window.current.exchanges[-1].mode == "listing"
    assert window.kind_bar.action("library").isChecked()


@pytest.mark.slow
def test_routing_in_the_window_with_the_real_embedder(open_window, qtbot, tmp_path) -> None:
    from tests.conftest import CORPUS
    from tests.helpers.answers import composed

    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not here")
    folder = tmp_path / "articles"
    folder.mkdir()
    for name in ("630.pdf", "650.pdf", "1545.pdf"):
        shutil.copy(CORPUS / "covid-qa" / "pdf" / name, folder / name)
    window = open_window(app_factory=None, answer_factory=composed, wait=False)
    qtbot.waitUntil(lambda: names(window, "indexed") == {GUIDE_NAME}, timeout=REAL_MS)
    window.session.add_folder(str(folder))
    wait_indexed(window, qtbot, 4, REAL_MS)

    ask(window, qtbot, "Which of my documents mention S-palmitoylation?", REAL_MS)
    assert window.kind_bar.label.text() == "Listing documents (asks which documents)"
    assert _rows(window)[0][0] == "650.pdf"
    best = window.current.exchanges[-1].sources[0]
    with qtbot.waitSignal(window.sources.opened, timeout=REAL_MS):
        window.doc_list.view.clicked.emit(window.doc_list.model.index(0, 0))
    assert window.sources.current_page == best.page

    ask(window, qtbot, "Summarise 630.pdf", REAL_MS)
    last = window.current.exchanges[-1]
    assert last.mode == "outline" and last.answer.startswith("Outline of 630.pdf")
    assert window.kind_bar.label.text().startswith("Outline of 630.pdf (")
    assert not window.doc_list.isVisible()

    ask(window, qtbot, "What inhibits S-palmitoylation?", REAL_MS)
    last = window.current.exchanges[-1]
    assert last.kind == "passage" and os.path.basename(last.sources[0].path) == "650.pdf"
