"""Indexing speed and memory: `desktop-rag index` against the plain loop (bench/baseline.py).

In one run, on the same files, each as a subprocess timed by wall clock with the peak resident
memory of it and its children sampled every 50 ms:
- baseline: bench/baseline.py's plain loop (pypdf text of every page, 180-word chunks with 30
  words of overlap per file, SentenceTransformer.encode batch 32 fp32, one file after another,
  nothing stored);
- `desktop-rag index` with the default embedder and with embed_backend=torch;
- each stage alone (extraction in the reader process, embedding), to show they overlap;
- an unchanged library of 100 documents (covid-qa's 98 plus 2 filings) indexed again.
Speeds are reported as ratios to the baseline of the same run: the machine is shared.

Usage: python -m bench.ingest [--files N | --full] [--skip-covid] [--skip-unchanged]
Prints one JSON document (also kept in bench/out/ingest.json).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import baseline
from bench.perfutil import CORPUS, emit, machine, pdfs, run_measured, say, spread

BIN = Path(sys.executable).parent


def _env(config: Path, backend: str) -> dict[str, str]:
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.json").write_text(json.dumps({"embed_backend": backend}))
    env = dict(os.environ)
    env["DESKTOP_RAG_CONFIG_DIR"] = str(config)
    return env


def _index(
    paths: list[Path], data: Path, backend: str, tmp: Path, cache: Path | None = None
) -> dict[str, Any]:
    env = _env(tmp / f"config-{backend}", backend)
    if cache is not None:
        env["DESKTOP_RAG_CACHE_DIR"] = str(cache)
    cmd = [str(BIN / "desktop-rag"), "index", *map(str, paths), "--json", "--data-dir", str(data)]
    result = run_measured(cmd, env)
    result["pages_per_s"] = round(result["pages"] / result["wall_s"], 2)
    result["failed"] = len(result["failed"])
    return result


def _baseline(paths: list[Path], tmp: Path) -> dict[str, Any]:
    return baseline.measure(paths, _env(tmp / "config-baseline", "torch"))


def _stages(paths: list[Path]) -> dict[str, Any]:
    """Each stage of the pipeline alone, in this process, on the same files."""
    from desktop_rag.app import default_embedder
    from desktop_rag.config import Settings
    from desktop_rag.ingest import sandbox
    from desktop_rag.ingest.chunk import ChunkParams, bundled_tokenizer, chunk_pages
    from desktop_rag.ingest.extract import Extracted

    t0 = time.perf_counter()
    extracted: list[Extracted] = []
    box = sandbox.Sandbox()
    try:
        for _job, outcome in box.run([sandbox.Job(str(p)) for p in paths]):
            if isinstance(outcome, Extracted):
                extracted.append(outcome)
    finally:
        box.close()
    extract_s = time.perf_counter() - t0
    tok = bundled_tokenizer()
    texts = [c.text for e in extracted for c in chunk_pages("d", "p", e.pages, tok, ChunkParams())]
    embedder = default_embedder(Settings())
    prepare = getattr(embedder, "prepare", None)
    if prepare is not None:
        prepare()
    embedder.embed(["warm up"])
    t0 = time.perf_counter()
    for start in range(0, len(texts), 256):  # as the pipeline calls it
        embedder.embed(texts[start : start + 256])
    embed_s = time.perf_counter() - t0
    return {
        "pages": sum(len(e.pages) for e in extracted),
        "chunks": len(texts),
        "extract_only_s": round(extract_s, 2),
        "embed_only_s": round(embed_s, 2),
        "embed_backend": getattr(embedder, "backend", "torch"),
    }


def _unchanged(tmp: Path, runs: int) -> dict[str, Any]:
    """An unchanged library of 100 documents, indexed again: the cost of a no-op run."""
    library = tmp / "library-100"
    library.mkdir()
    covid = pdfs(CORPUS / "covid-qa" / "pdf")
    filings = sorted(pdfs(CORPUS / "financebench" / "pdfs"), key=lambda p: p.stat().st_size)
    for path in [*covid, *filings[: 100 - len(covid)]]:
        shutil.copy2(path, library / path.name)
    data = tmp / "data-100"
    # The first run starts from an empty cache, as on a new install: it includes the export.
    cache = tmp / "cache-fresh"
    first = _index([library], data, "auto", tmp, cache)
    walls, cpus = [], []
    last: dict[str, Any] = {}
    for _ in range(runs):
        last = _index([library], data, "auto", tmp, cache)
        walls.append(last["wall_s"])
        cpus.append(last["cpu_s"])
    return {
        "documents": len(list(library.iterdir())),
        "first_index_with_export_wall_s": first["wall_s"],
        "first_index_with_export_peak_rss_mb": first["peak_rss_mb"],
        "first_index_pages": first["pages"],
        "reindex_wall_s": walls,
        "reindex_wall_s_median": round(statistics.median(walls), 2),
        "reindex_cpu_s": cpus,
        "reindex_unchanged": last["unchanged"],
        "reindex_indexed": last["indexed"],
        "target_s": 2.0,
        "meets_target": statistics.median(walls) < 2.0,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=4, help="financebench files (spread)")
    parser.add_argument("--full", action="store_true", help="all 74 financebench filings")
    parser.add_argument("--skip-baseline", action="store_true")
    parser.add_argument("--skip-torch", action="store_true", help="no torch pipeline run")
    parser.add_argument("--skip-stages", action="store_true")
    parser.add_argument("--skip-covid", action="store_true")
    parser.add_argument("--skip-unchanged", action="store_true")
    parser.add_argument("--reindex-runs", type=int, default=3)
    args = parser.parse_args()

    from desktop_rag.app import default_embedder
    from desktop_rag.config import Settings

    # The one-time export is not part of any timing below; report what it cost instead.
    t0 = time.perf_counter()
    warm = default_embedder(Settings())
    backend = warm.prepare() if hasattr(warm, "prepare") else "torch"
    prepare_s = time.perf_counter() - t0
    files = spread(pdfs(CORPUS / "financebench" / "pdfs"), 0 if args.full else args.files)
    result: dict[str, Any] = {
        "bench": "ingest",
        "machine": machine(),
        "default_backend": backend,
        "prepare_s (export, or finding it in the cache)": round(prepare_s, 2),
        "financebench": {"files": [p.name for p in files], "full": args.full},
    }
    fb = result["financebench"]
    with tempfile.TemporaryDirectory(prefix="bench-ingest-") as name:
        tmp = Path(name)
        if not args.skip_baseline:
            say(f"baseline on {len(files)} financebench files")
            fb["baseline"] = _baseline(files, tmp)
            say(json.dumps(fb["baseline"]))
        say("desktop-rag index, default backend")
        fb["default"] = _index(files, tmp / "data-fb-default", "auto", tmp)
        say(json.dumps(fb["default"]))
        if not args.skip_torch:
            say("desktop-rag index, torch backend")
            fb["torch"] = _index(files, tmp / "data-fb-torch", "torch", tmp)
            say(json.dumps(fb["torch"]))
        if "baseline" in fb:
            base = fb["baseline"]["pages_per_s"]
            fb["speedup_vs_baseline"] = {
                k: round(fb[k]["pages_per_s"] / base, 2) for k in ("default", "torch") if k in fb
            }
            fb["meets_2x_target"] = fb["speedup_vs_baseline"]["default"] >= 2.0
        fb["peak_rss_under_1_5_gb"] = all(
            fb[k]["peak_rss_mb"] < 1536 for k in ("default", "torch") if k in fb
        )
        if not args.skip_stages:
            say("stages alone")
            stages = _stages(files)
            total = fb["default"]["wall_s"]
            stages["pipeline_wall_s"] = total
            stages["sum_of_stages_s"] = round(stages["extract_only_s"] + stages["embed_only_s"], 2)
            stages["pipeline_over_slowest_stage"] = round(
                total / max(stages["extract_only_s"], stages["embed_only_s"]), 2
            )
            fb["stages"] = stages
            say(json.dumps(stages))
        if not args.skip_covid:
            covid = [CORPUS / "covid-qa" / "pdf"]
            result["covid-qa"] = {}
            for label, backend_name in (("default", "auto"), ("torch", "torch")):
                say(f"covid-qa, {label}")
                got = _index(covid, tmp / f"data-covid-{label}", backend_name, tmp)
                result["covid-qa"][label] = got
                say(json.dumps(got))
            cq = result["covid-qa"]
            cq["default_over_torch"] = round(
                cq["default"]["pages_per_s"] / cq["torch"]["pages_per_s"], 2
            )
        if not args.skip_unchanged:
            say("unchanged library of 100 documents")
            result["unchanged_100"] = _unchanged(tmp, args.reindex_runs)
    emit("ingest", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
