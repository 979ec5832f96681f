"""The window tests' shared steps: the files a window lists, waiting for a run, asking."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt

from desktop_rag.gui.models import DocumentsModel

WAIT_MS = 30_000


def names(window, status: str | None = None) -> set[str]:
    model: DocumentsModel = window.documents_model
    out = set()
    for path in model.paths():
        row = model.row_for(path)
        if row is not None and (status is None or row.status == status):
            out.add(os.path.basename(path))
    return out


def wait_indexed(window, qtbot, n: int, timeout: int = WAIT_MS) -> None:
    """n files indexed and the run over (files show as indexed a moment before the commit)."""
    qtbot.waitUntil(
        lambda: len(names(window, "indexed")) == n and not window.session.indexing,
        timeout=timeout,
    )


def ask(window, qtbot, question: str, timeout: int = WAIT_MS) -> list[object]:
    events: list[object] = []
    window.session.answer_event.connect(events.append)
    with qtbot.waitSignal(window.session.answer_finished, timeout=timeout):
        window.chat.question.setPlainText(question)
        qtbot.keyClick(window.chat.question, Qt.Key.Key_Return)
    window.session.answer_event.disconnect(events.append)
    return events


def choose_in_context_menu(window, path: str, text: str, monkeypatch) -> None:
    """Open the documents pane's context menu on `path` and pick the action named `text`."""
    from PySide6.QtWidgets import QMenu

    from desktop_rag.gui import documents
    from desktop_rag.gui.models import DocumentsModel, PathRole

    pane = window.documents
    proxy = pane.proxy
    index = next(
        proxy.index(r, DocumentsModel.NAME)
        for r in range(proxy.rowCount())
        if proxy.index(r, DocumentsModel.NAME).data(PathRole) == path
    )
    offered = []

    class Picking(QMenu):  # a Qt method cannot be patched on the class; a subclass can
        def exec(self, *args):  # type: ignore[override]
            offered.extend(a.text() for a in self.actions())
            return next((a for a in self.actions() if a.text() == text), None)

    monkeypatch.setattr(documents, "QMenu", Picking)
    pane._on_table_custom_context_menu_requested(pane.table.visualRect(index).center())
    monkeypatch.setattr(documents, "QMenu", QMenu)
    assert text in offered, offered
