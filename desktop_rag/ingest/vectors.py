"""Vectors after words: the thread of an indexing run that embeds chunks stored with their text
only (issue 32 item 4) and stores their vectors, while the run reads the next files."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from desktop_rag.errors import StoreError
from desktop_rag.infra import faults
from desktop_rag.store.lance import LanceStore
from desktop_rag.types import Chunk

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

log = logging.getLogger(__name__)

# Chunks embedded, then stored, at a time: each batch is one embed call and one commit, so a
# crash or a cancel loses at most one batch of work (the chunks stay findable by their words).
VECTOR_BATCH = 256
IDLE_WAIT_S = 0.5  # how often an idle filler looks for new chunks without being woken
REPORT_S = 0.5  # how often finish() lets its caller report progress


class VectorFiller:
    """Embeds what waits for its vectors, in the order it was stored, until told that nothing
    more will come (finish) or to stop. Errors are kept and raised by finish()."""

    def __init__(
        self,
        store: LanceStore,
        embed: Callable[[list[str]], NDArray[np.float32]],
        text_of: Callable[[Chunk], str],
        cancel: threading.Event,
        pause: threading.Event | None = None,
        on_filled: Callable[[Sequence[Chunk]], None] | None = None,
        batch: int = VECTOR_BATCH,
    ) -> None:
        self.store = store
        self.embed = embed
        self.text_of = text_of
        self.cancel = cancel
        self.pause = pause
        self.on_filled = on_filled
        self.batch = batch
        self.filled = 0
        self.started_at = 0.0  # time.monotonic() of start()
        self.error: BaseException | None = None
        self._wake = threading.Event()
        self._last = threading.Event()  # nothing more will be stored with its text only
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def started(self) -> bool:
        return self._thread is not None

    def start(self) -> None:
        """Start filling (once); later calls only say there is new work."""
        if self._thread is None:
            self.started_at = time.monotonic()
            self._thread = threading.Thread(target=self._run, name="vectors", daemon=True)
            self._thread.start()
        self._wake.set()

    def finish(self, on_wait: Callable[[], None] | None = None) -> None:
        """Wait until every waiting chunk has its vector (or the run is cancelled), calling
        on_wait now and then; raise what stopped the filler."""
        self._last.set()
        self._wake.set()
        thread = self._thread
        while thread is not None and thread.is_alive():
            thread.join(REPORT_S)
            if on_wait is not None and thread.is_alive():
                on_wait()
        if self.error is not None:
            raise self.error

    def stop(self) -> None:
        """Stop after the batch being embedded (its vectors are kept), and wait for that."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join()

    def _stopping(self) -> bool:
        while self.pause is not None and self.pause.is_set() and not self._halted():
            self.cancel.wait(0.1)
        return self._halted()

    def _halted(self) -> bool:
        return self._stop.is_set() or self.cancel.is_set()

    def _run(self) -> None:
        fruitless = 0
        try:
            while not self._stopping():
                last = self._last.is_set()  # read before looking: no chunk missed after it
                chunks = self.store.pending_chunks(self.batch)
                if not chunks:
                    if last:
                        return
                    self._wake.wait(IDLE_WAIT_S)
                    self._wake.clear()
                    continue
                vectors = self.embed([self.text_of(c) for c in chunks])
                faults.reached("embedded")  # as the run's own embed calls
                faults.reached("vectors-embedded")
                filled = self.store.fill_vectors(chunks, vectors)
                self.filled += filled
                if self.on_filled is not None:
                    self.on_filled(chunks)
                # Chunks replaced meanwhile are left alone; the same ones twice with none
                # filled would be a loop: say so rather than embed them forever.
                fruitless = fruitless + 1 if filled == 0 else 0
                if fruitless > 2:
                    raise StoreError("The index did not keep the vectors it was given.")
        except BaseException as exc:  # raised in the run's thread by finish()
            log.error("computing the vectors of stored chunks failed: %s", exc)
            self.error = exc
