"""Stop signals and hard kills on each platform."""

from __future__ import annotations

import signal
import subprocess
import sys
from typing import Any

import psutil
import pytest

from desktop_rag.infra import processes


def test_posix_stops_on_sigint_and_sigterm() -> None:
    assert processes.stop_signals("linux") == (signal.SIGINT, signal.SIGTERM)
    assert processes.stop_signals("darwin") == (signal.SIGINT, signal.SIGTERM)


def test_windows_stops_on_ctrl_break_and_a_closed_console_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(signal, "SIGBREAK", 21, raising=False)  # what Windows' signal module has
    assert processes.stop_signals("win32") == (signal.SIGINT, signal.SIGTERM, 21)


def test_a_signal_this_platform_lacks_is_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(signal, "SIGBREAK", raising=False)
    assert processes.stop_signals("win32") == (signal.SIGINT, signal.SIGTERM)


def test_kill_is_psutil_kill_and_a_gone_process_is_no_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    killed: list[int] = []

    class Fake:
        def __init__(self, pid: int) -> None:
            if pid == 2:
                raise psutil.NoSuchProcess(pid)
            self.pid = pid

        def kill(self) -> None:  # SIGKILL on POSIX, TerminateProcess on Windows
            killed.append(self.pid)

    monkeypatch.setattr(psutil, "Process", Fake)
    processes.kill(1234)
    processes.kill(2)
    assert killed == [1234]


def test_kill_self_ends_the_process_at_once() -> None:
    code = "from desktop_rag.infra import processes; processes.kill_self(); print('alive')"
    done: Any = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == -signal.SIGKILL and "alive" not in done.stdout
