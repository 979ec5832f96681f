"""Export the bundled embedder to ONNX (int8) once, offline, into the cache, in a child process.

The export needs torch and transformers and a few hundred MB for a few seconds; doing it in a
child keeps the app's own process free of torch whenever the export exists, and a crash in the
exporter costs only the fast path: the caller falls back to PyTorch.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import multiprocessing as mp
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from desktop_rag.infra import cpu, locks
from desktop_rag.infra.keyed import write_json

log = logging.getLogger(__name__)

# Bump when the export or the quantisation recipe changes: older exports are then ignored.
RECIPE = 1
Variant = Literal["int8", "fp32"]
MODEL_FILE = "model.onnx"
MANIFEST_FILE = "manifest.json"
FAILED_FILE = "failed.json"
EXPORT_TIMEOUT_S = 900.0
# The exported model must give the vectors PyTorch gives: fp32 is exact up to float noise;
# int8 loses a little (README, "Embedding backends") and a broken export far more.
MIN_SELF_CHECK_COS: dict[str, float] = {"fp32": 0.9999, "int8": 0.97}
# Small files whose content defines the model; the weights are identified by size and mtime,
# because hashing 90 MB at every start would cost more than the search it serves.
_DEFINING_FILES = (
    "config.json",
    "modules.json",
    "sentence_bert_config.json",
    "1_Pooling/config.json",
    "tokenizer.json",
)
_WEIGHTS = "model.safetensors"

Exporter = Callable[[Path, Path, str], dict[str, Any]]


class ExportError(Exception):
    """The model could not be exported; the message says why (for the log, not the user)."""


def fingerprint(
    model_dir: Path, variant: str, weights_file: str = _WEIGHTS, own_recipe: str = ""
) -> str:
    """A short id of the source model, the variant and the recipe (with an exporter's own
    version, if it has one): the cache key."""
    recipe = f"recipe={RECIPE};variant={variant}"
    if own_recipe:
        recipe += f";{own_recipe}"  # none for the bundled embedder: its keys stay as they were
    # int8 weights in 7 bits where this CPU's int8 products saturate (infra/cpu.py says why).
    bits = cpu.int8_weight_bits() if variant == "int8" else 8
    if bits != 8:
        recipe += f";weight_bits={bits}"  # 8 bits keep the key they always had
    digest = hashlib.sha256(recipe.encode())
    for name in _DEFINING_FILES:
        path = model_dir / name
        digest.update(name.encode())
        digest.update(path.read_bytes() if path.is_file() else b"-")
    st = (model_dir / weights_file).stat()
    digest.update(f"{weights_file}:{st.st_size}:{st.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def _versions() -> dict[str, str]:
    """Library versions an export failure depends on: a new version deserves a new try."""
    from importlib import metadata

    out = {}
    for name in ("torch", "transformers", "onnx", "onnxruntime"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = ""
    return out


@dataclass(frozen=True, slots=True)
class ExportCache:
    """Exported models under `root`, one folder per source model, variant and recipe.

    A folder appears whole or not at all: the export writes into a temporary folder that is
    renamed into place with its manifest. A lock file keeps two processes (the window and the
    command line) from exporting the same model at once; the second finds the first's result.
    """

    root: Path
    # The exports' name in the cache and the weights file that identifies their source: the
    # bundled MiniLM's by default, engines/multilingual.py's model file for its exports.
    name: str = "minilm"
    weights_file: str = _WEIGHTS
    recipe: str = ""  # the exporter's own recipe, part of the key

    def folder(self, model_dir: Path, variant: str) -> Path:
        key = fingerprint(model_dir, variant, self.weights_file, self.recipe)
        return self.root / f"{self.name}-{variant}-{key}"

    def find(self, model_dir: Path, variant: str) -> Path | None:
        """The exported model file, if a complete export is in the cache."""
        folder = self.folder(model_dir, variant)
        model = folder / MODEL_FILE
        if (folder / MANIFEST_FILE).is_file() and model.is_file():
            return model
        return None

    def failure(self, model_dir: Path, variant: str) -> str | None:
        """Why the last export failed, if it failed with the libraries installed now."""
        marker = self.root / f"{self.folder(model_dir, variant).name}.{FAILED_FILE}"
        try:
            raw = json.loads(marker.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(raw, dict) or raw.get("versions") != _versions():
            return None
        return str(raw.get("reason", "unknown"))

    def ensure(
        self,
        model_dir: Path,
        variant: str,
        exporter: Exporter,
        on_status: Callable[[str], None] | None = None,
    ) -> Path:
        """The exported model file, exporting it first if needed. Raises ExportError."""
        found = self.find(model_dir, variant)
        if found is not None:
            return found
        self.root.mkdir(parents=True, exist_ok=True)
        final = self.folder(model_dir, variant)
        with _locked(self.root / ".export.lock"):
            found = self.find(model_dir, variant)  # another process may have just made it
            if found is not None:
                return found
            tmp = self.root / f".{final.name}.tmp-{os.getpid()}"
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir(parents=True)
            marker = self.root / f"{final.name}.{FAILED_FILE}"
            if on_status is not None:
                on_status("Preparing the fast embedder (first run only)")
            t0 = time.monotonic()
            try:
                info = exporter(model_dir, tmp, variant)
                if not (tmp / MODEL_FILE).is_file():
                    raise ExportError(f"the exporter wrote no {MODEL_FILE}")
            except Exception as exc:
                shutil.rmtree(tmp, ignore_errors=True)
                reason = str(exc) or type(exc).__name__
                write_json(marker, {"reason": reason, "versions": _versions()})
                raise ExportError(reason) from exc
            manifest = {
                "recipe": RECIPE,
                "variant": variant,
                "source": str(model_dir),
                "seconds": round(time.monotonic() - t0, 2),
                "versions": _versions(),
                **info,
            }
            write_json(tmp / MANIFEST_FILE, manifest)
            shutil.rmtree(final, ignore_errors=True)  # a half folder from an older crash
            os.replace(tmp, final)
            with contextlib.suppress(OSError):
                marker.unlink()
            log.info(
                "exported the embedder (%s) to %s in %.1fs", variant, final, time.monotonic() - t0
            )
            return final / MODEL_FILE


@contextlib.contextmanager
def _locked(path: Path) -> Any:
    fd = locks.open_lock(path)
    try:
        locks.lock(fd)
        yield
    finally:
        os.close(fd)


# -- the export itself (runs in a child process) ---------------------------------------------


def export_in_child(
    model_dir: Path, out_dir: Path, variant: str, export: Exporter | None = None
) -> dict[str, Any]:
    """Run `export` (export_onnx unless said: a module-level function, which the child imports
    by its name) in a fresh process and return its report; raise ExportError on failure."""
    ctx = mp.get_context("spawn")  # never fork a process that holds torch, ORT or lance threads
    report = out_dir / "export-report.json"
    proc = ctx.Process(
        target=_child_main,
        args=(str(model_dir), str(out_dir), variant, str(report), export or export_onnx),
        name="desktop-rag-export",
        daemon=True,
    )
    proc.start()
    proc.join(EXPORT_TIMEOUT_S)
    if proc.is_alive():
        proc.kill()
        proc.join(5)
        raise ExportError(f"the export took longer than {EXPORT_TIMEOUT_S:.0f}s")
    try:
        result = json.loads(report.read_text(encoding="utf-8"))
        report.unlink()
    except (OSError, ValueError):
        raise ExportError(f"the export process died (exit code {proc.exitcode})") from None
    if not result.get("ok"):
        raise ExportError(str(result.get("error", "unknown error")))
    info = result.get("info", {})
    return info if isinstance(info, dict) else {}


def _child_main(model_dir: str, out_dir: str, variant: str, report: str, export: Exporter) -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        info = export(Path(model_dir), Path(out_dir), variant)
        write_json(Path(report), {"ok": True, "info": info})
    except BaseException as exc:  # report everything; the parent decides
        write_json(Path(report), {"ok": False, "error": f"{type(exc).__name__}: {exc}"})


_PROBES = [
    "What is the incubation period of the virus?",
    "Revenue grew 12% year over year, driven by services.",
    "a",
    "The quick brown fox jumps over the lazy dog. " * 40,  # beyond 256 pieces: truncated
]


def quantize_int8(src: Path, dst: Path, bits: int | None = None, table: bool = False) -> int:
    """The fp32 graph at src as the int8 export at dst: dynamic quantization, weights per
    channel, 7-bit where this CPU needs it (infra/cpu) or `bits` says; the word-piece table too
    with `table` (a model shipped int8 rather than exported on the user's machine: the table
    is most of its size); returns the weight bits used."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    logging.getLogger().setLevel(logging.ERROR)  # "consider pre-processing": not for BERT
    bits = bits or cpu.int8_weight_bits()
    quantize_dynamic(
        str(src),
        str(dst),
        weight_type=QuantType.QInt8,
        per_channel=True,
        reduce_range=bits == 7,
        op_types_to_quantize=["MatMul", "Gather"] if table else ["MatMul"],
        extra_options={"MatMulConstBOnly": True},
    )
    return bits


