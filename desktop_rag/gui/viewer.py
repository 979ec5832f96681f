"""The source pane: an answer's sources, the PDF at the cited page with the passage marked
(or a document without pages as text, at the cited section).

A PDF is opened on a worker (gui/loader.py: a file on a slow drive or a network share can take
seconds, and QPdfView lays out every page of a long one), which also finds the passage's
rectangles (query/marks.py), so the GUI thread only swaps the ready document in, draws the
marks (gui/pageview.py) and scrolls them into view. The last request wins.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Sequence

from PySide6.QtCore import QModelIndex, QPointF, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QIcon
from PySide6.QtPdf import QPdfDocument
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
from desktop_rag.gui.loader import BoxesLookup, Loaded, PdfLoader, Request
from desktop_rag.gui.models import SourcesModel
from desktop_rag.gui.pageview import Marks, PageView
from desktop_rag.gui.textview import TextView
from desktop_rag.locations import paginated, section_mark
from desktop_rag.types import Source

# Rows of the sources list shown before it scrolls: beside an open page, and while none is.
LIST_ROWS = 6
LIST_ROWS_ALONE = 12


def readable(text: str) -> str:
    """A passage as prose: the PDF's line breaks joined, its paragraph breaks kept."""
    paragraphs = re.split(r"\n\s*\n", text.strip())
    return "\n\n".join(" ".join(p.split()) for p in paragraphs)


