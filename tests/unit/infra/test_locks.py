"""The portable file lock: one holder at a time, named by its pid, released on close."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from desktop_rag.infra import locks


def test_second_holder_is_refused_and_names_the_first(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    first = locks.open_lock(path)
    second = locks.open_lock(path)
    try:
        assert locks.try_lock(first)
        locks.write_holder(first)
        assert not locks.try_lock(second)
        assert locks.holder(second) == str(os.getpid())
    finally:
        os.close(first)
    # Closing the holder's descriptor frees the lock for the next.
    assert locks.try_lock(second)
    os.close(second)


def test_holder_of_a_new_lock_is_empty(tmp_path: Path) -> None:
    fd = locks.open_lock(tmp_path / "y.lock")
    try:
        assert locks.holder(fd) == ""
    finally:
        os.close(fd)


def test_lock_waits_until_released(tmp_path: Path) -> None:
    path = tmp_path / "z.lock"
    first = locks.open_lock(path)
    assert locks.try_lock(first)
    got = threading.Event()

    def waiter() -> None:
        fd = locks.open_lock(path)
        locks.lock(fd, poll_s=0.01)
        got.set()
        os.close(fd)

    t = threading.Thread(target=waiter)
    t.start()
    time.sleep(0.2)
    assert not got.is_set()
    os.close(first)
    t.join(timeout=5)
    assert got.is_set()
