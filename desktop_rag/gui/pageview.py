"""The PDF page view: QPdfView with a passage's marks drawn over its page, scrolled into view."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRect, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QGuiApplication,
    QPainter,
    QPaintEvent,
    QPen,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtPdfWidgets import QPdfView

from desktop_rag.query.marks import Box

# The passage shaded, the quotes of the answer inside it outlined as well.
PASSAGE_FILL = QColor(255, 214, 0, 80)
QUOTE_FILL = QColor(255, 170, 0, 110)
QUOTE_PEN = QColor(214, 120, 0)
# Where the passage's top goes, as a share of the view's height: high enough to show what
# follows, low enough to show a line or two before it.
TOP_SHARE = 0.15
# QPdfView names as current the page under a line at this share of the view's height.
_CURRENT_LINE = 0.4
# The smallest zoom a page opens at: 10 pt text about 11 pixels high on a 96 dpi screen.
# Fitting a page's width into a narrow pane drew it at 4 to 5 pixels, too small to read.
READABLE_ZOOM = 0.8
# With a passage marked, its lines are made at least this many pixels high (a paper's small
# print needs more than READABLE_ZOOM), zooming in no further than MAX_OPEN_ZOOM to get there.
READABLE_LINE_PX = 11.0
MAX_OPEN_ZOOM = 1.25
# A page whose width fits the view at this zoom or more opens whole (10 pt text 9 pixels high
# on a 96 dpi screen): a page cut at the pane's sides is worse to read than small print.
WHOLE_PAGE_ZOOM = 0.7
# A zoom this close to the page's width is the page's width: a third larger is not worth a
# page cut at its sides.
NEAR_FIT = 1.35
# Room left either side of the passage's lines when the page is drawn wider than the view.
COLUMN_ROOM_PX = 6
# The quotes' outline stands this far off their line, clear of the letters.
QUOTE_PAD_PX = 2.0


@dataclass(frozen=True, slots=True)
class Marks:
    """What to draw on one page (0-based): the passage's boxes and its quotes' boxes."""

    page: int
    passage: tuple[Box, ...] = ()
    quotes: tuple[Box, ...] = ()


def line_boxes(boxes: Sequence[Box]) -> tuple[Box, ...]:
    """Rectangles joined into one per line: pdfium gives one a letter on many pages, and a
    mark drawn letter by letter (each outlined, the overlaps shaded twice) garbles the words.
    Boxes join when they share most of their height and no more than a few letters' gap
    parts them (the two columns of a page stay apart)."""
    lines: list[Box] = []
    for box in boxes:
        height = box.y1 - box.y0
        last = lines[-1] if lines else None
        if last is not None:
            overlap = min(last.y1, box.y1) - max(last.y0, box.y0)
            gap = box.x0 - last.x1
            if overlap > 0.5 * min(height, last.y1 - last.y0) and -height < gap < 1.5 * height:
                lines[-1] = Box(
                    min(last.x0, box.x0),
                    min(last.y0, box.y0),
                    max(last.x1, box.x1),
                    max(last.y1, box.y1),
                )
                continue
        lines.append(box)
    return tuple(lines)


def main_block(boxes: Sequence[Box]) -> tuple[Box, ...]:
    """The run of lines that holds most of a passage: a chunk cut from the foot of one column
    and the top of the next shows where most of its words are, not its first few."""
    blocks: list[list[Box]] = []
    for box in boxes:
        last = blocks[-1][-1] if blocks else None
        beside = last is not None and min(last.x1, box.x1) > max(last.x0, box.x0)
        if last is not None and beside and box.y0 >= last.y0 - (last.y1 - last.y0):
            blocks[-1].append(box)
        else:
            blocks.append([box])
    if not blocks:
        return ()
    return tuple(max(blocks, key=lambda b: sum((x.x1 - x.x0) * (x.y1 - x.y0) for x in b)))


class PageView(QPdfView):
    """QPdfView, drawing the marks of a passage over its page and scrolling it into view.

    QPdfView keeps where it puts each page to itself; `page_rect` works it out as it does
    (pages stacked with `pageSpacing` between them, inside `documentMargins`, each page's point
    size at the screen's logical DPI, scaled to the view's width when fitting it), which
    tests/gui/test_viewer_marks.py checks against what QPdfView draws."""

    def __init__(self) -> None:
        super().__init__()
        self.marks: Marks | None = None
        self._anchored = False  # keep the passage in view as the layout settles
        self._fitting = True  # the zoom is the default one (`fit`), not one the user chose

    def focus(self) -> tuple[Box, ...]:
        """The lines to open the page at: the answer's quotes where they are marked (what the
        answer says), else the passage's main block."""
        marks = self.marks
        if marks is None:
            return ()
        return main_block(marks.quotes or marks.passage)

    def fit_zoom(self) -> float:
        """The zoom at which the current page's width fills the view."""
        document = self.document()
        if document is None or document.pageCount() == 0:
            return 1.0
        points = document.pagePointSize(self.pageNavigator().currentPage())
        width = points.width() * self.logicalDpiX() / 72
        margins = self.documentMargins()
        usable = self.viewport().width() - margins.left() - margins.right()
        return usable / width if width > 0 else 1.0

    def effective_zoom(self) -> float:
        """The zoom the page is drawn at, whatever the mode."""
        if self.zoomMode() == QPdfView.ZoomMode.FitToWidth:
            return self.fit_zoom()
        return self.zoomFactor()

    def fit(self) -> None:
        """The default zoom, from the left edge: the page's width, unless its text would then
        be too small to read; then the smallest readable zoom, scrolled sideways as needed.
        It follows the view's width until the user zooms (`zoom`)."""
        self._fitting = True
        self._fit()
        self.horizontalScrollBar().setValue(0)

    def readable_zoom(self) -> float:
        """The smallest zoom at which the text is comfortably read: the marked passage's lines
        READABLE_LINE_PX high, else READABLE_ZOOM."""
        document, marks = self.document(), self.marks
        if document is None or marks is None or not marks.passage:
            return READABLE_ZOOM
        points = document.pagePointSize(marks.page)
        page_px = points.height() * self.logicalDpiY() / 72  # at zoom 1
        heights = sorted(b.y1 - b.y0 for b in marks.passage)
        line = heights[len(heights) // 2] * page_px
        if line <= 0:
            return READABLE_ZOOM
        return min(MAX_OPEN_ZOOM, max(READABLE_ZOOM, READABLE_LINE_PX / line))

    def column_zoom(self) -> float:
        """The zoom at which the marked lines (`focus`), side to side, fill the view: a page
        drawn any wider cuts them at its edges. Infinite with no passage marked."""
        document, marks = self.document(), self.marks
        if document is None or marks is None or not marks.passage:
            return float("inf")
        points = document.pagePointSize(marks.page)
        block = self.focus()
        wide = max(b.x1 for b in block) - min(b.x0 for b in block)
        width = wide * points.width() * self.logicalDpiX() / 72  # at zoom 1
        margins = self.documentMargins()
        usable = self.viewport().width() - margins.left() - margins.right() - 2 * COLUMN_ROOM_PX
        bar = self.verticalScrollBar()
        if not bar.isVisible():  # it comes with the zoom and narrows the view
            usable -= bar.sizeHint().width()
        return usable / width if width > 0 else float("inf")

    def _fit(self) -> None:
        """The page's width when its text can be read at it (WHOLE_PAGE_ZOOM); else as close to
        readable as the passage's lines allow, all of them kept in the view's width. A page
        drawn wider than the view anyway is drawn as wide as fills the view with the passage's
        lines (up to MAX_OPEN_ZOOM): a two-column paper's column, not three quarters of the
        view beside the other column's edge."""
        fit = self.fit_zoom()
        column = self.column_zoom()
        zoom = fit if fit >= WHOLE_PAGE_ZOOM else min(self.readable_zoom(), column)
        zoom = max(fit, zoom)
        if zoom <= fit * NEAR_FIT:
            self.setZoomMode(QPdfView.ZoomMode.FitToWidth)
        else:
            if column != float("inf"):
                zoom = max(zoom, min(column, MAX_OPEN_ZOOM))
            self.setZoomMode(QPdfView.ZoomMode.Custom)
            self.setZoomFactor(zoom)

    def zoom(self, factor: float) -> None:
        """Zoom by a factor, from what is drawn now; the passage stays in view."""
        zoom = self.effective_zoom() * factor
        self._fitting = False
        self.setZoomMode(QPdfView.ZoomMode.Custom)
        self.setZoomFactor(min(8.0, max(0.25, zoom)))
        if self.marks is not None:
            self.reveal()

    def set_marks(self, marks: Marks | None) -> None:
        self.marks = marks
        self.viewport().update()

    def page_rect(self, page: int) -> QRect:
        """Where the page (0-based) is drawn, in the viewport's pixels."""
        document = self.document()
        if document is None or not 0 <= page < document.pageCount():
            return QRect()
        sizes = [self._page_size(p) for p in range(document.pageCount())]
        margins = self.documentMargins()
        width = self.viewport().width()
        total = max(s.width() for s in sizes) + margins.left() + margins.right()
        y = margins.top() + sum(sizes[p].height() + self.pageSpacing() for p in range(page))
        x = (max(total, width) - sizes[page].width()) // 2
        size = sizes[page]
        return QRect(
            x - self.horizontalScrollBar().value(),
            y - self.verticalScrollBar().value(),
            size.width(),
            size.height(),
        )

    def _page_size(self, page: int):  # type: ignore[no-untyped-def]
        document = self.document()
        screen = QGuiApplication.primaryScreen()
        dpi = screen.logicalDotsPerInch() if screen is not None else 96.0
        points = document.pagePointSize(page) * (dpi / 72.0)
        if self.zoomMode() == QPdfView.ZoomMode.FitToWidth:
            size = points.toSize()
            margins = self.documentMargins()
            usable = self.viewport().width() - margins.left() - margins.right()
            return size * (usable / size.width()) if size.width() > 0 else size
        if self.zoomMode() == QPdfView.ZoomMode.FitInView:
            margins = self.documentMargins()
            room = self.viewport().size()
            room.setWidth(room.width() - margins.left() - margins.right())
            room.setHeight(room.height() - self.pageSpacing())
            return points.toSize().scaled(room, Qt.AspectRatioMode.KeepAspectRatio)
        return (points * self.zoomFactor()).toSize()

    def box_rect(self, page: int, box: Box) -> QRectF:
        r = self.page_rect(page)
        return QRectF(
            r.x() + box.x0 * r.width(),
            r.y() + box.y0 * r.height(),
            (box.x1 - box.x0) * r.width(),
            (box.y1 - box.y0) * r.height(),
        )

    def reveal(self) -> None:
        """Scroll so the passage (its quotes, if marked: `focus`) is in view and its page is
        the current one: its top a little below the view's top, all of it when it fits, the
        page under QPdfView's current-page line."""
        marks = self.marks
        if marks is None or not marks.passage:
            return
        self._anchored = True
        v = self.verticalScrollBar()
        h = self.horizontalScrollBar()
        # In document coordinates (box_rect is relative to the scroll position).
        offset = QPointF(h.value(), v.value())
        block = self.focus()
        first = self.box_rect(marks.page, block[0]).translated(offset)
        area = QRectF(first)
        for box in block[1:]:
            area = area.united(self.box_rect(marks.page, box).translated(offset))
        page = QRectF(self.page_rect(marks.page)).translated(offset)
        height = self.viewport().height()
        width = self.viewport().width()
        if area.height() <= height - 8:
            # All of it fits: its top a little below the view's top, or centred if need be.
            y = area.top() - min(TOP_SHARE * height, (height - area.height()) / 2)
        else:
            y = first.top() - 4  # taller than the view (both columns of a page): its start
        line = _CURRENT_LINE * height
        y = min(max(y, page.top() - line + 2), page.bottom() - line - 3)
        v.setValue(int(min(max(y, v.minimum()), v.maximum())))
        if area.width() <= width - 8:
            if area.left() < h.value() or area.right() > h.value() + width:
                x = area.left() - (width - area.width()) / 2
                h.setValue(int(min(max(x, h.minimum()), h.maximum())))
        else:
            # Wider than the view: from the passage's left edge, so its lines are read from
            # their start, unless that leaves its first word out of sight.
            x = area.left() - 8
            if first.left() + 16 > x + width:
                x = first.left() - 8
            h.setValue(int(min(max(x, h.minimum()), h.maximum())))

    def release(self) -> None:
        """The reader moves on: stop bringing the passage back into view."""
        self._anchored = False

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        marks = self.marks
        if marks is None or not (marks.passage or marks.quotes):
            return
        painter = QPainter(self.viewport())
        painter.setPen(Qt.PenStyle.NoPen)
        for box in marks.passage:
            painter.fillRect(self.box_rect(marks.page, box), PASSAGE_FILL)
        if marks.quotes:
            painter.setPen(QPen(QUOTE_PEN, 1.5))
            painter.setBrush(QUOTE_FILL)
            pad = QUOTE_PAD_PX
            for box in marks.quotes:
                painter.drawRect(self.box_rect(marks.page, box).adjusted(-pad, -pad, pad, pad))
        painter.end()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._fitting:
            self._fit()
        if self._anchored:
            self.reveal()  # the layout changed under the passage: bring it back

    def wheelEvent(self, event: QWheelEvent) -> None:
        self.release()
        super().wheelEvent(event)