BERT_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def export_graph(
    module: Any,
    path: Path,
    output: str,
    output_axes: dict[int, str],
    inputs: tuple[str, ...] = BERT_INPUTS,
) -> None:
    """A PyTorch module taking `inputs` (integer tensors, batch x tokens; a BERT's three by
    default) as an fp32 ONNX graph at path, its one output named `output`."""
    import warnings

    import torch

    dummy = torch.ones(2, 16, dtype=torch.long)
    # Ones for every input but the token types, which are zeros as a BERT reads one text.
    args = tuple(torch.zeros_like(dummy) if n == "token_type_ids" else dummy for n in inputs)
    axes = {0: "batch", 1: "tokens"}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on shape-dependent Python code
        torch.onnx.export(
            module,
            args,
            str(path),
            dynamo=False,  # the TorchScript exporter needs no onnxscript and handles BERT well
            input_names=list(inputs),
            output_names=[output],
            dynamic_axes={**dict.fromkeys(inputs, axes), output: output_axes},
            opset_version=17,
            do_constant_folding=True,
        )


def export_onnx(model_dir: Path, out_dir: Path, variant: str) -> dict[str, Any]:
    """Export transformer + mean pooling + normalisation as one ONNX graph, then quantise.

    The graph takes input_ids, attention_mask and token_type_ids and returns unit vectors, so
    the runtime side needs only a tokenizer and onnxruntime. Quantisation is dynamic (no
    calibration data, nothing to download): int8 weights per output channel for the weight
    matrices only; activations times activations (attention scores) stay in float, where
    int8 costs the most quality for the least speed.
    """

    import numpy as np
    import torch
    from transformers import AutoModel

    if variant not in MIN_SELF_CHECK_COS:
        raise ExportError(f"unknown variant {variant!r}")
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    model = AutoModel.from_pretrained(
        str(model_dir), local_files_only=True, attn_implementation="eager"
    ).eval()

    class Pooled(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(
            self,
            input_ids: torch.Tensor,
            attention_mask: torch.Tensor,
            token_type_ids: torch.Tensor,
        ) -> torch.Tensor:
            hidden = self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            mean = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, p=2, dim=1)

    pooled = Pooled(model).eval()
    fp32 = out_dir / "model-fp32.onnx"
    export_graph(pooled, fp32, "sentence_embedding", {0: "batch"})
    target = out_dir / MODEL_FILE
    if variant == "int8":
        bits = quantize_int8(fp32, target)
        fp32.unlink()
    else:
        os.replace(fp32, target)

    # Self-check: the exported graph against the PyTorch model it came from, on odd shapes
    # (a batch with padding, one token, a text past the limit), so a tracing slip shows here.
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.enable_truncation(max_length=256)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    enc = tok.encode_batch(_PROBES)
    ids = np.array([e.ids for e in enc], dtype=np.int64)
    mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
    with torch.no_grad():
        ref = pooled(
            torch.from_numpy(ids), torch.from_numpy(mask), torch.zeros_like(torch.from_numpy(ids))
        )
    import onnxruntime as ort

    session = ort.InferenceSession(str(target), providers=["CPUExecutionProvider"])
    feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    wanted = {i.name for i in session.get_inputs()}
    got = session.run(None, {k: v for k, v in feed.items() if k in wanted})[0]
    single = session.run(
        None, {k: v[:1, : int(mask[0].sum())] for k, v in feed.items() if k in wanted}
    )[0]
    cos = np.sum(got * ref.numpy(), axis=1)
    worst = float(min(cos.min(), float(np.dot(single[0], ref.numpy()[0]))))
    if worst < MIN_SELF_CHECK_COS[variant]:
        raise ExportError(f"the exported model disagrees with PyTorch (cosine {worst:.4f})")
    info: dict[str, Any] = {"self_check_min_cosine": round(worst, 6)}
    if variant == "int8":
        info["weight_bits"] = bits
    return {**info, "bytes": target.stat().st_size}
