"""A reader process's memory limit, by the means each platform has.

Linux enforces RLIMIT_AS: an allocation past it fails, Python raises MemoryError or the C
library aborts. Windows has no rlimits; a Job Object with a per-process memory limit makes
the allocation fail in the same way. macOS accepts RLIMIT_AS and ignores it, so there (and
wherever the other two cannot be set) a watchdog thread samples the process's resident memory
and ends the process with MEMORY_EXIT_CODE when it is over, which the sandbox reports as a
file that needs too much memory.

DESKTOP_RAG_MEMORY_LIMIT=rlimit|job|watchdog chooses the means (tests run the watchdog here).
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

ENV = "DESKTOP_RAG_MEMORY_LIMIT"
RLIMIT, JOB, WATCHDOG = "rlimit", "job", "watchdog"
# The exit code of a reader ended by the watchdog: none of Python's own (0, 1, 2, 120) and
# no signal's, so the sandbox can tell it from a crash.
MEMORY_EXIT_CODE = 86
WATCH_INTERVAL_S = 0.05
# Windows exit codes of a process whose allocation failed in C or C++: abort() (3) and the
# fail-fast of the MSVC runtime, STATUS_STACK_BUFFER_OVERRUN (0xC0000409, what abort raises
# since Windows 8 and seen as a negative number by Python as well as an unsigned one).
_WINDOWS_ABORTS = (3, 0xC0000409, 0xC0000409 - (1 << 32))
# POSIX: killed (the OOM killer, SIGKILL), aborted (a failed allocation in C++, SIGABRT), or
# a Python error while sending the result (1).
_POSIX_MEMORY_CODES = (-9, -6, 1)

# Job Object definitions (winnt.h), for SetInformationJobObject.
JOB_OBJECT_EXTENDED_LIMIT_INFORMATION = 9
JOB_OBJECT_LIMIT_PROCESS_MEMORY = 0x00000100


class _BasicLimits(ctypes.Structure):
    _fields_ = [
        ("PerProcessUserTimeLimit", ctypes.c_int64),
        ("PerJobUserTimeLimit", ctypes.c_int64),
        ("LimitFlags", ctypes.c_uint32),
        ("MinimumWorkingSetSize", ctypes.c_size_t),
        ("MaximumWorkingSetSize", ctypes.c_size_t),
        ("ActiveProcessLimit", ctypes.c_uint32),
        ("Affinity", ctypes.c_size_t),
        ("PriorityClass", ctypes.c_uint32),
        ("SchedulingClass", ctypes.c_uint32),
    ]


class _IoCounters(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_uint64)
        for name in (
            "ReadOperationCount",
            "WriteOperationCount",
            "OtherOperationCount",
            "ReadTransferCount",
            "WriteTransferCount",
            "OtherTransferCount",
        )
    ]


class ExtendedLimits(ctypes.Structure):
    """JOBOBJECT_EXTENDED_LIMIT_INFORMATION."""

    _fields_ = [
        ("BasicLimitInformation", _BasicLimits),
        ("IoInfo", _IoCounters),
        ("ProcessMemoryLimit", ctypes.c_size_t),
        ("JobMemoryLimit", ctypes.c_size_t),
        ("PeakProcessMemoryUsed", ctypes.c_size_t),
        ("PeakJobMemoryUsed", ctypes.c_size_t),
    ]


_job: Any = None  # the reader's Job Object handle, kept open for the life of the process


# glibc's mallopt: blocks this large and larger get pages of their own, handed back to the
# system when freed. glibc's default threshold rises (to 32 MB) each time such a block is
# freed, after which blocks of that size come from the heap and stay resident once freed: the
# OCR engine's arrays of a page (hundreds of MB) then stayed in the reader until the next page.
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 256 * 1024


def return_large_blocks(threshold: int = MMAP_THRESHOLD) -> bool:
    """Make freed blocks of `threshold` bytes and more go back to the system at once (glibc;
    False elsewhere: other allocators, Windows' and macOS', do not keep such a heap)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        return bool(libc.mallopt(M_MMAP_THRESHOLD, threshold))
    except (OSError, AttributeError):  # not glibc (musl)
        return False


