"""The portable file lock: one holder at a time, named by its pid, released on close."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

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


class FakeMsvcrt:
    """msvcrt's locking, recorded: where the file offset was and what was asked; `held`
    makes it refuse as Windows does when another process holds the byte."""

    LK_NBLCK = 2

    def __init__(self, held: bool = False) -> None:
        self.held = held
        self.calls: list[tuple[int, int, int]] = []

    def locking(self, fd: int, mode: int, nbytes: int) -> None:
        self.calls.append((os.lseek(fd, 0, os.SEEK_CUR), mode, nbytes))
        if self.held:
            raise OSError(36, "Resource deadlock avoided")


def test_windows_locks_one_byte_past_the_pid_and_reads_a_refusal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeMsvcrt()
    monkeypatch.setattr(locks, "_msvcrt", lambda: fake)
    monkeypatch.setattr(locks, "_fcntl", lambda: pytest.fail("flock on Windows"))
    fd = locks.open_lock(tmp_path / "w.lock")
    try:
        assert locks.try_lock(fd, platform="win32")
        assert fake.calls == [(locks.WIN_BYTE, FakeMsvcrt.LK_NBLCK, 1)]
        locks.write_holder(fd)  # the pid at byte 0, readable while byte 2**20 is locked
        fake.held = True
        assert not locks.try_lock(fd, platform="win32")
        assert locks.holder(fd) == str(os.getpid())
    finally:
        os.close(fd)
