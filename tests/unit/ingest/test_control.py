"""RunControl: a run's checkpoint waits while paused and stops once cancelled; what the caller
left out is simply not told."""

from __future__ import annotations

import dataclasses
import threading
import time

import pytest

from desktop_rag.errors import Cancelled
from desktop_rag.ingest import control as control_module
from desktop_rag.ingest.control import RunControl
from desktop_rag.types import FileEvent, Progress, Status


def test_a_checkpoint_goes_on_until_cancelled():
    control = RunControl()
    control.checkpoint()
    control.stop_if_cancelled()
    control.cancel.set()
    with pytest.raises(Cancelled):
        control.checkpoint()
    with pytest.raises(Cancelled):
        control.stop_if_cancelled()


def test_a_paused_checkpoint_waits_until_the_pause_is_lifted(monkeypatch):
    monkeypatch.setattr(control_module, "PAUSE_POLL_S", 0.01)
    pause = threading.Event()
    pause.set()
    control = RunControl(pause=pause)
    control.stop_if_cancelled()  # the readers' quiet stop does not wait for a pause
    passed = threading.Event()
    worker = threading.Thread(target=lambda: (control.checkpoint(), passed.set()))
    worker.start()
    assert not passed.wait(0.2), "went on while paused"
    pause.clear()
    assert passed.wait(5)
    worker.join()


def test_cancel_ends_a_pause(monkeypatch):
    monkeypatch.setattr(control_module, "PAUSE_POLL_S", 0.01)
    pause = threading.Event()
    pause.set()
    control = RunControl(pause=pause)
    threading.Timer(0.05, control.cancel.set).start()
    started = time.monotonic()
    with pytest.raises(Cancelled):
        control.checkpoint()
    assert pause.is_set() and time.monotonic() - started < 5


def test_progress_and_file_events_reach_the_caller_when_asked_for():
    said, told = [], []
    control = RunControl(on_progress=said.append, on_file=told.append)
    control.progress(Progress(stage="scanning"))
    control.file(FileEvent("/a.pdf", Status.QUEUED))
    assert [p.stage for p in said] == ["scanning"]
    assert [e.path for e in told] == ["/a.pdf"]
    RunControl().progress(Progress(stage="scanning"))  # nobody listening: nothing happens
    RunControl().file(FileEvent("/a.pdf", Status.QUEUED))


def test_the_value_is_frozen_keyword_only_and_each_has_its_own_cancel():
    first, second = RunControl(), RunControl()
    first.cancel.set()
    assert not second.cancel.is_set()
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.pause = threading.Event()  # type: ignore[misc]
    with pytest.raises(TypeError):
        RunControl(print)  # type: ignore[misc]
