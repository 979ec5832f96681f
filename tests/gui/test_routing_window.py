"""The window answers a library question with a list of documents and a document question
with its outline (desktop_rag/routing.py), each labelled, the fact questions as before."""

from __future__ import annotations

import os

from tests.helpers.window import WAIT_MS, ask, names


def _indexed(window, qtbot, folder) -> None:
    window.session.add_folder(str(folder))
    qtbot.waitUntil(
        lambda: (
            {"zebra.pdf", "octopus.pdf", "penguin.pdf"} <= names(window, "indexed")
            and not window.session.indexing
        ),
        timeout=WAIT_MS,
    )


def test_which_documents_is_answered_with_a_labelled_list(open_window, animal_pdfs, qtbot):
    window = open_window()
    _indexed(window, qtbot, animal_pdfs)
    ask(window, qtbot, "Which of my documents mention hearts?")
    exchange = window.current.exchanges[-1]
    assert exchange.mode == "listing", exchange.answer
    assert [os.path.basename(s.path) for s in exchange.sources] == ["octopus.pdf"]
    assert "octopus.pdf, " in exchange.answer
    assert "Listing documents" in window.chat.view.toPlainText()


def test_summarise_a_named_file_shows_its_outline(open_window, animal_pdfs, qtbot):
    window = open_window()
    _indexed(window, qtbot, animal_pdfs)
    ask(window, qtbot, "Summarise octopus.pdf")
    exchange = window.current.exchanges[-1]
    assert exchange.mode == "outline", exchange.answer
    assert exchange.answer.startswith("Outline of octopus.pdf")
    assert {os.path.basename(s.path) for s in exchange.sources} == {"octopus.pdf"}
    assert "Outline of the document" in window.chat.view.toPlainText()
    # A fact question still goes to the answer service.
    ask(window, qtbot, "How many hearts does an octopus have?")
    assert window.current.exchanges[-1].mode not in ("listing", "outline")
