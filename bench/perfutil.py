"""Helpers shared by the performance benchmarks: corpus paths, peak memory, JSON output."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
CORPUS = (REPO / ".." / "shared" / "corpus").resolve()
OUT = REPO / "bench" / "out"


def pdfs(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix.lower() == ".pdf")


def chunked_library(folder: Path) -> tuple[list[Any], list[Any], int]:
    """Every PDF under folder read and chunked as the indexer does, nothing embedded:
    (document records, chunks, pages)."""
    from desktop_rag.ingest.chunk import ChunkParams, bundled_tokenizer, chunk_pages
    from desktop_rag.ingest.extract import extract
    from desktop_rag.ingest.scan import doc_id_for
    from desktop_rag.types import DocumentRecord, Status

    tok = bundled_tokenizer()
    docs: list[DocumentRecord] = []
    chunks: list[Any] = []
    pages = 0
    for path in pdfs(folder):
        got = extract(str(path))
        doc_id = doc_id_for(str(path))
        mine = chunk_pages(doc_id, str(path), got.pages, tok, ChunkParams())
        st = path.stat()
        docs.append(
            DocumentRecord(
                doc_id, str(path), st.st_size, st.st_mtime_ns, got.sha256, len(got.pages),
                len(mine), Status.INDEXED, "", "", time.time(),
            )
        )  # fmt: skip
        chunks.extend(mine)
        pages += len(got.pages)
    return docs, chunks, pages


class PeakRss:
    """Samples the resident memory of a process and all its descendants; keeps the peak.

    Resident set sizes of a parent and its children are added up: shared pages are counted
    twice, so the figure errs high, which is the safe side for a memory budget.
    """

    def __init__(self, pid: int | None = None, interval_s: float = 0.05) -> None:
        import psutil

        self._proc = psutil.Process(pid or os.getpid())
        self._interval = interval_s
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def sample(self) -> int:
        import psutil

        total = 0
        try:
            procs = [self._proc, *self._proc.children(recursive=True)]
        except psutil.Error:
            return 0
        for proc in procs:
            with contextlib.suppress(psutil.Error):
                total += proc.memory_info().rss
        self.peak = max(self.peak, total)
        return total

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self._interval)

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.sample()

    @property
    def peak_mb(self) -> float:
        return round(self.peak / 2**20, 1)


class Timer:
    """Wall time of a block, in seconds."""

    def __enter__(self) -> Timer:
        self.t0 = time.perf_counter()
        self.seconds = 0.0
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.t0


def machine() -> dict[str, Any]:
    """What the figures were measured on, including how busy it was."""
    import platform

    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    cpu = ""
    try:  # the CPU's name: int8 speed and the int8 rule's verdict depend on it
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "")
    except OSError:
        pass
    return {
        "cpus": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "loadavg_1m_at_start": round(load[0], 2),
    }


def emit(name: str, result: dict[str, Any]) -> None:
    """Print the result as JSON on stdout and keep a copy in bench/out/NAME.json."""
    text = json.dumps(result, indent=2)
    print(text)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.json").write_text(text + "\n", encoding="utf-8")


def say(*parts: object) -> None:
    """Progress on stderr, so stdout stays one JSON document."""
    print(*parts, file=sys.stderr, flush=True)
