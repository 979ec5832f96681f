"""An indexing run's progress: counts turned into throttled Progress snapshots with an ETA."""

from __future__ import annotations

import time
from collections.abc import Callable

from desktop_rag.ingest import sandbox
from desktop_rag.types import FileEvent, Progress, format_duration

ProgressFn = Callable[[Progress], None]
FileFn = Callable[[FileEvent], None]  # a file queued, indexed, failed or removed


class Tracker:
    """Turns counts into throttled Progress snapshots with an ETA by bytes."""

    def __init__(self, on_progress: ProgressFn | None, files_total: int, bytes_total: int) -> None:
        self.on_progress = on_progress
        self.files_total = files_total
        self.bytes_total = max(bytes_total, 1)
        self.files_done = 0
        self.bytes_done = 0
        self.pages = 0
        self.chunks = 0
        self.t0 = time.monotonic()
        self._last = 0.0

    def emit(self, stage: str, current: str = "", force: bool = False, message: str = "") -> None:
        if self.on_progress is None:
            return
        now = time.monotonic()
        if not force and now - self._last < 0.2:
            return
        self._last = now
        elapsed = now - self.t0
        eta = None
        if self.bytes_done > 0 and elapsed > 1.0:
            eta = elapsed * (self.bytes_total - self.bytes_done) / self.bytes_done
        self.on_progress(
            Progress(
                stage=stage,
                files_done=self.files_done,
                files_total=self.files_total,
                pages_done=self.pages,
                chunks_done=self.chunks,
                current=current,
                elapsed_s=elapsed,
                eta_s=eta,
                message=message,
            )
        )


class OcrProgress:
    """'reading page 12 of 73 with OCR', with the time left for that file, as Progress."""

    def __init__(self, tracker: Tracker) -> None:
        self.tracker = tracker
        self._started: dict[str, float] = {}

    def __call__(self, job: sandbox.Job, done: int, total: int) -> None:
        now = time.monotonic()
        if done == 0:
            self._started[job.path] = now
        started = self._started.get(job.path, now)
        message = f"reading page {min(done + 1, total)} of {total} with OCR"
        if done >= total:
            message = f"read {total} page{'s' if total != 1 else ''} with OCR"
        elif done > 0:
            left = (now - started) / done * (total - done)
            message += f", about {format_duration(left)} left"
        self.tracker.emit("ocr", job.path, force=True, message=message)
