"""Helpers shared by the benchmarks: corpus paths, a command run and measured, JSON output."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
CORPUS = (REPO / ".." / "shared" / "corpus").resolve()
OUT = REPO / "bench" / "out"


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSON Lines file (blank lines skipped)."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


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


def run_measured(cmd: list[str], env: dict[str, str], stdin: str = "") -> dict[str, Any]:
    """Run a command that prints JSON (its last line is read); add its wall seconds, its CPU
    seconds and the peak summed RSS of its process tree (readers included).

    CPU seconds are the command's and every process it waited for: unlike the wall clock, they
    hardly move with what else runs on a shared machine.
    """
    from bench.memory import TreeMemory

    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    # Children looked for at every sample: a reader that lives a second still counts.
    with TreeMemory(proc.pid, series_s=None, children_s=0.0) as rss:
        out, err = proc.communicate(stdin.encode())
    wall = time.perf_counter() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    if proc.returncode not in (0, 1):
        say(err.decode(errors="replace")[-3000:])
        raise SystemExit(f"{cmd[:3]} failed with exit code {proc.returncode}")
    result: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    result["wall_s"] = round(wall, 2)
    result["cpu_s"] = round(cpu, 2)
    result["peak_rss_mb"] = rss.peak_mb
    # Which processes made the peak (the indexer, its readers), each with its RSS.
    result["at_peak_rss"] = rss.at_peak_rss
    return result


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
