"""Whole-file advisory locks that the operating system releases when their process dies.

One lock file guards one thing (the window on a library, the index writer, an embedder export).
The holder writes its process id into the file so a refused caller can name it. POSIX uses
flock; Windows locks one byte far past the pid, because its locks also block reads.

Not the filelock package: its Windows lock covers byte 0, where the pid is, so a refused
process could not read who holds the lock, and the message naming that process is the point
of a refusal here. What it adds beyond these few lines (soft locks for file systems without
flock, leases, reader-writer locks, asyncio) is nothing this app needs.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

# Windows locks this byte, far past the pid written at the start of the file.
WIN_BYTE = 1 << 20


def _msvcrt() -> Any:
    import msvcrt  # Windows only

    return msvcrt


def _fcntl() -> Any:
    import fcntl  # POSIX only

    return fcntl


def _try(fd: int, platform: str | None = None) -> bool:
    if (platform or sys.platform) == "win32":
        msvcrt = _msvcrt()
        os.lseek(fd, WIN_BYTE, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    fcntl = _fcntl()
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def open_lock(path: Path) -> int:
    """The lock file's descriptor (created if missing); closing it releases any lock on it."""
    return os.open(path, os.O_RDWR | os.O_CREAT, 0o600)


def try_lock(fd: int, platform: str | None = None) -> bool:
    """Take the lock if it is free; never waits."""
    return _try(fd, platform)


def lock(fd: int, poll_s: float = 0.1) -> None:
    """Wait for the lock as long as it takes."""
    while not _try(fd):
        time.sleep(poll_s)


def write_holder(fd: int) -> None:
    """Record this process as the holder (call with the lock held)."""
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, str(os.getpid()).encode())


def holder(fd: int) -> str:
    """The process id the current holder wrote, or "" if none."""
    os.lseek(fd, 0, os.SEEK_SET)
    return os.read(fd, 32).decode(errors="replace").strip()
