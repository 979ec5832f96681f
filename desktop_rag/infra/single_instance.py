"""One window per library: a second start on the same data dir is refused with a clear message."""

from __future__ import annotations

import os
from pathlib import Path

from desktop_rag.infra import locks

LOCK_NAME = "window.lock"


class InstanceLock:
    """Held for the life of the window; the operating system releases it if the process dies."""

    def __init__(self, fd: int, path: Path) -> None:
        self._fd = fd
        self.path = path

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def acquire(data_path: Path) -> InstanceLock | str:
    """The lock, or a message naming the process that already holds it."""
    data_path.mkdir(parents=True, exist_ok=True)
    path = data_path / LOCK_NAME
    fd = locks.open_lock(path)
    if not locks.try_lock(fd):
        holder = locks.holder(fd)
        os.close(fd)
        who = f" (process {holder})" if holder else ""
        return (
            f"Desktop RAG is already open on this library{who}. Switch to that window; a "
            "second window on the same library would index everything twice. To run two, "
            "give the second another library with --data-dir."
        )
    locks.write_holder(fd)
    return InstanceLock(fd, path)
