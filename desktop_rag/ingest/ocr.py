"""Reading pages without a usable text layer: render with pdfium, OCR, order lines, keep boxes.

A page's OCR text is built here already clean (NFKC, single spaces), so the character offsets
of its word boxes are offsets into the very text that is chunked and stored.
"""

from __future__ import annotations

import gc
import json
import logging
import math
import statistics
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from desktop_rag.engines.ocr import OcrEngine, OcrEngineError, OcrLine, engine_error
from desktop_rag.types import Chunk, Page

log = logging.getLogger(__name__)

# The highest render resolution, chosen by measurement on scanned covid-qa and financebench
# pages (bench/ocr.py --dpi): see README, "Scanned PDFs". A page that is one scanned image is
# rendered at that image's own resolution when it is lower (rendering a 96 ppi scan at 200 dpi
# adds no detail, only pixels), never below MIN_DPI.
DPI = 200
MIN_DPI = 96
# An image covering this share of the page is the page's scan.
SCAN_COVER = 0.5
# The most pixels a page is rendered with. The detection model needs about 190 MB per
# megapixel on top of the reader's ~0.5 GB: a 17.5 x 24.6 in page at 200 dpi (9 MP) peaked
# at 2.2 GB resident, beside the reader's 3 GB address-space limit. Letter and A4 pages at 200
# dpi (3.7-3.9 MP) are within it, unchanged.
PIXEL_BUDGET = 5_000_000
# No side longer than this either (a long receipt); the engine's own limit is
# engines.ocr.MAX_SIDE.
MAX_RENDER_SIDE = 3600
# A page the engine had no memory for is tried once more with this share of its pixels.
RETRY_PIXELS = 0.4
# Lines the recogniser is less sure of than this are dropped: noise, stamps and pictures give
# short, unsure lines, and indexing them would put invented words in the index.
MIN_LINE_SCORE = 0.6
# A page whose kept text is less sure than this on average, or holds fewer letters and digits
# than MIN_PAGE_CHARS, gives no text: its "words" are most likely a picture read as letters.
MIN_PAGE_SCORE = 0.75
MIN_PAGE_CHARS = 8
# A text layer with fewer letters and digits than this on a page that shows something is not
# usable (a scanned page with a stray page number, or glyphs without a Unicode mapping).
USABLE_CHARS = 16

Box = tuple[int, int, float, float, float, float]  # start, end, x0, y0, x1, y1 (fractions)
PageFn = Callable[[int, int], None]  # (pages done, pages to OCR)


@dataclass(frozen=True, slots=True)
class OcrRequest:
    """How one file's pages are OCR'd: `force` reads every page with OCR (a garbage text
    layer), otherwise only pages without usable text. `on_page` hears of each page done;
    `paused` is polled between pages."""

    force: bool = False
    # Say how many pages need OCR (OcrDeferred) instead of reading them: the file is read
    # again later, so that files without scanned pages go ahead of it.
    defer: bool = False
    dpi: int = DPI
    pixel_budget: int = PIXEL_BUDGET
    min_line_score: float = MIN_LINE_SCORE
    on_page: PageFn | None = None
    on_start: Callable[[int], None] | None = None  # pages about to be OCR'd, once
    paused: Callable[[], bool] | None = None


class OcrDeferred(Exception):
    """A file with `pages` to OCR, not read now because its request said `defer`."""

    def __init__(self, pages: int) -> None:
        super().__init__(f"{pages} page{'s' if pages != 1 else ''} to read with OCR")
        self.pages = pages


@dataclass(frozen=True, slots=True)
class OcrText:
    """What OCR made of one page: its text, word boxes and how sure it was (0..1)."""

    text: str
    boxes: tuple[Box, ...]
    score: float


def letters(text: str) -> int:
    return sum(ch.isalnum() for ch in text)


def usable(text: str) -> bool:
    """Whether a page's text layer is worth keeping as it is."""
    return letters(text) >= USABLE_CHARS


