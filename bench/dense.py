"""Large dense files: `desktop-rag index` against the plain loop in pages per second, one run.

On the dense TeX manuals of bench/manuals.py (`--set speed`, 811 pages from the Debian packages
r-doc-pdf, texlive-latex-base-doc) or on financebench filings, in one run, each side a
subprocess timed from its start (model loading counted) with the peak memory of its tree:
- baseline: bench/baseline.py's plain loop (pypdf text of every page, 180-word chunks with 30
  words of overlap per file, SentenceTransformer.encode batch 32 fp32, file after file, nothing
  stored);
- `desktop-rag index` with the default embedder (the int8 rule decides: int8 passages where
  they agree with fp32 on this CPU);
- `desktop-rag index` with fp32 passages forced (embed_backend onnx-fp32): what a CPU where
  int8 disagrees ends up with.
Then, in this process, where the time goes: reading (pdfium, and pypdf as the plain loop
reads), chunking, word pieces per page on each side (the app's overlap, the plain loop's
overlap and truncation at 256), padding, and each embedder variant's speed on the same texts.

Each side's wall time and CPU seconds (the process tree's, readers included) are kept: on a
machine shared with other work the wall clock moves with the load, the CPU seconds far less.
`--rounds N` runs the sides N times, alternating, and reports each round and the median ratio.

`--variant code_ratio=20,code_head=48` adds the app with those ChunkParams (bench/index_with.py)
as one more side of each round, after the default app.

Usage: python -m bench.dense [--set speed | --financebench N] [--rounds N] [--skip-baseline]
       [--skip-fp32] [--skip-profile] [--variant a=1,b=2 ...]
Prints one JSON document (also kept in bench/out/dense-<set>.json).
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
from bench.perfutil import CORPUS, REPO, emit, machine, pdfs, run_measured, say

HERE = Path(__file__).resolve().parent
PROFILE_SAMPLE = 640  # chunks embedded per variant for the speed of each alone


def _files(args: argparse.Namespace) -> tuple[str, list[Path]]:
    if args.financebench:
        every = pdfs(CORPUS / "financebench" / "pdfs")
        step = len(every) / min(args.financebench, len(every))
        return "financebench", [
            every[int(i * step)] for i in range(min(args.financebench, len(every)))
        ]
    from bench import manuals

    return f"manuals-{args.set}", manuals.fetch(manuals.SETS[args.set])


def _env(tmp: Path, backend: str) -> dict[str, str]:
    config = tmp / f"config-{backend}"
    config.mkdir(parents=True, exist_ok=True)
    # Normal priority: both sides compete alike with whatever else runs on the machine.
    settings = {"embed_backend": backend, "index_low_priority": False}
    (config / "settings.json").write_text(json.dumps(settings))
    env = dict(os.environ)
    env["DESKTOP_RAG_CONFIG_DIR"] = str(config)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    return env


def _index(files: list[Path], tmp: Path, backend: str, params: str = "") -> dict[str, Any]:
    """One `desktop-rag index` run; with params (ChunkParams overrides, "a=1,b=2") through
    bench/index_with.py, the default embedder then."""
    side = backend if not params else f"auto-{params.replace('=', '').replace(',', '-')}"
    library = tmp / f"library-{side}"
    library.mkdir()
    for path in files:  # links: the same bytes, and the reader sees a folder as a user's
        os.symlink(path, library / path.name)
    data = tmp / f"data-{side}"
    cmd = [sys.executable, "-m", "desktop_rag", "index", str(library), "--json"]
    if params:
        cmd[1:3] = ["-m", "bench.index_with", params]
    result = run_measured([*cmd, "--data-dir", str(data)], _env(tmp, backend))
    result["pages_per_s"] = round(result["pages"] / result["wall_s"], 2)
    result["pages_per_cpu_s"] = round(result["pages"] / result["cpu_s"], 2)
    result["failed"] = len(result["failed"])
    result["index_mb"] = round(
        sum(p.stat().st_size for p in data.rglob("*") if p.is_file()) / 2**20, 1
    )
    return result


def _baseline(files: list[Path], tmp: Path) -> dict[str, Any]:
    return baseline.measure(files, _env(tmp, "torch"))


def _padded(lengths: list[int], batch: int, sort: bool) -> int:
    order = sorted(lengths, reverse=True) if sort else lengths
    return sum(
        max(order[i : i + batch]) * len(order[i : i + batch]) for i in range(0, len(order), batch)
    )


def profile(files: list[Path]) -> dict[str, Any]:
    """Where the time goes, stage by stage, in this process (no reader process, no store)."""
    import numpy as np
    import pypdf
    from tokenizers import Tokenizer

    from desktop_rag.app import default_embedder
    from desktop_rag.config import Settings
    from desktop_rag.engines.embed import bundled_model_dir
    from desktop_rag.ingest.chunk import ChunkParams, bundled_tokenizer, chunk_pages
    from desktop_rag.ingest.extract import extract

    out: dict[str, Any] = {}
    t0 = time.perf_counter()
    extracted = [extract(str(p)) for p in files]
    out["read_pdfium_s"] = round(time.perf_counter() - t0, 2)
    pages = sum(len(e.pages) for e in extracted)
    out["pages"] = pages
    t0 = time.perf_counter()
    for path in files:
        for page in pypdf.PdfReader(path).pages:
            page.extract_text()
    out["read_pypdf_s (the plain loop's reading)"] = round(time.perf_counter() - t0, 2)
    tok = bundled_tokenizer()
    t0 = time.perf_counter()
    chunks = [c for e in extracted for c in chunk_pages("d", "p", e.pages, tok, ChunkParams())]
    out["chunk_s"] = round(time.perf_counter() - t0, 2)
    app_texts = [c.text for c in chunks]
    # The plain loop's chunks, of the same (pdfium) text.
    file_words = [" ".join(p.text for p in e.pages).split() for e in extracted]
    naive_texts = [t for words in file_words for t in baseline.chunk_words(words)]
    model_tok = Tokenizer.from_file(str(bundled_model_dir() / "tokenizer.json"))
    model_tok.no_padding()
    model_tok.no_truncation()
    app_len = [len(e.ids) for e in model_tok.encode_batch(app_texts)]
    naive_full = [len(e.ids) for e in model_tok.encode_batch(naive_texts)]
    naive_len = [min(n, 256) for n in naive_full]
    out["app"] = {
        "chunks": len(app_texts),
        "pieces_embedded": sum(app_len),
        "pieces_per_page": round(sum(app_len) / pages, 1),
        "padded_pieces_in_length_sorted_batches_of_32": _padded(app_len, 32, True),
    }
    out["baseline"] = {
        "chunks": len(naive_texts),
        "pieces_embedded": sum(naive_len),
        "pieces_per_page": round(sum(naive_len) / pages, 1),
        "chunks_truncated_at_256": sum(n > 256 for n in naive_full),
        "pieces_lost_to_truncation": sum(naive_full) - sum(naive_len),
        "padded_pieces_in_batches_of_32 (sentence-transformers sorts by length)": _padded(
            naive_len, 32, True
        ),
    }
    embedder = default_embedder(Settings())
    embedder.prepare()  # type: ignore[attr-defined]
    embedder.embed_query("loads the questions' session too")
    out["default_variant"] = embedder.backend  # type: ignore[attr-defined]
    mid = len(app_texts) // 2
    sample = app_texts[mid : mid + PROFILE_SAMPLE]
    speeds: dict[str, Any] = {}
    for variant, session in embedder.sessions().items():  # type: ignore[attr-defined]
        session.embed(sample[:32])
        t0 = time.perf_counter()
        session.embed(sample)
        dt = time.perf_counter() - t0
        speeds[f"onnx-{variant}"] = {
            "chunks_per_s": round(len(sample) / dt, 1),
            "pieces_per_s": round(sum(app_len[mid : mid + PROFILE_SAMPLE]) / dt),
        }
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(bundled_model_dir()), device="cpu", local_files_only=True)
    nmid = len(naive_texts) // 2
    nsample = naive_texts[nmid : nmid + PROFILE_SAMPLE // 2]
    model.encode(nsample[:32], batch_size=32)
    t0 = time.perf_counter()
    model.encode(nsample, batch_size=32)
    dt = time.perf_counter() - t0
    speeds["torch (the plain loop's chunks)"] = {
        "chunks_per_s": round(len(nsample) / dt, 1),
        "pieces_per_s": round(sum(naive_len[nmid : nmid + PROFILE_SAMPLE // 2]) / dt),
    }
    out["embed_alone"] = speeds
    # Embedding time the whole set would take on each side at those speeds.
    out["embed_estimate_s"] = {
        name: round(
            (sum(naive_len) if name.startswith("torch") else sum(app_len)) / s["pieces_per_s"], 1
        )
        for name, s in speeds.items()
    }
    del np
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--set", default="speed", help="a set of bench/manuals.py")
    parser.add_argument("--financebench", type=int, default=0, help="N filings instead")
    parser.add_argument("--rounds", type=int, default=1, help="alternate the sides N times")
    parser.add_argument("--skip-baseline", action="store_true")
    parser.add_argument("--skip-fp32", action="store_true")
    parser.add_argument("--skip-profile", action="store_true")
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        help="also the app with these ChunkParams overrides (a=1,b=2), after the default; repeat",
    )
    args = parser.parse_args()
    name, files = _files(args)
    result: dict[str, Any] = {"bench": "dense", "set": name, "files": [p.name for p in files]}
    result["machine"] = machine()
    # The one-time export is a first start's cost, not this benchmark's: done beforehand.
    from desktop_rag.app import default_embedder
    from desktop_rag.config import Settings

    default_embedder(Settings()).prepare()  # type: ignore[attr-defined]
    sides = ["auto"] + ([] if args.skip_fp32 else ["onnx-fp32"]) + args.variant
    rounds: list[dict[str, Any]] = []
    for n in range(args.rounds):
        tmp = Path(tempfile.mkdtemp(prefix="bench-dense-"))
        try:
            one: dict[str, Any] = {"load_average_at_start": round(os.getloadavg()[0], 2)}
            if not args.skip_baseline:
                say(f"round {n + 1}: plain loop on {len(files)} files ...")
                one["baseline"] = _baseline(files, tmp)
                say(json.dumps(one["baseline"]))
            for backend in sides:
                say(f"round {n + 1}: desktop-rag index, embed_backend {backend} ...")
                if backend in args.variant:
                    one[backend] = _index(files, tmp, "auto", backend)
                else:
                    one[backend] = _index(files, tmp, backend)
                say(json.dumps(one[backend]))
            if "baseline" in one:
                for key in ("pages_per_s", "pages_per_cpu_s"):
                    base = one["baseline"][key]
                    one[f"{key}_ratio"] = {b: round(one[b][key] / base, 2) for b in sides}
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        rounds.append(one)
    result["rounds"] = rounds
    for key in ("baseline", *sides):  # the first round's sides, as earlier runs reported them
        if key in rounds[0]:
            result[key] = rounds[0][key]
    if not args.skip_baseline:
        for key in ("pages_per_s_ratio", "pages_per_cpu_s_ratio"):
            result[key] = {b: statistics.median(r[key][b] for r in rounds) for b in sides}
        result["target_ratio"] = 2.0
    if not args.skip_profile:
        say("profile ...")
        result["profile"] = profile(files)
    result["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    emit(f"dense-{name}", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
