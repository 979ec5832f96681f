"""A library of many small PDFs: `desktop-rag index` against the plain loop, in one run.

1,500 generated PDFs of one to three pages (about 150-250 words each) in nested folders with
spaces and non-ASCII names. Each side is a subprocess timed by wall clock from its start, so
model loading counts on both sides, with the peak resident memory of it and its children:
- the plain loop of bench/baseline.py (pypdf text of every page, 180-word chunks with 30 words
  of overlap, SentenceTransformer.encode batch 32 fp32, file after file, nothing stored), on
  every file, just before the app;
- `desktop-rag index` with the default settings into a fresh index;
- the same library again after every file's mtime changed and no content did (a restore from
  backup): nothing may be embedded, and it must take under 20% of the first index's time.
The embedder's one-time export (a first start) is done beforehand and reported apart.

Usage: python -m bench.small_files [--files N] [--skip-baseline] [--keep DIR]
       python -m bench.small_files --profile LIBRARY DATA_DIR
Prints one JSON document (also kept in bench/out/small_files.json).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import baseline
from bench.perfutil import REPO, emit, machine, make_library, run_measured, say


def _index(library: Path, data: Path, env: dict[str, str]) -> dict[str, Any]:
    # python -m from this checkout, so the code measured is the code beside this script.
    cmd = [sys.executable, "-m", "desktop_rag", "index", str(library), "--json"]
    cmd += ["--data-dir", str(data)]
    result = run_measured(cmd, env)
    result["failed"] = len(result["failed"])
    return result


def _du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=1500)
    parser.add_argument("--keep", type=Path, help="write the library and indexes here, kept")
    parser.add_argument("--skip-baseline", action="store_true")
    args = parser.parse_args()

    tmp = args.keep or Path(tempfile.mkdtemp(prefix="bench-small-"))
    tmp.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {"machine": machine(), "files": args.files}
    env = dict(os.environ)
    # Default settings but for priority: both sides compete at normal priority with whatever
    # else runs (docs/performance.md's history has what low priority did while asking).
    (tmp / "config").mkdir(exist_ok=True)
    (tmp / "config" / "settings.json").write_text(json.dumps({"index_low_priority": False}))
    env["DESKTOP_RAG_CONFIG_DIR"] = str(tmp / "config")
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    try:
        library = tmp / "Bibliothèque partagée"
        shutil.rmtree(library, ignore_errors=True)
        t0 = time.perf_counter()
        pages = make_library(library, args.files)
        say(f"wrote {args.files} PDFs ({pages} pages) in {time.perf_counter() - t0:.1f}s")
        result["pages"] = pages

        # A first start exports the embedder into the cache; that happens once per install.
        warm = tmp / "warm"
        shutil.rmtree(warm, ignore_errors=True)
        first = sorted(library.rglob("*.pdf"))[:3]
        (warm / "lib").mkdir(parents=True)
        for p in first:
            shutil.copy2(p, warm / "lib" / p.name)
        result["warm_up_s"] = _index(warm / "lib", warm / "data", env)["wall_s"]

        paths = sorted(str(p) for p in library.rglob("*.pdf"))
        if not args.skip_baseline:
            say("plain loop (bench/baseline.py) ...")
            base = baseline.measure(paths, env)
            result["baseline"] = base
            say(json.dumps(base))

        say("desktop-rag index ...")
        data = tmp / "data"
        shutil.rmtree(data, ignore_errors=True)
        app = _index(library, data, env)
        app["files_per_s"] = round(args.files / app["wall_s"], 2)
        app["pages_per_s"] = round(pages / app["wall_s"], 2)
        app["index_mb"] = round(_du(data) / 2**20, 1)
        app["index_mb_per_1000_pages"] = round(_du(data) / 2**20 * 1000 / pages, 1)
        result["app"] = app
        say(json.dumps(app))
        app["files_per_cpu_s"] = round(args.files / app["cpu_s"], 2)
        if "baseline" in result:
            base = result["baseline"]
            result["files_per_s_ratio"] = round(app["files_per_s"] / base["files_per_s"], 2)
            result["files_per_cpu_s_ratio"] = round(
                app["files_per_cpu_s"] / base["files_per_cpu_s"], 2
            )
            result["target_ratio"] = 3.0

        say("every mtime changed, no content ...")
        later = time.time() + 60
        for path in paths:
            os.utime(path, (later, later))
        touched = _index(library, data, env)
        touched["share_of_first_index"] = round(touched["wall_s"] / app["wall_s"], 3)
        touched["target_share"] = 0.2
        result["mtimes_changed"] = touched
        say(json.dumps(touched))
    finally:
        if args.keep is None:
            shutil.rmtree(tmp, ignore_errors=True)
    emit("small_files", result)
    return 0


# Where a file's time goes: the functions each cost is counted under (cumulative time in the
# indexing thread; the reader processes work in parallel and show here only as waiting).
PROFILE_BUCKETS = {
    "waiting for the reader": ("sandbox.py", "run"),
    "embedding (incl. its first load)": ("onnx_embed.py", "_run"),
    "embedder prepare/load": ("onnx_embed.py", "prepare"),
    "chunking": ("chunk.py", "chunk_pages"),
    "commits (LanceDB writes)": ("lance.py", "commit"),
    "optimize (LanceDB)": ("maintenance.py", "optimize"),
    "hashing": ("extract.py", "sha256_file"),
    "stat calls": ("commit.py", "_changed_since"),
    "progress events": ("progress.py", "emit"),
    "scan": ("scan.py", "scan"),
    "decide (hash and match)": ("scan.py", "decide"),
    "touched rows' commits": ("reuse.py", "_commit_touched"),
}


def _cpu_s() -> float:
    """CPU seconds of this process (every thread) and of its children that ended (readers)."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def profile(library: Path, data: Path) -> dict[str, Any]:
    """Index the library in this process under cProfile: seconds per bucket and per file, and
    the CPU seconds a file costs outside embedding.

    The embed calls are recorded and replayed alone afterwards, in the same process, so the
    CPU seconds of the run (readers included) minus those of the replay are what a file costs
    besides its embedding; on a shared machine CPU seconds move far less than wall time.
    """
    import cProfile
    import pstats

    from desktop_rag.app import build_app
    from desktop_rag.config import Settings

    shutil.rmtree(data, ignore_errors=True)
    app = build_app(Settings(data_dir=str(data), index_low_priority=False))
    embedder = app.ingest.embedder
    calls: list[list[str]] = []
    real_embed = embedder.embed

    def embed(texts: Any) -> Any:
        calls.append(list(texts))
        return real_embed(texts)

    embedder.embed = embed  # type: ignore[method-assign]
    files = sorted(str(p) for p in library.rglob("*.pdf"))
    out = {}
    for run in ("first_index", "every_mtime_changed"):
        if run == "every_mtime_changed":
            later = time.time() + 120
            for path in files:
                os.utime(path, (later, later))
        calls.clear()
        prof = cProfile.Profile()
        cpu0 = _cpu_s()
        t0 = time.perf_counter()
        prof.enable()
        report = app.index([str(library)])
        prof.disable()
        wall = time.perf_counter() - t0
        cpu = _cpu_s() - cpu0
        # The same embed calls again, alone (the model loaded by now, as in the run but for
        # its first call).
        cpu0 = _cpu_s()
        t0 = time.perf_counter()
        for texts in calls:
            real_embed(texts)
        embed_wall = time.perf_counter() - t0
        embed_cpu = _cpu_s() - cpu0
        stats = pstats.Stats(prof)
        cumulative: dict[str, float] = {}
        for (filename, _line, name), row in stats.stats.items():  # type: ignore[attr-defined]
            for bucket, (file_end, func) in PROFILE_BUCKETS.items():
                if filename.endswith(file_end) and name == func:
                    cumulative[bucket] = cumulative.get(bucket, 0.0) + row[3]
        print(f"== {run}")
        stats.sort_stats("cumulative").print_stats(30)  # the detail, on stdout only
        n = max(len(files), 1)
        out[run] = {
            "files": len(files),
            "wall_s": round(wall, 2),
            "indexed": report.indexed,
            "unchanged": report.unchanged,
            "chunks": report.chunks,
            "embed_calls": len(calls),
            "cpu_s": round(cpu, 2),
            "embedding_alone_cpu_s": round(embed_cpu, 2),
            "embedding_alone_wall_s": round(embed_wall, 2),
            "cpu_ms_per_file": round(1000 * cpu / n, 2),
            "cpu_ms_per_file_outside_embedding": round(1000 * (cpu - embed_cpu) / n, 2),
            "wall_ms_per_file_outside_embedding": round(1000 * (wall - embed_wall) / n, 2),
            "seconds": {k: round(v, 2) for k, v in cumulative.items()},
            "ms_per_file": {k: round(1000 * v / n, 2) for k, v in cumulative.items()},
        }
    return out


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--profile":
        # python -m bench.small_files --profile LIBRARY DATA_DIR: where a file's time goes.
        out = profile(Path(sys.argv[2]), Path(sys.argv[3]))
        say(json.dumps(out, indent=2))
        sys.exit(0)
    sys.exit(main())
