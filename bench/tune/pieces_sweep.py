"""Which of the app's extra word pieces buy rank 1: chunking variants on one split (issue 32).

Each variant (chunk size, overlap, what is embedded before a chunk's text) indexes the
libraries of the chosen sets with this tree's app into a cache of its own, then asks that
split's questions through the app's whole search (Retriever.search, as bench/retrieval.py does)
and counts the word pieces its index embedded. Tune on `--split tune`; report the chosen
variant on `--split held_out` (and bench/retrieval.py on every set).

    python -m bench.tune.pieces_sweep --split tune --sets manuals-paraphrases,covid-qa \
        --variants app=128:24:1,o0=128:0:1
A variant is name=max_tokens:overlap:context (context: ingest/chunk.ChunkParams.context).
Prints one JSON document (also kept in bench/out/pieces_sweep-<split>.json).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from bench import retrieval as bench
from bench.perfutil import emit, fast_tokenizer, machine, say

DEFAULT_CACHE = Path(os.environ.get("PIECES_SWEEP_CACHE", "/tmp/pieces-sweep"))


def _params(spec: str) -> Any:
    from desktop_rag.ingest.chunk import ChunkParams

    size, overlap, context = (int(x) for x in spec.split(":"))
    return ChunkParams(max_tokens=size, overlap=overlap, context=context)


def embedded_pieces(app: Any) -> int:
    """Word pieces the index's chunks were embedded with (special tokens included)."""
    from desktop_rag.ingest.chunk import embedded_text
    from desktop_rag.types import Chunk

    tok = fast_tokenizer()
    rows = app.store.chunks_table.to_arrow().select(["path", "text", "section", "nav"])
    texts = [
        embedded_text(
            Chunk("", "", r["path"], 0, 0, 0, r["text"], r["section"] or "", bool(r["nav"])),
            app.ingest.params,
        )
        for r in rows.to_pylist()
    ]
    return sum(len(e.ids) for e in tok.encode_batch(texts)) if texts else 0


def run_variant(name: str, spec: str, sets: list[str], split: str) -> dict[str, Any]:
    from desktop_rag.app import build_app
    from desktop_rag.config import Settings

    corpus = Path(bench.CORPUS).resolve()
    params = _params(spec)
    out: dict[str, Any] = {"params": params.to_json(), "libraries": {}, "sets": {}}
    apps: dict[str, Any] = {}
    for set_name in sets:
        library = bench.LIBRARY[set_name]
        if library not in apps:
            folder = DEFAULT_CACHE / f"{library}-{name}"
            app = build_app(Settings(data_dir=str(folder)), params=params)
            paths = bench.library_paths(library, corpus)
            t0, c0 = time.perf_counter(), time.process_time()
            report = app.ingest.index(paths)
            bench.keep_only(app, paths)
            info: dict[str, Any] = {"chunks": app.store.count_chunks()}
            if report.indexed:
                info["index_s"] = round(time.perf_counter() - t0, 1)
                info["index_cpu_s (this process)"] = round(time.process_time() - c0, 1)
                info["load_average"] = [round(x, 1) for x in os.getloadavg()]
            info["pieces_embedded"] = embedded_pieces(app)
            info["pages"] = app.store.stats().get("pages")
            app.embedder.embed_query("warm up")
            apps[library] = app
            out["libraries"][library] = info
            say(f"{name} {library}: {info}")
        app = apps[library]
        questions = [q for q in bench.load_questions(set_name, corpus) if split in (q.split, "all")]
        rrs = [
            bench.reciprocal_rank(
                [(h.path, h.page) for h in app.retriever.search(q.text, k=bench.K)], q
            )
            for q in questions
        ]
        m = bench.metrics(rrs)
        m["rank1"] = sum(r == 1.0 for r in rrs)
        out["sets"][set_name] = m
        say(f"{name} {set_name} ({split}): {m}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--split", choices=["tune", "held_out", "all"], default="tune")
    parser.add_argument("--sets", default="manuals-paraphrases,manuals-titles,covid-qa")
    parser.add_argument("--variants", default="app=128:24:1")
    args = parser.parse_args(argv)
    sets = args.sets.split(",")
    result: dict[str, Any] = {"bench": "pieces_sweep", "machine": machine(), "split": args.split}
    for item in args.variants.split(","):
        name, spec = item.split("=")
        result[name] = run_variant(name, spec, sets, args.split)
    emit(f"pieces_sweep-{args.split}", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