# -- reading order --------------------------------------------------------------------------------


def order_lines(lines: Sequence[OcrLine]) -> list[list[list[OcrLine]]]:
    """Lines in reading order: blocks (paragraphs) of rows of lines, each row left to right.

    Two columns of running text are read one after the other: the gutter is the position
    that no line of either column crosses; a line that crosses it (a title, a wide figure
    caption) ends the columns above it. Narrow table cells never make a column, so a table
    is read row by row.
    """
    if not lines:
        return []
    height = statistics.median(ln.box[3] - ln.box[1] for ln in lines) or 1.0
    gutter = _gutter(lines)
    ordered = sorted(lines, key=lambda ln: (ln.box[1] + ln.box[3]) / 2)
    if gutter is None:
        return _paragraphs(ordered, height)
    blocks: list[list[list[OcrLine]]] = []
    left: list[OcrLine] = []
    right: list[OcrLine] = []

    def flush() -> None:
        blocks.extend(_paragraphs(left, height))
        blocks.extend(_paragraphs(right, height))
        left.clear()
        right.clear()

    for ln in ordered:
        if ln.box[0] < gutter < ln.box[2]:
            flush()
            blocks.extend(_paragraphs([ln], height))
        elif ln.box[2] <= gutter:
            left.append(ln)
        else:
            right.append(ln)
    flush()
    return blocks


def _gutter(lines: Sequence[OcrLine]) -> float | None:
    """The x of the gap between two columns of running text, if the page has two."""
    x0 = min(ln.box[0] for ln in lines)
    x1 = max(ln.box[2] for ln in lines)
    span = x1 - x0
    if span <= 0 or len(lines) < 6:
        return None
    best: tuple[int, float] | None = None
    for i in range(30, 71):
        x = x0 + span * i / 100
        crossing = sum(ln.box[0] < x < ln.box[2] for ln in lines)
        if best is None or crossing < best[0]:
            best = (crossing, x)
    assert best is not None
    crossing, x = best
    if crossing > 0.1 * len(lines):
        return None
    left = [ln for ln in lines if ln.box[2] <= x]
    right = [ln for ln in lines if ln.box[0] >= x]
    # Columns of running text have wide lines on both sides; table cells do not.
    if not (_text_like(left, span) and _text_like(right, span)):
        return None
    return x


def _text_like(side: list[OcrLine], span: float) -> bool:
    if len(side) < 3:
        return False
    return statistics.median(ln.box[2] - ln.box[0] for ln in side) >= 0.25 * span


def _paragraphs(lines: Sequence[OcrLine], height: float) -> list[list[list[OcrLine]]]:
    """Rows of lines, cut into paragraphs where the gap to the row above is over a line."""
    blocks: list[list[list[OcrLine]]] = []
    bottom = None
    for row in _rows(list(lines)):
        top = min(ln.box[1] for ln in row)
        if bottom is None or top - bottom > height:
            blocks.append([])
        blocks[-1].append(row)
        bottom = max(ln.box[3] for ln in row)
    return blocks


def _rows(items: list[OcrLine]) -> list[list[OcrLine]]:
    """Lines grouped into rows (overlapping by half their height), each row left to right."""
    rows: list[list[OcrLine]] = []
    for ln in sorted(items, key=lambda ln: (ln.box[1] + ln.box[3]) / 2):
        mid = (ln.box[1] + ln.box[3]) / 2
        if rows:
            last = rows[-1]
            top = min(r.box[1] for r in last)
            bottom = max(r.box[3] for r in last)
            if top <= mid <= bottom:
                last.append(ln)
                continue
        rows.append([ln])
    return [sorted(r, key=lambda ln: ln.box[0]) for r in rows]


# -- assembling text and boxes --------------------------------------------------------------------


