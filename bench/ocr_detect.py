"""How many pixels OCR finds text on: character error rate and the reader's peak memory.

Ten pages (two of each of two covid-qa articles and three financebench filings) are scanned by
bench/scans.py's make_scan (300 dpi, tilt, noise, JPEG) and read as the reader reads them
(ingest/ocr.read_page: 200 dpi render, the engine's lines assembled), with the text detector
limited to each budget in turn (0: the page's own pixels, as before issue 45). Per budget: the
CER of each page against its digital text layer, the peak resident memory of this process while
the page is read (VmHWM, reset before each page; glibc set as the reader sets it), and the CPU
seconds of all the pages. Each budget runs in a process of its own.

Usage: python -m bench.ocr_detect [--pixels 0,2000000]
Prints one JSON document (also kept in bench/out/ocr_detect.json).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.perfutil import CORPUS, emit, machine, say

PAGES = (
    ("covid-qa/pdf", 3, (1, 2)),  # the 4th and 41st articles by name, two pages each
    ("covid-qa/pdf", 40, (1, 3)),
    ("financebench/pdfs/3M_2018_10K.pdf", None, (20, 47)),
    ("financebench/pdfs/CORNING_2020_10K.pdf", None, (40, 71)),
    ("financebench/pdfs/MICROSOFT_2023_10K.pdf", None, (30, 55)),
)


def _status_mb(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        return next(int(line.split()[1]) // 1024 for line in f if line.startswith(field))


def one(pixels: int) -> dict[str, Any]:
    """Read the scanned pages with the detector limited to `pixels`, in this process."""
    import pypdfium2 as pdfium

    from bench.scans import cer, make_scan
    from desktop_rag.engines.ocr import RapidOcr
    from desktop_rag.infra import memory
    from desktop_rag.ingest import ocr

    memory.return_large_blocks()  # as the reader process does
    tmp = Path(tempfile.mkdtemp(prefix="bench-ocr-detect-"))
    engine = RapidOcr(detect_pixels=pixels)
    request = ocr.OcrRequest()
    rows: list[dict[str, Any]] = []
    cpu0 = time.process_time()
    for i, (where, nth, numbers) in enumerate(PAGES):
        src = CORPUS / where
        if nth is not None:
            src = sorted(src.glob("*.pdf"))[nth]
        scan = tmp / f"scan{i}.pdf"
        make_scan(src, scan, list(numbers))
        original, scanned = pdfium.PdfDocument(str(src)), pdfium.PdfDocument(str(scan))
        for j, number in enumerate(numbers):
            page = original[number - 1]
            textpage = page.get_textpage()
            reference = textpage.get_text_range()
            textpage.close()
            page.close()
            with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
                f.write("5")  # VmHWM from here
            handle = scanned[j]
            got = ocr.read_page(handle, engine, request)
            handle.close()
            rows.append(
                {
                    "page": f"{src.name}:{number}",
                    "cer": round(cer(got.text, reference), 4),
                    "peak_mb": _status_mb("VmHWM"),
                }
            )
            ocr.release_memory()
    return {
        "detect_pixels": pixels,
        "cer_mean": round(statistics.mean(r["cer"] for r in rows), 4),
        "peak_mb_max": max(r["peak_mb"] for r in rows),
        "cpu_s": round(time.process_time() - cpu0, 1),
        "pages": rows,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pixels", default="0,2000000")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(one(args.one)))
        return 0
    result: dict[str, Any] = {"bench": "ocr_detect", "machine": machine(), "runs": []}
    for pixels in (int(p) for p in args.pixels.split(",")):
        say(f"detect_pixels={pixels} ...")
        done = subprocess.run(
            [sys.executable, "-m", "bench.ocr_detect", "--one", str(pixels)],
            capture_output=True,
            text=True,
            check=True,
        )
        run = json.loads(done.stdout.strip().splitlines()[-1])
        say(json.dumps({k: v for k, v in run.items() if k != "pages"}))
        result["runs"].append(run)
    emit("ocr_detect", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
