"""Other forms of the app's embedder graphs, against the app's own, on the dense manuals' chunks.

From the app's fp32 export (the embedder cache the first index run fills), in a temporary
folder: the graph after ONNX Runtime's offline transformer fusions (onnxruntime.transformers.
optimizer, BERT: Attention, SkipLayerNormalization, BiasGelu), and int8 quantised as the app
quantises (dynamic, per channel, MatMul weights) but in 7 bits (what a CPU without VNNI gets,
infra/cpu.int8_weight_bits), after the fusions, and after the fusions with the
Attention nodes quantised too; and int8 quantised statically (activation scales calibrated
beforehand, MinMax, on 160 passages of covid-qa articles, not the manuals; 7-bit weights), which
spares the run-time quantisation of every activation. Each runs in the app's passage session
(one thread) on bench/embed_streams.py's chunks, batched as the app batches (4), in two rounds
that alternate the variants. Reported: word pieces per CPU second of this process, and the
mean and lowest cosine of the vectors to the app's fp32 export. With onnx_ir importable, also
MatMul weights in blocks of 8 or 4 bits multiplied in int8 (MatMulNBits, accuracy_level 4);
onnx_ir is not a dependency of the app: install it beside the checkout,
    python -m pip install --no-deps --target /tmp/nbpkg onnx_ir
and run with PYTHONPATH=/tmp/nbpkg.

    python bench/embed_variants.py [--chunks 480]
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from embed_streams import model_tokenizer, texts_of
from perfutil import CORPUS, REPO, emit, machine, say

sys.path.insert(0, str(REPO))


def _variants(fp32: Path, folder: Path) -> dict[str, Path]:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers.optimizer import optimize_model

    fused = folder / "fp32-fused.onnx"
    model = optimize_model(str(fp32), model_type="bert", num_heads=12, hidden_size=384)
    say(f"fusions: { {k: v for k, v in model.get_fused_operator_statistics().items() if v} }")
    model.save_model_to_file(str(fused))
    out = {"fp32-fused": fused}
    logging.getLogger().setLevel(logging.ERROR)
    for name, source, seven, ops in (
        ("int8-7bit", fp32, True, ["MatMul"]),
        ("int8-fused", fused, False, ["MatMul"]),
        ("int8-fused-attention", fused, False, ["MatMul", "Attention"]),
    ):
        target = folder / f"{name}.onnx"
        quantize_dynamic(
            str(source),
            str(target),
            weight_type=QuantType.QInt8,
            per_channel=True,
            reduce_range=seven,
            op_types_to_quantize=ops,
            # The fused graph's contrib ops have no type inference: say their outputs' type.
            extra_options={"MatMulConstBOnly": True, "DefaultTensorType": onnx.TensorProto.FLOAT},
        )
        out[name] = target
    out["int8-static-7bit"] = _static(fp32, folder / "int8-static-7bit.onnx")
    out.update(_nbits(fp32, folder))
    return out


def _nbits(fp32: Path, folder: Path) -> dict[str, Path]:
    """MatMul weights in blocks of 8 or 4 bits (MatMulNBits), multiplied in int8
    (accuracy_level 4): ONNX Runtime's weight-only path for language models."""
    import onnx

    try:
        from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer
    except ImportError as exc:  # it needs onnx_ir, which the app does not install
        say(f"no MatMulNBits variants ({exc}): see the docstring")
        return {}
    out = {}
    for bits, block in ((8, 32), (8, 128), (4, 32)):
        target = folder / f"nbits{bits}-block{block}.onnx"
        quantizer = MatMulNBitsQuantizer(
            onnx.load(str(fp32)), bits=bits, block_size=block, is_symmetric=True, accuracy_level=4
        )
        quantizer.process()
        quantizer.model.save_model_to_file(str(target), use_external_data_format=False)
        out[target.stem] = target
    return out


CALIBRATION_TEXTS = 160


def _static(fp32: Path, target: Path) -> Path:
    """The fp32 graph quantised with activation scales measured on covid-qa passages."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    from desktop_rag.engines.onnx_embed import padded_feed
    from desktop_rag.ingest.extract import extract

    texts: list[str] = []
    for pdf in sorted((CORPUS / "covid-qa" / "pdf").glob("*.pdf")):
        for page in extract(str(pdf)).pages:
            words = page.text.split()
            texts += [" ".join(words[i : i + 100]) for i in range(0, len(words), 100)]
        if len(texts) >= CALIBRATION_TEXTS:
            break
    tok = model_tokenizer()
    names = {i.name for i in onnx.load(str(fp32)).graph.input}
    batches = []
    for start in range(0, CALIBRATION_TEXTS, 4):
        feed = padded_feed(tok.encode_batch(texts[start : start + 4]))
        batches.append({k: v for k, v in feed.items() if k in names})

    class Batches(CalibrationDataReader):
        def __init__(self) -> None:
            self.rest = iter(batches)

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.rest, None)

    quantize_static(
        str(fp32),
        str(target),
        Batches(),
        quant_format=QuantFormat.QOperator,
        op_types_to_quantize=["MatMul"],
        per_channel=True,
        reduce_range=True,
        activation_type=QuantType.QUInt8,
        weight_type=QuantType.QInt8,
    )
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=480)
    args = parser.parse_args()

    from desktop_rag.app import default_embedder
    from desktop_rag.config import Settings
    from desktop_rag.engines.batching import embed_by_length
    from desktop_rag.engines.embed import BUNDLED_EMBEDDER_DIM, bundled_model_dir
    from desktop_rag.engines.onnx_embed import OnnxEmbedder

    auto = default_embedder(Settings())
    auto.prepare()  # type: ignore[attr-defined]
    sessions = auto._sessions  # type: ignore[attr-defined]
    files = {f"app-{v}": Path(s.model_file) for v, s in sessions.items()}
    texts = texts_of(args.chunks)
    encodings = model_tokenizer().encode_batch(texts)
    lengths = [len(e.ids) for e in encodings]
    pieces = sum(lengths)
    with tempfile.TemporaryDirectory() as tmp:
        files.update(_variants(files["app-fp32"], Path(tmp)))
        runs: dict[str, Any] = {}
        for name, path in files.items():
            embedder = OnnxEmbedder(path, bundled_model_dir() / "tokenizer.json", threads=1)
            embedder.load()
            runs[name] = embedder._run
        speeds: dict[str, list[float]] = {name: [] for name in runs}
        vectors: dict[str, np.ndarray] = {}
        for r in range(2):
            for name in list(runs) if r == 0 else list(reversed(runs)):
                runs[name](encodings[:4])  # warm: first shapes, allocations
                c0 = time.process_time()
                vectors[name] = embed_by_length(
                    encodings, lengths, 4, runs[name], BUNDLED_EMBEDDER_DIM
                )
                speeds[name].append(pieces / (time.process_time() - c0))
                say(f"round {r + 1} {name}: {speeds[name][-1]:.0f} pieces per CPU s")
    reference = vectors["app-fp32"]
    result: dict[str, Any] = {"machine": machine(), "chunks": len(texts), "pieces": pieces}
    result["variants"] = {}
    for name, rows in speeds.items():
        cos = np.sum(vectors[name] * reference, axis=1)
        result["variants"][name] = {
            "pieces_per_cpu_s": round(max(rows)),
            "mean_cosine_to_app_fp32": round(float(cos.mean()), 5),
            "lowest_cosine": round(float(cos.min()), 5),
        }
    emit("embed_variants", result)


if __name__ == "__main__":
    main()