def assemble(
    lines: Sequence[OcrLine], width: int, height: int, min_line_score: float = MIN_LINE_SCORE
) -> OcrText:
    """The page text (rows on lines, blocks apart by a blank line) and a box per word."""
    kept = [ln for ln in lines if ln.score >= min_line_score and ln.text.strip()]
    parts: list[str] = []
    boxes: list[Box] = []
    length = 0
    weighted = 0.0
    counted = 0
    w = max(width, 1)
    h = max(height, 1)

    def put(text: str) -> None:
        nonlocal length
        parts.append(text)
        length += len(text)

    for bi, block in enumerate(order_lines(kept)):
        if bi:
            put("\n\n")
        for ri, row in enumerate(block):
            if ri:
                put("\n")
            for li, line in enumerate(row):
                if li:
                    put(" ")
                first = True
                for word, (x0, y0, x1, y1) in _words(line):
                    word = unicodedata.normalize("NFKC", word)
                    word = "".join(ch for ch in word if unicodedata.category(ch)[0] != "C")
                    if not word:
                        continue
                    if not first:
                        put(" ")
                    first = False
                    start = length
                    put(word)
                    boxes.append(
                        (
                            start,
                            length,
                            round(max(0.0, x0 / w), 4),
                            round(max(0.0, y0 / h), 4),
                            round(min(1.0, x1 / w), 4),
                            round(min(1.0, y1 / h), 4),
                        )
                    )
                n = letters(line.text)
                weighted += line.score * n
                counted += n
    score = weighted / counted if counted else 0.0
    return OcrText("".join(parts), tuple(boxes), score)


def _words(line: OcrLine) -> list[tuple[str, tuple[float, float, float, float]]]:
    """The words of a line with their boxes: from the engine's character boxes when it gave
    them, else spread along the line by character position."""
    text = line.text
    out = []
    i = 0
    n = len(text)
    lx0, ly0, lx1, ly1 = line.box
    while i < n:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            break
        j = i
        while j < n and not text[j].isspace():
            j += 1
        if line.chars:
            xs0 = [c[0] for c in line.chars[i:j]]
            xs1 = [c[2] for c in line.chars[i:j]]
            box = (min(xs0), ly0, max(xs1), ly1)
        else:
            step = (lx1 - lx0) / max(n, 1)
            box = (lx0 + i * step, ly0, lx0 + j * step, ly1)
        out.append((text[i:j], box))
        i = j
    return out


def confident(result: OcrText) -> bool:
    """Whether OCR found text worth indexing on a page (not noise read as letters)."""
    return letters(result.text) >= MIN_PAGE_CHARS and result.score >= MIN_PAGE_SCORE


# -- pages ----------------------------------------------------------------------------------------


def shows_something(page: Any) -> bool:
    """Whether a pdfium page draws anything at all (images, shapes, glyphs without text):
    a blank page is not worth a second of OCR."""
    try:
        return next(iter(page.get_objects(max_depth=2)), None) is not None
    except Exception:  # an odd page: let OCR look at it rather than miss a scan
        return True


