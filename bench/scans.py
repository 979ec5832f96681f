"""Scanned copies of digital PDFs, made the same way every time, and the measures of OCR text.

A scan here is each page rendered at SCAN_DPI in grey, turned by a small angle, with noise
added, saved as JPEG and reassembled into an image-only PDF: no text layer at all
(`has_text_layer` checks it). Used by bench/ocr.py and the OCR integration tests.

Run as a script, it makes a long scan of large pages (17.5 x 24.6 in, images at 96 ppi, as in
issue 31) and reads it to the last page in a reader process with the app's limits, printing
seconds and the reader's memory after every page (JSON):
    python -m bench.scans --pages 73 [--lines 50] [--width 110] [--keep DIR]
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


# -- a long large-format scan read to its last page ---------------------------------------------

LARGE_IN = (17.5, 24.6)  # the page size of the scan in issue 31, images placed at 96 ppi
LARGE_PPI = 96
_WORDS = [
    "valve",
    "pressure",
    "octopus",
    "harbour",
    "ledger",
    "copper",
    "station",
    "river",
    "signal",
    "quarter",
    "engine",
    "report",
    "winter",
    "garden",
    "mineral",
    "lantern",
    "council",
    "bridge",
    "column",
    "district",
    "harvest",
]


def _lines(page: int, count: int, width: int) -> list[str]:
    rng = random.Random(page)
    out = []
    for i in range(count):
        words = [f"{page}.{i}"]
        while sum(len(w) + 1 for w in words) < width:
            words.append(rng.choice(_WORDS))
        out.append(" ".join(words))
    return out


def _reader_memory() -> dict[str, float]:
    """Resident, peak resident and peak address space (MB) of this process's reader child."""
    import psutil

    for child in psutil.Process().children(recursive=True):
        try:
            if "spawn_main" not in " ".join(child.cmdline()):
                continue
            fields = {}
            with open(f"/proc/{child.pid}/status") as f:
                for line in f:
                    key, _, value = line.partition(":")
                    if key in ("VmRSS", "VmHWM", "VmPeak"):
                        fields[key] = float(value.split()[0]) / 1024
            return {"pid": child.pid, **fields}
        except (psutil.Error, OSError):
            continue
    return {}


def long_scan(pages: int, lines: int, width: int, out: Path) -> dict[str, object]:
    """Make a `pages`-page scan of LARGE_IN pages at LARGE_PPI and index-read it in a reader
    process with the app's own limits; seconds and reader memory after every page."""
    import time

    from desktop_rag.ingest import sandbox
    from tests.scanned import make_scanned_pdf

    path = out / f"large-{pages}.pdf"
    if not path.exists():
        content = [_lines(p, lines, width) for p in range(1, pages + 1)]
        make_scanned_pdf(path, content, dpi=LARGE_PPI, size_in=LARGE_IN)
    box = sandbox.Sandbox()  # DEFAULT_MEMORY_MB, the OCR time limits: as the app runs it
    per_page: list[dict[str, object]] = []
    last = [time.monotonic()]

    def on_ocr(_job: sandbox.Job, done: int, total: int) -> None:
        now = time.monotonic()
        if done:
            per_page.append({"page": done, "s": round(now - last[0], 1), **_reader_memory()})
        last[0] = now

    t0 = time.monotonic()
    try:
        ((_job, outcome),) = list(box.run([sandbox.Job(str(path))], on_ocr=on_ocr))
    finally:
        box.close()
    seconds = time.monotonic() - t0
    result: dict[str, object] = {"pages": pages, "page_in": LARGE_IN, "ppi": LARGE_PPI}
    if isinstance(outcome, Exception):
        result["error"] = str(outcome)
    else:
        read = [p for p in outcome.pages if p.text]
        result["pages_with_text"] = len(read)
        result["page_errors"] = [p.error for p in outcome.pages if p.error]
    ocr_s = [float(str(p["s"])) for p in per_page]
    result["seconds"] = round(seconds, 1)
    result["s_per_page_mean"] = round(sum(ocr_s) / max(len(ocr_s), 1), 1)
    result["peak_rss_mb"] = max((float(str(p.get("VmHWM", 0))) for p in per_page), default=0)
    result["peak_vm_mb"] = max((float(str(p.get("VmPeak", 0))) for p in per_page), default=0)
    result["per_page"] = per_page
    return result


def main() -> int:
    import argparse
    import json
    import sys
    import tempfile

    parser = argparse.ArgumentParser(description="A long large-format scan read to the end.")
    parser.add_argument("--pages", type=int, default=73)
    parser.add_argument("--lines", type=int, default=50, help="lines of text on each page")
    parser.add_argument("--width", type=int, default=110, help="characters in each line")
    parser.add_argument("--keep", type=Path, help="keep the scan in this folder")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    with tempfile.TemporaryDirectory(prefix="bench-scans-") as tmp:
        out = args.keep or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        print(json.dumps(long_scan(args.pages, args.lines, args.width, out), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
