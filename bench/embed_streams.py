"""Passage embedding: one ONNX Runtime session with every thread, or single-threaded sessions
side by side, and the batch size, on the app's own chunks of dense manuals.

Each configuration embeds the same texts (the app's chunks, title and section included, of the
dense TeX manuals bench/dense.py reads), in rounds that alternate the configurations, so a load
that changes during the run falls on all of them. Reported per configuration: word pieces per
second (wall) and per CPU second of this process, median over the rounds.

Usage: python -m bench.embed_streams [--chunks 960] [--rounds 3] [--variant int8]
       [--configs 1x2:32,2x1:32,2x1:16,2x1:8]   (sessions x threads : batch size)
Prints one JSON document (also kept in bench/out/embed_streams.json).
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from bench.perfutil import emit, machine, say


def texts_of(chunks: int) -> list[str]:
    from bench import manuals
    from desktop_rag.ingest.chunk import (
        ChunkParams,
        bundled_tokenizer,
        chunk_pages,
        embedded_text,
    )
    from desktop_rag.ingest.extract import extract
    from desktop_rag.ingest.outline import layout_pages

    params = ChunkParams()
    tok = bundled_tokenizer()
    out: list[str] = []
    for path in manuals.fetch(manuals.SETS["speed"]):
        extracted = extract(str(path))
        layouts = layout_pages(extracted.pages, extracted.outline)
        for chunk in chunk_pages("d", str(path), extracted.pages, tok, params, layouts):
            out.append(embedded_text(chunk, params))
        if len(out) >= 3 * chunks:
            break
    mid = len(out) // 2  # past the front matter
    return out[max(0, mid - chunks // 2) : max(0, mid - chunks // 2) + chunks]


def model_tokenizer() -> Any:
    """The embedder's tokenizer as the app runs it: no padding, cut at 256 word pieces."""
    from tokenizers import Tokenizer

    from desktop_rag.engines.embed import bundled_model_dir

    tok = Tokenizer.from_file(str(bundled_model_dir() / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=256)
    return tok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=960)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--variant", default="int8", choices=("int8", "fp32"))
    parser.add_argument("--configs", default="1x2:32,2x1:32,2x1:16,2x1:8")
    args = parser.parse_args()

    from desktop_rag.app import default_embedder
    from desktop_rag.config import Settings
    from desktop_rag.engines.embed import bundled_model_dir
    from desktop_rag.engines.onnx_embed import OnnxEmbedder

    texts = texts_of(args.chunks)
    pieces = sum(len(e.ids) for e in model_tokenizer().encode_batch(texts))
    auto = default_embedder(Settings())
    auto.prepare()  # type: ignore[attr-defined]
    auto.embed_query("loads the questions' session too")
    model_file = auto._sessions[args.variant].model_file  # type: ignore[attr-defined]
    configs: dict[str, OnnxEmbedder] = {}
    for spec in args.configs.split(","):
        shape, batch = spec.split(":")
        streams, threads = (int(x) for x in shape.split("x"))
        embedder = OnnxEmbedder(
            model_file,
            bundled_model_dir() / "tokenizer.json",
            threads=threads,
            batch_size=int(batch),
            streams=streams,
        )
        embedder.embed(texts[:64])  # loads, and runs every session once
        configs[spec] = embedder
    say(f"{len(texts)} chunks, {pieces} word pieces, {len(configs)} configurations")
    runs: dict[str, list[dict[str, float]]] = {spec: [] for spec in configs}
    reference = None
    for r in range(args.rounds):
        order = list(configs) if r % 2 == 0 else list(reversed(configs))
        for spec in order:
            t0, c0 = time.perf_counter(), time.process_time()
            vectors = configs[spec].embed(texts)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            if reference is None:
                reference = vectors
            # The same vectors whatever the sessions and batches (padding is masked out).
            drift = float(abs(vectors - reference).max())
            runs[spec].append({"wall_s": wall, "cpu_s": cpu, "max_abs_diff": drift})
            say(f"round {r + 1} {spec}: {pieces / wall:.0f} pieces/s, {pieces / cpu:.0f} per CPU s")
    out: dict[str, Any] = {
        "machine": machine(),
        "variant": args.variant,
        "chunks": len(texts),
        "pieces": pieces,
        "configs": {},
    }
    base = args.configs.split(",")[0]
    base_wall = statistics.median(x["wall_s"] for x in runs[base])
    for spec, rows in runs.items():
        wall = statistics.median(x["wall_s"] for x in rows)
        cpu = statistics.median(x["cpu_s"] for x in rows)
        out["configs"][spec] = {
            "pieces_per_s": round(pieces / wall),
            "pieces_per_cpu_s": round(pieces / cpu),
            f"speed_vs_{base}": round(base_wall / wall, 3),
            "max_abs_diff_to_first": max(x["max_abs_diff"] for x in rows),
            "rounds": [{k: round(v, 4) for k, v in x.items()} for x in rows],
        }
    emit("embed_streams", out)


if __name__ == "__main__":
    main()
