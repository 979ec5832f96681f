"""The indexing use case: reconcile paths with the index, then extract, chunk, embed and store."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from desktop_rag.engines import ocr
from desktop_rag.engines.embed import Embedder, Preparable
from desktop_rag.errors import BusyError, Cancelled, UsageError
from desktop_rag.infra import faults, priority
from desktop_rag.ingest import retry, sandbox
from desktop_rag.ingest.chunk import (
    ChunkParams,
    TokenOffsets,
    chunk_pages,
    embedded_text,
    rechunk_ids,
)
from desktop_rag.ingest.control import RunControl
from desktop_rag.ingest.extract import Extracted, ExtractError, sha256_file
from desktop_rag.ingest.ocr import page_problems, reader_name, with_boxes
from desktop_rag.ingest.outline import layout_pages
from desktop_rag.ingest.progress import FileFn, OcrProgress, ProgressFn, Tracker
from desktop_rag.ingest.scan import (
    OCR_READER,
    Action,
    Decision,
    decide,
    doc_id_for,
    format_for,
    is_under,
    normalize,
    plan,
    scan,
)
from desktop_rag.ingest.vectors import VectorFiller
from desktop_rag.store import lock, maintenance
from desktop_rag.store.lance import LanceStore
from desktop_rag.store.schema import chunk_from_row
from desktop_rag.types import (
    Chunk,
    DocumentRecord,
    FailKind,
    Failure,
    FileEvent,
    FileInfo,
    IndexReport,
    Progress,
    Status,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

log = logging.getLogger(__name__)


EMBED_BATCH = 256  # chunks per embed call: progress and cancel are checked between calls
# Small files are embedded together, this many chunks (or GROUP_SECONDS) at a time: a file of
# one to three pages has about five chunks, and an embed call per file paid a thread start
# and left one of the two passage streams idle for most of its batches (issue 32: 11% more CPU per
# file on 1,500 small files). A file is committed, and said indexed, only after its group.
GROUP_CHUNKS = 32
GROUP_SECONDS = 1.0
# A file of at least this many chunks is stored with its text first, found by its words at
# once, and embedded by the run's VectorFiller while the next files are read (issue 32 item 4):
# its embedding takes seconds, the extra commit tens of milliseconds. Smaller files, whose
# embedding is a small part of their cost, keep one commit with their vectors.
TEXT_FIRST_CHUNKS = 64
FLUSH_CHUNKS = 2048  # commit when this many chunks wait...
FLUSH_SECONDS = 5.0  # ...or this long passed: a crash loses at most a few seconds of work
WAITING = "Waiting for another indexing run to finish"  # the window and the CLI show it
# Said while the vectors of files already found by their words are computed.
VECTORS_MESSAGE = "Found by their words already; computing vectors"
WAIT_POLL_S = 0.2
# Touched files (same content, new mtime) are written this many rows per commit: a restore
# from backup touches every file, and one commit per file would cost more than the hashing.
TOUCH_BATCH = 500


@dataclass(slots=True)
class _Cut:
    """A file read and cut, waiting to be embedded with the files after it."""

    decision: Decision
    extracted: Extracted
    chunks: list[Chunk]
    before: DocumentRecord | None


@dataclass(slots=True)
class _Group:
    """Files waiting to be embedded in one call."""

    files: list[_Cut] = field(default_factory=list)
    chunks: int = 0
    since: float = 0.0  # when its first file came

    def __len__(self) -> int:
        return len(self.files)


@dataclass(slots=True)
class _Pending:
    """Documents fully embedded but not yet committed."""

    documents: list[DocumentRecord] = field(default_factory=list)
    chunks: list[Chunk] = field(default_factory=list)
    vectors: list[NDArray[np.float32]] = field(default_factory=list)
    since: float = field(default_factory=time.monotonic)
    # Documents whose row changes but whose chunks stay (a passing failure of a new version).
    keep: set[str] = field(default_factory=set)
    # Documents the index had no row for, hence no chunks (maintenance.repair dropped any a
    # crash left): nothing of theirs to replace.
    new: set[str] = field(default_factory=set)
    # "Indexed" is said of a file once its batch is committed, not when it is embedded: a
    # crash before the commit would otherwise have shown as indexed what the index lacks.
    indexed: list[FileEvent] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.documents)


def cut(
    path: str, extracted: Extracted, tokenizer: TokenOffsets, params: ChunkParams
) -> list[Chunk]:
    """A read file's chunks: its pages laid out (sections, navigation pages) and cut; the
    local pipeline's and the Ray engine's readers cut with this."""
    layouts = layout_pages(extracted.pages, extracted.outline) if params.sections else None
    chunks = chunk_pages(doc_id_for(path), path, extracted.pages, tokenizer, params, layouts)
    return with_boxes(chunks, extracted.pages)


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
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.tokenizer_factory = tokenizer
        self._tokenizer: TokenOffsets | None = None
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
        self._ocr_new: set[str] = set()
        # The run's lowered thread for embedding and hashing (see index()).
        self._lowered = priority.Lowered(enabled=False)
        self._vectors_said = -1  # chunks filled when progress last said so

    def for_store(self, store: LanceStore) -> IngestService:
        """The same service (models, chunking, limits, passwords) writing to another index."""
        other = IngestService(
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
        )
        other._tokenizer = self._tokenizer
        return other

    @property
    def tokenizer(self) -> TokenOffsets:
        if self._tokenizer is None:
            self._tokenizer = self.tokenizer_factory()
        return self._tokenizer

    # -- public ------------------------------------------------------------------------------

    def index(self, paths: Sequence[str], control: RunControl | None = None) -> IndexReport:
        """Bring the index in line with the files and folders given; never raises per file."""
        t0 = time.monotonic()
        report = IndexReport()
        control = control or RunControl()
        on_progress, on_file = control.on_progress, control.on_file
        cancel, pause = control.cancel, control.pause
        if self.low_priority:
            # This thread's CPU priority stays: it holds the GIL for the run's Python, and
            # lowered it would keep the GUI thread waiting whenever a busy machine pre-empts
            # it. What computes (embedding, hashing; the embedder's threads started from
            # there) runs lowered, on self._lowered; the reader processes lower themselves.
            priority.lower_thread_io()
        self._lowered = priority.Lowered(self.low_priority)
        try:
            return self._index(paths, on_progress, cancel, pause, on_file, t0, report)
        finally:
            self._lowered.close()
            self._lowered = priority.Lowered(enabled=False)

    def _index(
        self,
        paths: Sequence[str],
        on_progress: ProgressFn | None,
        cancel: threading.Event,
        pause: threading.Event | None,
        on_file: FileFn | None,
        t0: float,
        report: IndexReport,
    ) -> IndexReport:
        if on_progress is not None:
            on_progress(Progress(stage="scanning", message="Looking for documents"))
        found = scan(paths)
        missing = [p for p, why in found.problems if why == "does not exist"]
        if missing:
            raise UsageError(f"Not found: {', '.join(missing)}. Check the path and try again.")
        for path, why in found.problems:
            report.failed.append(Failure(path, f"{why}.", FailKind.UNREADABLE))
        for path, why in found.online.items():
            report.failed.append(Failure(path, f"{why}.", FailKind.UNREADABLE))
        try:
            with self._writer(on_progress, cancel):
                self._index_locked(
                    found.files,
                    found.folders,
                    found.named,
                    found.online,
                    report,
                    on_progress,
                    cancel,
                    pause,
                    on_file,
                )
        except Cancelled:
            report.cancelled = True
        report.seconds = time.monotonic() - t0
        return report

    def remove(self, paths: Sequence[str]) -> list[str]:
        """Drop files (or everything under folders) from the index; the disk is not touched.

        A file removed by its own path while it is still on disk stays out: its row is kept,
        marked excluded, so reconciling its folder does not add it back; indexing it by its
        path does. Removing a folder, or a file that is gone, forgets them altogether.
        """
        roots = [normalize(p) for p in paths]
        doomed = [d for d in self.store.documents() if any(is_under(d.path, r) for r in roots)]
        if not doomed:
            return []
        excluded = [d for d in doomed if d.path in roots and os.path.isfile(d.path)]
        forgotten = [d for d in doomed if d not in excluded]
        with self._writer(None, None):
            rows = [_excluded_row(d) for d in excluded]
            self.store.commit(
                rows,
                [],
                None,
                replace_doc_ids=[d.doc_id for d in rows],
                remove_doc_ids=[d.doc_id for d in forgotten],
            )
        return [d.path for d in doomed if d.status != Status.EXCLUDED]

    @contextmanager
    def _writer(
        self, on_progress: ProgressFn | None, cancel: threading.Event | None
    ) -> Iterator[None]:
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
                    if on_progress is not None:
                        on_progress(Progress(stage="waiting", message=f"{WAITING}…"))
            if cancel is not None and cancel.wait(WAIT_POLL_S):
                raise Cancelled("cancelled while waiting for another indexing run")
            if cancel is None:
                time.sleep(WAIT_POLL_S)
        with held:
            yield

    # -- the run -----------------------------------------------------------------------------

    def _index_locked(
        self,
        files: Mapping[str, FileInfo],
        folders: Sequence[str],
        named: Sequence[str],
        online: Mapping[str, str],
        report: IndexReport,
        on_progress: ProgressFn | None,
        cancel: threading.Event,
        pause: threading.Event | None,
        on_file: FileFn | None,
    ) -> None:
        """The run, holding the writer lock: plan, decide, reuse what is known, read and embed
        the rest, drop what is gone, tidy the index."""
        known, candidates, removed_rows = self._plan(files, folders, named, report, online)
        decisions, removed = self._decide(
            candidates, removed_rows, known, on_progress, cancel, pause
        )
        # Known content under a new path or time reuses its chunks; the rest must be read.
        reused = [d for d in decisions if d.action != Action.INDEX]
        to_read = [d for d in decisions if d.action == Action.INDEX]
        tracker = Tracker(on_progress, len(to_read), sum(d.info.size for d in to_read))
        if on_file is not None:  # so a window can list what waits before it is read
            for decision in to_read:
                on_file(FileEvent(decision.info.path, Status.QUEUED))
        if to_read and isinstance(self.embedder, Preparable):
            # A one-time export of the fast embedder happens here, in the indexing worker.
            self._lowered.call(
                self.embedder.prepare,
                lambda text: tracker.emit("preparing", force=True, message=text),
            )
        self._reuse_all(reused, report, cancel, pause, on_file)
        wrote = bool(reused)
        forced = {d.path for d in known if d.ocr} | self._ocr_new
        previous = {d.path: d for d in known}
        if self._read_and_embed(to_read, previous, forced, report, tracker, cancel, pause, on_file):
            wrote = True
        if self._drop(removed, report, on_file):
            wrote = True
        if wrote or self.store.needs_indexes():
            tracker.emit("optimizing", force=True, message="Tidying the index")
            faults.reached("optimize")
            maintenance.optimize(self.store)
        tracker.emit("done", force=True)

    def _plan(
        self,
        files: Mapping[str, FileInfo],
        folders: Sequence[str],
        named: Sequence[str],
        report: IndexReport,
        online: Mapping[str, str] | None = None,
    ) -> tuple[list[DocumentRecord], list[FileInfo], list[DocumentRecord]]:
        """After a crash's repair: the documents table, the files that may have changed, and
        the rows whose files are gone. Unchanged files are counted in the report."""
        repaired = maintenance.repair(self.store)
        if repaired:
            log.warning("re-indexing %d file(s) left half-written by a crash", len(repaired))
        known = self._mark_ocr_requested(self.store.documents())
        todo = plan(files, folders, known, named, online or {})
        # A password given since the last run makes a password failure worth another try.
        unlocked = [
            d
            for d in todo.unchanged
            if d.error_kind == FailKind.PASSWORD and d.path in self.passwords
        ]
        for doc in unlocked:
            todo.unchanged.remove(doc)
            todo.candidates.append(files[doc.path])
        report.unchanged = len(todo.unchanged)
        return known, todo.candidates, todo.removed

    def _decide(
        self,
        candidates: list[FileInfo],
        removed: list[DocumentRecord],
        known: list[DocumentRecord],
        on_progress: ProgressFn | None,
        cancel: threading.Event,
        pause: threading.Event | None,
    ) -> tuple[list[Decision], list[DocumentRecord]]:
        """What to do with each candidate (read, reuse, touch), hashing them when there is
        something known to recognise; and the rows to drop."""
        # Hashing is only worth it when there is something to recognise.
        hasher: Callable[[str], str] = (
            (lambda path: self._lowered.call(sha256_file, path)) if known else (lambda _path: "")
        )
        hashing = Tracker(on_progress, len(candidates), sum(i.size for i in candidates))

        def hashed(info: FileInfo) -> None:
            self._checkpoint(cancel, pause)
            hashing.files_done += 1
            hashing.bytes_done += info.size
            hashing.emit("hashing", info.path, message="Checking which files changed")

        if known and candidates:
            hashing.emit("hashing", force=True, message="Checking which files changed")
        return decide(candidates, removed, known, hasher, hashed if known else None)

    def _reuse_all(
        self,
        reused: Sequence[Decision],
        report: IndexReport,
        cancel: threading.Event,
        pause: threading.Event | None,
        on_file: FileFn | None,
    ) -> None:
        """Files whose content is known: touched rows in batches, renames and copies one by
        one. What was decided before a cancel is kept."""
        touched: list[DocumentRecord] = []
        try:
            for decision in reused:
                self._checkpoint(cancel, pause)
                if decision.action == Action.TOUCH:
                    touched.append(self._touched(decision, report))
                    if len(touched) >= TOUCH_BATCH:
                        rows, touched = touched, []
                        self._commit_touched(rows, on_file)
                else:
                    self._reuse(decision, report, on_file)
        except Cancelled:
            self._commit_touched(touched, on_file)  # what was decided is kept
            raise
        self._commit_touched(touched, on_file)

    def _read_and_embed(
        self,
        to_read: Sequence[Decision],
        previous: Mapping[str, DocumentRecord],
        forced: set[str],
        report: IndexReport,
        tracker: Tracker,
        cancel: threading.Event,
        pause: threading.Event | None,
        on_file: FileFn | None,
    ) -> bool:
        """Read the files in the reader process, cut and embed them, and commit them in
        batches; whether anything was written."""
        wrote = False
        pending = _Pending()
        group = _Group()
        filler = VectorFiller(
            self.store,
            lambda texts: self._lowered.call(self.embedder.embed, texts),
            lambda chunk: embedded_text(chunk, self.params),
            cancel,
            pause,
            on_filled=lambda chunks: self._vectors_filled(tracker, chunks),
        )
        if self.store.count_pending():
            # Chunks a crash, an error or a cancel left without vectors get them now.
            log.info("computing the vectors of chunks stored with their text only")
            self._ensure_text_index()  # a crash may have come before it was built
            filler.start()
            wrote = True

        def embed_group() -> None:
            nonlocal group
            if group:
                files, group = group, _Group()
                self._embed_group(files, pending, report, tracker, cancel, pause)

        try:
            extracted = self._extract(to_read, cancel, pause, forced, tracker, on_file)
            for decision, outcome, cut in self._chunked_ahead(extracted):
                self._checkpoint(cancel, pause)
                if isinstance(outcome, sandbox.Reading):
                    # A long OCR begins: what is embedded is committed (and said indexed)
                    # now, not once the scan is read.
                    embed_group()
                    if pending:
                        batch, pending = pending, _Pending()
                        self._flush(batch, on_file)
                        wrote = True
                    continue
                info = decision.info
                faults.reached("extracted")
                tracker.emit("indexing", info.path, force=True)
                before = previous.get(info.path)
                if isinstance(outcome, ExtractError):
                    self._failed(info, outcome.kind, str(outcome), before, pending, report, on_file)
                else:
                    assert cut is not None  # every file read without error is being cut
                    ready = self._cut_one(decision, outcome, cut, before, pending, report, on_file)
                    if ready is not None and len(ready.chunks) >= TEXT_FIRST_CHUNKS:
                        self._commit_text(ready, report, tracker, on_file)
                        filler.start()
                        wrote = True
                    elif ready is not None:
                        if not group:
                            group.since = time.monotonic()
                        group.files.append(ready)
                        group.chunks += len(ready.chunks)
                tracker.files_done += 1
                tracker.bytes_done += info.size
                if group.chunks >= GROUP_CHUNKS or time.monotonic() - group.since >= GROUP_SECONDS:
                    embed_group()
                if (
                    len(pending.chunks) >= FLUSH_CHUNKS
                    or time.monotonic() - pending.since >= FLUSH_SECONDS
                ):
                    # Handed over before committing: a batch whose commit failed is not
                    # committed again below, where its second error would hide the first.
                    batch, pending = pending, _Pending()
                    self._flush(batch, on_file)
                    wrote = True
            self._checkpoint(cancel, None)  # the reader stops quietly on cancel
            embed_group()
        except BaseException as exc:
            # What is fully embedded is kept, even on cancel or error: nothing done is lost.
            filler.stop()
            if pending:
                self._flush_after(exc, pending, on_file)
            raise
        try:
            if pending:
                self._flush(pending, on_file)
                wrote = True
        except BaseException:
            filler.stop()
            raise
        if filler.started:
            self._vectors_said = -1
            self._vectors_progress(tracker, filler)
            filler.finish(lambda: self._vectors_progress(tracker, filler))
            self._checkpoint(cancel, None)  # a cancel leaves the rest for the next run
        return wrote

    def _commit_text(
        self, cut: _Cut, report: IndexReport, tracker: Tracker, on_file: FileFn | None
    ) -> None:
        """Store a long file with its text only: found by its words from now on, and said
        indexed; its vectors follow (VectorFiller)."""
        record = self._record(cut)
        new = cut.before is None
        self.store.commit(
            [record],
            cut.chunks,
            None,
            replace_doc_ids=[] if new else [record.doc_id],
            new=new,
            pending=True,
        )
        self._ensure_text_index()
        maintenance.fold_text_index(self.store)  # searches meanwhile stay fast
        faults.reached("text-committed")
        event = self._counted(record, cut, report, tracker)
        if on_file is not None:
            on_file(event)

    def _ensure_text_index(self) -> None:
        """A new index has no full-text index until the end of its first run: built now,
        over what is stored, the words stored with their text only are found at once (rows
        stored later are searched unindexed until the run's optimize folds them in)."""
        if not self.store.has_fts_index():
            with self.store.write_lock:
                maintenance.ensure_text_index(self.store)

    def _vectors_filled(self, tracker: Tracker, chunks: Sequence[Chunk]) -> None:
        # Counted only (the filler's thread): the run's thread says it, with the rest.
        tracker.chunks += len(chunks)
        # Filled rows are stored anew, outside the full-text index until folded in.
        maintenance.fold_text_index(self.store)

    def _vectors_progress(self, tracker: Tracker, filler: VectorFiller) -> None:
        """Said while the files are read and found by their words, and only their vectors
        are left: how many passages wait, and for about how long."""
        if filler.filled == self._vectors_said:
            return  # once per batch stored, not at every wait
        self._vectors_said = filler.filled
        left = self.store.count_pending()
        rate = filler.filled / max(time.monotonic() - filler.started_at, 1e-3)
        tracker.emit(
            "vectors",
            force=True,
            message=f"{VECTORS_MESSAGE}: {left:,} passages to go",
            eta=left / rate if rate > 0 else None,
        )

    def _drop(
        self, removed: Sequence[DocumentRecord], report: IndexReport, on_file: FileFn | None
    ) -> bool:
        """Drop the rows and chunks of files that are gone; whether anything was."""
        if not removed:
            return False
        self.store.remove([d.doc_id for d in removed])
        # A file the user had removed and that is now gone from the disk too: forgotten.
        gone = [d for d in removed if d.status != Status.EXCLUDED]
        report.removed = len(gone)
        for doc in gone:
            if on_file is not None:
                on_file(FileEvent(doc.path, "removed"))
        return True

    def _mark_ocr_requested(self, known: list[DocumentRecord]) -> list[DocumentRecord]:
        """Record "read with OCR" on the rows of the files asked for (chunks kept until
        they are read again); the documents table as it now stands."""
        wanted = {normalize(p) for p in self.ocr_requested}
        marked = [replace(d, ocr=True) for d in known if d.path in wanted and not d.ocr]
        self.ocr_requested.clear()
        # Files not in the index yet are read with OCR in this run; their rows record it.
        self._ocr_new = wanted - {d.path for d in known}
        if not marked:
            return known
        self.store.commit(marked, [], None)
        by_id = {d.doc_id: d for d in marked}
        return [by_id.get(d.doc_id, d) for d in known]

    def _checkpoint(self, cancel: threading.Event, pause: threading.Event | None) -> None:
        while pause is not None and pause.is_set() and not cancel.is_set():
            time.sleep(0.1)
        if cancel.is_set():
            raise Cancelled("Indexing was cancelled.")

    def _extract(
        self,
        decisions: Sequence[Decision],
        cancel: threading.Event,
        pause: threading.Event | None = None,
        forced: frozenset[str] | set[str] = frozenset(),
        tracker: Tracker | None = None,
        on_file: FileFn | None = None,
    ) -> Iterator[tuple[Decision, sandbox.Outcome | sandbox.Reading]]:
        """Each file read, in the order the readers finish them. Files with pages to OCR are
        read after the others (issue 31: a .docx waited 20 minutes behind a scan): a file's
        first reading stops at its text layer when pages need OCR and puts it at the end;
        files the user asked to read with OCR go at the end from the start."""
        by_path = {d.info.path: d for d in decisions}
        auto = sandbox.OcrMode.AUTO if self.ocr and ocr.available() else sandbox.OcrMode.OFF
        jobs = [
            sandbox.Job(
                d.info.path,
                self.passwords.get(d.info.path),
                sandbox.OcrMode.FORCE if d.info.path in forced else auto,
                defer=d.info.path not in forced and auto == sandbox.OcrMode.AUTO,
            )
            for d in decisions
        ]
        jobs.sort(key=lambda job: job.ocr == sandbox.OcrMode.FORCE)  # stable: the rest first

        def deferred(job: sandbox.Job, pages: int) -> None:
            log.info("%s has %d pages to read with OCR; read after the others", job.path, pages)

        on_ocr = OcrProgress(tracker, on_file) if tracker is not None else None
        if not self.isolate:
            for job, outcome in sandbox.run_inline(
                jobs, cancel, pause=pause, on_ocr=on_ocr, on_defer=deferred, news=True
            ):
                yield by_path[job.path], outcome
            return
        box = sandbox.Sandbox(self.timeout_s, self.memory_mb, low_priority=self.low_priority)
        try:
            for job, outcome in box.run(
                jobs, cancel, pause=pause, on_ocr=on_ocr, on_defer=deferred, news=True
            ):
                yield by_path[job.path], outcome
        finally:
            box.close()

    def _chunks_of(self, decision: Decision, extracted: Extracted) -> list[Chunk]:
        return cut(decision.info.path, extracted, self.tokenizer, self.params)

    def _chunked_ahead(
        self, extracted: Iterator[tuple[Decision, sandbox.Outcome | sandbox.Reading]]
    ) -> Iterator[tuple[Decision, sandbox.Outcome | sandbox.Reading, Future[list[Chunk]] | None]]:
        """Each file as the reader gives it, with its chunks cut on a thread of their own while
        the file before it embeds: laying out and cutting pages is Python work on one core,
        which the embedder's sessions, running on every core, would otherwise wait for. A
        file held back is let go when the next one starts a long OCR (sandbox.Reading, passed
        on after it)."""
        with ThreadPoolExecutor(1, thread_name_prefix="chunk") as pool:
            held: tuple[Decision, sandbox.Outcome, Future[list[Chunk]] | None] | None = None
            for decision, outcome in extracted:
                if isinstance(outcome, sandbox.Reading):
                    if held is not None:
                        yield held
                    held = None
                    yield decision, outcome, None
                    continue
                cut = (
                    None
                    if isinstance(outcome, ExtractError)
                    else pool.submit(self._chunks_of, decision, outcome)
                )
                if held is not None:
                    yield held
                held = decision, outcome, cut
            if held is not None:
                yield held

    def _cut_one(
        self,
        decision: Decision,
        extracted: Extracted,
        cut: Future[list[Chunk]],
        before: DocumentRecord | None,
        pending: _Pending,
        report: IndexReport,
        on_file: FileFn | None,
    ) -> _Cut | None:
        """A read file with its chunks, ready to embed; None when it failed (recorded)."""
        info = decision.info
        if _changed_since(info) or (decision.sha256 and decision.sha256 != extracted.sha256):
            reason = "is still being written; it will be indexed once it stops changing."
            self._failed(info, FailKind.CHANGING, reason, before, pending, report, on_file)
            return None
        if on_file is not None:
            on_file(FileEvent(info.path, Status.INDEXING, pages=len(extracted.pages)))
        chunks = cut.result()
        if not chunks:
            self._failed(
                info,
                FailKind.NO_TEXT,
                "has no readable words, only symbols a reader cannot turn into text. If its "
                "pages show text, run OCR on it (for example with OCRmyPDF) and add the result.",
                before,
                pending,
                report,
                on_file,
                sha256=extracted.sha256,
                pages=len(extracted.pages),
            )
            return None
        return _Cut(decision, extracted, chunks, before)

    def _embed_group(
        self,
        group: _Group,
        pending: _Pending,
        report: IndexReport,
        tracker: Tracker,
        cancel: threading.Event,
        pause: threading.Event | None,
    ) -> None:
        """Embed the group's chunks in calls of EMBED_BATCH and add each file to `pending`;
        a cancel or an error before the last call adds none of them."""
        chunks = [c for cut in group.files for c in cut.chunks]
        owner = [cut.decision.info.path for cut in group.files for _ in cut.chunks]
        vectors = []
        for start in range(0, len(chunks), EMBED_BATCH):
            self._checkpoint(cancel, pause)
            batch = chunks[start : start + EMBED_BATCH]
            texts = [embedded_text(c, self.params) for c in batch]
            vectors.append(self._lowered.call(self.embedder.embed, texts))
            faults.reached("embedded")
            tracker.chunks += len(batch)
            tracker.emit("indexing", owner[start + len(batch) - 1])
        rows = np.concatenate(vectors)
        offset = 0
        for cut in group.files:
            mine = rows[offset : offset + len(cut.chunks)]
            offset += len(cut.chunks)
            self._embedded(cut, mine, pending, report, tracker)

    def _embedded(
        self,
        cut: _Cut,
        vectors: NDArray[np.float32],
        pending: _Pending,
        report: IndexReport,
        tracker: Tracker,
    ) -> None:
        """An embedded file's row and chunks, waiting in `pending` for the next commit."""
        record = self._record(cut)
        pending.documents.append(record)
        if cut.before is None:
            pending.new.add(record.doc_id)
        pending.chunks.extend(cut.chunks)
        pending.vectors.append(vectors)
        pending.indexed.append(self._counted(record, cut, report, tracker))

    def _record(self, cut: _Cut) -> DocumentRecord:
        """The documents-table row of a file read and cut."""
        info, extracted, chunks, before = cut.decision.info, cut.extracted, cut.chunks, cut.before
        forced = (before is not None and before.ocr) or info.path in self._ocr_new
        ocr_done = sum(bool(p.boxes) for p in extracted.pages)
        return DocumentRecord(
            doc_id=doc_id_for(info.path),
            path=info.path,
            size=info.size,
            mtime_ns=info.mtime_ns,
            sha256=extracted.sha256,
            pages=len(extracted.pages),
            chunks=len(chunks),
            status=Status.INDEXED,
            # Pages OCR could not read cost those pages; the row says which and why.
            error=page_problems(extracted.pages, len(extracted.pages)),
            error_kind="",
            indexed_at=time.time(),
            format=format_for(info.path),
            reader=OCR_READER
            if forced
            else reader_name(extracted.reader, ocr_done, len(extracted.pages)),
            ocr=forced,
            date_ns=extracted.date_ns,
        )

    def _counted(
        self, record: DocumentRecord, cut: _Cut, report: IndexReport, tracker: Tracker
    ) -> FileEvent:
        """Count a file in the report and the progress; the event that says it is indexed."""
        if any(p.ocr for p in cut.extracted.pages):
            tracker.reading_pages = 0  # now counted below
        tracker.pages += record.pages
        report.indexed += 1
        report.pages += record.pages
        report.chunks += record.chunks
        log.info("indexed %s: %d pages, %d chunks", record.path, record.pages, record.chunks)
        return FileEvent(
            record.path,
            Status.INDEXED,
            record.pages,
            record.chunks,
            record.error,
            reader=record.reader,
        )

    def _failed(
        self,
        info: FileInfo,
        kind: FailKind,
        reason: str,
        before: DocumentRecord | None,
        pending: _Pending,
        report: IndexReport,
        on_file: FileFn | None,
        *,
        sha256: str = "",
        pages: int = 0,
    ) -> None:
        """Record why a file failed, as the retry policy (`retry.failed`) decides."""
        forced = (before is not None and before.ocr) or info.path in self._ocr_new
        failure = retry.failed(
            info, kind, reason, before, forced=forced, sha256=sha256, pages=pages
        )
        report.failed.append(Failure(info.path, failure.reason, kind))
        log.info("could not index %s (%s): %s", info.path, kind, failure.reason)
        if failure.row is not None:
            pending.documents.append(failure.row)
            if before is None:
                pending.new.add(failure.row.doc_id)
            if failure.keeps_chunks:
                pending.keep.add(failure.row.doc_id)
        if on_file is not None:
            on_file(failure.event)

    def _flush_after(self, exc: BaseException, pending: _Pending, on_file: FileFn | None) -> None:
        """Keep what was embedded before `exc`; a failure here must not hide `exc` itself."""
        try:
            self._flush(pending, on_file)
        except Exception as second:
            if isinstance(exc, Cancelled):
                raise  # the user knows they cancelled; that the last batch was lost is news
            log.error("could not keep the files embedded before the error: %s", second)
            exc.add_note(f"Keeping the files embedded before it failed too: {second}")

    def _flush(self, pending: _Pending, on_file: FileFn | None) -> None:
        faults.reached("flush")
        vectors = np.concatenate(pending.vectors) if pending.vectors else None
        old = pending.keep | pending.new
        self.store.commit(
            pending.documents,
            pending.chunks,
            vectors,
            replace_doc_ids=[d.doc_id for d in pending.documents if d.doc_id not in old],
            new=all(d.doc_id in pending.new for d in pending.documents),
        )
        if on_file is not None:
            for event in pending.indexed:
                on_file(event)

    def _touched(self, decision: Decision, report: IndexReport) -> DocumentRecord:
        """A file with new times and the same content: only its row changes."""
        info, source = decision.info, decision.source
        assert source is not None
        report.unchanged += 1
        return replace(source, size=info.size, mtime_ns=info.mtime_ns)

    def _commit_touched(self, records: list[DocumentRecord], on_file: FileFn | None) -> None:
        if not records:
            return
        self.store.commit(records, [], None)
        if on_file is not None:
            for record in records:
                on_file(FileEvent(record.path, Status.INDEXED, record.pages, record.chunks))

    def _reuse(self, decision: Decision, report: IndexReport, on_file: FileFn | None) -> None:
        """A renamed or copied file: reuse the stored chunks and vectors."""
        info, source = decision.info, decision.source
        assert source is not None
        doc_id = doc_id_for(info.path)
        record = replace(
            source,
            doc_id=doc_id,
            path=info.path,
            size=info.size,
            mtime_ns=info.mtime_ns,
            status=Status.INDEXED,
            error="",
            error_kind="",
            failures=0,
            failed_size=-1,
            failed_mtime_ns=-1,
        )
        rows = self.store.chunk_rows(source.doc_id)
        chunks = rechunk_ids((chunk_from_row(r) for r in rows), doc_id, info.path)
        vectors = np.asarray([r["vector"] for r in rows], dtype=np.float32)
        remove = [source.doc_id] if decision.action == Action.RENAME else []
        # A source still waiting for its vectors: the copy waits too (the run fills both).
        waiting = any(r.get("pending") for r in rows)
        self.store.commit(
            [record],
            chunks,
            None if waiting else vectors,
            replace_doc_ids=[doc_id],
            remove_doc_ids=remove,
            pending=waiting,
        )
        if decision.action == Action.RENAME:
            report.renamed += 1
        else:
            report.indexed += 1
            report.pages += record.pages
            report.chunks += record.chunks
        if on_file is not None:
            on_file(FileEvent(info.path, Status.INDEXED, record.pages, record.chunks))


def _excluded_row(doc: DocumentRecord) -> DocumentRecord:
    """The row that keeps a removed file out of the index (no chunks)."""
    return replace(
        doc,
        pages=0,
        chunks=0,
        status=Status.EXCLUDED,
        error="",
        error_kind="",
        failures=0,
        failed_size=-1,
        failed_mtime_ns=-1,
        indexed_at=time.time(),
    )


def _changed_since(info: FileInfo) -> bool:
    try:
        st = os.stat(info.path)
    except OSError:
        return True
    return st.st_size != info.size or st.st_mtime_ns != info.mtime_ns
