"""The list of documents that answers a library question: a view of its own under the chat.

Each row is a document (routing.listing_events' sources): its name, its count of matching
passages, its best passage's page and its folder; activating a row opens the document at that
page in the source pane, the passage marked. A list by the documents' fields ("how many PDFs")
has no passages: its rows open the document's first page.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from desktop_rag.gui.words import place
from desktop_rag.types import Source

Index = QModelIndex | QPersistentModelIndex
COLUMNS = (  # translated where shown
    QT_TRANSLATE_NOOP("DocumentListModel", "Document"),
    QT_TRANSLATE_NOOP("DocumentListModel", "Matching passages"),
    QT_TRANSLATE_NOOP("DocumentListModel", "Best page"),
    QT_TRANSLATE_NOOP("DocumentListModel", "Folder"),
)
TIP_CHARS = 300
SHOWN_ROWS = 6  # the view's height before it scrolls: the transcript keeps the rest


class DocumentListModel(QAbstractTableModel):
    """The documents of one library answer, in its order (best first)."""

    SourceRole = Qt.ItemDataRole.UserRole + 1

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._items: list[Source] = []

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._items)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(COLUMNS)
        ):
            return self.tr(str(COLUMNS[section]))
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._items):
            return None
        src = self._items[index.row()]
        column = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            if column == 0:
                return os.path.basename(src.path)
            if column == 1:
                return str(src.matches) if src.matches else ""
            if column == 2:  # a list by fields has no best passage, so no page to name
                return place(src.path, src.page, short=True) if src.text else ""
            if column == 3:
                return os.path.dirname(src.path)
        if role == Qt.ItemDataRole.ToolTipRole:
            text = " ".join(src.text.split())
            if len(text) > TIP_CHARS:
                text = text[:TIP_CHARS].rsplit(" ", 1)[0] + " …"
            return f"{src.path}\n\n{text}" if text else src.path
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (1, 2):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == self.SourceRole:
            return src
        return None

    def set_sources(self, sources: Sequence[Source]) -> None:
        self.beginResetModel()
        self._items = list(sources)
        self.endResetModel()

    def source(self, row: int) -> Source | None:
        return self._items[row] if 0 <= row < len(self._items) else None


class DocumentListPanel(QWidget):
    """A library answer's documents: its first line (the count) above the rows."""

    document_chosen = Signal(object)  # Source: open its document at its best page

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = DocumentListModel(self)
        self.heading = QLabel()
        self.heading.setAccessibleName(self.tr("Documents found"))
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        self.heading.setWordWrap(True)
        self.view = QTreeView()
        self.view.setAccessibleName(self.tr("Documents that answer the question"))
        self.view.setModel(self.model)
        self.view.setRootIsDecorated(False)
        self.view.setUniformRowHeights(True)
        self.view.setAlternatingRowColors(True)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setToolTip(self.tr("Click a document to open it at its best passage"))
        header = self.view.header()
        header.setStretchLastSection(True)
        for column in range(len(COLUMNS) - 1):  # the folder takes what is left, cut if need be
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        rows = self.view.fontMetrics().height() + 6
        self.view.setMaximumHeight(rows * (SHOWN_ROWS + 1) + 4)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.heading)
        layout.addWidget(self.view)
        self.view.clicked.connect(self._on_view_activated)
        self.view.activated.connect(self._on_view_activated)
        self.hide()

    def show_list(self, heading: str, sources: Sequence[Source]) -> None:
        """Show a library answer's documents under its first line."""
        self.heading.setText(heading)
        self.model.set_sources(sources)
        # A list by the documents' fields ("how many PDFs") found no passages: no count, no page.
        self.view.setColumnHidden(1, not any(s.matches for s in sources))
        self.view.setColumnHidden(2, not any(s.text for s in sources))
        self.show()

    def clear(self) -> None:
        self.model.set_sources([])
        self.hide()

    def _on_view_activated(self, index: QModelIndex) -> None:
        source = self.model.source(index.row())
        if source is not None:
            self.document_chosen.emit(source)
