"""How a caller follows and steers an indexing run: one frozen value for progress, file events,
cancel and pause, handed from the window, the CLI or the watcher down to the pipeline."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from desktop_rag.errors import Cancelled

if TYPE_CHECKING:  # annotations only: the command line imports this before anything heavy
    from desktop_rag.ingest.progress import FileFn, ProgressFn
    from desktop_rag.types import FileEvent, Progress

PAUSE_POLL_S = 0.1  # how often a paused run looks whether it may go on


@dataclass(frozen=True, slots=True, kw_only=True)
class RunControl:
    """What a caller gives an indexing run besides its paths. Every part may be left out: a run
    with none of them reports nothing and runs to the end."""

    on_progress: ProgressFn | None = None  # throttled snapshots of the run
    on_file: FileFn | None = None  # a file queued, being read, indexed, failed or removed
    cancel: threading.Event = field(default_factory=threading.Event)  # set: stop soon
    pause: threading.Event | None = None  # set: wait at the next checkpoint until cleared

    def progress(self, progress: Progress) -> None:
        if self.on_progress is not None:
            self.on_progress(progress)

    def file(self, event: FileEvent) -> None:
        if self.on_file is not None:
            self.on_file(event)

    def checkpoint(self) -> None:
        """Wait while paused; raise Cancelled once cancelled."""
        while self.pause is not None and self.pause.is_set() and not self.cancel.is_set():
            time.sleep(PAUSE_POLL_S)
        self.stop_if_cancelled()

    def stop_if_cancelled(self) -> None:
        """Raise Cancelled if cancelled, paused or not (a reader stops quietly on cancel)."""
        if self.cancel.is_set():
            raise Cancelled("Indexing was cancelled.")
