"""Small but valid GGUF model files, for the model discovery and the Settings tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

gguf = pytest.importorskip("gguf")


def write_gguf(
    path: Path,
    *,
    name: str | None = "Tiny Test",
    arch: str = "llama",
    file_type: int | None = 15,
    vocab: int = 50,
    kind: str | None = None,
) -> Path:
    """A small but valid GGUF file, written by llama.cpp's own gguf package; file_type is
    written after the vocabulary, where llama.cpp's converter puts it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(str(path), arch)
    if kind:
        writer.add_type(kind)
    if name is not None:
        writer.add_name(name)
    writer.add_context_length(256)
    writer.add_token_list([f"tok{i}" for i in range(vocab)])
    writer.add_token_scores([0.0] * vocab)
    if file_type is not None:
        writer.add_file_type(file_type)
    writer.add_tensor("weight", np.zeros(64, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
