"""Where a passage sits on its page, so the viewer can mark it and scroll to it.

A chunk knows its character span [start, end) in its page's text, the text ingest/extract.py
stored: pdfium's characters cleaned by `clean_text` (desktop_rag/cleaning.py). The same
cleaning is replayed there on pdfium's text page character by character (`clean_with_map`),
keeping for each character of the clean text the index of the pdfium character it came from;
the span's rectangles then come from pdfium itself. OCR'd pages have no text layer: their
chunks carry word boxes instead (the `boxes` JSON, offsets into the same page text). Either
way the result is rectangles as fractions of the page as displayed (origin top-left, after /Rotate).
"""

from __future__ import annotations

import ctypes
import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

from desktop_rag.cleaning import clean_with_map

log = logging.getLogger(__name__)

_WS = re.compile(r"\s+")
# A passage not found whole is looked for by its first and last words.
_EDGE_WORDS = 8
# pdfium's device coordinates are integers: map the page onto this many units each way.
_DEVICE = 1_000_000


@dataclass(frozen=True, slots=True)
class Box:
    """A rectangle as fractions (0..1) of the displayed page's width and height."""

    x0: float
    y0: float
    x1: float
    y1: float


def find_span(page_text: str, passage: str, start: int = 0, end: int = -1) -> tuple[int, int]:
    """The passage's span in the page text: [start, end) itself when it holds the passage, or
    where the passage is found with spaces and line breaks ignored (a source's text has its
    lines joined and reference marks dropped); its first and last words as a last resort.
    (0, 0) when it is not on the page."""
    end = len(page_text) if end < 0 else end
    flat_passage = _WS.sub(" ", passage).strip().removesuffix("…").strip()
    if not flat_passage:
        return (0, 0)
    if _WS.sub(" ", page_text[start:end]).strip() == flat_passage:
        return (start, end)
    flat, where = _flatten(page_text)
    near = _flat_index(where, start)

    def find(needle: str, after: int) -> int:
        at = flat.find(needle, after)
        return at if at >= 0 or after == 0 else flat.find(needle)

    at = find(flat_passage, near)
    if at >= 0:
        return (where[at], where[at + len(flat_passage) - 1] + 1)
    words = flat_passage.split(" ")
    if len(words) > 2 * _EDGE_WORDS:
        head, tail = " ".join(words[:_EDGE_WORDS]), " ".join(words[-_EDGE_WORDS:])
        first = find(head, near)
        if first >= 0:
            last = flat.find(tail, first)
            stop = last + len(tail) if last >= 0 else first + len(head)
            return (where[first], where[stop - 1] + 1)
    return (0, 0)


def _flatten(text: str) -> tuple[str, list[int]]:
    out: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        if ch.isspace():
            if out and out[-1] == " ":
                continue
            ch = " "
        out.append(ch)
        where.append(i)
    return "".join(out), where


def _flat_index(where: list[int], index: int) -> int:
    for k, i in enumerate(where):
        if i >= index:
            return k
    return len(where)


def span_boxes(path: str, page: int, start: int, end: int, passage: str = "") -> list[Box]:
    """The rectangles of the characters [start, end) of a PDF page's stored text (1-based
    page), from pdfium's text page; with `passage`, the span is checked against the text and
    found again when the offsets do not hold it. [] when the page has no text layer."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    try:
        doc = pdfium.PdfDocument(path)
    except (pdfium.PdfiumError, OSError) as exc:
        log.info("cannot open %s to mark a passage: %s", path, exc)
        return []
    try:
        if not 1 <= page <= len(doc):
            return []
        pdf_page = doc[page - 1]
        textpage = pdf_page.get_textpage()
        try:
            count = textpage.count_chars()
            raw = "".join(chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, i)) for i in range(count))
            text, index = clean_with_map(raw)
            if passage:
                start, end = find_span(text, passage, start, end)
            start, end = max(0, start), min(end, len(text))
            if end <= start:
                return []
            first, last = index[start], index[end - 1] + 1
            rects = []
            for i in range(textpage.count_rects(first, last - first)):
                rects.append(textpage.get_rect(i))
            return [_to_display(pdf_page, r) for r in rects]
        finally:
            textpage.close()
            pdf_page.close()
    finally:
        doc.close()


def _to_display(pdf_page: object, rect: Sequence[float]) -> Box:
    """A rectangle in PDF page space (left, bottom, right, top) as fractions of the displayed
    page: pdfium's own page-to-device mapping applies /Rotate and the crop box."""
    import pypdfium2.raw as pdfium_c

    left, bottom, right, top = rect
    xs: list[float] = []
    ys: list[float] = []
    for x, y in ((left, bottom), (right, top)):
        dx, dy = ctypes.c_int(), ctypes.c_int()
        pdfium_c.FPDF_PageToDevice(
            pdf_page.raw,  # type: ignore[attr-defined]
            0,
            0,
            _DEVICE,
            _DEVICE,
            0,
            x,
            y,
            ctypes.byref(dx),
            ctypes.byref(dy),
        )
        xs.append(dx.value / _DEVICE)
        ys.append(dy.value / _DEVICE)
    return Box(min(xs), min(ys), max(xs), max(ys))


def word_boxes(boxes_json: str, start: int, end: int) -> list[Box]:
    """The stored word boxes of an OCR'd chunk ([[start, end, x0, y0, x1, y1], ...], offsets
    into the page text) that fall in [start, end); [] for anything malformed."""
    if not boxes_json:
        return []
    try:
        rows = json.loads(boxes_json)
    except ValueError:
        return []
    out = []
    for row in rows if isinstance(rows, list) else []:
        try:
            s, e, x0, y0, x1, y1 = (float(v) for v in row)
        except (TypeError, ValueError):
            continue
        if e > start and s < end and x1 > x0 and y1 > y0:
            out.append(Box(x0, y0, x1, y1))
    return out
