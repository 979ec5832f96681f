"""How fast all-MiniLM-L6-v2 could embed on this CPU: its int8 matrix products alone (issue 32).

A graph of nothing but the model's weight products at its shapes (6 layers, each four 384x384
products for the attention's query, key, value and output, then 384x1536 and 1536x384 for the
feed-forward), quantized exactly as engines/onnx_export.py quantizes the model (dynamic, int8
per channel, 7-bit weights where this CPU's kernels saturate), run on ONNX Runtime with one
thread per session as the app runs passages, on batches of APP_BATCH texts of 128 word pieces.
That is the roof: the model does all this and more (attention scores, softmax, GELU, layer
norms, the quantizing of activations is inside the roof). Beside it, on the same shapes and the
same CPU, one thread each:
- the app's int8 export (the real model), batches of 4 texts of 128 pieces;
- the app's fp32 export, same batches;
- the roof's graph left in fp32;
- the plain loop's embedder (PyTorch fp32, sentence-transformers), batches of 32 texts of 128.
Each is timed by the CPU seconds of this process (one thread, nothing else running in it), so
the figure moves little with the machine's load. Reported in word pieces per CPU second.

Usage: python -m bench.roof [--seconds S]
Prints one JSON document (also kept in bench/out/roof.json).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bench.perfutil import emit, machine, say

LAYERS, HIDDEN, INTERMEDIATE, SEQ = 6, 384, 1536, 128
APP_BATCH = 4  # engines/onnx_embed.PASSAGE_BATCH
BASE_BATCH = 32  # bench/baseline.BATCH
# Multiply-adds per word piece in the weight products: 4 x 384 x 384 + 2 x 384 x 1536 a layer.
MACS_PER_PIECE = LAYERS * (4 * HIDDEN * HIDDEN + 2 * HIDDEN * INTERMEDIATE)


def products_graph(path: Path) -> None:
    """The model's weight products, chained layer after layer, as an fp32 ONNX graph."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    nodes, inits = [], []

    def weight(name: str, rows: int, cols: int) -> str:
        w = rng.standard_normal((rows, cols), dtype=np.float32) / np.sqrt(rows)
        inits.append(numpy_helper.from_array(w.astype(np.float32), name))
        return name

    x = "x"
    for n in range(LAYERS):
        qkv = []
        for part in ("q", "k", "v"):
            out = f"l{n}_{part}"
            nodes.append(helper.make_node("MatMul", [x, weight(f"w{n}{part}", 384, 384)], [out]))
            qkv.append(out)
        nodes.append(helper.make_node("Sum", qkv, [f"l{n}_qkv"]))
        nodes.append(
            helper.make_node("MatMul", [f"l{n}_qkv", weight(f"w{n}o", 384, 384)], [f"l{n}_o"])
        )
        nodes.append(
            helper.make_node(
                "MatMul", [f"l{n}_o", weight(f"w{n}f1", HIDDEN, INTERMEDIATE)], [f"l{n}_f1"]
            )
        )
        w2 = weight(f"w{n}f2", INTERMEDIATE, HIDDEN)
        nodes.append(helper.make_node("MatMul", [f"l{n}_f1", w2], [f"l{n}_out"]))
        x = f"l{n}_out"
    graph = helper.make_graph(
        nodes,
        "minilm_products",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "tokens", HIDDEN])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", "tokens", HIDDEN])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, str(path))


def quantize(src: Path, dst: Path) -> int:
    """src quantized as the app quantizes its export; returns the weight bits used."""
    from desktop_rag.engines.onnx_export import quantize_int8

    return quantize_int8(src, dst)


def session(path: Path) -> Any:
    """A one-thread session made as OnnxEmbedder makes its passage sessions."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def rate(run: Callable[[], object], pieces_per_run: int, seconds: float) -> dict[str, float]:
    """Word pieces per CPU second (this process's) and per wall second of `run`, repeated."""
    run()  # warm up: first-run allocations and kernel choice
    c0, w0, n = time.process_time(), time.perf_counter(), 0
    while time.process_time() - c0 < seconds:
        run()
        n += 1
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    return {
        "pieces_per_cpu_s": round(n * pieces_per_run / cpu),
        "pieces_per_wall_s": round(n * pieces_per_run / wall),
        "runs": n,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=6.0, help="CPU seconds per figure")
    args = parser.parse_args(argv)
    from desktop_rag.app import default_embedder
    from desktop_rag.config import Settings
    from desktop_rag.engines.embed import bundled_model_dir

    result: dict[str, Any] = {
        "bench": "roof",
        "machine": machine(),
        "macs_per_piece": MACS_PER_PIECE,
    }
    rng = np.random.default_rng(1)
    tmp = Path(tempfile.mkdtemp(prefix="bench-roof-"))
    fp32, int8 = tmp / "products-fp32.onnx", tmp / "products-int8.onnx"
    products_graph(fp32)
    result["weight_bits"] = quantize(fp32, int8)
    x = rng.standard_normal((APP_BATCH, SEQ, HIDDEN), dtype=np.float32)
    pieces = APP_BATCH * SEQ
    figures: dict[str, dict[str, float]] = {}
    for name, path in (("roof: int8 weight products", int8), ("fp32 weight products", fp32)):
        s = session(path)
        say(name)
        figures[name] = rate(lambda s=s: s.run(None, {"x": x}), pieces, args.seconds)

    embedder = default_embedder(Settings())
    embedder.prepare()  # type: ignore[attr-defined]
    embedder.embed_query("loads the questions' session too")
    model_dir = bundled_model_dir()
    ids = rng.integers(1000, 29000, size=(APP_BATCH, SEQ), dtype=np.int64)
    ids[:, 0], ids[:, -1] = 101, 102
    feed = {
        "input_ids": ids,
        "attention_mask": np.ones_like(ids),
        "token_type_ids": np.zeros_like(ids),
    }
    for variant, onnx in embedder.sessions().items():  # type: ignore[attr-defined]
        s = session(onnx.model_file)
        wanted = {i.name for i in s.get_inputs()}
        f = {k: v for k, v in feed.items() if k in wanted}
        say(f"app {variant}")
        figures[f"app's {variant} export (the model)"] = rate(
            lambda s=s, f=f: s.run(None, f), pieces, args.seconds
        )

    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(1)
    model = SentenceTransformer(str(model_dir), device="cpu", local_files_only=True)
    big = torch.from_numpy(np.tile(ids, (BASE_BATCH // APP_BATCH, 1)))
    features = {
        "input_ids": big,
        "attention_mask": torch.ones_like(big),
        "token_type_ids": torch.zeros_like(big),
    }

    def torch_run() -> None:
        with torch.inference_mode():
            model.forward(dict(features))

    say("torch fp32")
    figures["plain loop's PyTorch fp32 (batch 32)"] = rate(
        torch_run, BASE_BATCH * SEQ, args.seconds
    )
    roof = figures["roof: int8 weight products"]["pieces_per_cpu_s"]
    for fig in figures.values():
        fig["share_of_roof"] = round(fig["pieces_per_cpu_s"] / roof, 3)
        fig["gmacs_per_cpu_s"] = round(fig["pieces_per_cpu_s"] * MACS_PER_PIECE / 1e9, 1)
    result["one_thread_seq128"] = figures
    emit("roof", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