def means(platform: str | None = None) -> str:
    """How this platform limits a process's memory: rlimit (Linux and other POSIX systems
    that enforce it), job (Windows), watchdog (macOS, which does not enforce RLIMIT_AS)."""
    forced = os.environ.get(ENV, "").strip()
    if forced in (RLIMIT, JOB, WATCHDOG):
        return forced
    platform = platform or sys.platform
    if platform == "win32":
        return JOB
    if platform == "darwin":
        return WATCHDOG
    return RLIMIT


def limit(memory_mb: int, platform: str | None = None) -> str:
    """Limit this process to memory_mb MB by this platform's means; falls back to the
    watchdog when those cannot be set. Returns the means in force ("" for no limit)."""
    if memory_mb <= 0:
        return ""
    size = memory_mb * 1024 * 1024
    chosen = means(platform)
    try:
        if chosen == RLIMIT:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (size, size))
            return RLIMIT
        if chosen == JOB:
            _limit_job(size, _kernel32())
            return JOB
    except (ImportError, ValueError, OSError, AttributeError) as exc:
        log.info("memory limit by %s not set (%s); watching resident memory instead", chosen, exc)
    watch(size)
    return WATCHDOG


def _last_error() -> int:
    return int(getattr(ctypes, "get_last_error", lambda: 0)())  # Windows only


def _kernel32() -> Any:
    return ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]


def _limit_job(size: int, kernel32: Any) -> None:
    """Put this process in a new Job Object whose processes may commit at most `size` bytes
    (raises OSError when Windows refuses)."""
    global _job
    job = kernel32.CreateJobObjectW(None, None)
    if not job:
        raise OSError(_last_error(), "CreateJobObjectW failed")
    info = ExtendedLimits()
    info.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_PROCESS_MEMORY
    info.ProcessMemoryLimit = size
    if not kernel32.SetInformationJobObject(
        job, JOB_OBJECT_EXTENDED_LIMIT_INFORMATION, ctypes.byref(info), ctypes.sizeof(info)
    ):
        kernel32.CloseHandle(job)
        raise OSError(_last_error(), "SetInformationJobObject failed")
    if not kernel32.AssignProcessToJobObject(job, kernel32.GetCurrentProcess()):
        kernel32.CloseHandle(job)
        raise OSError(_last_error(), "AssignProcessToJobObject failed")
    _job = job


def _rss() -> int:
    import psutil

    return int(psutil.Process().memory_info().rss)


def _exit(code: int) -> None:
    os._exit(code)


def watch(
    size: int,
    interval_s: float = WATCH_INTERVAL_S,
    rss: Callable[[], int] = _rss,
    exit: Callable[[int], None] = _exit,
) -> threading.Thread:
    """A daemon thread that ends this process with MEMORY_EXIT_CODE once its resident memory
    is over `size` bytes (sampled every interval_s)."""

    def run() -> None:
        stop = threading.Event()
        while not stop.wait(interval_s):
            try:
                used = rss()
            except Exception:  # the platform cannot say: no limit rather than a dead reader
                return
            if used > size:
                exit(MEMORY_EXIT_CODE)
                return

    thread = threading.Thread(target=run, name="memory-watch", daemon=True)
    thread.start()
    return thread


def is_memory_exit(code: int | None, platform: str | None = None) -> bool:
    """Whether a reader's exit code says it ran out of its memory (a limit was in force)."""
    if code is None:
        return False
    if code == MEMORY_EXIT_CODE:
        return True
    if (platform or sys.platform) == "win32":
        return code in _WINDOWS_ABORTS or code == 1
    return code in _POSIX_MEMORY_CODES
