"""An indexing run's progress: counts turned into throttled Progress snapshots with an ETA."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable

from desktop_rag.ingest import sandbox
from desktop_rag.types import FileEvent, Progress, Status, format_duration

ProgressFn = Callable[[Progress], None]
FileFn = Callable[[FileEvent], None]  # a file queued, indexed, failed or removed

# Time constant of the run's smoothed estimate: a guess that jumps (a scan's slow page, a
# small file read fast) moves it by a share, 1 - exp(-dt / ETA_SMOOTH_S), not all the way.
ETA_SMOOTH_S = 20.0
PAGE_SMOOTHING = 0.2  # weight of the newest page in the seconds per OCR page


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
        # Pages of the file being read with OCR so far: the count moves while a scan is read.
        self.reading_pages = 0
        self._eta: float | None = None
        self._eta_at = 0.0

    def emit(
        self,
        stage: str,
        current: str = "",
        force: bool = False,
        message: str = "",
        eta: float | None = None,
    ) -> None:
        """A snapshot; `eta` is a better guess of the time left than the bytes' (OCR's)."""
        if self.on_progress is None:
            return
        now = time.monotonic()
        if not force and now - self._last < 0.2:
            return
        self._last = now
        elapsed = now - self.t0
        if eta is None and self.bytes_done > 0 and elapsed > 1.0:
            eta = elapsed * (self.bytes_total - self.bytes_done) / self.bytes_done
        self.on_progress(
            Progress(
                stage=stage,
                files_done=self.files_done,
                files_total=self.files_total,
                pages_done=self.pages + self.reading_pages,
                chunks_done=self.chunks,
                current=current,
                elapsed_s=elapsed,
                eta_s=self._smoothed(eta, now),
                message=message,
            )
        )

    def _smoothed(self, eta: float | None, now: float) -> float | None:
        """The estimate smoothed exponentially over ETA_SMOOTH_S: the last one, aged by the
        time since, moved part of the way towards the new guess."""
        if eta is None:
            return self._eta
        if self._eta is None:
            self._eta, self._eta_at = eta, now
            return eta
        dt = max(0.0, now - self._eta_at)
        weight = 1.0 - math.exp(-dt / ETA_SMOOTH_S)
        aged = max(0.0, self._eta - dt)
        self._eta = aged + weight * (eta - aged)
        self._eta_at = now
        return self._eta


class OcrProgress:
    """'Reading scan.pdf (OCR page 5 of 73), about 12 min left' as Progress, the file's row
    told it is being read, and the pages read so far counted. The time left is smoothed:
    seconds per page are averaged exponentially (PAGE_SMOOTHING), as pages vary."""

    def __init__(self, tracker: Tracker, on_file: FileFn | None = None) -> None:
        self.tracker = tracker
        self.on_file = on_file
        self._last: dict[str, float] = {}
        self._per_page: dict[str, float] = {}

    def __call__(self, job: sandbox.Job, done: int, total: int) -> None:
        now = time.monotonic()
        name = os.path.basename(job.path)
        if done == 0:
            self._last[job.path] = now
            if self.on_file is not None:
                self.on_file(FileEvent(job.path, Status.INDEXING, pages=total))
        elif job.path in self._last:
            took = now - self._last[job.path]
            self._last[job.path] = now
            before = self._per_page.get(job.path)
            self._per_page[job.path] = (
                took if before is None else before + PAGE_SMOOTHING * (took - before)
            )
        self.tracker.reading_pages = done
        left = None
        if done >= total:
            message = f"Read {name} ({total} page{'s' if total != 1 else ''} with OCR)"
        else:
            message = f"Reading {name} (OCR page {done + 1} of {total})"
            per_page = self._per_page.get(job.path)
            if per_page is not None:
                left = per_page * (total - done)
                message += f", about {format_duration(left)} left"
        self.tracker.emit("ocr", job.path, force=True, message=message, eta=left)
