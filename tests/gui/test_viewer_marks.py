"""The viewer shows the cited page with the passage on screen and marked, on real multi-page
PDFs (covid-qa articles, financebench filings), pages near the end included.

Where the view put a passage is worked out here from QPdfView's public state (zoom, margins,
spacing, scroll bars) the way QPdfView lays pages out, and that model is itself checked
against what QPdfView draws for a search result; the passage's rectangles come from pdfium.
"""

from __future__ import annotations

import ctypes
import json
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF, QRect, QRectF
from PySide6.QtGui import QGuiApplication, QImage
from PySide6.QtPdf import QPdfSearchModel
from PySide6.QtPdfWidgets import QPdfView

from desktop_rag.gui.models import SourcesModel
from desktop_rag.gui.pageview import line_boxes, main_block
from desktop_rag.gui.viewer import SourcePane
from desktop_rag.ingest.chunk import bundled_tokenizer, chunk_pages
from desktop_rag.ingest.extract import extract
from desktop_rag.query.marks import Box, span_boxes
from desktop_rag.types import Chunk, Source
from tests.conftest import CORPUS

WAIT_MS = 20_000
COVID = CORPUS / "covid-qa" / "pdf"
FINANCE = CORPUS / "financebench" / "pdfs"
# (file, pages to cite): the case was page 47 of a 52-page PDF.
CITED = [
    (COVID / "2683.pdf", (1, 5, 9, 10)),
    (COVID / "1740.pdf", (2, 7, 8)),
    (FINANCE / "AMCOR_2023Q2_10Q.pdf", (3, 47, 52, 56, 57)),
    (FINANCE / "MGMRESORTS_2023Q2_10Q.pdf", (30, 60, 61, 62)),
]

# Slow: each case lays out and renders real filings of the corpus (about two minutes each).
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not here"),
]


# shiboken6 6.12 returns None from void calls without a new reference (as if None were
# immortal, which it is only from Python 3.12): on 3.11 every call costs None one reference,
# and the interpreter aborts when they run out. These tests make hundreds of thousands of
# calls; hold enough references that they do not run out.
@pytest.fixture(autouse=True)
def _enough_none_references() -> None:
    if sys.version_info < (3, 12) and sys.getrefcount(None) < 2_000_000:
        pinned = [None] * 2_000_000
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(pinned))  # never freed, not even at exit