class SourcePane(QWidget):
    """Shows where an answer came from; `show_source` opens a PDF at the cited page.

    Opening happens in the background: `opened` or `open_failed` follows."""

    source_selected = Signal(object)  # Source
    opened = Signal(str)  # path, shown at the requested page
    open_failed = Signal(str, str)  # path, why
    notice = Signal(str)  # a short message for the status bar

    def __init__(self, model: SourcesModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.source: Source | None = None
        self.matched = ""  # the text marked on the page ("" when nothing could be matched)
        # Where an OCR'd page's word boxes are kept (its chunks in the index), if anywhere.
        self.boxes_lookup: BoxesLookup | None = None
        self.loader = PdfLoader(self)
        self._text_path = ""
        self._text_page = 0

        self._make_list()
        self._make_bar()
        self._make_pages()
        self._make_placeholder()
        self._lay_out()
        self._connect()
        self._update_buttons()
        self._on_model_reset()

    def _make_list(self) -> None:
        self.title = QLabel("<b>" + html.escape(self.tr("Sources")) + "</b>")
        self.list = QListView()
        self.list.setModel(self.model)
        self.list.setAccessibleName(self.tr("Sources of the answer"))
        # A long line is cut at its end, the section's, keeping the file and page in sight (the
        # tooltip has it whole): a sideways scroll bar would hide them and take a row's room.
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def _make_bar(self) -> None:
        """The heading (file and page) and the buttons above the page."""
        self.heading = QLabel()
        self.heading.setAccessibleName(self.tr("Page shown"))
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        self.heading.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.heading.setWordWrap(True)  # a narrow pane shows the page and its label too
        self.prev_button = tool_button(
            "previous", self.tr("Previous page"), self.tr("Previous page")
        )
        self.next_button = tool_button("next", self.tr("Next page"), self.tr("Next page"))
        self.zoom_out_button = tool_button("zoom-out", self.tr("Zoom out"), self.tr("Zoom out"))
        self.zoom_in_button = tool_button("zoom-in", self.tr("Zoom in"), self.tr("Zoom in"))
        self.open_button = tool_button(
            "open-external",
            self.tr("Open in system viewer"),
            self.tr("Open this PDF in your usual PDF viewer"),
            text_beside=True,
        )
        # Back to the sources list alone (in a narrow window, back to the library).
        self.close_button = tool_button("cancel", self.tr("Close page"), self.tr("Close this page"))
        self.bar = QHBoxLayout()
        self.bar.addStretch(1)
        for b in (
            self.prev_button,
            self.next_button,
            self.zoom_out_button,
            self.zoom_in_button,
            self.open_button,
            self.close_button,
        ):
            self.bar.addWidget(b)

    def _make_pages(self) -> None:
        """The PDF view and, in its place for documents without pages, the text view."""
        self.document = QPdfDocument(self)
        self.pdf = PageView()
        self.pdf.setAccessibleName(self.tr("PDF page"))
        self.pdf.setDocument(self.document)
        self.pdf.setPageMode(QPdfView.PageMode.MultiPage)
        self.pdf.setZoomMode(QPdfView.ZoomMode.FitToWidth)
        # Documents without pages (Word, HTML, EPUB, text) show as text in the PDF's place.
        self.text_view = TextView()
        self.page_stack = QStackedWidget()
        self.page_stack.addWidget(self.pdf)
        self.page_stack.addWidget(self.text_view)
        self.passage = QTextBrowser()
        self.passage.setAccessibleName(self.tr("Cited passage"))
        self.passage.setOpenLinks(False)

    def _make_placeholder(self) -> None:
        """What shows before any page: how to get one."""
        self.placeholder = QWidget()
        self.placeholder.setAccessibleName(self.tr("No page shown"))
        mark = QLabel()
        mark.setPixmap(icon("document").pixmap(48, 48, QIcon.Mode.Disabled))
        mark.setAlignment(Qt.AlignmentFlag.AlignCenter)
        hint = QLabel(
            self.tr(
                "Click a source, or a number like [1] in an answer, to see the page it came from."
            )
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

    def _on_stack_current_changed(self, _index: int) -> None:
        self._fit_list()

    def _lay_out(self) -> None:
        viewer = QWidget()
        viewer_layout = QVBoxLayout(viewer)
        viewer_layout.setContentsMargins(0, 0, 0, 0)
        viewer_layout.addWidget(self.heading)
        viewer_layout.addLayout(self.bar)
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.setObjectName("sourceSplit")
        self.split.addWidget(self.page_stack)
        passage_box = QWidget()
        passage_layout = QVBoxLayout(passage_box)
        passage_layout.setContentsMargins(0, 4, 0, 0)
        passage_layout.addWidget(QLabel("<b>" + html.escape(self.tr("Cited passage")) + "</b>"))
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

    def _connect(self) -> None:
        self.stack.currentChanged.connect(self._on_stack_current_changed)
        self.list.clicked.connect(self._on_list_clicked)
        self.list.activated.connect(self._on_list_clicked)
        self.pdf.verticalScrollBar().sliderPressed.connect(self.pdf.release)
        self.text_view.shown.connect(self._on_text_view_shown)
        self.text_view.failed.connect(self._on_text_view_failed)
        self.loader.loaded.connect(self._on_loader_loaded)
        self.prev_button.clicked.connect(self._on_prev_button_clicked)
        self.next_button.clicked.connect(self._on_next_button_clicked)
        self.zoom_in_button.clicked.connect(self._on_zoom_in_button_clicked)
        self.zoom_out_button.clicked.connect(self._on_zoom_out_button_clicked)
        self.open_button.clicked.connect(self._on_open_button_clicked)
        self.close_button.clicked.connect(self.close_page)
        self.pdf.pageNavigator().currentPageChanged.connect(self._on_navigator_page_changed)
        self.model.modelReset.connect(self._on_model_reset)

    # -- showing -------------------------------------------------------------------------------

    @property
    def current_page(self) -> int:
        """1-based, as the citation says."""
        return self.pdf.pageNavigator().currentPage() + 1

    @property
    def loading(self) -> bool:
        """A document asked for is still being opened."""
        return self.loader.loading

    def show_source(self, source: Source, quotes: Sequence[str] = ()) -> None:
        """Open the source's PDF at its page and mark the passage (and these quotes of it)."""
        self.source = source
        row = self.model.row_of(source.n)
        if row >= 0:
            self.list.setCurrentIndex(self.model.index(row))
        self.passage.setPlainText(readable(source.text))
        self.stack.setCurrentIndex(1)
        if not paginated(source.path):
            self._show_text(source.path, source.page, source.start, source.end)
            return
        self._show_pdf_view()
        self._request(source.path, source.page, source, tuple(quotes))

    def show_file(self, path: str, page: int = 1) -> None:
        """Open a document without a passage (double-click in the library)."""
        self.source = None
        self.list.clearSelection()
        self.passage.clear()
        self.stack.setCurrentIndex(1)
        if not paginated(path):
            self._show_text(path, page, 0, 0)
            return
        self._show_pdf_view()
        self._request(path, page, None)

    def close_page(self) -> None:
        """Stop showing a page; the answer's sources stay listed."""
        self.loader.settle()
        self.source = None
        self.list.clearSelection()
        self.stack.setCurrentIndex(0)

    def clear(self) -> None:
        self.source = None
        self.loader.settle()
        self.model.set_sources([])
        self.stack.setCurrentIndex(0)

    def _request(
        self, path: str, page: int, source: Source | None, quotes: tuple[str, ...] = ()
    ) -> None:
        request = self.loader.ask(path, page, source, quotes)
        if self.document.property("path") == path and self.document.pageCount() > 0:
            if source is None:
                self.loader.settle()
                self._show(request, None)
            else:
                self.loader.mark(request, self.boxes_lookup)
            return
        self.heading.setText(self.tr("Opening {name}…").format(name=os.path.basename(path)))
        self.heading.setToolTip(path)
        self.loader.open(request, self.boxes_lookup)

    def _on_loader_loaded(self, loaded: Loaded) -> None:
        request, document = loaded.request, loaded.document
        if document is None:
            self._show(request, loaded.marks)
            return
        if loaded.error != QPdfDocument.Error.None_:
            document.deleteLater()
            self._failed(
                request, "it is no longer there" if not loaded.exists else loaded.error.name
            )
            return
        old, self.document = self.document, document
        document.setParent(self)
        document.setProperty("path", request.path)
        self.pdf.set_marks(None)
        self.pdf.setDocument(document)
        old.deleteLater()
        self._show(request, loaded.marks, new_document=True)

    def _show(self, request: Request, marks: Marks | None, new_document: bool = False) -> None:
        page = min(max(request.page, 1), self.document.pageCount()) - 1
        if marks is not None and marks.page != page:
            marks = None
        marked = request.source is not None and marks is not None and bool(marks.passage)
        self.matched = request.source.text if request.source is not None and marked else ""
        self.pdf.set_marks(marks)
        if new_document:
            # Each document opens at the default zoom, from its left edge: the zoom and the
            # sideways scroll chosen for the last one hid the start of this one's passage.
            self.pdf.fit()
        self.pdf.release()
        self.pdf.pageNavigator().jump(page, QPointF(0, 0), 0)
        self.pdf.reveal()
        # A new document's layout settles with the view's next resize (fit to width, the
        # scroll bar appearing): place the page and the passage again then, or a long PDF
        # ends up pages further on.
        QTimer.singleShot(0, lambda: self._settle(request.serial, page))
        self._update_heading()
        self.opened.emit(request.path)

    def _settle(self, serial: int, page: int) -> None:
        if serial != self.loader.serial:
            return
        if self.pdf.pageNavigator().currentPage() != page:
            self.pdf.pageNavigator().jump(page, QPointF(0, 0), 0)
        self.pdf.reveal()

    def _failed(self, request: Request, why: str) -> None:
        path = request.path
        self.pdf.set_marks(None)
        self.document.close()
        self.document.setProperty("path", "")
        self.matched = ""
        self.heading.setText(os.path.basename(path))
        self.passage.setPlainText(
            self.tr("This PDF cannot be opened ({why}): {path}").format(why=why, path=path)
            + "\n\n"
            + (request.source.text if request.source else "")
        )
        self._update_buttons()
        self.open_failed.emit(path, why)

    def _show_pdf_view(self) -> None:
        self._text_path = ""
        self.page_stack.setCurrentWidget(self.pdf)
        self.open_button.setToolTip(self.tr("Open this PDF in your usual PDF viewer"))

    def _show_text(self, path: str, page: int, start: int, end: int) -> None:
        """A document without pages: its text, at the section, the passage marked."""
        self.loader.cancel()  # a PDF still opening is no longer wanted
        self._text_path = path
        self._text_page = page
        self.matched = ""
        self.page_stack.setCurrentWidget(self.text_view)
        self.open_button.setToolTip(
            self.tr("Open this document in the program your system opens it with")
        )
        self.heading.setText(self.tr("Opening {name}…").format(name=os.path.basename(path)))
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
        self.opened.emit(path)

    def _on_text_view_failed(self, path: str, why: str) -> None:
        if path == self._text_path:
            self.heading.setText(os.path.basename(path))
            self._update_buttons()
            self.open_failed.emit(path, why)

    def _update_heading(self) -> None:
        path = str(self.document.property("path") or "")
        if not path:
            return
        n = f"[{self.source.n}] " if self.source else ""
        total = self.document.pageCount()
        text = n + self.tr("{name} — page {page} of {total}").format(
            name=os.path.basename(path), page=self.current_page, total=total
        )
        label = self.document.pageLabel(self.current_page - 1)
        if label and label != str(self.current_page):  # the number printed on the page
            text += " " + self.tr("(printed {label})").format(label=label)
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
            self._fit_list()

    def _fit_list(self) -> None:
        """The sources list as tall as its rows, up to LIST_ROWS beside an open page and
        LIST_ROWS_ALONE while no page is open (an outline cites a dozen pages)."""
        if self.model.rowCount() == 0:
            return
        most = LIST_ROWS if self.stack.currentIndex() == 1 else LIST_ROWS_ALONE
        rows = min(self.model.rowCount(), most)
        height = self.list.sizeHintForRow(0) * rows + 2 * self.list.frameWidth() + 4
        self.list.setFixedHeight(height)
        if self.list.currentIndex().isValid():
            self.list.scrollTo(self.list.currentIndex())

    def _on_navigator_page_changed(self, _page: int) -> None:
        if not self._text_path:
            self._update_heading()

    def _on_prev_button_clicked(self) -> None:
        self.pdf.release()
        nav = self.pdf.pageNavigator()
        nav.jump(max(0, nav.currentPage() - 1), QPointF(0, 0), 0)

    def _on_next_button_clicked(self) -> None:
        self.pdf.release()
        nav = self.pdf.pageNavigator()
        last = self.document.pageCount() - 1
        nav.jump(min(last, nav.currentPage() + 1), QPointF(0, 0), 0)

    def _on_zoom_in_button_clicked(self) -> None:
        self.pdf.zoom(1.25)

    def _on_zoom_out_button_clicked(self) -> None:
        self.pdf.zoom(0.8)

    def _on_open_button_clicked(self) -> None:
        path = self._text_path or str(
            self.document.property("path") or (self.source.path if self.source else "")
        )
        if path and not QDesktopServices.openUrl(QUrl.fromLocalFile(path)):
            self.notice.emit(
                self.tr(
                    "No program on this computer is set up to open {name}; the file is {path}."
                ).format(name=os.path.basename(path), path=path)
            )
