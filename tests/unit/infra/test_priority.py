"""The reader processes' low priority on each platform, with the system calls recorded."""

from __future__ import annotations

from typing import Any

import psutil
import pytest

from desktop_rag.infra import priority


class FakeProcess:
    """psutil.Process's priority calls, recorded; nice() reads back what was set."""

    def __init__(self, nice: int = 0) -> None:
        self._nice = nice
        self.calls: list[tuple[str, Any]] = []

    def nice(self, value: int | None = None) -> int:
        if value is None:
            return self._nice
        self.calls.append(("nice", value))
        self._nice = value
        return value

    def ionice(self, ioclass: Any) -> None:
        self.calls.append(("ionice", ioclass))


class FakeLibc:
    def __init__(self) -> None:
        self.calls: list[tuple[int, int, int]] = []

    def setiopolicy_np(self, kind: int, scope: int, policy: int) -> int:
        self.calls.append((kind, scope, policy))
        return 0


def test_linux_nice_and_idle_io() -> None:
    proc = FakeProcess()
    priority.lower_process(proc, platform="linux")
    assert proc.calls == [("nice", priority.NICE), ("ionice", psutil.IOPRIO_CLASS_IDLE)]


def test_linux_never_raises_a_lower_priority_already_set() -> None:
    proc = FakeProcess(nice=15)
    priority.lower_process(proc, platform="linux")
    assert ("nice", priority.NICE) not in proc.calls


def test_windows_below_normal_class_and_very_low_io() -> None:
    proc = FakeProcess()
    priority.lower_process(proc, platform="win32")
    # psutil's own values on Windows: BELOW_NORMAL_PRIORITY_CLASS and IOPRIO_VERYLOW.
    assert proc.calls == [("nice", 0x4000), ("ionice", 0)]


def test_macos_nice_and_throttled_io(monkeypatch: pytest.MonkeyPatch) -> None:
    libc = FakeLibc()
    monkeypatch.setattr(priority, "_libc", lambda: libc)
    proc = FakeProcess()
    priority.lower_process(proc, platform="darwin")
    assert proc.calls == [("nice", priority.NICE)], "no I/O class through psutil on macOS"
    assert libc.calls == [(0, 0, 3)]  # IOPOL_TYPE_DISK, IOPOL_SCOPE_PROCESS, IOPOL_THROTTLE


def test_a_refusal_is_not_an_error() -> None:
    class Refusing(FakeProcess):
        def nice(self, value: int | None = None) -> int:
            if value is not None:
                raise psutil.AccessDenied()
            return 0

    proc = Refusing()
    priority.lower_process(proc, platform="win32")
    assert proc.calls == [("ionice", 0)]
