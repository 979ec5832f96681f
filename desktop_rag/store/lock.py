"""The index's writer lock: one process writes a library at a time (LanceDB wants one writer)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from desktop_rag.errors import BusyError
from desktop_rag.infra import locks


def lock_path(index_path: Path) -> Path:
    """Beside the index, not in it: a damaged index is moved aside under this lock."""
    return index_path.with_name(index_path.name + ".lock")


@contextmanager
def writer(index_path: Path, wait_s: float = 0.0) -> Iterator[None]:
    """Hold the index for writing against other processes (LanceDB wants one writer)."""
    path = lock_path(index_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = locks.open_lock(path)
    try:
        deadline = time.monotonic() + wait_s
        while not locks.try_lock(fd):
            if time.monotonic() >= deadline:
                holder = locks.holder(fd)
                who = f" (process {holder})" if holder else ""
                raise BusyError(
                    f"Another Desktop RAG{who} is updating this library right now. "
                    "Wait for it to finish, or close it, and try again."
                ) from None
            time.sleep(0.2)
        locks.write_holder(fd)
        yield
    finally:
        os.close(fd)  # closing releases the lock