def scan_dpi(page: Any) -> float | None:
    """The resolution of the image that covers most of the page (a scan), if one does."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    width, height = page.get_size()
    area = max(width * height, 1.0)
    best: tuple[float, float] | None = None  # (area covered, its dpi)
    try:
        for obj in page.get_objects(filter=[raw.FPDF_PAGEOBJ_IMAGE], max_depth=2):
            left, bottom, right, top = obj.get_bounds()
            covered = max(0.0, right - left) * max(0.0, top - bottom)
            if covered < SCAN_COVER * area or (best is not None and covered <= best[0]):
                continue
            meta = obj.get_metadata()
            dpi = max(float(meta.horizontal_dpi), float(meta.vertical_dpi))
            if dpi > 0:
                best = (covered, dpi)
    except pdfium.PdfiumError:  # an odd image: render as for any page
        return None
    return None if best is None else best[1]


def render_scale(page: Any, dpi: int = DPI, budget: int = PIXEL_BUDGET) -> float:
    """Pixels per point to render a page at: `dpi` at most, its scan's own resolution when
    that is lower (not below MIN_DPI), within `budget` pixels and MAX_RENDER_SIDE."""
    width, height = page.get_size()  # points, after /Rotate
    width, height = max(width, 1.0), max(height, 1.0)
    own = scan_dpi(page)
    if own is not None:
        dpi = round(min(dpi, max(own, MIN_DPI)))
    scale = dpi / 72.0
    scale = min(scale, MAX_RENDER_SIDE / max(width, height))
    scale = min(scale, math.sqrt(budget / (width * height)))
    # pdfium rounds the bitmap's sides up.
    while math.ceil(width * scale) * math.ceil(height * scale) > budget:
        scale *= 0.999
    return scale


def render(page: Any, scale: float) -> Any:
    """The page as displayed (its /Rotate applied), RGB, at `scale` pixels per point."""
    import numpy as np

    bitmap = page.render(scale=scale, may_draw_forms=True)
    try:
        image = bitmap.to_numpy()
        mode = bitmap.mode
        if mode in ("BGRA", "BGRX"):
            image = image[:, :, [2, 1, 0]]
        elif mode == "BGR":
            image = image[:, :, ::-1]
        elif mode == "L":
            image = np.repeat(image[:, :, None], 3, axis=2)
        return np.ascontiguousarray(image)
    finally:
        bitmap.close()


def read_page(page: Any, engine: OcrEngine, request: OcrRequest) -> OcrText:
    """One page read with OCR; a page the engine had no memory for is read again with
    RETRY_PIXELS of its pixels before the error is raised (OcrEngineError)."""
    scale = render_scale(page, request.dpi, request.pixel_budget)
    try:
        return _read_at(page, engine, scale, request)
    except OcrEngineError as exc:
        if not exc.out_of_memory:
            raise
        log.warning("OCR ran out of memory at %.2f px/pt; trying fewer pixels: %s", scale, exc)
    gc.collect()  # the failed attempt's arrays, before asking for memory again
    return _read_at(page, engine, scale * math.sqrt(RETRY_PIXELS), request)


def _read_at(page: Any, engine: OcrEngine, scale: float, request: OcrRequest) -> OcrText:
    try:
        image = render(page, scale)
        lines = engine.read(image)
    except MemoryError as exc:  # the render itself, or numpy in the engine's preprocessing
        raise engine_error(exc) from exc
    height, width = image.shape[:2]
    del image
    return assemble(lines, width, height, request.min_line_score)


def read_pages(doc: Any, pages: list[Page], request: OcrRequest) -> list[Page]:
    """A pdfium document's pages without a usable text layer (every page, when forced) read
    again with OCR.

    A page OCR cannot read costs that page only: it keeps its text layer, gets the reason
    (Page.error), and the next page is read.
    """
    todo = []
    for page in pages:
        if request.force or not usable(page.text):
            handle = doc[page.number - 1]
            try:
                if request.force or shows_something(handle):
                    todo.append(page.number)
            finally:
                handle.close()
    if not todo:
        return pages
    if request.defer:
        raise OcrDeferred(len(todo))
    engine = default_engine()
    if request.on_start is not None:
        request.on_start(len(todo))
    out = {p.number: p for p in pages}
    for done, number in enumerate(todo, start=1):
        wait_while_paused(request)
        before = out[number]
        keep = "" if request.force else before.text
        handle = doc[number - 1]
        try:
            result = read_page(handle, engine, request)
        except OcrEngineError as exc:
            log.warning("OCR could not read page %d: %s", number, exc)
            out[number] = replace(before, text=keep, ocr=True, boxes=(), error=str(exc))
        except Exception as exc:  # a page pdfium cannot render, a bug on a strange page
            log.warning("OCR could not read page %d", number, exc_info=True)
            reason = f"it could not be read with OCR ({type(exc).__name__}: {exc})"
            out[number] = replace(before, text=keep, ocr=True, boxes=(), error=reason[:300])
        else:
            if confident(result) and (request.force or letters(result.text) > letters(before.text)):
                out[number] = replace(before, text=result.text, ocr=True, boxes=result.boxes)
            else:
                out[number] = replace(before, text=keep, ocr=True, boxes=())
        finally:
            handle.close()
        release_memory()
        if request.on_page is not None:
            request.on_page(done, len(todo))
    return [out[p.number] for p in pages]


_LIBC: Any = None


def release_memory() -> None:
    """Hand the heap freed by a page back to the system before the next one. glibc keeps
    it, fragmented by the engine's large arrays: over a 73-page scan of large pages the
    reader's resident memory grew from 0.41 to 0.76 GB, and its peak address space towards
    the 3 GB limit where ONNX Runtime fails."""
    global _LIBC
    gc.collect()
    if not sys.platform.startswith("linux"):
        return
    try:
        if _LIBC is None:
            import ctypes

            _LIBC = ctypes.CDLL("libc.so.6")
        _LIBC.malloc_trim(0)
    except (OSError, AttributeError):  # not glibc (musl): nothing to trim
        _LIBC = False


def page_problems(pages: Sequence[Page], total: int, *, none_read: bool = False) -> str:
    """The pages OCR could not read, for the file's status: "page 12 of 73 could not be read
    with OCR: the OCR engine ran out of memory ..." ("" when there are none)."""
    failed = [p for p in pages if p.error]
    if not failed:
        return ""
    numbers = [p.number for p in failed]
    if none_read and len(failed) == total:
        which = f"any of its {total} page{'s' if total != 1 else ''}"
        head = f"could not be read with OCR on {which}"
    else:
        shown = ", ".join(str(n) for n in numbers[:8])
        if len(numbers) > 8:
            shown += f" and {len(numbers) - 8} more"
        head = f"page{'s' if len(numbers) != 1 else ''} {shown} of {total} could not be read"
        head += " with OCR"
    reasons = Counter(p.error for p in failed)
    reason, _count = reasons.most_common(1)[0]
    tail = f": {reason}" if len(reasons) == 1 else f", for example: {reason}"
    return f"{head}{tail}."


