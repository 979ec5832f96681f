"""The source pane: an answer's sources, the PDF at the cited page with the passage marked
(or a document without pages as text, at the cited section)."""

from __future__ import annotations

import os
import re

from PySide6.QtCore import QModelIndex, QPointF, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QIcon
from PySide6.QtPdf import QPdfDocument, QPdfSearchModel
from PySide6.QtPdfWidgets import QPdfView
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListView,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from desktop_rag.gui.icons import icon, tool_button
from desktop_rag.gui.models import SourcesModel
from desktop_rag.gui.textview import TextView
from desktop_rag.locations import paginated, section_mark
from desktop_rag.types import Source

_WORDS = re.compile(r"\S+")
SNIPPET_WORDS = 8


def search_candidates(passage: str) -> list[str]:
    """Strings to look for on the page, best first: the whole passage, then its halves, then
    its first and last words (the PDF's own text may differ where lines were joined)."""
    words = _WORDS.findall(passage)
    if not words:
        return []
    out = [" ".join(words)]
    if len(words) > 2 * SNIPPET_WORDS:
        half = len(words) // 2
        out += [" ".join(words[:half]), " ".join(words[half:])]
    if len(words) > SNIPPET_WORDS:
        out += [" ".join(words[:SNIPPET_WORDS]), " ".join(words[-SNIPPET_WORDS:])]
    return out


def readable(text: str) -> str:
    """A passage as prose: the PDF's line breaks joined, its paragraph breaks kept."""
    paragraphs = re.split(r"\n\s*\n", text.strip())
    return "\n\n".join(" ".join(p.split()) for p in paragraphs)


