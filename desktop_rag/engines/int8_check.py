"""Whether the int8 embedder agrees with fp32 on this CPU: measured where the code runs.

int8 matrix products take different kernels on different CPUs (VNNI, AVX-512, plain AVX2), and
on some the vectors drift further from fp32 than on others. So the decision is not made once on
a developer's machine: when the embedder is prepared, int8 and fp32 vectors of real text (the
passages shipped in resources/probe) are compared on the user's own CPU, and int8 embeds
passages only if it agrees. The verdict is kept per model file, CPU and ONNX Runtime version,
so it is measured once, not at every start. The tests use this same rule.
"""

from __future__ import annotations

import hashlib
import logging
import platform
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Protocol

import numpy as np

from desktop_rag.infra import cpu
from desktop_rag.infra.keyed import KeyedJson

log = logging.getLogger(__name__)

# int8 is used only where its vectors stay this close to fp32's: a mean over the probe texts
# and a floor for any one of them.
MIN_MEAN_COSINE = 0.99
MIN_ANY_COSINE = 0.97
VERDICTS_FILE = "int8-agreement.json"


class _Embeds(Protocol):
    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


@dataclass(frozen=True, slots=True)
class Agreement:
    """Cosine similarity of int8 to fp32 vectors over the probe texts."""

    mean: float
    worst: float
    texts: int

    @property
    def ok(self) -> bool:
        return self.mean >= MIN_MEAN_COSINE and self.worst >= MIN_ANY_COSINE

    def describe(self) -> str:
        return f"mean cosine {self.mean:.4f}, lowest {self.worst:.4f} over {self.texts} texts"


def probe_texts() -> list[str]:
    """Real passages (the user guide, the README, public-domain prose, figures and a table)."""
    raw = (resources.files("desktop_rag.resources") / "probe" / "passages.txt").read_text(
        encoding="utf-8"
    )
    return [line for line in raw.splitlines() if line.strip()]


def measure(int8: _Embeds, fp32: _Embeds, texts: Sequence[str] | None = None) -> Agreement:
    """Embed the texts with both and compare, row by row (vectors are unit length)."""
    texts = list(texts) if texts is not None else probe_texts()
    a = np.asarray(int8.embed(texts), dtype=np.float32)
    b = np.asarray(fp32.embed(texts), dtype=np.float32)
    cos = np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1) + 1e-12)
    return Agreement(float(cos.mean()), float(cos.min()), len(texts))


def cpu_signature() -> str:
    """The CPU model and the instruction sets int8 kernels choose between."""
    name, all_flags = cpu.cpuinfo()
    model = "model:" + name if name else platform.processor() or platform.machine()
    wanted = ("avx", "vnni", "amx", "sse4", "fma", "f16c", "asimd", "i8mm")
    flags = " ".join(sorted(x for x in all_flags.split() if x.startswith(wanted)))
    return f"{model}|{platform.machine()}|{flags}"


def verdict_key(model_file: Path) -> str:
    """Which int8 file, on which CPU, under which runtime the verdict is for."""
    from importlib import metadata

    try:
        ort = metadata.version("onnxruntime")
    except metadata.PackageNotFoundError:
        ort = ""
    st = model_file.stat()
    ident = f"{model_file.resolve()}:{st.st_size}:{st.st_mtime_ns}|{cpu_signature()}|ort={ort}"
    return hashlib.sha256(ident.encode()).hexdigest()[:24]


@dataclass(frozen=True, slots=True)
class VerdictCache:
    """Measured agreements kept in one small JSON file (derived data: safe to delete)."""

    path: Path

    def get(self, key: str) -> Agreement | None:
        raw = KeyedJson(self.path).get(key)
        try:
            return Agreement(float(raw["mean"]), float(raw["worst"]), int(raw["texts"]))
        except (KeyError, TypeError, ValueError):
            return None

    def put(self, key: str, agreement: Agreement) -> None:
        KeyedJson(self.path).put(key, asdict(agreement))
