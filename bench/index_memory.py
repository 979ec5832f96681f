"""Peak memory of an index run, with and without a question asked beside it (issue 45).

Each run is a subprocess sampled with its readers (bench/memory.TreeMemory, summed RSS of the
whole tree every 50 ms, children looked for at every sample), on one of two libraries:
- `financebench`: eight filings spread over the sorted list, as `bench.ingest --files 8`
  picks them (807 pages, ten of them scanned charts read with OCR);
- `small`: N generated PDFs of one to three pages (bench/small_files.py's library, same seed).
Two ways to run the indexer:
- `cli`: `desktop-rag index LIBRARY --json`, the command line as a user runs it;
- `asked`: the app built as the command line builds it, then one question's models loaded the
  way the app loads them on a question (the fp32 questions' session through
  `embedder.embed_query`, the shipped cross-encoder through the retriever's reranker, scoring
  twenty passages of a chunk's length), then the same index run: the window's memory when a
  question was asked while it indexes (the answer model apart).
The embedder's one-time export is done beforehand. The runs take turns in the order given.

Usage: python -m bench.index_memory [--library financebench|small] [--files 5000]
       [--modes cli,asked] [--repeat 1]
Prints one JSON document (also kept in bench/out/index_memory-LIBRARY.json).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.perfutil import CORPUS, REPO, emit, machine, pdfs, run_measured, say


def _financebench(n: int = 8) -> list[Path]:
    from bench.perfutil import spread

    return spread(pdfs(CORPUS / "financebench" / "pdfs"), n)


def child(paths: list[str]) -> int:
    """The `asked` run: load a question's models as the app does, then index; print JSON."""
    from desktop_rag.app import build_app
    from desktop_rag.config import Settings
    from desktop_rag.infra import memory

    memory.return_large_blocks()  # as the command line and the window do at start
    settings = Settings.load()
    settings.data_dir = ""  # the environment (DESKTOP_RAG_DATA_DIR) decides, as in the CLI
    app = build_app(settings)
    t0 = time.perf_counter()
    app.embedder.embed_query("What was the company's revenue last year?")
    reranker = app.retriever.reranker
    if reranker is None:
        raise SystemExit("the shipped reranker is missing: nothing to measure with it")
    # A question's re-ranking: its first twenty passages, chunks of about 128 word pieces.
    rng = random.Random(0)
    words = ["revenue", "net", "sales", "fiscal", "year", "increased", "operating", "income"]
    passages = [" ".join(rng.choice(words) for _ in range(110)) for _ in range(20)]
    reranker.score("What was the company's revenue last year?", passages)
    loaded_s = time.perf_counter() - t0
    report = app.index(paths)
    print(
        json.dumps(
            {
                "indexed": report.indexed,
                "failed": [{"path": f.path, "reason": f.reason} for f in report.failed],
                "pages": report.pages,
                "chunks": report.chunks,
                "seconds": report.seconds,
                "question_models_loaded_s": round(loaded_s, 2),
            }
        )
    )
    return 0


def _run(mode: str, paths: list[str], data: Path, env: dict[str, str]) -> dict[str, Any]:
    shutil.rmtree(data, ignore_errors=True)
    if mode == "cli":
        cmd = [sys.executable, "-m", "desktop_rag", "index", *paths, "--json"]
        cmd += ["--data-dir", str(data)]
        run_env = env
    else:
        cmd = [sys.executable, "-m", "bench.index_memory", "--child", *paths]
        run_env = {**env, "DESKTOP_RAG_DATA_DIR": str(data)}
    load = os.getloadavg()[0]
    result = run_measured(cmd, run_env)
    result["mode"] = mode
    result["loadavg_1m_at_start"] = round(load, 2)
    result["loadavg_1m_at_end"] = round(os.getloadavg()[0], 2)
    result["failed"] = len(result["failed"])
    result["pages_per_s"] = round(result["pages"] / result["wall_s"], 2)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--library", choices=("financebench", "small"), default="financebench")
    parser.add_argument("--files", type=int, default=5000, help="small files to generate")
    parser.add_argument("--modes", default="cli,asked")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="write the small library here and keep it")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.child)

    from desktop_rag.app import default_embedder
    from desktop_rag.config import Settings

    warm = default_embedder(Settings())
    backend = warm.prepare() if hasattr(warm, "prepare") else "torch"
    del warm
    tmp = Path(tempfile.mkdtemp(prefix="bench-index-memory-"))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    # Default settings, in a config dir of their own (nothing of the user's).
    (tmp / "config").mkdir()
    (tmp / "config" / "settings.json").write_text("{}")
    env["DESKTOP_RAG_CONFIG_DIR"] = str(tmp / "config")
    result: dict[str, Any] = {
        "bench": "index_memory",
        "machine": machine(),
        "library": args.library,
        "backend": backend,
        "runs": [],
    }
    try:
        if args.library == "financebench":
            files = _financebench()
            paths = [str(p) for p in files]
            result["files"] = [p.name for p in files]
        else:
            from bench.perfutil import make_library

            library = args.keep or tmp / "library"
            if not (library.is_dir() and len(list(library.rglob("*.pdf"))) == args.files):
                shutil.rmtree(library, ignore_errors=True)
                say(f"writing {args.files} PDFs ...")
                make_library(library, args.files)
            paths = [str(library)]
            result["files"] = args.files
        for _ in range(args.repeat):
            for mode in args.modes.split(","):
                say(f"{mode} ...")
                got = _run(mode, paths, tmp / f"data-{mode}", env)
                say(json.dumps({k: v for k, v in got.items() if k != "at_peak_rss"}))
                result["runs"].append(got)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    result["loadavg_1m_at_end"] = round(os.getloadavg()[0], 2)
    emit(f"index_memory-{args.library}", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
