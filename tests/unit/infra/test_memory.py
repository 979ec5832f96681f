"""The reader process memory limit: RLIMIT_AS, a Job Object, a resident-memory watchdog."""

from __future__ import annotations

import ctypes
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from desktop_rag.infra import memory


class FakeKernel32:
    """Records the Job Object calls and answers as Windows would when they succeed."""

    def __init__(self, fail: str = "") -> None:
        self.fail = fail
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.limits: memory.ExtendedLimits | None = None

    def _call(self, name: str, *args: Any) -> int:
        self.calls.append((name, args))
        return 0 if name == self.fail else 1

    def CreateJobObjectW(self, *args: Any) -> int:
        return 0 if self.fail == "CreateJobObjectW" else 0x1234

    def SetInformationJobObject(self, job: int, kind: int, info: Any, size: int) -> int:
        self.limits = ctypes.cast(info, ctypes.POINTER(memory.ExtendedLimits)).contents
        self.limits = memory.ExtendedLimits.from_buffer_copy(self.limits)
        return self._call("SetInformationJobObject", job, kind, size)

    def AssignProcessToJobObject(self, job: int, process: int) -> int:
        return self._call("AssignProcessToJobObject", job, process)

    def GetCurrentProcess(self) -> int:
        return -1

    def CloseHandle(self, handle: int) -> int:
        return self._call("CloseHandle", handle)


