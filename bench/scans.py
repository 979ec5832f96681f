"""Scanned copies of digital PDFs, made the same way every time, and the measures of OCR text.

A scan here is each page rendered at SCAN_DPI in grey, turned by a small angle, with noise
added, saved as JPEG and reassembled into an image-only PDF: no text layer at all
(`has_text_layer` checks it). Used by bench/ocr.py and the OCR integration tests.
"""

from __future__ import annotations

import io
import random
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

# The settings of every scan the benchmark makes (an office scanner's defaults, slightly bad).
SCAN_DPI = 300
ANGLE_DEG = 0.8  # the largest tilt; each page gets one in [-ANGLE_DEG, ANGLE_DEG]
NOISE_SIGMA = 12.0  # grey levels of Gaussian noise
JPEG_QUALITY = 70
SEED = 16


def make_scan(
    src: str | Path,
    dst: str | Path,
    pages: Sequence[int] | None = None,
    *,
    dpi: int = SCAN_DPI,
    angle: float = ANGLE_DEG,
    noise: float = NOISE_SIGMA,
    quality: int = JPEG_QUALITY,
    seed: int = SEED,
    password: str | None = None,
) -> list[int]:
    """Write an image-only copy of `src` (the 1-based `pages`, or all) to `dst`; returns the
    page numbers kept, in order."""
    import pypdfium2 as pdfium
    from PIL import Image

    rng = random.Random(f"{seed}:{Path(src).name}")
    doc = pdfium.PdfDocument(str(src), password=password)
    try:
        numbers = list(pages) if pages is not None else list(range(1, len(doc) + 1))
        images = []
        for number in numbers:
            page = doc[number - 1]
            try:
                bitmap = page.render(scale=dpi / 72.0, grayscale=True)
                image = bitmap.to_pil().convert("L")
                bitmap.close()
            finally:
                page.close()
            turn = rng.uniform(-angle, angle)
            image = image.rotate(turn, resample=Image.Resampling.BILINEAR, fillcolor=255)
            pixels = np.asarray(image, dtype=np.float32)
            gen = np.random.default_rng(rng.randrange(1 << 30))
            pixels = pixels + gen.normal(0.0, noise, pixels.shape)
            image = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8), "L")
            buffer = io.BytesIO()
            image.save(buffer, "JPEG", quality=quality)
            images.append(Image.open(io.BytesIO(buffer.getvalue())))
    finally:
        doc.close()
    first, rest = images[0], images[1:]
    first.save(str(dst), "PDF", save_all=True, append_images=rest, resolution=float(dpi))
    return numbers


def has_text_layer(path: str | Path) -> bool:
    """Whether any page of a PDF holds text objects (a scan must not)."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    doc = pdfium.PdfDocument(str(path))
    try:
        for index in range(len(doc)):
            page = doc[index]
            try:
                textpage = page.get_textpage()
                chars = textpage.count_chars()
                textpage.close()
                if chars:
                    return True
                if any(o.type == raw.FPDF_PAGEOBJ_TEXT for o in page.get_objects()):
                    return True
            finally:
                page.close()
    finally:
        doc.close()
    return False


_SPACES = re.compile(r"\s+")


def normalise(text: str) -> str:
    """Text as compared for the error rate: single spaces, no hyphen breaks, lower case."""
    text = text.replace("-\n", "")
    return _SPACES.sub(" ", text).strip().lower()


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance, one row at a time in numpy (pages are a few thousand letters)."""
    if not a:
        return len(b)
    if not b:
        return len(a)
    bb = np.frombuffer(b.encode("utf-32-le"), dtype=np.uint32)
    idx = np.arange(len(b) + 1, dtype=np.int64)
    row = idx.copy()
    codes = np.frombuffer(a.encode("utf-32-le"), dtype=np.uint32)
    for i, code in enumerate(codes, start=1):
        cost = (bb != code).astype(np.int64)
        # Substitution or deletion from the row above, then insertions along the row: the
        # running minimum of (value - position) + position.
        tmp = np.empty_like(row)
        tmp[0] = i
        tmp[1:] = np.minimum(row[:-1] + cost, row[1:] + 1)
        row = np.minimum.accumulate(tmp - idx) + idx
    return int(row[-1])


def cer(ocr: str, reference: str) -> float:
    """Character error rate of OCR text against the digital text layer of the same page."""
    ref = normalise(reference)
    return edit_distance(normalise(ocr), ref) / max(len(ref), 1)
