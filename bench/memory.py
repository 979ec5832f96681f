"""Memory of a process tree over a run: summed RSS and PSS, per process role, as a time series.

RSS adds up every page a process maps, so pages the window and its readers share (the Python
interpreter, Qt, numpy, ONNX Runtime libraries) are counted once per process. A reader caught
between fork and exec shows the window's whole RSS as its own (the same pages): such a
sample counts it as 0 and is counted in `forks_caught_before_exec`. PSS
(/proc/PID/smaps_rollup) splits each shared page between the processes that map it: the sum
over the tree is what the tree costs the machine. Both are sampled; the peak of each is kept.
In-process figures of the window (Python's allocated blocks, Arrow's memory pool, glibc's
heap) say which part of the window's own memory grows.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any


def pss_uss_bytes(pid: int) -> tuple[int, int]:
    """Proportional and unique (private) set size of one process (0 where /proc cannot say)."""
    pss = uss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as f:
            for line in f:
                if line.startswith("Pss:"):
                    pss = int(line.split()[1]) * 1024
                elif line.startswith(("Private_Clean:", "Private_Dirty:")):
                    uss += int(line.split()[1]) * 1024
    except OSError:
        pass
    return pss, uss


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def _mallinfo() -> dict[str, float]:
    """glibc's heap in this process: bytes in use, free inside the heap, and mmapped."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        fn = libc.mallinfo2
    except (OSError, AttributeError):
        return {}
    fn.restype = _MallInfo2
    info = fn()
    mb = 2**20
    return {
        "malloc_used_mb": round((info.uordblks + info.hblkhd) / mb, 1),
        "malloc_free_mb": round(info.fordblks / mb, 1),
    }


def in_process() -> dict[str, float]:
    """What this process holds by owner: Python objects, Arrow's pool, glibc's heap."""
    out: dict[str, float] = {"py_blocks_k": round(sys.getallocatedblocks() / 1000, 1)}
    if "pyarrow" in sys.modules:
        pa = sys.modules["pyarrow"]
        out["arrow_pool_mb"] = round(pa.total_allocated_bytes() / 2**20, 1)
    out |= _mallinfo()
    return out


CHILDREN_S = 1.0  # how often the tree's processes are looked for again