@pytest.fixture
def no_watchdog(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The watchdog's starts, recorded instead of started (it would watch the test process)."""
    started: list[int] = []
    monkeypatch.setattr(memory, "watch", lambda size, *a, **k: started.append(size))
    monkeypatch.delenv(memory.ENV, raising=False)
    return started


def test_each_platform_has_its_means(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(memory.ENV, raising=False)
    assert memory.means("linux") == memory.RLIMIT
    assert memory.means("win32") == memory.JOB
    assert memory.means("darwin") == memory.WATCHDOG  # RLIMIT_AS is accepted and not enforced
    monkeypatch.setenv(memory.ENV, "watchdog")
    assert memory.means("linux") == memory.WATCHDOG


def test_windows_puts_the_reader_in_a_job_with_a_process_memory_limit(
    monkeypatch: pytest.MonkeyPatch, no_watchdog: list[int]
) -> None:
    kernel32 = FakeKernel32()
    monkeypatch.setattr(memory, "_kernel32", lambda: kernel32)
    monkeypatch.setattr(memory, "_job", None)
    assert memory.limit(300, platform="win32") == memory.JOB
    names = [name for name, _ in kernel32.calls]
    assert names == ["SetInformationJobObject", "AssignProcessToJobObject"]
    _, (job, kind, size) = kernel32.calls[0]
    assert (job, kind, size) == (0x1234, 9, ctypes.sizeof(memory.ExtendedLimits))
    assert kernel32.limits is not None
    assert kernel32.limits.BasicLimitInformation.LimitFlags == 0x100
    assert kernel32.limits.ProcessMemoryLimit == 300 * 1024 * 1024
    assert kernel32.calls[1][1] == (0x1234, -1)  # this process
    assert memory._job == 0x1234, "the job's handle stays open with the process"
    assert no_watchdog == []


@pytest.mark.parametrize(
    "fail", ["CreateJobObjectW", "SetInformationJobObject", "AssignProcessToJobObject"]
)
def test_a_job_windows_refuses_falls_back_to_the_watchdog(
    monkeypatch: pytest.MonkeyPatch, no_watchdog: list[int], fail: str
) -> None:
    kernel32 = FakeKernel32(fail=fail)
    monkeypatch.setattr(memory, "_kernel32", lambda: kernel32)
    assert memory.limit(300, platform="win32") == memory.WATCHDOG
    assert no_watchdog == [300 * 1024 * 1024]
    if fail != "CreateJobObjectW":
        assert kernel32.calls[-1] == ("CloseHandle", (0x1234,)), "the refused job is closed"


def test_macos_watches_resident_memory(no_watchdog: list[int]) -> None:
    assert memory.limit(512, platform="darwin") == memory.WATCHDOG
    assert no_watchdog == [512 << 20]


def test_no_limit_asked_sets_none(no_watchdog: list[int]) -> None:
    assert memory.limit(0, platform="darwin") == ""
    assert no_watchdog == []


def test_the_watchdog_ends_the_process_once_over_the_limit() -> None:
    samples = iter([100, 200, 300, 301, 400])
    exited: list[int] = []
    done = threading.Event()

    def exit(code: int) -> None:
        exited.append(code)
        done.set()

    thread = memory.watch(300, interval_s=0.001, rss=lambda: next(samples), exit=exit)
    assert done.wait(5)
    thread.join(5)
    assert exited == [memory.MEMORY_EXIT_CODE]


def test_the_watchdog_reads_this_process_resident_memory() -> None:
    """The real psutil sample: this test process is well over 1 MB."""
    done = threading.Event()
    memory.watch(1 << 20, interval_s=0.001, exit=lambda code: done.set())
    assert done.wait(5)


@pytest.mark.parametrize(
    ("platform", "code", "memory_exit"),
    [
        ("linux", -9, True),
        ("linux", -6, True),
        ("linux", -11, False),
        ("linux", memory.MEMORY_EXIT_CODE, True),
        ("darwin", memory.MEMORY_EXIT_CODE, True),
        ("win32", 3, True),
        ("win32", 0xC0000409, True),
        ("win32", -1073740791, True),  # the same status, signed
        ("win32", 0xC0000005, False),  # an access violation: a crash, not memory
        ("win32", -9, False),
        ("linux", None, False),
    ],
)
def test_exit_codes_that_mean_the_limit_was_hit(
    platform: str, code: int | None, memory_exit: bool
) -> None:
    assert memory.is_memory_exit(code, platform) is memory_exit


def test_a_reader_over_its_limit_is_reported_by_the_watchdog_as_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The macOS means, run for real here: the reader process is ended by its watchdog."""
    from desktop_rag.ingest import sandbox
    from desktop_rag.types import FailKind
    from tests.fake_readers import read_by_name

    monkeypatch.setenv(memory.ENV, memory.WATCHDOG)  # inherited by the spawned reader
    greedy, fine = tmp_path / "greedy.pdf", tmp_path / "fine.pdf"
    for f in (greedy, fine):
        f.write_bytes(b"%PDF-1.4")
    box = sandbox.Sandbox(timeout_s=60, memory_mb=300, ahead=1, read=read_by_name)
    try:
        jobs = [sandbox.Job(str(p), ocr=sandbox.OcrMode.OFF) for p in (greedy, fine)]
        out = {job.path: outcome for job, outcome in box.run(jobs)}
    finally:
        box.close()
    assert isinstance(out[str(greedy)], sandbox.ExtractError)
    assert out[str(greedy)].kind == FailKind.MEMORY, str(out[str(greedy)])
    assert not isinstance(out[str(fine)], sandbox.ExtractError)


_HEAP_PROBE = """
import sys
from desktop_rag.infra import memory

def rss_mb():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) // 1024 for l in f if l.startswith("VmRSS"))

if sys.argv[1] == "fixed":
    assert memory.return_large_blocks()
first = bytearray(8 << 20)  # freed: glibc's own threshold rises past 4 MB
del first
before = rss_mb()
blocks = [bytearray(4 << 20) for _ in range(40)]  # 160 MB, touched
pin = bytearray(100_000)  # a live block above them keeps the heap's top in place
del blocks
print(rss_mb() - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's heap")
def test_freed_large_blocks_go_back_to_the_system() -> None:
    """In a process of its own: the setting is for the rest of the process's life."""
    import subprocess

    def kept_mb(mode: str) -> int:
        done = subprocess.run(
            [sys.executable, "-c", _HEAP_PROBE, mode], capture_output=True, text=True, check=True
        )
        return int(done.stdout.strip())

    assert kept_mb("default") > 100  # what the reader kept of each page's OCR
    assert kept_mb("fixed") < 20


def test_the_command_line_returns_freed_blocks(monkeypatch, tmp_path, capsys) -> None:
    """The indexer's own heap kept 60-120 MB of freed batches and tables resident through a
    run (glibc's rising threshold, as in the readers): the entry point fixes it first."""
    from desktop_rag import cli

    calls: list[int] = []
    monkeypatch.setattr(memory, "return_large_blocks", lambda *a: calls.append(1) or True)
    assert cli.main(["status", "--json", "--data-dir", str(tmp_path / "data")]) == 0
    assert calls == [1]