class SourcePane(QWidget):
    """Shows where an answer came from; `show_source` opens a PDF at the cited page."""

    source_selected = Signal(object)  # Source

    def __init__(self, model: SourcesModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.source: Source | None = None
        self.matched = ""  # the text marked on the page ("" when nothing could be matched)

        self.title = QLabel("<b>Sources</b>")
        self.list = QListView()
        self.list.setModel(model)
        self.list.setAccessibleName("Sources of the answer")
        self.list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.list.clicked.connect(self._on_list_clicked)
        self.list.activated.connect(self._on_list_clicked)

        self.heading = QLabel()
        self.heading.setAccessibleName("Page shown")
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        self.heading.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.prev_button = tool_button("previous", "Previous page", "Previous page")
        self.next_button = tool_button("next", "Next page", "Next page")
        self.zoom_out_button = tool_button("zoom-out", "Zoom out", "Zoom out")
        self.zoom_in_button = tool_button("zoom-in", "Zoom in", "Zoom in")
        self.open_button = tool_button(
            "open-external",
            "Open in system viewer",
            "Open this PDF in your usual PDF viewer",
            text_beside=True,
        )
        bar = QHBoxLayout()
        bar.addStretch(1)
        for b in (
            self.prev_button,
            self.next_button,
            self.zoom_out_button,
            self.zoom_in_button,
            self.open_button,
        ):
            bar.addWidget(b)

        self.document = QPdfDocument(self)
        self.search = QPdfSearchModel(self)
        self.search.setDocument(self.document)
        self.pdf = QPdfView()
        self.pdf.setAccessibleName("PDF page")
        self.pdf.setDocument(self.document)
        self.pdf.setPageMode(QPdfView.PageMode.MultiPage)
        self.pdf.setZoomMode(QPdfView.ZoomMode.FitToWidth)
        self.pdf.setSearchModel(self.search)

        # Documents without pages (Word, HTML, EPUB, text) show as text in the PDF's place.
        self.text_view = TextView()
        self.text_view.shown.connect(self._on_text_view_shown)
        self.text_view.failed.connect(self._on_text_view_failed)
        self.page_stack = QStackedWidget()
        self.page_stack.addWidget(self.pdf)
        self.page_stack.addWidget(self.text_view)
        self._text_path = ""
        self._text_page = 0

        self.passage = QTextBrowser()
        self.passage.setAccessibleName("Cited passage")
        self.passage.setOpenLinks(False)

        self.placeholder = QWidget()
        self.placeholder.setAccessibleName("No page shown")
        mark = QLabel()
        mark.setPixmap(icon("document").pixmap(48, 48, QIcon.Mode.Disabled))
        mark.setAlignment(Qt.AlignmentFlag.AlignCenter)
        hint = QLabel(
            "Click a source, or a number like [1] in an answer, to see the page it came from."
        )
        hint.setWordWrap(True)
        hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        hint.setEnabled(False)
        empty = QVBoxLayout(self.placeholder)
        empty.setContentsMargins(24, 24, 24, 24)
        empty.addStretch(1)
        empty.addWidget(mark)
        empty.addWidget(hint)
        empty.addStretch(1)

        viewer = QWidget()
        viewer_layout = QVBoxLayout(viewer)
        viewer_layout.setContentsMargins(0, 0, 0, 0)
        viewer_layout.addWidget(self.heading)
        viewer_layout.addLayout(bar)
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.setObjectName("sourceSplit")
        self.split.addWidget(self.page_stack)
        passage_box = QWidget()
        passage_layout = QVBoxLayout(passage_box)
        passage_layout.setContentsMargins(0, 4, 0, 0)
        passage_layout.addWidget(QLabel("<b>Cited passage</b>"))
        passage_layout.addWidget(self.passage)
        self.split.addWidget(passage_box)
        self.split.setStretchFactor(0, 4)
        self.split.setStretchFactor(1, 1)
        viewer_layout.addWidget(self.split, 1)

        self.stack = QStackedWidget()
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(viewer)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.title)
        layout.addWidget(self.list)
        layout.addWidget(self.stack, 1)

        self.prev_button.clicked.connect(self._on_prev_button_clicked)
        self.next_button.clicked.connect(self._on_next_button_clicked)
        self.zoom_in_button.clicked.connect(self._on_zoom_in_button_clicked)
        self.zoom_out_button.clicked.connect(self._on_zoom_out_button_clicked)
        self.open_button.clicked.connect(self._on_open_button_clicked)
        self.pdf.pageNavigator().currentPageChanged.connect(self._on_navigator_page_changed)
        model.modelReset.connect(self._on_model_reset)
        self._update_buttons()
        self._on_model_reset()

    # -- showing -------------------------------------------------------------------------------

    @property
    def current_page(self) -> int:
        """1-based, as the citation says."""
        return self.pdf.pageNavigator().currentPage() + 1

    def show_source(self, source: Source) -> bool:
        """Open the source's PDF at its page and mark the passage; False if it cannot open."""
        self.source = source
        row = self.model.row_of(source.n)
        if row >= 0:
            self.list.setCurrentIndex(self.model.index(row))
        self.passage.setPlainText(readable(source.text))
        self.stack.setCurrentIndex(1)
        if not paginated(source.path):
            self._show_text(source.path, source.page, source.start, source.end)
            return True
        self._show_pdf_view()
        if not self._load(source.path):
            return False
        page = min(max(source.page, 1), self.document.pageCount()) - 1
        self.matched = self._mark(source.text, page)
        self.pdf.pageNavigator().jump(page, QPointF(0, 0), 0)
        self._update_heading()
        return True

    def show_file(self, path: str, page: int = 1) -> bool:
        """Open a document without a passage (double-click in the library)."""
        self.source = None
        self.list.clearSelection()
        self.passage.clear()
        self.stack.setCurrentIndex(1)
        if not paginated(path):
            self._show_text(path, page, 0, 0)
            return True
        self._show_pdf_view()
        if not self._load(path):
            return False
        self.search.setSearchString("")
        self.matched = ""
        self.pdf.pageNavigator().jump(max(0, page - 1), QPointF(0, 0), 0)
        self._update_heading()
        return True

    def clear(self) -> None:
        self.source = None
        self.model.set_sources([])
        self.stack.setCurrentIndex(0)

    def _load(self, path: str) -> bool:
        if self.document.property("path") == path and self.document.pageCount() > 0:
            return True
        self.search.setSearchString("")
        error = self.document.load(path)
        self.document.setProperty("path", path)
        if error != QPdfDocument.Error.None_:
            self.document.close()
            self.document.setProperty("path", "")
            self.heading.setText(os.path.basename(path))
            why = "it is no longer there" if not os.path.exists(path) else error.name
            self.passage.setPlainText(
                f"This PDF cannot be opened ({why}): {path}\n\n"
                + (self.source.text if self.source else "")
            )
            self._update_buttons()
            return False
        self._update_buttons()
        return True

    def _show_pdf_view(self) -> None:
        self._text_path = ""
        self.page_stack.setCurrentWidget(self.pdf)
        self.open_button.setToolTip("Open this PDF in your usual PDF viewer")

    def _show_text(self, path: str, page: int, start: int, end: int) -> None:
        """A document without pages: its text, at the section, the passage marked."""
        self._text_path = path
        self._text_page = page
        self.matched = ""
        self.page_stack.setCurrentWidget(self.text_view)
        self.open_button.setToolTip("Open this document in the program your system opens it with")
        self.heading.setText(f"Opening {os.path.basename(path)}…")
        self.heading.setToolTip(path)
        self._update_buttons()
        self.text_view.show_passage(path, page, start, end)

    def _on_text_view_shown(self, path: str) -> None:
        if path != self._text_path:
            return
        n = f"[{self.source.n}] " if self.source else ""
        section = self.text_view.section(self._text_page)
        where = section_mark(section, self._text_page)
        self.heading.setText(f"{n}{os.path.basename(path)}, {where}")
        self.heading.setToolTip(f"{section}\n{path}" if section else path)
        self.matched = self.text_view.marked
        self._update_buttons()

    def _on_text_view_failed(self, path: str, why: str) -> None:
        if path == self._text_path:
            self.heading.setText(os.path.basename(path))
            self._update_buttons()

    def _mark(self, passage: str, page: int) -> str:
        """Search for the passage on its page; QPdfView shades every match it draws."""
        for candidate in search_candidates(passage):
            self.search.setSearchString(candidate)
            if self.search.resultsOnPage(page):
                return candidate
        self.search.setSearchString("")
        return ""

    def _update_heading(self) -> None:
        path = str(self.document.property("path") or "")
        if not path:
            return
        n = f"[{self.source.n}] " if self.source else ""
        total = self.document.pageCount()
        text = f"{n}{os.path.basename(path)} — page {self.current_page} of {total}"
        self.heading.setText(text)
        self.heading.setToolTip(path)
        self._update_buttons()

    def _update_buttons(self) -> None:
        if self._text_path:
            for b in (self.prev_button, self.next_button, self.zoom_in_button):
                b.setEnabled(False)
            self.zoom_out_button.setEnabled(False)
            self.open_button.setEnabled(True)
            return
        loaded = self.document.pageCount() > 0
        page = self.pdf.pageNavigator().currentPage()
        self.prev_button.setEnabled(loaded and page > 0)
        self.next_button.setEnabled(loaded and page < self.document.pageCount() - 1)
        for b in (self.zoom_in_button, self.zoom_out_button):
            b.setEnabled(loaded)
        self.open_button.setEnabled(bool(self.document.property("path")) or self.source is not None)

    # -- slots ---------------------------------------------------------------------------------

    def _on_list_clicked(self, index: QModelIndex) -> None:
        source = self.model.source(index.row())
        if source is not None:
            self.show_source(source)
            self.source_selected.emit(source)

    def _on_model_reset(self) -> None:
        has_sources = self.model.rowCount() > 0
        self.list.setVisible(has_sources)
        self.title.setVisible(has_sources)
        if has_sources:
            rows = min(self.model.rowCount(), 6)
            height = self.list.sizeHintForRow(0) * rows + 2 * self.list.frameWidth() + 4
            self.list.setFixedHeight(height)

    def _on_navigator_page_changed(self, _page: int) -> None:
        if not self._text_path:
            self._update_heading()

    def _on_prev_button_clicked(self) -> None:
        nav = self.pdf.pageNavigator()
        nav.jump(max(0, nav.currentPage() - 1), QPointF(0, 0), 0)

    def _on_next_button_clicked(self) -> None:
        nav = self.pdf.pageNavigator()
        last = self.document.pageCount() - 1
        nav.jump(min(last, nav.currentPage() + 1), QPointF(0, 0), 0)

    def _effective_zoom(self) -> float:
        if self.pdf.zoomMode() == QPdfView.ZoomMode.Custom or self.document.pageCount() == 0:
            return self.pdf.zoomFactor()
        points = self.document.pagePointSize(self.pdf.pageNavigator().currentPage())
        width = points.width() * self.pdf.logicalDpiX() / 72
        margins = self.pdf.documentMargins()
        usable = self.pdf.viewport().width() - margins.left() - margins.right()
        return usable / width if width > 0 else 1.0

    def _zoom(self, factor: float) -> None:
        zoom = self._effective_zoom() * factor
        self.pdf.setZoomMode(QPdfView.ZoomMode.Custom)
        self.pdf.setZoomFactor(min(8.0, max(0.25, zoom)))

    def _on_zoom_in_button_clicked(self) -> None:
        self._zoom(1.25)

    def _on_zoom_out_button_clicked(self) -> None:
        self._zoom(0.8)

    def _on_open_button_clicked(self) -> None:
        path = self._text_path or str(
            self.document.property("path") or (self.source.path if self.source else "")
        )
        if path:
            QDesktopServices.openUrl(QUrl.fromLocalFile(path))
