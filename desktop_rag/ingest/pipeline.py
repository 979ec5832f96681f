"""The indexing use case: under the index's writer lock, plan the run (ingest/plan.py), write what
needs no reading (ingest/reuse.py), have an engine read and embed the rest (ingest/engine.py),
drop what is gone and tidy the index."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager

from desktop_rag.engines.embed import Embedder, Preparable
from desktop_rag.errors import BusyError, Cancelled, UsageError
from desktop_rag.infra import faults, priority
from desktop_rag.ingest import reuse, sandbox
from desktop_rag.ingest.chunk import ChunkParams, TokenOffsets
from desktop_rag.ingest.control import RunControl
from desktop_rag.ingest.engine import Engine, Run
from desktop_rag.ingest.local_engine import LocalEngine
from desktop_rag.ingest.plan import RunPlan, plan_run
from desktop_rag.ingest.progress import Tracker
from desktop_rag.ingest.scan import ScanResult, scan
from desktop_rag.store import lock, maintenance
from desktop_rag.store.lance import LanceStore
from desktop_rag.types import FailKind, Failure, FileEvent, IndexReport, Progress, Status

log = logging.getLogger(__name__)

WAITING = "Waiting for another indexing run to finish"  # the window and the CLI show it
WAIT_POLL_S = 0.2


class IngestService:
    """Index files and folders; the same service serves the CLI, the window and benchmarks."""

    def __init__(
        self,
        store: LanceStore,
        embedder: Embedder,
        tokenizer: Callable[[], TokenOffsets],
        params: ChunkParams | None = None,
        *,
        isolate: bool = True,
        timeout_s: float = sandbox.DEFAULT_TIMEOUT_S,
        memory_mb: int = sandbox.DEFAULT_MEMORY_MB,
        passwords: Mapping[str, str] | None = None,
        lock_wait_s: float | None = None,
        low_priority: bool = True,
        ocr: bool = True,
        engine: Engine | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.tokenizer_factory = tokenizer
        self.params = params or ChunkParams()
        self.isolate = isolate
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self.passwords: Mapping[str, str] = passwords or {}
        self.lock_wait_s = lock_wait_s
        # Off only where the caller's thread must keep its priority (it cannot be raised).
        self.low_priority = low_priority
        # Pages without a usable text layer are read with OCR (the setting; a file the user
        # asked to read with OCR is read so whatever it says).
        self.ocr = ocr
        # Files the user asked to read with OCR since the last run ("Read with OCR"): the
        # next run marks their rows, so the wish outlives a restart, and reads them again.
        self.ocr_requested: set[str] = set()
        # Who reads and embeds: this machine (the tokenizer it loaded kept), or Ray's cluster.
        self.engine: Engine = engine or LocalEngine()

    def for_store(self, store: LanceStore) -> IngestService:
        """The same service (models, chunking, limits, passwords) writing to another index."""
        return self._copy(store, self.engine)

    def with_engine(self, engine: Engine) -> IngestService:
        """The same service reading and embedding by another engine (ray_engine's); the files
        asked to be read with OCR go with it."""
        other = self._copy(self.store, engine)
        other.ocr_requested = set(self.ocr_requested)
        return other

    def _copy(self, store: LanceStore, engine: Engine) -> IngestService:
        return IngestService(
            store,
            self.embedder,
            self.tokenizer_factory,
            self.params,
            isolate=self.isolate,
            timeout_s=self.timeout_s,
            memory_mb=self.memory_mb,
            passwords=self.passwords,
            lock_wait_s=self.lock_wait_s,
            low_priority=self.low_priority,
            ocr=self.ocr,
            engine=engine,
        )

    # -- public ------------------------------------------------------------------------------

    def index(self, paths: Sequence[str], control: RunControl | None = None) -> IndexReport:
        """Bring the index in line with the files and folders given; never raises per file."""
        t0 = time.monotonic()
        control = control or RunControl()
        report = IndexReport()
        if self.low_priority:
            # This thread's CPU priority stays: it holds the GIL for the run's Python, and
            # lowered it would keep the GUI thread waiting whenever a busy machine pre-empts
            # it. What computes (embedding, hashing; the embedder's threads started from
            # there) runs lowered, on the run's Lowered; the reader processes lower themselves.
            priority.lower_thread_io()
        lowered = priority.Lowered(self.low_priority)
        try:
            found = self._scan(paths, control, report)
            try:
                with self._writer(control):
                    self._run(found, control, report, lowered)
            except Cancelled:
                report.cancelled = True
            report.seconds = time.monotonic() - t0
            return report
        finally:
            lowered.close()

    def remove(self, paths: Sequence[str]) -> list[str]:
        """Drop files (or everything under folders) from the index; the disk is not touched
        (reuse.Removal says what stays out and what is forgotten)."""
        removal = reuse.removal(self.store, paths)
        if not removal.doomed:
            return []
        with self._writer(RunControl()):
            reuse.remove(self.store, removal)
        return removal.paths

    # -- the run -----------------------------------------------------------------------------

    def _scan(self, paths: Sequence[str], control: RunControl, report: IndexReport) -> ScanResult:
        """The files under the paths; a path that does not exist is the caller's mistake, a
        file that cannot be listed or is online only is a failure of the run."""
        control.progress(Progress(stage="scanning", message="Looking for documents"))
        found = scan(paths)
        missing = [p for p, why in found.problems if why == "does not exist"]
        if missing:
            raise UsageError(f"Not found: {', '.join(missing)}. Check the path and try again.")
        for path, why in found.problems:
            report.failed.append(Failure(path, f"{why}.", FailKind.UNREADABLE))
        for path, why in found.online.items():
            report.failed.append(Failure(path, f"{why}.", FailKind.UNREADABLE))
        return found

    @contextmanager
    def _writer(self, control: RunControl) -> Iterator[None]:
        """The index's writer lock. Another run holding it (the window, `desktop-rag index`)
        is waited for, saying so, until it finishes or this run is cancelled; `lock_wait_s`
        set gives up after that long instead, with BusyError."""
        if self.lock_wait_s is not None:
            with lock.writer(self.store.path, self.lock_wait_s):
                yield
            return
        held = ExitStack()
        told = False
        while True:
            try:
                held.enter_context(lock.writer(self.store.path, 0.0))
                break
            except BusyError as exc:
                if not told:
                    told = True
                    log.info("%s: %s", WAITING, exc)
                    control.progress(Progress(stage="waiting", message=f"{WAITING}…"))
            if control.cancel.wait(WAIT_POLL_S):
                raise Cancelled("cancelled while waiting for another indexing run")
        with held:
            yield

    def _run(
        self,
        found: ScanResult,
        control: RunControl,
        report: IndexReport,
        lowered: priority.Lowered,
    ) -> None:
        """The run, holding the writer lock: plan, reuse what is known, read and embed the
        rest, drop what is gone, tidy the index."""
        todo = plan_run(
            self.store, found, self.passwords, self.ocr_requested, report, control, lowered
        )
        to_read = todo.to_read
        tracker = Tracker(control.on_progress, len(to_read), sum(d.info.size for d in to_read))
        for decision in to_read:  # so a window can list what waits before it is read
            control.file(FileEvent(decision.info.path, Status.QUEUED))
        if to_read and isinstance(self.embedder, Preparable):
            # A one-time export of the fast embedder happens here, in the indexing worker.
            lowered.call(
                self.embedder.prepare,
                lambda text: tracker.emit("preparing", force=True, message=text),
            )
        reuse.reuse_all(self.store, todo.reused, report, control)
        wrote = bool(todo.reused)
        run = self._for_engine(todo, control, report, tracker, lowered)
        if self.engine.read_and_embed(to_read, run):
            wrote = True
        if reuse.drop(self.store, todo.removed, report, control):
            wrote = True
        if wrote or self.store.needs_indexes():
            tracker.emit("optimizing", force=True, message="Tidying the index")
            faults.reached("optimize")
            maintenance.optimize(self.store)
        tracker.emit("done", force=True)

    def _for_engine(
        self,
        todo: RunPlan,
        control: RunControl,
        report: IndexReport,
        tracker: Tracker,
        lowered: priority.Lowered,
    ) -> Run:
        """The run as its engine sees it."""
        return Run(
            store=self.store,
            embedder=self.embedder,
            params=self.params,
            tokenizer=self.tokenizer_factory,
            passwords=self.passwords,
            ocr=self.ocr,
            isolate=self.isolate,
            timeout_s=self.timeout_s,
            memory_mb=self.memory_mb,
            low_priority=self.low_priority,
            control=control,
            report=report,
            tracker=tracker,
            lowered=lowered,
            previous=todo.previous,
            forced=todo.forced,
        )
