"""Scopes in the window: "Ask about these" in the Documents pane, the scope chip above the
question box, and the scope kept with the conversation."""

from __future__ import annotations

import os
import shutil

import pytest
from PySide6.QtCore import QItemSelectionModel
from PySide6.QtWidgets import QMenu

from desktop_rag.conversations import ConversationStore
from desktop_rag.gui.models import DocumentsModel, PathRole
from desktop_rag.library import GUIDE_NAME
from desktop_rag.query.scope import Scope
from tests.helpers.answers import composed
from tests.helpers.window import WAIT_MS, ask, names, wait_indexed

REAL_MS = 240_000  # the first embedder load on a busy two-core machine is slow


def _select(window, paths: set[str]) -> None:
    table = window.documents.table
    selection = table.selectionModel()
    selection.clear()
    proxy = table.model()
    for r in range(proxy.rowCount()):
        index = proxy.index(r, DocumentsModel.NAME)
        if index.data(PathRole) in paths:
            selection.select(
                index,
                QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows,
            )


def _menu_choice(monkeypatch: pytest.MonkeyPatch, text: str) -> list[str]:
    """The Documents pane's context menu answers as if the user chose the action named
    `text`; returns the texts it offered."""
    from desktop_rag.gui import documents

    offered: list[str] = []

    class Picking(QMenu):  # a Qt method cannot be patched on the class; a subclass can
        def exec(self, *args: object) -> object:  # type: ignore[override]
            actions = [a for a in self.actions() if not a.isSeparator()]
            offered.extend(a.text() for a in actions)
            return next((a for a in actions if a.text() == text), None)

    monkeypatch.setattr(documents, "QMenu", Picking)
    return offered


def _row_rect_center(window, path: str):
    table = window.documents.table
    proxy = table.model()
    for r in range(proxy.rowCount()):
        index = proxy.index(r, DocumentsModel.NAME)
        if index.data(PathRole) == path:
            return table.visualRect(index).center()
    raise AssertionError(path)


def test_ask_about_these_scopes_the_conversation_and_the_chip_clears_it(
    open_window, animal_pdfs, qtbot, monkeypatch
) -> None:
    window = open_window()
    window.session.add_folder(str(animal_pdfs))
    qtbot.waitUntil(
        lambda: (
            {"zebra.pdf", "octopus.pdf", "penguin.pdf"} <= names(window, "indexed")
            and not window.session.indexing
        ),
        timeout=WAIT_MS,
    )
    zebra, penguin = str(animal_pdfs / "zebra.pdf"), str(animal_pdfs / "penguin.pdf")
    assert not window.chat.scope_chip.isVisibleTo(window)  # the whole library

    _select(window, {zebra, penguin})
    assert set(window.documents.selected_paths()) == {zebra, penguin}
    offered = _menu_choice(monkeypatch, "Ask about these")
    window.documents._on_table_custom_context_menu_requested(_row_rect_center(window, zebra))
    assert offered[0] == "Ask about these"
    chip = window.chat.scope_chip
    assert chip.isVisibleTo(window)
    assert window.chat.scope_label.text() == "Answering from: 2 documents"
    assert "2 documents" in window.chat.question.placeholderText()

    ask(window, qtbot, "How long does the male penguin incubate the egg?")
    conv = window.current
    paths = {s.path for s in conv.exchanges[0].sources}
    assert paths and paths <= {zebra, penguin}
    # The octopus answers this one, but is not asked: nothing in the two documents is about it.
    ask(window, qtbot, "How many hearts does an octopus have?")
    assert conv.exchanges[1].refused and not conv.exchanges[1].sources
    assert conv.scope == Scope(files=(penguin, zebra))

    store = ConversationStore(window.session.settings.conversations_path)
    qtbot.waitUntil(
        lambda: any(c.id == conv.id and c.scope == conv.scope for c in store.load_all()),
        timeout=WAIT_MS,
    )

    window.chat.scope_clear.click()
    assert not chip.isVisibleTo(window) and conv.scope.whole_library
    ask(window, qtbot, "How many hearts does an octopus have?")
    last = conv.exchanges[-1]
    assert any(os.path.basename(s.path) == "octopus.pdf" for s in last.sources)
    qtbot.waitUntil(
        lambda: any(c.id == conv.id and c.scope.whole_library for c in store.load_all()),
        timeout=WAIT_MS,
    )

    # Showing another conversation shows its own scope; a new one starts with none.
    window.ask_about([str(animal_pdfs)])
    assert window.chat.scope_label.text() == "Answering from: library"
    window.show_conversation(conv)
    assert not chip.isVisibleTo(window)
    window.new_conversation()
    assert window.state.scope.whole_library


def test_the_chip_changes_the_scope_to_a_saved_collection(open_window, animal_pdfs, qtbot) -> None:
    from desktop_rag.config import Settings

    penguin = str(animal_pdfs / "penguin.pdf")
    settings = Settings.load()
    settings.collections = {"Birds": [penguin]}
    window = open_window(settings=settings)
    window.session.add_folder(str(animal_pdfs))
    qtbot.waitUntil(
        lambda: "octopus.pdf" in names(window, "indexed") and not window.session.indexing,
        timeout=WAIT_MS,
    )
    chat = window.chat
    assert chat.scope_chip.isVisibleTo(window)  # collections to choose from
    assert not chat.scope_clear.isVisibleTo(window)  # nothing to clear: the whole library
    actions = {a.text(): a for a in chat.scope_menu.actions()}
    assert list(actions) == ["All documents", "Birds"]
    actions["Birds"].trigger()
    assert chat.scope_label.text() == "Answering from: Birds"
    ask(window, qtbot, "How long does the male penguin incubate the egg?")
    assert {s.path for s in window.current.exchanges[-1].sources} == {penguin}
    assert window.current.scope == Scope(files=(penguin,), name="Birds")
    actions["All documents"].trigger()
    assert window.current.scope.whole_library
    ask(window, qtbot, "How many hearts does an octopus have?")
    sources = window.current.exchanges[-1].sources
    assert any(os.path.basename(s.path) == "octopus.pdf" for s in sources)


@pytest.mark.slow
def test_ask_about_one_real_article_with_the_real_embedder(
    open_window, qtbot, monkeypatch, tmp_path
) -> None:
    from tests.conftest import CORPUS

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
    hiv = str(folder / "630.pdf")

    _select(window, {hiv})
    offered = _menu_choice(monkeypatch, "Ask about this document")
    window.documents._on_table_custom_context_menu_requested(_row_rect_center(window, hiv))
    assert offered[0] == "Ask about this document"
    assert window.chat.scope_label.text() == "Answering from: 630.pdf"
    ask(window, qtbot, "What inhibits S-palmitoylation?", REAL_MS)  # 650.pdf answers it
    sources = window.current.exchanges[-1].sources
    assert sources and {s.path for s in sources} == {hiv}

    window.chat.scope_clear.click()
    ask(window, qtbot, "What inhibits S-palmitoylation?", REAL_MS)
    first = window.current.exchanges[-1].sources[0]
    assert (os.path.basename(first.path), first.page) == ("650.pdf", 1)
