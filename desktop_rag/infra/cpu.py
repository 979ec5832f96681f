"""What this CPU can do, from /proc/cpuinfo: the few features the engines choose by.

Used by the embedder's export (engines/onnx_export.py), the frozen build's choice of export
(infra/frozen.py) and the language model's loading (engines/llm.py: no AVX2, no model).
"""

from __future__ import annotations

import contextlib
import functools
import os
import platform

# int8 weights in 7 bits on a CPU whose int8 products can saturate. Without VNNI (or AMX), ONNX
# Runtime's x86 int8 kernels multiply unsigned 8-bit activations by signed 8-bit weights with
# VPMADDUBSW, which adds each pair of products into a signed 16-bit sum and clamps it there:
# 2 x 255 x 127 = 64,770 does not fit, 2 x 255 x 64 = 32,640 does. So on such a CPU the vectors
# drift from fp32 where a VNNI CPU's do not (round 1's CI failure), and int8 would be refused
# there (engines/int8_check.py) or lose quality. 7-bit weights cannot saturate; on a VNNI CPU
# they cost a little agreement for nothing, so they are used only where the products saturate.
# ONNX Runtime's own guidance (quantize_static's docstring) says the same. Set
# DESKTOP_RAG_INT8_WEIGHT_BITS to 7 or 8 to choose (benchmarks, tests).
WEIGHT_BITS_ENV = "DESKTOP_RAG_INT8_WEIGHT_BITS"
_NON_SATURATING = ("avx512_vnni", "avx512vnni", "avx_vnni", "amx_int8")


def int8_weight_bits(flags: str | None = None) -> int:
    """7 where this CPU's int8 kernels can saturate (x86 without VNNI or AMX), else 8.

    flags: /proc/cpuinfo's "flags" line (read here when None). Non-x86 CPUs (ARM's dot
    products do not saturate) and CPUs whose flags cannot be read get 8."""
    forced = os.environ.get(WEIGHT_BITS_ENV, "").strip()
    if forced in ("7", "8"):
        return int(forced)
    if flags is None:
        flags = cpu_flags()
    names = set(flags.split())
    if not names or not ({"avx2", "avx512bw", "ssse3"} & names):
        return 8  # not x86, or unknown: the kernels in question are x86's
    return 8 if names & set(_NON_SATURATING) else 7


@functools.cache
def cpuinfo() -> tuple[str, str]:
    """/proc/cpuinfo's first "model name" and its first "flags" line ("Features" on ARM), each
    empty where it cannot be read. Read once: a process does not change CPU."""
    model = flags = ""
    with (
        contextlib.suppress(OSError),
        open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f,
    ):
        for line in f:
            key, _, value = line.partition(":")
            key = key.strip()
            if key == "model name" and not model:
                model = value.strip()
            elif key in ("flags", "Features") and not flags:
                flags = value.strip()
    return model, flags


def cpu_flags() -> str:
    """This CPU's flags as /proc/cpuinfo gives them (empty where it cannot be read)."""
    return cpuinfo()[1]


def is_x86() -> bool:
    """Whether this is an x86-64 (or x86) CPU, whatever the OS calls it."""
    return platform.machine().lower() in ("x86_64", "amd64", "i386", "i686", "x86")


def has_avx2(flags: str | None = None) -> bool:
    """Whether this CPU reports AVX2 (flags as cpu_flags() gives them; read when None), the
    least llama.cpp's shipped CPU code needs on x86-64 (packaging/llama.py)."""
    return "avx2" in (cpu_flags() if flags is None else flags).split()
