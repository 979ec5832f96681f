"""Indexing at low CPU and I/O priority, so the user's programs and the answers stay quick.

Only background work is lowered: the reader processes entirely, and on Linux (where a nice
value belongs to a thread) the threads that do the indexing's computing, such as the
embedder's pool. A lowered priority cannot be raised again without privileges, so this is
never applied to a thread that also answers questions.

The indexing thread itself keeps its CPU priority (its I/O is lowered): it runs the Python
between the heavy calls, holding the GIL, and a thread at nice 10 that a busy machine
pre-empts while it holds the GIL makes the GUI thread wait for it (priority inversion: up to
1.5 s with the window at load 12). The heavy calls, which release the GIL, run on a
`Lowered` thread instead.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType
from typing import Any, TypeVar

T = TypeVar("T")

log = logging.getLogger(__name__)

NICE = 10  # of 19: well below the window and the language model, still well above idle


# Windows: the reader processes' priority class and I/O priority (psutil takes these values).
BELOW_NORMAL_PRIORITY_CLASS = 0x4000
IOPRIO_VERYLOW = 0  # background I/O, as Windows' own indexer and defragmenter use
# macOS: setiopolicy_np(IOPOL_TYPE_DISK, IOPOL_SCOPE_PROCESS, IOPOL_THROTTLE), the I/O of a
# background process (sys/resource.h), since macOS has no I/O classes that psutil can set.
IOPOL_TYPE_DISK = 0
IOPOL_SCOPE_PROCESS = 0
IOPOL_THROTTLE = 3


def lower_process(proc: Any = None, platform: str | None = None) -> None:
    """The whole current process (a reader process): nice NICE, or the below-normal priority
    class on Windows; idle-class I/O on Linux, very low I/O priority on Windows, throttled
    I/O on macOS. `proc`: psutil's Process for this process (made here when None)."""
    import psutil

    platform = platform or sys.platform
    if proc is None:
        proc = psutil.Process()
    with contextlib.suppress(psutil.Error, OSError, AttributeError):
        if platform == "win32":
            proc.nice(BELOW_NORMAL_PRIORITY_CLASS)
        elif proc.nice() < NICE:
            proc.nice(NICE)
    _lower_io(proc, platform)


def lower_thread() -> bool:
    """The calling thread, CPU and I/O, where the platform has per-thread priorities (Linux);
    threads it starts afterwards inherit it. Returns whether it was applied."""
    if not sys.platform.startswith("linux"):
        return False
    tid = threading.get_native_id()
    try:
        if os.getpriority(os.PRIO_PROCESS, tid) < NICE:
            os.setpriority(os.PRIO_PROCESS, tid, NICE)
    except OSError as exc:
        log.debug("could not lower the indexing thread's priority: %s", exc)
        return False
    lower_thread_io()
    return True


def lower_thread_io() -> None:
    """The calling thread's I/O only (Linux; an I/O class belongs to a thread there)."""
    if not sys.platform.startswith("linux"):
        return
    import psutil

    with contextlib.suppress(psutil.Error):
        _lower_io(psutil.Process(threading.get_native_id()), sys.platform)


class Lowered:
    """A thread at the indexing priority that runs the calls handed to it, one at a time.

    For work that releases the GIL while it computes (ONNX Runtime's run, hashing): the
    caller, at its own priority, waits for the result without holding the GIL. Where threads
    have no priority of their own, or `enabled` is false, calls run in the caller's thread.
    """

    def __init__(self, enabled: bool = True) -> None:
        self._pool: ThreadPoolExecutor | None = None
        if enabled and sys.platform.startswith("linux"):
            self._pool = ThreadPoolExecutor(
                1, thread_name_prefix="indexing-lowered", initializer=lower_thread
            )

    def call(self, fn: Callable[..., T], *args: object) -> T:
        if self._pool is None:
            return fn(*args)
        return self._pool.submit(fn, *args).result()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def __enter__(self) -> Lowered:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _libc() -> Any:
    return ctypes.CDLL(None, use_errno=True)


def _lower_io(proc: Any, platform: str | None = None) -> None:
    import psutil

    platform = platform or sys.platform
    with contextlib.suppress(psutil.Error, OSError, AttributeError, ValueError):
        if platform.startswith("linux"):
            proc.ionice(psutil.IOPRIO_CLASS_IDLE)
        elif platform == "win32":
            proc.ionice(IOPRIO_VERYLOW)
        elif platform == "darwin":
            throttled = _libc().setiopolicy_np(IOPOL_TYPE_DISK, IOPOL_SCOPE_PROCESS, IOPOL_THROTTLE)
            if throttled != 0:
                log.debug("could not throttle the reader's I/O")
