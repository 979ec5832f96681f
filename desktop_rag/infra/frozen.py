"""Files a frozen build (PyInstaller) ships prepared, so its first start assembles nothing.

`make package` assembles the default GGUF and exports the embedder to ONNX at build time into
`prebuilt/` inside the bundle (see packaging/prebuild.py, which writes this layout):

    prebuilt/llm/<name>.gguf             the default language model, verified
    prebuilt/embedder/                   the embedder's tokenizer and configs (no weights)
    prebuilt/embedder/onnx-<variant>/model.onnx   int8 for passages, fp32 for questions
    prebuilt/embedder/onnx-int8-w7/model.onnx     int8 in 7 bits, for CPUs without VNNI
                                                  (infra/cpu.int8_weight_bits)
    prebuilt/multilingual/onnx-fp32/     the multilingual embedder (engines/multilingual.py):
                                         model.onnx, e5.spm, normalizer.json

A frozen build carries neither torch nor the model packages, so it cannot export or assemble:
these files are its only models. Outside a frozen build every lookup here returns None.
"""

from __future__ import annotations

import sys
from pathlib import Path

from desktop_rag.infra import cpu

FOLDER = "prebuilt"
LLM = "llm"
EMBEDDER = "embedder"
MULTILINGUAL = "multilingual"
EXPORT_FILE = "model.onnx"
SEVEN_BIT_INT8 = "onnx-int8-w7"


def is_frozen() -> bool:
    """Running from a PyInstaller bundle (no torch, no model packages, nothing to export)."""
    return bool(getattr(sys, "frozen", False))


def root() -> Path | None:
    """The bundle's prepared files, or None when running from source or a wheel."""
    base = getattr(sys, "_MEIPASS", None)
    if not is_frozen() or not base:
        return None
    folder = Path(base) / FOLDER
    return folder if folder.is_dir() else None


def llm() -> Path | None:
    """The default GGUF model shipped in the bundle."""
    folder = root()
    if folder is None:
        return None
    return next(iter(sorted((folder / LLM).glob("*.gguf"))), None)


def embedder_dir() -> Path | None:
    """The embedder's tokenizer and configuration shipped in the bundle."""
    folder = root()
    if folder is None or not (folder / EMBEDDER / "tokenizer.json").is_file():
        return None
    return folder / EMBEDDER


def embedder_export(variant: str) -> Path | None:
    """The bundle's ONNX export of the embedder for this variant (int8 or fp32): for int8, the
    7-bit export on a CPU whose int8 products saturate, when the bundle has one."""
    folder = embedder_dir()
    if folder is None:
        return None
    names = [f"onnx-{variant}"]
    if variant == "int8" and cpu.int8_weight_bits() == 7:
        names.insert(0, SEVEN_BIT_INT8)
    for name in names:
        model = folder / name / EXPORT_FILE
        if model.is_file():
            return model
    return None


def multilingual_export() -> Path | None:
    """The bundle's export of the multilingual embedder (fp32, for passages and questions)."""
    folder = root()
    if folder is None:
        return None
    export = folder / MULTILINGUAL / "onnx-fp32"
    return export if (export / EXPORT_FILE).is_file() else None
