"""The index's writer lock (store/lock.py): one process writes a library at a time; another
is told who holds it, or waits for it when asked to."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from desktop_rag.errors import BusyError
from desktop_rag.store import lock
from tests.conftest import REPO

HOLD = """
import sys
from pathlib import Path
from desktop_rag.store import lock
with lock.writer(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.readline()
"""


def _holder(index: Path) -> subprocess.Popen[str]:
    """Another process holding the lock until it reads a line."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(index)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def _release(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.write("\n")
    proc.stdin.flush()
    assert proc.wait(30) == 0


def test_the_lock_sits_beside_the_index_not_in_it(tmp_path: Path) -> None:
    index = tmp_path / "data" / "index"
    assert lock.lock_path(index) == tmp_path / "data" / "index.lock"
    with lock.writer(index):
        assert lock.lock_path(index).is_file() and not index.exists()


def test_another_process_is_told_who_writes(tmp_path: Path) -> None:
    index = tmp_path / "index"
    holder = _holder(index)
    try:
        busy = pytest.raises(BusyError, match=rf"Another Desktop RAG \(process {holder.pid}\)")
        with busy, lock.writer(index):
            pass
    finally:
        _release(holder)
    with lock.writer(index):  # free again
        pass


def test_a_writer_asked_to_wait_gets_the_lock_once_it_is_released(tmp_path: Path) -> None:
    index = tmp_path / "index"
    holder = _holder(index)
    got = threading.Event()

    def wait_for_it() -> None:
        with lock.writer(index, wait_s=60):
            got.set()

    waiting = threading.Thread(target=wait_for_it)
    waiting.start()
    try:
        assert not got.wait(0.5), "held by the other process meanwhile"
    finally:
        _release(holder)
    waiting.join(60)
    assert got.is_set()
