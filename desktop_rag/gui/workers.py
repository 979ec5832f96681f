"""Run core work off the GUI thread: one worker pattern for calls and generators, with cancel.

A `Job` is a QRunnable whose signals live on a separate QObject (a QRunnable is not a
QObject). Its function gets the job itself, for `job.cancel` / `job.pause` (threading
events the core checks between steps) and `job.report(value)` (progress, sent to the GUI
thread as a signal). If the function returns a generator, each value it yields is emitted
as `yielded`: a streamed answer arrives token by token.

`Lanes` owns one single-thread pool per kind of work (loading models, indexing, answering):
each kind runs one job at a time, in order, and never waits on another kind.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

log = logging.getLogger(__name__)
T = TypeVar("T")


class JobSignals(QObject):
    """Emitted from the pool thread; connected slots run on the GUI thread (queued)."""

    started = Signal()
    progress = Signal(object)
    yielded = Signal(object)
    returned = Signal(object)
    errored = Signal(object)  # the exception
    finished = Signal()  # always last, after returned or errored


class Job(QRunnable):
    def __init__(self, fn: Callable[[Job], object], name: str = "") -> None:
        super().__init__()
        self.setAutoDelete(False)  # Python owns it: Lanes keeps it until `finished` arrives
        self.name = name or getattr(fn, "__name__", "job")
        self.signals = JobSignals()
        self.cancel = threading.Event()
        self.pause = threading.Event()
        self.running = False
        self.done = threading.Event()
        self._fn = fn

    def report(self, value: object) -> None:
        """Send a progress value to the GUI thread; callable from the job's thread."""
        self.signals.progress.emit(value)

    def stop(self) -> None:
        self.pause.clear()
        self.cancel.set()

    def run(self) -> None:
        self.running = True
        self.signals.started.emit()
        try:
            result = self._fn(self)
            if isinstance(result, Iterator):
                for value in result:
                    self.signals.yielded.emit(value)
                result = None
            self.signals.returned.emit(result)
        except BaseException as exc:  # reported to the GUI, which shows a message
            log.debug("job %s failed", self.name, exc_info=True)
            self.signals.errored.emit(exc)
        finally:
            self.running = False
            self.done.set()
            self.signals.finished.emit()


class Lanes(QObject):
    """Single-thread pools by name; at most one job per lane runs at a time."""

    idle = Signal()  # every lane has finished its work

    def __init__(self, names: Iterable[str], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pools: dict[str, QThreadPool] = {}
        for name in names:
            pool = QThreadPool(self)
            pool.setMaxThreadCount(1)
            pool.setObjectName(f"lane-{name}")
            self._pools[name] = pool
        self._jobs: dict[str, list[Job]] = {name: [] for name in self._pools}

    def start(self, lane: str, job: Job) -> Job:
        self._jobs[lane].append(job)
        job.signals.finished.connect(lambda: self._on_job_finished(lane, job))
        self._pools[lane].start(job)
        return job

    def run(
        self,
        lane: str,
        fn: Callable[[Job], T],
        *,
        on_returned: Callable[[T], None] | None = None,
        on_errored: Callable[[BaseException], None] | None = None,
        on_progress: Callable[[object], None] | None = None,
        on_yielded: Callable[[object], None] | None = None,
        on_finished: Callable[[], None] | None = None,
        name: str = "",
    ) -> Job:
        """Start fn(job) on a lane and route its signals to the callbacks, on the GUI thread."""
        job = Job(fn, name)
        for signal, slot in (
            (job.signals.returned, on_returned),
            (job.signals.errored, on_errored),
            (job.signals.progress, on_progress),
            (job.signals.yielded, on_yielded),
            (job.signals.finished, on_finished),
        ):
            if slot is not None:
                signal.connect(slot)
        return self.start(lane, job)

    def _on_job_finished(self, lane: str, job: Job) -> None:
        jobs = self._jobs[lane]
        if job in jobs:
            jobs.remove(job)
        if not self.busy():
            self.idle.emit()

    def jobs(self, lane: str) -> list[Job]:
        return list(self._jobs[lane])

    def busy(self, lane: str | None = None) -> bool:
        lanes = [lane] if lane else list(self._jobs)
        return any(self._jobs[name] for name in lanes)

    def stop_all(self) -> None:
        for jobs in self._jobs.values():
            for job in jobs:
                job.stop()

    def wait(self, timeout_s: float) -> bool:
        """Block until every lane is done (at exit, after stop_all); True if they all are."""
        deadline = time.monotonic() + timeout_s
        done = [
            pool.waitForDone(max(0, int((deadline - time.monotonic()) * 1000)))
            for pool in self._pools.values()
        ]
        return all(done)
