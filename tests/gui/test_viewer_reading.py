"""The viewer as a reader meets it (issue 31): the page readable when it opens in a narrow pane,
each document opened at its own zoom with the passage's start in sight, the printed page label
beside the physical number, the text view keeping its place on resize, and a word when no
program can open the file outside the app. Real PDFs from the shared corpus."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, QRectF, QSize
from PySide6.QtGui import QTextCursor
from PySide6.QtPdfWidgets import QPdfView

from desktop_rag.gui.models import SourcesModel
from desktop_rag.gui.viewer import SourcePane
from desktop_rag.ingest.chunk import bundled_tokenizer, chunk_pages
from desktop_rag.ingest.extract import extract
from desktop_rag.query.marks import span_boxes
from desktop_rag.types import Source
from tests.conftest import CORPUS
from tests.docgen import make_docx

WAIT_MS = 20_000
COVID = CORPUS / "covid-qa" / "pdf"
GEOTOPO = CORPUS / "fixtures" / "py-pdf-sample-files" / "009-pdflatex-geotopo"
LABELLED = GEOTOPO / "GeoTopo-komprimiert.pdf"  # pages i, ii, iii, then 1, 2, ...

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not here")


def _source(path: Path, page: int, which: int = 0) -> Source:
    extracted = extract(str(path))
    chunks = [
        c
        for c in chunk_pages("d", str(path), extracted.pages, bundled_tokenizer())
        if c.page == page
    ]
    assert chunks, (path.name, page)
    c = chunks[which]
    return Source(1, c.path, c.page, 1.0, c.text, c.start, c.end)


@pytest.fixture
def pane(qtbot) -> SourcePane:
    pane = SourcePane(SourcesModel())
    qtbot.addWidget(pane)
    pane.resize(300, 600)  # the source pane of a 900 x 600 window
    pane.show()
    qtbot.waitExposed(pane)
    return pane


def _show(qtbot, pane: SourcePane, source: Source) -> None:
    pane.show_source(source)
    qtbot.waitUntil(lambda: not pane.loading and pane.document.pageCount() > 0, timeout=WAIT_MS)
    qtbot.wait(200)  # the layout settles with the view's next resize


def _boxes_on_screen(pane: SourcePane, source: Source) -> list[QRectF]:
    boxes = span_boxes(source.path, source.page, source.start, source.end, source.text)
    assert boxes
    return [pane.pdf.box_rect(source.page - 1, b) for b in boxes]


def test_the_page_opens_readable_in_a_narrow_pane(qtbot, pane: SourcePane) -> None:
    # Fitting a whole page's width into 300 pixels drew 10 pt text about 5 pixels high. Since
    # issue 41 the zoom stops where the passage's lines would be cut at the pane's sides: a
    # column of a two-column paper fills the 300 pixels with its lines about 9.4 pixels high.
    source = _source(COVID / "1740.pdf", 2, 1)
    _show(qtbot, pane, source)
    lines = [r.height() for r in _boxes_on_screen(pane, source)]
    assert statistics.median(lines) >= 9.0, f"lines {statistics.median(lines):.1f} px high"
    first = _boxes_on_screen(pane, source)[0]
    view = QRectF(pane.pdf.viewport().rect())
    assert view.contains(first.topLeft() + QPointF(2, 2)), "the passage's start is in sight"


def test_zoom_and_sideways_scroll_start_afresh_with_each_document(qtbot, pane: SourcePane) -> None:
    pane.resize(520, 700)
    first = _source(COVID / "1740.pdf", 2, 1)
    _show(qtbot, pane, first)
    for _ in range(4):
        pane.zoom_in_button.click()
    chosen = pane.pdf.effective_zoom()
    bar = pane.pdf.horizontalScrollBar()
    bar.setValue(bar.maximum())  # read the right column, far right
    second = _source(COVID / "2683.pdf", 1, 0)  # a passage in the left column
    _show(qtbot, pane, second)
    # The default zoom again (since issue 41 it depends on the passage's column width).
    assert pane.pdf.effective_zoom() < chosen / 2, (pane.pdf.effective_zoom(), chosen)
    assert pane.pdf.effective_zoom() <= 1.25
    start = _boxes_on_screen(pane, second)[0]
    view = QRectF(pane.pdf.viewport().rect())
    assert view.contains(start.topLeft() + QPointF(2, 2)), (start, view, bar.value())


def test_the_printed_page_label_is_shown_beside_the_page_number(qtbot, pane: SourcePane) -> None:
    pane.resize(700, 600)
    pane.show_file(str(LABELLED), 10)  # printed as page 7: i, ii, iii come first
    qtbot.waitUntil(lambda: not pane.loading and pane.document.pageCount() > 0, timeout=WAIT_MS)
    qtbot.wait(100)
    heading = pane.heading.text()
    assert "page 10 of 117" in heading and "printed 7" in heading, heading
    pane.show_file(str(COVID / "1740.pdf"), 2)  # no labels: nothing more to say
    qtbot.waitUntil(lambda: not pane.loading and pane.document.pageCount() == 8, timeout=WAIT_MS)
    qtbot.wait(100)
    assert "printed" not in pane.heading.text(), pane.heading.text()


def test_open_in_system_viewer_says_so_when_nothing_can_open_it(
    qtbot, pane: SourcePane, monkeypatch
) -> None:
    monkeypatch.setattr("desktop_rag.gui.viewer.QDesktopServices.openUrl", lambda url: False)
    said: list[str] = []
    pane.notice.connect(said.append)
    pane.show_file(str(COVID / "1740.pdf"), 1)
    qtbot.waitUntil(lambda: not pane.loading and pane.document.pageCount() > 0, timeout=WAIT_MS)
    pane.open_button.click()
    assert said and "1740.pdf" in said[0] and "no program" in said[0].lower(), said


def test_the_text_view_keeps_its_place_when_the_window_is_resized(
    qtbot, pane: SourcePane, tmp_path: Path
) -> None:
    paragraphs = [
        f"Paragraph {n}: " + " ".join(f"word{n}x{i}" for i in range(60)) for n in range(80)
    ]
    docx = make_docx(tmp_path / "long.docx", [(1, "Chapter", paragraphs)])
    pane.resize(520, 700)
    pane.show_file(str(docx), 1)
    view = pane.text_view
    qtbot.waitUntil(lambda: not view.reading and bool(view.toPlainText()), timeout=WAIT_MS)
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)  # the reader is half way through
    qtbot.wait(50)
    before = view.cursorForPosition(QPoint(4, 4)).position()
    line = view.fontMetrics().lineSpacing()
    for size in (QSize(320, 700), QSize(800, 700)):
        pane.resize(size)
        qtbot.wait(100)
        cursor = QTextCursor(view.document())
        cursor.setPosition(before)
        # The text that was at the top is still in the top line, however it wraps now.
        top = view.cursorRect(cursor).top()
        assert -2 <= top <= 2 * line, (size, top)


def test_each_document_starts_at_the_default_zoom_mode(qtbot, pane: SourcePane) -> None:
    pane.resize(900, 700)  # wide enough that fitting the width is readable
    _show(qtbot, pane, _source(COVID / "1740.pdf", 2, 1))
    assert pane.pdf.zoomMode() == QPdfView.ZoomMode.FitToWidth