def wait_while_paused(request: OcrRequest) -> None:
    while request.paused is not None and request.paused():
        time.sleep(0.1)


_ENGINE: OcrEngine | None = None


def default_engine() -> OcrEngine:
    """One engine per process: the models load once, on the first page that needs them."""
    global _ENGINE
    if _ENGINE is None:
        from desktop_rag.engines.ocr import RapidOcr

        _ENGINE = RapidOcr()
    return _ENGINE


def set_engine(engine: OcrEngine | None) -> None:
    """Use another engine in this process (tests use a fake one)."""
    global _ENGINE
    _ENGINE = engine


# -- chunks -----------------------------------------------------------------------------------


def with_boxes(chunks: Sequence[Chunk], pages: Sequence[Page]) -> list[Chunk]:
    """Each chunk of an OCR'd page with the boxes of the words inside it (JSON, see
    types.Chunk); chunks of other pages are returned as they are."""
    boxed = {p.number: p.boxes for p in pages if p.boxes}
    if not boxed:
        return list(chunks)
    out = []
    for chunk in chunks:
        boxes = boxed.get(chunk.page)
        if boxes:
            inside = [list(b) for b in boxes if b[0] >= chunk.start and b[1] <= chunk.end]
            chunk = replace(chunk, boxes=json.dumps(inside, separators=(",", ":")))
        out.append(chunk)
    return out


def reader_name(reader: str, ocr_pages: int, pages: int) -> str:
    """The documents table's `reader`: "ocr" when OCR read every page, "pdfium+ocr" when it
    read some, the reader alone otherwise."""
    if ocr_pages and ocr_pages >= pages:
        return "ocr"
    if ocr_pages:
        return f"{reader}+ocr"
    return reader
