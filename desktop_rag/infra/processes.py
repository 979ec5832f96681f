"""Ending processes and the signals that ask this one to stop, on each platform.

POSIX asks a process to stop with SIGTERM (a service manager, `kill`, the smoke test) or SIGINT
(Ctrl+C). Windows has no SIGTERM from outside: a console's Ctrl+C is SIGINT, and Ctrl+Break or
closing the console window arrive as SIGBREAK, which only Windows defines. A hard kill is
SIGKILL on POSIX and TerminateProcess on Windows; psutil's kill() is either.
"""

from __future__ import annotations

import contextlib
import signal
import sys


def stop_signals(platform: str | None = None) -> tuple[int, ...]:
    """The signals that mean "stop cleanly" here, each one Python can set a handler for."""
    names = ["SIGINT", "SIGTERM"]
    if (platform or sys.platform) == "win32":
        names.append("SIGBREAK")
    found = (getattr(signal, name, None) for name in names)
    return tuple(int(sig) for sig in found if sig is not None)


def kill(pid: int) -> None:
    """End a process at once, as a power cut would (SIGKILL; TerminateProcess on Windows).
    A process already gone is not an error."""
    import psutil

    with contextlib.suppress(psutil.NoSuchProcess):
        psutil.Process(pid).kill()


def kill_self() -> None:
    """End this process at once, with no clean-up (the crash tests' fault points)."""
    import os

    kill(os.getpid())