class TreeMemory:
    """Samples a process (this one, or `pid`) and its descendants: the peak of summed RSS every
    `interval_s`, and every `series_s` a row of the time series (RSS and PSS by role, in-process
    figures). The one memory sampler of the benchmarks: `perfutil.run_measured` runs a command
    under it, the window's benchmark samples its own process tree."""

    def __init__(
        self,
        pid: int | None = None,
        interval_s: float = 0.05,
        series_s: float | None = 2.0,
        extra: Callable[[], dict[str, float]] | None = None,
        children_s: float = CHILDREN_S,
    ) -> None:
        import psutil

        self._extra = extra  # more figures for each row of the series

        self._proc = psutil.Process(pid or os.getpid())
        self._interval = interval_s
        self._series_s = series_s  # None: the peak of summed RSS only, no series
        self._children_s = children_s
        self.peak_rss = 0
        self.peak_pss = 0
        self.series: list[dict[str, Any]] = []
        self.at_peak_rss: dict[str, Any] = {}
        self._cmdline = self._proc.cmdline()
        self.forks_seen = 0  # samples that caught a reader between fork and exec
        self._t0 = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._children: list[Any] = []
        self._children_at = -children_s

    def _procs(self) -> list[Any]:
        """The window and its descendants, looked for again every CHILDREN_S: finding them
        walks every process on the machine in Python, holding the window's GIL; done every
        50 ms, bench/stall_probe.py caught it holding the GIL in GUI-thread stalls."""
        import psutil

        now = time.monotonic()
        if now - self._children_at >= self._children_s:
            self._children_at = now
            try:
                self._children = self._proc.children(recursive=True)
            except psutil.Error:
                self._children = []
        return [self._proc, *self._children]

    def _rss(self, procs: list[Any]) -> list[int]:
        """Each process's RSS; 0 for a child caught between fork and exec, whose pages are
        all the window's own (its RSS reads as the window's whole), counted once already."""
        import psutil

        out = []
        for proc in procs:
            try:
                if proc.pid != self._proc.pid and proc.cmdline() == self._cmdline:
                    self.forks_seen += 1
                    out.append(0)
                    continue
                out.append(proc.memory_info().rss)
            except psutil.Error:
                out.append(0)
        return out

    def _who(self, procs: list[Any], rss: list[int]) -> dict[str, Any]:
        """Which processes made up a peak: pid, command line (shortened) and RSS each."""
        out = []
        for proc, size in zip(procs, rss, strict=True):
            try:
                cmd = " ".join(proc.cmdline())[-80:]
            except Exception:
                cmd = "?"
            out.append({"pid": proc.pid, "cmd": cmd, "rss_mb": round(size / 2**20, 1)})
        return {"t_s": round(time.monotonic() - self._t0, 2), "processes": out}

    def row(self) -> dict[str, Any]:
        procs = self._procs()
        rss = self._rss(procs)
        both = [pss_uss_bytes(p.pid) for p in procs]
        pss, uss = [b[0] for b in both], [b[1] for b in both]
        if sum(rss) > self.peak_rss:
            self.peak_rss = sum(rss)
            self.at_peak_rss = self._who(procs, rss)
        self.peak_pss = max(self.peak_pss, sum(pss))
        mb = 2**20
        return {
            "t_s": round(time.monotonic() - self._t0, 1),
            "tree_rss_mb": round(sum(rss) / mb, 1),
            "tree_pss_mb": round(sum(pss) / mb, 1),
            "tree_uss_mb": round(sum(uss) / mb, 1),
            "window_rss_mb": round(rss[0] / mb, 1),
            "window_pss_mb": round(pss[0] / mb, 1),
            "window_uss_mb": round(uss[0] / mb, 1),
            "others": len(procs) - 1,
            "others_rss_mb": round(sum(rss[1:]) / mb, 1),
            "others_pss_mb": round(sum(pss[1:]) / mb, 1),
            **in_process(),
            **(self._extra() if self._extra is not None else {}),
        }

    def _peak(self) -> None:
        procs = self._procs()
        rss = self._rss(procs)
        if sum(rss) > self.peak_rss:
            self.peak_rss = sum(rss)
            self.at_peak_rss = self._who(procs, rss)

    def _sample(self) -> None:
        next_row = 0.0
        while not self._stop.is_set():
            now = time.monotonic()
            if self._series_s is not None and now >= next_row:
                self.series.append(self.row())
                next_row = now + self._series_s
            else:
                self._peak()
            self._stop.wait(self._interval)

    def __enter__(self) -> TreeMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        if self._series_s is None:
            self._peak()
        else:
            self.series.append(self.row())

    @property
    def peak_mb(self) -> float:
        """The peak of summed RSS, in MiB."""
        return round(self.peak_rss / 2**20, 1)

    def summary(self) -> dict[str, Any]:
        mb = 2**20
        peak_row = max(self.series, key=lambda r: r["tree_pss_mb"]) if self.series else {}
        return {
            "peak_tree_rss_mb": round(self.peak_rss / mb, 1),
            "peak_tree_pss_mb": round(self.peak_pss / mb, 1),
            "at_peak_rss": self.at_peak_rss,
            "forks_caught_before_exec": self.forks_seen,
            "at_peak_pss": peak_row,
        }


class GcTimes:
    """How long each of the cyclic collector's passes takes, by generation (gc.callbacks):
    a full pass over a big heap stops every thread that wants the GIL, the GUI's too."""

    def __init__(self) -> None:
        self.passes: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.longest: list[tuple[float, int, float, str]] = []  # (ms, generation, at s, thread)
        self._started = 0.0
        self._t0 = time.monotonic()

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        now = time.perf_counter()
        if phase == "start":
            self._started = now
            return
        ms = (now - self._started) * 1000
        gen = info.get("generation", 2)
        self.passes[gen].append(ms)
        if ms > 20:
            # The thread whose allocation set it off holds the GIL throughout.
            at = round(time.monotonic() - self._t0, 1)
            self.longest.append((round(ms, 1), gen, at, threading.current_thread().name))

    def __enter__(self) -> GcTimes:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._callback)

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for gen, values in self.passes.items():
            out[f"gen{gen}"] = {
                "passes": len(values),
                "max_ms": round(max(values), 1) if values else 0.0,
                "total_s": round(sum(values) / 1000, 2),
            }
        out["over_20_ms"] = sorted(self.longest, reverse=True)[:20]
        return out