def cited_sources() -> list[Source]:
    """On each cited page, its first, middle and last passage: as an answer cites them."""
    out: list[Source] = []
    for path, pages in CITED:
        extracted = extract(str(path))
        chunks = chunk_pages("d", str(path), extracted.pages, bundled_tokenizer())
        for page in pages:
            on_page: list[Chunk] = [c for c in chunks if c.page == page]
            assert on_page, (path.name, page)
            for c in {
                id(c): c for c in (on_page[0], on_page[len(on_page) // 2], on_page[-1])
            }.values():
                out.append(Source(len(out) + 1, c.path, c.page, 1.0, c.text, c.start, c.end))
    return out


def page_rect(view: QPdfView, page: int) -> QRect:
    """Where QPdfView draws a page (0-based), in viewport pixels: its MultiPage layout."""
    document = view.document()
    screen = QGuiApplication.primaryScreen().logicalDotsPerInch() / 72.0
    margins = view.documentMargins()
    width = view.viewport().width()
    sizes = []
    for p in range(document.pageCount()):
        size = (document.pagePointSize(p) * screen).toSize()
        if view.zoomMode() == QPdfView.ZoomMode.FitToWidth:
            scale = (width - margins.left() - margins.right()) / size.width()
            size = size * scale
        else:
            size = (document.pagePointSize(p) * screen * view.zoomFactor()).toSize()
        sizes.append(size)
    total = max(s.width() for s in sizes) + margins.left() + margins.right()
    y = margins.top()
    for p in range(page):
        y += sizes[p].height() + view.pageSpacing()
    x = (max(total, width) - sizes[page].width()) // 2
    return QRect(
        x - view.horizontalScrollBar().value(),
        y - view.verticalScrollBar().value(),
        sizes[page].width(),
        sizes[page].height(),
    )


def on_screen(view: QPdfView, page: int, box: Box) -> QRectF:
    r = page_rect(view, page)
    return QRectF(
        r.x() + box.x0 * r.width(),
        r.y() + box.y0 * r.height(),
        (box.x1 - box.x0) * r.width(),
        (box.y1 - box.y0) * r.height(),
    )


def changed(before: QImage, after: QImage) -> QRect:
    """The bounding box of the pixels that differ."""
    xs, ys = [], []
    for y in range(0, before.height()):
        for x in range(0, before.width(), 2):
            if before.pixel(x, y) != after.pixel(x, y):
                xs.append(x)
                ys.append(y)
    if not xs:
        return QRect()
    return QRect(min(xs), min(ys), max(xs) - min(xs) + 1, max(ys) - min(ys) + 1)


@pytest.fixture
def pane(qtbot) -> SourcePane:
    pane = SourcePane(SourcesModel())
    qtbot.addWidget(pane)
    pane.resize(520, 900)
    pane.show()
    qtbot.waitExposed(pane)
    return pane


def show(qtbot, pane: SourcePane, source: Source) -> None:
    pane.show_source(source)
    qtbot.waitUntil(lambda: not pane.loading and pane.document.pageCount() > 0, timeout=WAIT_MS)
    qtbot.wait(200)  # the layout settles with the view's next resize


def test_the_layout_model_is_where_qpdfview_draws(qtbot, pane: SourcePane) -> None:
    # Qt's own search highlight lands inside the rectangles this model puts its result at.
    path = FINANCE / "AMCOR_2023Q2_10Q.pdf"
    source = Source(1, str(path), 47, 1.0, "x", 0, 1)
    show(qtbot, pane, source)
    view = pane.pdf
    search = QPdfSearchModel()
    search.setDocument(pane.document)
    view.setSearchModel(search)
    qtbot.wait(400)
    before = view.viewport().grab().toImage()
    page = view.pageNavigator().currentPage()
    text = extract(str(path)).pages[page].text
    word = next(w for w in text.split() if w.isalpha() and len(w) >= 8)
    search.setSearchString(word)
    qtbot.waitUntil(lambda: bool(search.resultsOnPage(page)), timeout=WAIT_MS)
    qtbot.wait(100)
    after = view.viewport().grab().toImage()
    drawn = changed(before, after)
    assert not drawn.isEmpty()
    size = pane.document.pagePointSize(page)
    expected = QRectF()
    for result in search.resultsOnPage(page):
        for r in result.rectangles():
            box = Box(
                r.left() / size.width(),
                r.top() / size.height(),
                r.right() / size.width(),
                r.bottom() / size.height(),
            )
            expected = expected.united(on_screen(view, page, box))
    visible = expected.intersected(QRectF(view.viewport().rect()))
    assert visible.adjusted(-3, -3, 3, 3).contains(QRectF(drawn)), (drawn, visible)


@pytest.mark.parametrize(
    ("width", "height", "zoom"),
    [(520, 900, 0.0), (520, 560, 0.0), (700, 480, 0.0), (520, 700, 2.0)],
    ids=["tall", "short", "wide", "zoomed"],
)
def test_every_cited_passage_is_on_its_page_and_in_view(
    qtbot, pane: SourcePane, width: int, height: int, zoom: float
) -> None:
    sources = cited_sources()
    assert len(sources) >= 30
    pane.resize(width, height)
    if zoom:
        pane.pdf.setZoomMode(QPdfView.ZoomMode.Custom)
        pane.pdf.setZoomFactor(zoom)
    missed = []
    for source in sources:
        show(qtbot, pane, source)
        if zoom and abs(pane.pdf.effective_zoom() - zoom) > 1e-3:
            # A new document opens at the default zoom: zoom it as a reader would, then
            # open the source again in the same document, which keeps the zoom.
            pane.pdf.zoom(zoom / pane.pdf.effective_zoom())
            show(qtbot, pane, source)
            assert abs(pane.pdf.effective_zoom() - zoom) < 1e-3
        boxes = span_boxes(source.path, source.page, source.start, source.end, source.text)
        assert boxes, (source.path, source.page)
        # The lines holding most of it (issue 41): a chunk that starts with the last words of
        # one column is read where the rest of it is, in the next.
        boxes = list(main_block(line_boxes(boxes)))
        view = pane.pdf
        shown = QRectF()
        for box in boxes:
            shown = shown.united(on_screen(view, source.page - 1, box))
        viewport = QRectF(view.viewport().rect())
        first = on_screen(view, source.page - 1, boxes[0])
        if shown.height() <= viewport.height() - 8 and shown.width() <= viewport.width() - 8:
            in_view = viewport.contains(shown)
        else:  # larger than the view (both columns of a page, or zoomed in): its start
            in_view = viewport.contains(first.topLeft() + QPointF(2, 2))
        if pane.current_page != source.page or not in_view:
            missed.append((Path(source.path).name, source.page, pane.current_page, shown))
    assert not missed, f"{len(missed)} of {len(sources)}: {missed[:5]}"


def test_the_passage_is_marked_where_it_is(qtbot, pane: SourcePane) -> None:
    path = FINANCE / "AMCOR_2023Q2_10Q.pdf"
    source = next(s for s in cited_sources() if s.path == str(path) and s.page == 52)
    show(qtbot, pane, source)
    view = pane.pdf
    qtbot.wait(400)  # the page is rendered
    marked = view.viewport().grab().toImage()
    view.set_marks(None)
    qtbot.wait(50)
    plain = view.viewport().grab().toImage()
    drawn = changed(plain, marked)
    boxes = span_boxes(source.path, source.page, source.start, source.end, source.text)
    shown = QRectF()
    for box in boxes:
        shown = shown.united(on_screen(view, source.page - 1, box))
    assert not drawn.isEmpty()
    assert shown.adjusted(-3, -3, 3, 3).contains(QRectF(drawn)), (drawn, shown)
    assert drawn.height() > 0.5 * shown.height()


def test_ocr_word_boxes_are_drawn_where_they_say(qtbot, pane: SourcePane) -> None:
    # A page whose text came from OCR: no text layer to search, only the chunk's word boxes
    # ([start, end, x0, y0, x1, y1], fractions of the page from its top-left).
    path = COVID / "1740.pdf"
    words = [[0, 5, 0.10, 0.60, 0.20, 0.62], [6, 12, 0.22, 0.60, 0.35, 0.62]]
    words += [[13, 20, 0.10, 0.63, 0.30, 0.65], [500, 510, 0.5, 0.1, 0.6, 0.12]]
    source = Source(1, str(path), 3, 1.0, "Hello world passage", 0, 20, boxes=json.dumps(words))
    show(qtbot, pane, source)
    view = pane.pdf
    assert pane.current_page == 3
    qtbot.wait(400)
    marked = view.viewport().grab().toImage()
    view.set_marks(None)
    qtbot.wait(50)
    drawn = changed(view.viewport().grab().toImage(), marked)
    expected = on_screen(view, 2, Box(0.10, 0.60, 0.35, 0.65))
    assert QRectF(view.viewport().rect()).contains(expected)
    assert expected.adjusted(-3, -3, 3, 3).contains(QRectF(drawn)), (drawn, expected)
    assert drawn.width() > 0.8 * expected.width()
