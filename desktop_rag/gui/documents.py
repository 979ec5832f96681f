"""The Documents pane: watched folders, every file with its status, and indexing progress."""

from __future__ import annotations

import os
import re

from PySide6.QtCore import (
    QItemSelection,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QSortFilterProxyModel,
    Qt,
    QTimer,
    QUrl,
    Signal,
)
from PySide6.QtGui import QDesktopServices, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QProgressBar,
    QSizePolicy,
    QStyle,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop_rag.gui.icons import icon, set_icon, tool_button
from desktop_rag.gui.models import STATE_WORD, DocumentsModel, PathRole, StatusRole, translated
from desktop_rag.types import FailKind, IndexReport, Progress, Status

NARROW_PANE = 420  # pixels: below this, the Passages column is hidden


class DocumentsPane(QWidget):
    """Shows the library; asks the window to act (the window talks to the session)."""

    add_folder_requested = Signal()
    remove_folder_requested = Signal(str)
    pause_requested = Signal(bool)
    cancel_requested = Signal()
    rescan_requested = Signal()
    document_activated = Signal(str)  # a path, to open in the viewer
    password_requested = Signal(str)  # a path whose password the user wants to give
    reindex_requested = Signal(str)  # a path to try again (or to include again, if removed)
    ocr_requested = Signal(str)  # a PDF to read with OCR on every page (garbage text layer)
    remove_requested = Signal(str)  # a file to take out of the index (never off the disk)
    outline_requested = Signal(str)  # an indexed file whose outline to show in the chat
    ask_about_requested = Signal(list)  # paths: start a conversation limited to them

    def __init__(self, model: DocumentsModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self._paused = False
        self.running = False
        self.opening = False  # the library is being opened: its documents are not known yet

        title = QLabel("<b>" + _esc(self.tr("Documents")) + "</b>")
        self.add_button = tool_button(
            "folder-add",
            self.tr("Add folder…"),
            self.tr("Watch a folder of documents (Ctrl+O)"),
            text_beside=True,
        )
        self.remove_button = tool_button(
            "folder-remove",
            self.tr("Remove"),
            self.tr("Stop watching the selected folder"),
            text_beside=True,
        )
        self.remove_button.setEnabled(False)
        head = QHBoxLayout()
        head.addWidget(title)
        head.addStretch(1)
        head.addWidget(self.add_button)
        head.addWidget(self.remove_button)

        self.folders = QListWidget()
        self.folders.setAccessibleName(self.tr("Watched folders"))
        self.folders.setSizeAdjustPolicy(QListWidget.SizeAdjustPolicy.AdjustToContents)
        self.folders.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.folders.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.folders.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

        self.filter = QLineEdit()
        self.filter.setPlaceholderText(self.tr("Filter files"))
        self.filter.setAccessibleName(self.tr("Filter files"))
        self.filter.setClearButtonEnabled(True)

        self.proxy = _FilterProxy(self)
        self.proxy.setSourceModel(model)
        self.proxy.setFilterKeyColumn(DocumentsModel.NAME)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.proxy.setDynamicSortFilter(True)

        # A table, not a tree view: a tree lays out every row of a flat list item by item
        # (asking the model of each), which a library of thousands of files feels on every
        # sort and batch of new rows; a table's rows are fixed-height header sections.
        self.table = QTableView()
        self.table.setAccessibleName(self.tr("Documents"))
        self.table.setModel(self.proxy)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.setCornerButtonEnabled(False)
        rows = self.table.verticalHeader()
        rows.hide()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.setAlternatingRowColors(True)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(DocumentsModel.NAME, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        # Several rows at once: "Ask about these" limits a conversation to them.
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._on_table_custom_context_menu_requested)
        # A long name keeps its start and its end ("annual-re…2023.pdf"): names of a series
        # differ at their end, which cutting the end would hide.
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setStretchLastSection(False)
        header.setSectionResizeMode(DocumentsModel.NAME, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(DocumentsModel.STATUS, QHeaderView.ResizeMode.Interactive)
        # The wider number column's heading, with room for the sort mark.
        numbers = (
            max(
                self.fontMetrics().horizontalAdvance(
                    str(model.headerData(col, Qt.Orientation.Horizontal))
                )
                for col in (DocumentsModel.PAGES, DocumentsModel.CHUNKS)
            )
            + 24
        )
        for col in (DocumentsModel.PAGES, DocumentsModel.CHUNKS):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Fixed)
            header.resizeSection(col, numbers)
        header.setMinimumSectionSize(40)
        # The widest state word beside its icon: the column never cuts its word.
        state = max(
            self.fontMetrics().horizontalAdvance(translated(w)) for w in STATE_WORD.values()
        )
        header.resizeSection(
            DocumentsModel.STATUS,
            state + self.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize) + 20,
        )
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

        self.detail = QLabel()
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.LinksAccessibleByMouse
        )
        self.detail.setAccessibleName(self.tr("Selected file"))
        self.detail.linkActivated.connect(self._on_detail_link_activated)
        self.detail.hide()
        self._detail_open = False  # the reader's own words about the failure shown

        self.progress = QProgressBar()
        self.progress.setAccessibleName(self.tr("Indexing progress"))
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(12)
        self.summary = QLabel()
        self.summary.setAccessibleName(self.tr("Library summary"))
        self.summary.setWordWrap(True)
        self.summary.linkActivated.connect(self._on_summary_link_activated)
        self.summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.progress_label = QLabel()
        self.progress_label.setAccessibleName(self.tr("Indexing status"))
        self.progress_label.setWordWrap(True)
        self.progress_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.pause_button = tool_button(
            "pause", self.tr("Pause"), self.tr("Pause indexing"), text_beside=True
        )
        self.cancel_button = tool_button(
            "cancel",
            self.tr("Cancel"),
            self.tr("Stop indexing; what is done is kept"),
            text_beside=True,
        )
        self.rescan_button = tool_button(
            "rescan",
            self.tr("Rescan"),
            self.tr("Check the watched folders for changes"),
            text_beside=True,
        )
        bar_row = QHBoxLayout()
        bar_row.addWidget(self.progress, 1)
        bar_row.addWidget(self.summary, 1)
        bar_row.addWidget(self.pause_button)
        bar_row.addWidget(self.cancel_button)
        bar_row.addWidget(self.rescan_button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(head)
        layout.addWidget(self.folders)
        layout.addWidget(self.filter)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.detail)
        layout.addLayout(bar_row)
        layout.addWidget(self.progress_label)

        self.add_button.clicked.connect(self.add_folder_requested)
        self.remove_button.clicked.connect(self._on_remove_button_clicked)
        self.pause_button.clicked.connect(self._on_pause_button_clicked)
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.rescan_button.clicked.connect(self.rescan_requested)
        self.folders.itemSelectionChanged.connect(self._on_folders_item_selection_changed)
        self.filter.textChanged.connect(self._on_filter_text_changed)
        self.table.selectionModel().selectionChanged.connect(self._on_table_selection_changed)
        self.table.doubleClicked.connect(self._on_table_double_clicked)
        self._summary_timer = QTimer(self)
        self._summary_timer.setSingleShot(True)
        self._summary_timer.setInterval(100)
        self._summary_timer.timeout.connect(self._on_summary_timer_timeout)
        model.dataChanged.connect(self._on_model_changed)
        model.modelReset.connect(self._on_model_changed)
        model.rowsInserted.connect(self._on_model_changed)
        model.rowsRemoved.connect(self._on_model_changed)
        self.set_idle()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        # A narrow pane gives the names the Passages column's room (each row's tooltip keeps the
        # count): at 900 x 600 the names were cut to "b…".
        self.table.setColumnHidden(DocumentsModel.CHUNKS, self.width() < NARROW_PANE)

    # -- folders -------------------------------------------------------------------------------

    def set_folders(
        self,
        folders: list[str],
        problems: dict[str, str] | None = None,
        polled: set[str] | None = None,
    ) -> None:
        """List the watched folders; a folder with a problem says why in its tooltip, and one
        that is checked periodically instead of watched says so beside its name."""
        problems, polled = problems or {}, polled or set()
        selected = self.selected_folder()
        self.folders.clear()
        for folder in folders:
            look = "rescan" if folder in polled else "status-failed" if folder in problems else ""
            item = QListWidgetItem(icon(look or "folder"), "")
            name = os.path.basename(folder.rstrip(os.sep)) or folder
            item.setText(f"{name}   {_home(os.path.dirname(folder))}")
            if folder in polled:
                every = problems.get(folder, "").rpartition("checked for changes ")[2]
                not_watched = self.tr("(not watched: checked {every})").format(every=every)
                item.setText(f"{item.text()}   {not_watched}")
            tip = folder + (f"\n{problems[folder]}" if folder in problems else "")
            item.setToolTip(tip)
            item.setData(Qt.ItemDataRole.UserRole, folder)
            item.setData(
                Qt.ItemDataRole.AccessibleTextRole, self.tr("Folder {path}").format(path=folder)
            )
            self.folders.addItem(item)
            if folder == selected:
                item.setSelected(True)
        self.folders.setVisible(bool(folders))
        rows = max(1, min(len(folders), 3))
        row_height = self.folders.sizeHintForRow(0) if folders else self.fontMetrics().height() + 8
        self.folders.setFixedHeight(row_height * rows + 2 * self.folders.frameWidth() + 2)
        self.remove_button.setEnabled(self.selected_folder() is not None)

    def selected_folder(self) -> str | None:
        items = self.folders.selectedItems()
        return str(items[0].data(Qt.ItemDataRole.UserRole)) if items else None

    def selected_paths(self) -> list[str]:
        """The paths of the selected rows, in the order shown."""
        rows = self.table.selectionModel().selectedRows(DocumentsModel.NAME)
        rows.sort(key=lambda i: i.row())
        return [str(p) for p in (i.data(PathRole) for i in rows) if p]

    def _on_remove_button_clicked(self) -> None:
        folder = self.selected_folder()
        if folder:
            self.remove_folder_requested.emit(folder)

    def _on_folders_item_selection_changed(self) -> None:
        self.remove_button.setEnabled(self.selected_folder() is not None)

    # -- files ---------------------------------------------------------------------------------

    def _on_filter_text_changed(self, text: str) -> None:
        self.proxy.setFilterFixedString(text)

    def _on_table_selection_changed(self, selected: QItemSelection, _old: QItemSelection) -> None:
        self._show_detail()

    def _on_table_double_clicked(self, index: QModelIndex) -> None:
        path = index.data(PathRole)
        if path:
            self.document_activated.emit(str(path))

    def _on_summary_link_activated(self, link: str) -> None:
        """Show the first file that failed, and why."""
        for r in range(self.proxy.rowCount()):
            index = self.proxy.index(r, DocumentsModel.NAME)
            if index.data(StatusRole) == Status.FAILED:
                self.table.setCurrentIndex(index)
                self.table.scrollTo(index)
                self.table.setFocus()
                return

    def _on_table_custom_context_menu_requested(self, pos: QPoint) -> None:
        index = self.table.indexAt(pos)
        path = index.data(PathRole) if index.isValid() else None
        row = self.model.row_for(str(path)) if path else None
        if row is None:
            return
        chosen_paths = self.selected_paths()
        if row.path not in chosen_paths:
            chosen_paths = [row.path]
        menu = QMenu(self)
        ask_action = menu.addAction(
            self.tr("Ask about these")
            if len(chosen_paths) > 1
            else self.tr("Ask about this document")
        )
        ask_action.setToolTip(self.tr("A new conversation that answers from these documents only"))
        menu.addSeparator()
        open_action = menu.addAction(icon("document"), self.tr("Open"))
        folder_action = menu.addAction(icon("folder"), self.tr("Show in folder"))
        outline_action = None
        if row.status == Status.INDEXED:
            outline_action = menu.addAction(self.tr("Outline"))
            outline_action.setToolTip(
                self.tr(
                    "Its headings, each with its most central sentences and their pages, in the "
                    "chat"
                )
            )
        password_action = None
        if row.kind == FailKind.PASSWORD:
            password_action = menu.addAction(self.tr("Enter password…"))
        remove_action = None
        ocr_action = None
        if row.status == Status.EXCLUDED:
            again_action = menu.addAction(icon("rescan"), self.tr("Include again"))
        else:
            again_action = menu.addAction(icon("rescan"), self.tr("Index again"))
            if row.path.lower().endswith(".pdf") and row.reader != "ocr":
                ocr_action = menu.addAction(self.tr("Read with OCR"))
                ocr_action.setToolTip(
                    self.tr(
                        "For a PDF whose text comes out as garbage: read every page from its "
                        "image instead. Remembered for this file."
                    )
                )
            remove_action = menu.addAction(icon("delete"), self.tr("Remove from the index"))
        chosen = menu.exec(self.table.viewport().mapToGlobal(pos))
        if chosen is ask_action:
            self.ask_about_requested.emit(chosen_paths)
        elif chosen is open_action:
            self.document_activated.emit(row.path)
        elif chosen is not None and chosen is outline_action:
            self.outline_requested.emit(row.path)
        elif chosen is folder_action:
            QDesktopServices.openUrl(QUrl.fromLocalFile(os.path.dirname(row.path)))
        elif chosen is not None and chosen is password_action:
            self.password_requested.emit(row.path)
        elif chosen is again_action:
            self.reindex_requested.emit(row.path)
        elif chosen is not None and chosen is ocr_action:
            self.ocr_requested.emit(row.path)
        elif chosen is not None and chosen is remove_action:
            self.remove_requested.emit(row.path)

    def _on_model_changed(self, *args: object) -> None:
        # Coalesced: a burst of row changes redraws the summary once.
        if not self._summary_timer.isActive():
            self._summary_timer.start()

    def _on_summary_timer_timeout(self) -> None:
        self._show_detail()
        if not self.running:
            self.set_idle()

    def _show_detail(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        row = self.model.row_for(str(rows[0].data(PathRole))) if rows else None
        if row is None or not row.error:
            self.detail.hide()
            self._detail_open = False
            return
        reason, engine = plain_reason(row.error)
        text = f"<b>{_esc(row.name)}</b> {_esc(reason)}"
        if engine and self._detail_open:
            said = _esc(self.tr("The reader said: {words}")).format(words=_esc(engine))
            hide = _esc(self.tr("Hide"))
            text += f"<br>{said} <a href='hide'>{hide}</a>"
        elif engine:
            details = _esc(self.tr("Details"))
            text += f" <a href='details'>{details}</a>"
        self.detail.setText(text)
        self.detail.show()

    def _on_detail_link_activated(self, link: str) -> None:
        self._detail_open = link == "details"
        self._show_detail()

    # -- progress ------------------------------------------------------------------------------

    def set_running(self) -> None:
        self.running = True
        self.progress.show()
        self.progress_label.show()
        self.summary.hide()
        self.progress.setRange(0, 0)  # busy until the first count arrives
        self.pause_button.show()
        self.cancel_button.show()
        self.rescan_button.hide()
        self.progress_label.setText(self.tr("Looking for changes…"))

    def set_progress(self, p: Progress) -> None:
        if not self.running:
            self.set_running()
        if p.files_total:
            self.progress.setRange(0, p.files_total)
            self.progress.setValue(p.files_done)
            name = os.path.basename(p.current)
            text = self.tr("{done} of {total} files · {pages} pages").format(
                done=p.files_done, total=p.files_total, pages=p.pages_done
            )
            if p.stage == "indexing" and p.eta_s is not None:
                text += " · " + self.tr("about {eta} left").format(eta=p.eta_text)
            if name and p.stage == "indexing":
                text += f"\n{name}"
            elif name and p.stage == "ocr":
                text += f"\n{name}: {p.message}"
            elif p.message:
                text += f"\n{p.message}"
        else:
            self.progress.setRange(0, 0)
            text = p.message or p.stage.capitalize()
        if self._paused:
            text = self._paused_prefix() + text
        self.progress_label.setText(text)
        self.progress.setAccessibleDescription(text)

    def set_paused(self, paused: bool) -> None:
        self._paused = paused
        set_icon(self.pause_button, "resume" if paused else "pause")
        self.pause_button.setText(self.tr("Resume") if paused else self.tr("Pause"))
        self.pause_button.setAccessibleName(self.pause_button.text())
        self.pause_button.setToolTip(
            self.tr("Carry on indexing") if paused else self.tr("Pause indexing")
        )
        text = self.progress_label.text()
        prefix = self._paused_prefix()
        if paused and not text.startswith(prefix):
            self.progress_label.setText(prefix + text)
        elif not paused and text.startswith(prefix):
            self.progress_label.setText(text.removeprefix(prefix))

    def _paused_prefix(self) -> str:
        """What the progress line starts with while indexing is paused."""
        return self.tr("Paused") + " · "

    def _on_pause_button_clicked(self) -> None:
        self.pause_requested.emit(not self._paused)

    def set_opening(self, opening: bool) -> None:
        """While the library opens, the summary says so (the list is empty until it has)."""
        self.opening = opening
        if not self.running:
            self.set_idle()

    def set_idle(self, report: IndexReport | None = None) -> None:
        self.running = False
        self.progress.hide()
        self.progress_label.hide()
        self.summary.show()
        self.pause_button.hide()
        self.cancel_button.hide()
        self.rescan_button.show()
        counts = self.model.counts()
        pages, _chunks = self.model.totals()
        done = counts.get(Status.INDEXED, 0)
        failed = counts.get(Status.FAILED, 0)
        waiting = counts.get(Status.QUEUED, 0) + counts.get(Status.INDEXING, 0)
        if self.opening and not self.model.rowCount():
            text = self.tr("Opening the library…")
        elif not self.model.rowCount():
            text = self.tr(
                "No documents yet. Drop files or a folder on this window, or add a folder."
            )
        else:
            text = (
                self.tr("1 document · {pages} pages indexed")
                if done == 1
                else self.tr("{n} documents · {pages} pages indexed")
            ).format(n=done, pages=pages)
            if failed:
                unread = self.tr("{n} could not be read").format(n=failed)
                text += f" · <a href='failed'>{unread}</a>"
            if waiting:
                text += " · " + self.tr("{n} waiting").format(n=waiting)
        if report is not None and report.cancelled:
            text = self.tr("Indexing cancelled; what was done is kept.") + " " + text
        self.summary.setText(text)


# What a reader library says of a file, in parentheses in a failure's reason: "(Failed to load
# document (PDFium: Data format error))".
_ENGINE_WORDS = re.compile(r"error|fail|pdfium|pypdf|errno|exception|:", re.I)


def plain_reason(error: str) -> tuple[str, str]:
    """A failure's reason in plain words, and the reading library's own words taken out of it
    ("" when it has none): those are for a Details link, not for the first read."""
    depth, start = 0, -1
    for i, ch in enumerate(error):
        if ch == "(":
            if depth == 0:
                start = i
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
            if depth == 0 and _ENGINE_WORDS.search(error[start + 1 : i]):
                plain = (error[:start].rstrip() + error[i + 1 :]).strip()
                return plain, error[start + 1 : i]
    return error, ""


class _FilterProxy(QSortFilterProxyModel):
    """Filters by name; sorting is the model's own (DocumentsModel.sort), passed through.

    A sorting proxy compares rows through the model's data() in Python, n log n calls per
    sort and per batch of new rows: seconds at a few thousand files.
    """

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        source = self.sourceModel()
        if source is not None:
            source.sort(column, order)

    def hasChildren(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> bool:  # noqa: B008
        # A flat list. The tree view asks this of every row it lays out, and the default
        # builds a mapping of each row's (absent) children through the model's rowCount and
        # columnCount in Python: two calls and an allocation per row.
        return not parent.isValid() and self.rowCount(parent) > 0


def _home(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if path == home or path.startswith(home + os.sep) else path


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
