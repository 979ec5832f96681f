"""Indexing at low CPU and I/O priority, so the user's programs and the answers stay quick.

Only background work is lowered: the reader processes entirely, and on Linux (where a nice
value belongs to a thread) the indexing thread and the threads it starts, such as the
embedder's pool. A lowered priority cannot be raised again without privileges, so this is
never applied to a thread that also answers questions.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading

log = logging.getLogger(__name__)

NICE = 10  # of 19: well below the window and the language model, still well above idle


def lower_process() -> None:
    """The whole current process (a reader process): nice NICE and idle-class I/O."""
    import psutil

    proc = psutil.Process()
    with contextlib.suppress(psutil.Error, OSError, AttributeError):
        if sys.platform == "win32":
            proc.nice(psutil.BELOW_NORMAL_PRIORITY_CLASS)
        elif proc.nice() < NICE:
            proc.nice(NICE)
    _lower_io(proc)


def lower_thread() -> bool:
    """The calling thread, where the platform has per-thread priorities (Linux); threads it
    starts afterwards inherit it. Returns whether it was applied."""
    if not sys.platform.startswith("linux"):
        return False
    import psutil

    tid = threading.get_native_id()
    try:
        if os.getpriority(os.PRIO_PROCESS, tid) < NICE:
            os.setpriority(os.PRIO_PROCESS, tid, NICE)
    except OSError as exc:
        log.debug("could not lower the indexing thread's priority: %s", exc)
        return False
    with contextlib.suppress(psutil.Error):
        _lower_io(psutil.Process(tid))
    return True


def _lower_io(proc: object) -> None:
    import psutil

    with contextlib.suppress(psutil.Error, OSError, AttributeError, ValueError):
        if sys.platform.startswith("linux"):
            proc.ionice(psutil.IOPRIO_CLASS_IDLE)  # type: ignore[attr-defined]
        elif sys.platform == "win32":
            proc.ionice(psutil.IOPRIO_VERYLOW)  # type: ignore[attr-defined]
