"""Passage embedding on ONNX Runtime against OpenVINO, one thread, on the app's own chunks.

Both runtimes run the app's exported graphs (int8 and fp32, from the embedder cache the first
index run fills) on the same texts (bench/embed_streams.py's chunks of the dense TeX manuals,
title and section included), sorted by length and batched as the app does, in rounds that
alternate the runtimes. Reported per runtime, variant and batch size: word pieces per second
and per CPU second of this process (one thread each, so the two agree on an idle machine), and
the vectors' mean cosine to ONNX Runtime fp32.

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
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from embed_streams import model_tokenizer, texts_of
from perfutil import REPO, emit, machine, say

sys.path.insert(0, str(REPO))

Run = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _batches(lengths_ids: list[list[int]], batch: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    order = sorted(range(len(lengths_ids)), key=lambda i: len(lengths_ids[i]))
    for start in range(0, len(order), batch):
        rows = [lengths_ids[i] for i in order[start : start + batch]]
        ids = np.zeros((len(rows), max(map(len, rows))), dtype=np.int64)
        mask = np.zeros_like(ids)
        for r, row in enumerate(rows):
            ids[r, : len(row)] = row
            mask[r, : len(row)] = 1
        yield ids, mask


def _ort(model_file: str) -> Run:
    import onnxruntime as ort

    options = ort.SessionOptions()  # as the app's passage sessions on two cores
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.enable_mem_pattern = False
    session = ort.InferenceSession(model_file, options, providers=["CPUExecutionProvider"])
    names = {i.name for i in session.get_inputs()}

    def run(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        return np.asarray(session.run(None, {k: v for k, v in feed.items() if k in names})[0])

    return run


def _openvino(model_file: str) -> Run:
    import openvino as ov

    config = {"INFERENCE_NUM_THREADS": 1, "NUM_STREAMS": 1, "PERFORMANCE_HINT": "LATENCY"}
    config["INFERENCE_PRECISION_HINT"] = "f32"  # as ONNX Runtime computes; no bf16 shortcut
    compiled = ov.Core().compile_model(model_file, "CPU", config)
    request = compiled.create_infer_request()
    names = [i.get_any_name() for i in compiled.inputs]

    def run(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
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

    texts = texts_of(args.chunks)
    ids = [e.ids for e in model_tokenizer().encode_batch(texts)]
    pieces = sum(map(len, ids))
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
            run(*next(_batches(ids, int(batch))))  # warm: first shapes, allocations
            t0, c0 = time.perf_counter(), time.process_time()
            out = np.concatenate([run(i, m) for i, m in _batches(ids, int(batch))])
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
