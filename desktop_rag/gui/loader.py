"""Opening a PDF on a worker, for the page view: the document, every page's size and the
passage's rectangles, so the GUI thread only swaps the ready document in. The last request
wins: what an earlier one opened is let go."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtPdf import QPdfDocument

from desktop_rag.gui.pageview import Marks, line_boxes
from desktop_rag.gui.workers import Job, Lanes
from desktop_rag.query.marks import Box, span_boxes, word_boxes
from desktop_rag.query.prompt import GAP
from desktop_rag.types import Source


@dataclass(frozen=True, slots=True)
class Request:
    serial: int
    path: str
    page: int  # 1-based
    source: Source | None
    quotes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Loaded:
    request: Request
    document: QPdfDocument | None  # None: the document shown already is the one
    error: QPdfDocument.Error
    exists: bool
    marks: Marks | None = field(default=None)


BoxesLookup = Callable[[str, int], Sequence[str]]


def find_marks(request: Request, lookup: BoxesLookup | None = None) -> Marks | None:
    """The passage's rectangles on its page, and its quotes' (runs on the worker): from the
    source's own word boxes, else from pdfium's text page, else from the boxes stored with the
    page's chunks (an OCR'd page has no text layer)."""
    source = request.source
    if source is None:
        return None
    page = source.page
    passage = word_boxes(source.boxes, source.start, source.end)
    stored: list[str] = [source.boxes] if source.boxes else []
    if not passage:
        # Passages of one page joined with GAP are marked each where it is: marked as one,
        # the page between them was shaded too (a whole column of a paper).
        for part in source.text.split(GAP):
            passage += span_boxes(source.path, page, source.start, source.end, part)
        passage = list(dict.fromkeys(passage))  # overlapping parts: each letter shaded once
    if not passage and lookup is not None:
        stored = list(lookup(source.path, page))
        passage = [b for boxes in stored for b in word_boxes(boxes, source.start, source.end)]
    quotes: list[Box] = []
    for quote in request.quotes:
        if stored:
            continue  # an OCR'd page: its quotes are inside the passage already marked
        quotes += span_boxes(source.path, page, source.start, source.end, quote)
    return Marks(page - 1, line_boxes(passage), line_boxes(quotes))


def load_document(path: str) -> tuple[QPdfDocument, QPdfDocument.Error, bool]:
    """Open a PDF and read each page's size (what QPdfView's layout asks for), on the calling
    thread; the document is handed to the GUI thread, where it will be used."""
    document = QPdfDocument()
    error = document.load(path)
    if error == QPdfDocument.Error.None_:
        for page in range(document.pageCount()):
            document.pagePointSize(page)  # pdfium keeps it: the view's layout is then quick
    app = QCoreApplication.instance()
    if app is not None:
        document.moveToThread(app.thread())
    return document, error, os.path.exists(path)


class PdfLoader(QObject):
    """Opens PDFs (`open`) or finds a passage in the one shown (`mark`) on its own lane;
    `loaded` carries the result of the latest request only."""

    loaded = Signal(object)  # Loaded

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._lanes = Lanes(["pdf"], self)
        self.serial = 0
        self.wanted: Request | None = None

    @property
    def loading(self) -> bool:
        """A request is still being worked on."""
        return self.wanted is not None

    def ask(
        self, path: str, page: int, source: Source | None, quotes: tuple[str, ...] = ()
    ) -> Request:
        """A new request, which makes every earlier one stale."""
        self.serial += 1
        self.wanted = Request(self.serial, path, page, source, quotes)
        return self.wanted

    def cancel(self) -> None:
        """Nothing asked for so far is wanted any more."""
        self.serial += 1
        self.wanted = None

    def settle(self) -> None:
        """The latest request was answered without the worker."""
        self.wanted = None

    def open(self, request: Request, lookup: BoxesLookup | None) -> None:
        def load(job: Job) -> Loaded:
            document, error, exists = load_document(request.path)
            marks = find_marks(request, lookup) if error == QPdfDocument.Error.None_ else None
            return Loaded(request, document, error, exists, marks)

        self._lanes.run("pdf", load, on_returned=self._on_job_returned, name="open pdf")

    def mark(self, request: Request, lookup: BoxesLookup | None) -> None:
        def mark(job: Job) -> Loaded:
            marks = find_marks(request, lookup)
            return Loaded(request, None, QPdfDocument.Error.None_, True, marks)

        self._lanes.run("pdf", mark, on_returned=self._on_job_returned, name="mark passage")

    def _on_job_returned(self, loaded: Loaded) -> None:
        if self.wanted is None or loaded.request.serial != self.wanted.serial:
            if loaded.document is not None:
                loaded.document.deleteLater()  # another document was asked for meanwhile
            return
        self.wanted = None
        self.loaded.emit(loaded)
