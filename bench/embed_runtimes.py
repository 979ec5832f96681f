"""Passage embedding on ONNX Runtime against OpenVINO, one thread, on the app's own chunks.

Both runtimes run the app's exported graphs (int8 and fp32, from the embedder cache the first
index run fills) on the same texts (bench/embed_streams.py's chunks of the dense TeX manuals,
title and section included), sorted, batched and padded by the app's own code, in rounds that
alternate the runtimes; ONNX Runtime through the app's own passage session. Reported per
runtime, variant and batch size: word pieces per second and per CPU second of this process
(one thread each, so the two agree on an idle machine), and the vectors' mean cosine to ONNX
Runtime fp32.

OpenVINO is not a dependency of the app: install it beside the checkout to run its half,
    python -m pip install --target /tmp/ovpkg openvino && rm -rf /tmp/ovpkg/numpy*
    PYTHONPATH=/tmp/ovpkg python bench/embed_runtimes.py
Without it only ONNX Runtime is measured.

Usage: python bench/embed_runtimes.py [--chunks 480] [--rounds 2] [--batches 4,32]
Prints one JSON document (also kept in bench/out/embed_runtimes.json).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from embed_streams import model_tokenizer, texts_of
from perfutil import REPO, emit, machine, say

sys.path.insert(0, str(REPO))

Run = Callable[[list[Any]], np.ndarray]  # a batch of tokenizer encodings -> their vectors


def _ort(model_file: str) -> Run:
    """The app's own passage session (engines/onnx_embed.py), one thread as on two cores."""
    from desktop_rag.engines.embed import bundled_model_dir
    from desktop_rag.engines.onnx_embed import OnnxEmbedder

    embedder = OnnxEmbedder(Path(model_file), bundled_model_dir() / "tokenizer.json", threads=1)
    embedder.load()
    return embedder._run


def _openvino(model_file: str) -> Run:
    import openvino as ov

    from desktop_rag.engines.onnx_embed import padded_feed

    config = {"INFERENCE_NUM_THREADS": 1, "NUM_STREAMS": 1, "PERFORMANCE_HINT": "LATENCY"}
    config["INFERENCE_PRECISION_HINT"] = "f32"  # as ONNX Runtime computes; no bf16 shortcut
    compiled = ov.Core().compile_model(model_file, "CPU", config)
    request = compiled.create_infer_request()
    names = [i.get_any_name() for i in compiled.inputs]

    def run(encodings: list[Any]) -> np.ndarray:
        feed = padded_feed(encodings)  # the app's padding
        request.infer({k: feed[k] for k in names})
        return np.array(request.get_output_tensor(0).data)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=480)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--batches", default="4,32")
    args = parser.parse_args()

    from desktop_rag.app import default_embedder
    from desktop_rag.config import Settings
    from desktop_rag.engines.batching import embed_by_length
    from desktop_rag.engines.embed import BUNDLED_EMBEDDER_DIM

    texts = texts_of(args.chunks)
    encodings = model_tokenizer().encode_batch(texts)
    lengths = [len(e.ids) for e in encodings]
    pieces = sum(lengths)
    auto = default_embedder(Settings())
    auto.prepare()  # type: ignore[attr-defined]
    files = {v: str(s.model_file) for v, s in auto._sessions.items()}  # type: ignore[attr-defined]
    makers: dict[str, Callable[[str], Run]] = {"onnxruntime": _ort}
    try:
        import openvino

        makers["openvino"] = _openvino
        versions = {"openvino": openvino.__version__}
    except ImportError:
        say("openvino is not installed: measuring ONNX Runtime only (see the docstring)")
        versions = {}
    import onnxruntime

    versions["onnxruntime"] = onnxruntime.__version__
    runs = {f"{rt}-{v}": make(path) for rt, make in makers.items() for v, path in files.items()}
    batches = [int(b) for b in args.batches.split(",")]
    seen: dict[str, list[dict[str, float]]] = {f"{n}:b{b}": [] for n in runs for b in batches}
    vectors: dict[str, np.ndarray] = {}
    say(f"{len(texts)} chunks, {pieces} word pieces, {len(seen)} configurations")
    for r in range(args.rounds):
        order = list(seen) if r % 2 == 0 else list(reversed(seen))
        for key in order:
            name, batch = key.split(":b")
            run = runs[name]
            run(encodings[: int(batch)])  # warm: first shapes, allocations
            t0, c0 = time.perf_counter(), time.process_time()
            # Sorted by length and batched as the app batches (engines/batching.py).
            out = embed_by_length(encodings, lengths, int(batch), run, BUNDLED_EMBEDDER_DIM)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            vectors[key] = out
            seen[key].append({"wall_s": wall, "cpu_s": cpu})
            say(f"round {r + 1} {key}: {pieces / wall:.0f} pieces/s, {pieces / cpu:.0f} per CPU s")
    reference = vectors[f"onnxruntime-fp32:b{batches[-1]}"]

    def cosine(x: np.ndarray) -> float:
        dots = np.sum(x * reference, axis=1)
        return float(np.mean(dots / np.linalg.norm(x, axis=1) / np.linalg.norm(reference, axis=1)))

    result: dict[str, Any] = {
        "machine": machine(),
        "versions": versions,
        "chunks": len(texts),
        "pieces": pieces,
        "configs": {
            key: {
                "pieces_per_s": round(pieces / statistics.median(x["wall_s"] for x in rows)),
                "pieces_per_cpu_s": round(pieces / statistics.median(x["cpu_s"] for x in rows)),
                "mean_cosine_to_onnxruntime_fp32": round(cosine(vectors[key]), 5),
            }
            for key, rows in seen.items()
        },
    }
    emit("embed_runtimes", result)


if __name__ == "__main__":
    main()
