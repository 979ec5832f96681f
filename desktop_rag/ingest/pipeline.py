"""The indexing use case: reconcile paths with the index, then extract, chunk, embed and store."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from desktop_rag.engines.embed import Embedder, Preparable
from desktop_rag.errors import Cancelled, UsageError
from desktop_rag.infra import faults, priority
from desktop_rag.ingest import sandbox
from desktop_rag.ingest.chunk import ChunkParams, TokenOffsets, chunk_pages, rechunk_ids
from desktop_rag.ingest.extract import Extracted, ExtractError, sha256_file
from desktop_rag.ingest.scan import (
    Action,
    Decision,
    decide,
    doc_id_for,
    is_under,
    normalize,
    plan,
    scan,
)
from desktop_rag.store.lance import LanceStore
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

ProgressFn = Callable[[Progress], None]
FileFn = Callable[[FileEvent], None]

EMBED_BATCH = 256  # chunks per embed call: progress and cancel are checked between calls
FLUSH_CHUNKS = 2048  # commit when this many chunks wait...
FLUSH_SECONDS = 5.0  # ...or this long passed: a crash loses at most a few seconds of work
# Touched files (same content, new mtime) are written this many rows per commit: a restore
# from backup touches every file, and one commit per file would cost more than the hashing.
TOUCH_BATCH = 500


@dataclass(slots=True)
class _Pending:
    """Documents fully embedded but not yet committed."""

    documents: list[DocumentRecord] = field(default_factory=list)
    chunks: list[Chunk] = field(default_factory=list)
    vectors: list[NDArray[np.float32]] = field(default_factory=list)
    since: float = field(default_factory=time.monotonic)
    # "Indexed" is said of a file once its batch is committed, not when it is embedded: a
    # crash before the commit would otherwise have shown as indexed what the index lacks.
    indexed: list[FileEvent] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.documents)


class _Tracker:
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
        lock_wait_s: float = 0.0,
        low_priority: bool = True,
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

    @property
    def tokenizer(self) -> TokenOffsets:
        if self._tokenizer is None:
            self._tokenizer = self.tokenizer_factory()
        return self._tokenizer

    # -- public ------------------------------------------------------------------------------

    def index(
        self,
        paths: Sequence[str],
        on_progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
        *,
        pause: threading.Event | None = None,
        on_file: FileFn | None = None,
    ) -> IndexReport:
        """Bring the index in line with the files and folders given; never raises per file."""
        t0 = time.monotonic()
        report = IndexReport()
        cancel = cancel or threading.Event()
        if self.low_priority:
            priority.lower_thread()  # and the embedder's threads started from here
        if on_progress is not None:
            on_progress(Progress(stage="scanning", message="Looking for PDFs"))
        found = scan(paths)
        missing = [p for p, why in found.problems if why == "does not exist"]
        if missing:
            raise UsageError(f"Not found: {', '.join(missing)}. Check the path and try again.")
        for path, why in found.problems:
            report.failed.append(Failure(path, f"{why}.", FailKind.UNREADABLE))
        with self.store.writer(self.lock_wait_s):
            try:
                self._index_locked(
                    found.files, found.folders, report, on_progress, cancel, pause, on_file
                )
            except Cancelled:
                report.cancelled = True
        report.seconds = time.monotonic() - t0
        return report

    def remove(self, paths: Sequence[str]) -> list[str]:
        """Drop files (or everything under folders) from the index; the disk is not touched."""
        roots = [normalize(p) for p in paths]
        doomed = [d for d in self.store.documents() if any(is_under(d.path, r) for r in roots)]
        if doomed:
            with self.store.writer(self.lock_wait_s):
                self.store.remove([d.doc_id for d in doomed])
        return [d.path for d in doomed]

    # -- the run -----------------------------------------------------------------------------

    def _index_locked(
        self,
        files: Mapping[str, FileInfo],
        folders: Sequence[str],
        report: IndexReport,
        on_progress: ProgressFn | None,
        cancel: threading.Event,
        pause: threading.Event | None,
        on_file: FileFn | None,
    ) -> None:
        repaired = self.store.repair()
        if repaired:
            log.warning("re-indexing %d file(s) left half-written by a crash", len(repaired))
        known = self.store.documents()
        todo = plan(files, folders, known)
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
        # Hashing is only worth it when there is something to recognise.
        hasher = sha256_file if known else (lambda _path: "")
        hashing = _Tracker(on_progress, len(todo.candidates), sum(i.size for i in todo.candidates))

        def hashed(info: FileInfo) -> None:
            self._checkpoint(cancel, pause)
            hashing.files_done += 1
            hashing.bytes_done += info.size
            hashing.emit("hashing", info.path, message="Checking which files changed")

        if known and todo.candidates:
            hashing.emit("hashing", force=True, message="Checking which files changed")
        decisions, removed = decide(
            todo.candidates, todo.removed, known, hasher, hashed if known else None
        )
        # Known content under a new path or time reuses its chunks; the rest must be read.
        reused = [d for d in decisions if d.action != Action.INDEX]
        to_read = [d for d in decisions if d.action == Action.INDEX]
        tracker = _Tracker(on_progress, len(to_read), sum(d.info.size for d in to_read))
        if on_file is not None:  # so a window can list what waits before it is read
            for decision in to_read:
                on_file(FileEvent(decision.info.path, Status.QUEUED))
        if to_read and isinstance(self.embedder, Preparable):
            # A one-time export of the fast embedder happens here, in the indexing worker.
            self.embedder.prepare(lambda text: tracker.emit("preparing", force=True, message=text))
        wrote = bool(reused)
        touched: list[DocumentRecord] = []
        try:
            for decision in reused:
                self._checkpoint(cancel, pause)
                if decision.action == Action.TOUCH:
                    touched.append(self._touched(decision, report))
                    if len(touched) >= TOUCH_BATCH:
                        batch, touched = touched, []
                        self._commit_touched(batch, on_file)
                else:
                    self._reuse(decision, report, on_file)
        except Cancelled:
            self._commit_touched(touched, on_file)  # what was decided is kept
            raise
        self._commit_touched(touched, on_file)
        pending = _Pending()
        try:
            for decision, outcome in self._extract(to_read, cancel):
                self._checkpoint(cancel, pause)
                info = decision.info
                faults.reached("extracted")
                tracker.emit("indexing", info.path, force=True)
                if isinstance(outcome, ExtractError):
                    self._failed(info, outcome.kind, str(outcome), pending, report, on_file)
                else:
                    self._embed_one(
                        decision, outcome, pending, report, tracker, cancel, pause, on_file
                    )
                tracker.files_done += 1
                tracker.bytes_done += info.size
                if (
                    len(pending.chunks) >= FLUSH_CHUNKS
                    or time.monotonic() - pending.since >= FLUSH_SECONDS
                ):
                    self._flush(pending, on_file)
                    pending = _Pending()
                    wrote = True
            self._checkpoint(cancel, None)  # the reader stops quietly on cancel
        finally:
            # What is fully embedded is kept, even on cancel or error: nothing done is lost.
            if pending:
                self._flush(pending, on_file)
                wrote = True
        if removed:
            self.store.remove([d.doc_id for d in removed])
            report.removed = len(removed)
            for doc in removed:
                if on_file is not None:
                    on_file(FileEvent(doc.path, "removed"))
            wrote = True
        if wrote:
            tracker.emit("optimizing", force=True, message="Tidying the index")
            faults.reached("optimize")
            self.store.optimize()
        tracker.emit("done", force=True)

    def _checkpoint(self, cancel: threading.Event, pause: threading.Event | None) -> None:
        while pause is not None and pause.is_set() and not cancel.is_set():
            time.sleep(0.1)
        if cancel.is_set():
            raise Cancelled("Indexing was cancelled.")

    def _extract(
        self, decisions: Sequence[Decision], cancel: threading.Event
    ) -> Iterator[tuple[Decision, sandbox.Outcome]]:
        by_path = {d.info.path: d for d in decisions}
        jobs = [sandbox.Job(d.info.path, self.passwords.get(d.info.path)) for d in decisions]
        if not self.isolate:
            for job, outcome in sandbox.run_inline(jobs, cancel):
                yield by_path[job.path], outcome
            return
        box = sandbox.Sandbox(self.timeout_s, self.memory_mb, low_priority=self.low_priority)
        try:
            for job, outcome in box.run(jobs, cancel):
                yield by_path[job.path], outcome
        finally:
            box.close()

    def _embed_one(
        self,
        decision: Decision,
        extracted: Extracted,
        pending: _Pending,
        report: IndexReport,
        tracker: _Tracker,
        cancel: threading.Event,
        pause: threading.Event | None,
        on_file: FileFn | None,
    ) -> None:
        info = decision.info
        if _changed_since(info) or (decision.sha256 and decision.sha256 != extracted.sha256):
            reason = "is still being written; it will be indexed once it stops changing."
            report.failed.append(Failure(info.path, reason, FailKind.CHANGING))
            if on_file is not None:
                on_file(FileEvent(info.path, Status.QUEUED, error=reason))
            return
        doc_id = doc_id_for(info.path)
        if on_file is not None:
            on_file(FileEvent(info.path, Status.INDEXING, pages=len(extracted.pages)))
        chunks = chunk_pages(doc_id, info.path, extracted.pages, self.tokenizer, self.params)
        if not chunks:
            self._failed(
                info,
                FailKind.NO_TEXT,
                "has no readable words, only symbols a reader cannot turn into text. If its "
                "pages show text, run OCR on it (for example with OCRmyPDF) and add the result.",
                pending,
                report,
                on_file,
                sha256=extracted.sha256,
                pages=len(extracted.pages),
            )
            return
        vectors = []
        for start in range(0, len(chunks), EMBED_BATCH):
            self._checkpoint(cancel, pause)
            batch = chunks[start : start + EMBED_BATCH]
            vectors.append(self.embedder.embed([c.text for c in batch]))
            faults.reached("embedded")
            tracker.chunks += len(batch)
            tracker.emit("indexing", info.path)
        tracker.pages += len(extracted.pages)
        record = DocumentRecord(
            doc_id=doc_id,
            path=info.path,
            size=info.size,
            mtime_ns=info.mtime_ns,
            sha256=extracted.sha256,
            pages=len(extracted.pages),
            chunks=len(chunks),
            status=Status.INDEXED,
            error="",
            error_kind="",
            indexed_at=time.time(),
        )
        pending.documents.append(record)
        pending.chunks.extend(chunks)
        pending.vectors.extend(vectors)
        report.indexed += 1
        report.pages += record.pages
        report.chunks += record.chunks
        log.info("indexed %s: %d pages, %d chunks", info.path, record.pages, record.chunks)
        pending.indexed.append(FileEvent(info.path, Status.INDEXED, record.pages, record.chunks))

    def _failed(
        self,
        info: FileInfo,
        kind: FailKind,
        reason: str,
        pending: _Pending,
        report: IndexReport,
        on_file: FileFn | None,
        *,
        sha256: str = "",
        pages: int = 0,
    ) -> None:
        report.failed.append(Failure(info.path, reason, kind))
        log.info("could not index %s (%s): %s", info.path, kind, reason)
        if on_file is not None:
            on_file(FileEvent(info.path, Status.FAILED, pages=pages, error=reason))
        if kind == FailKind.CHANGING:
            return  # keep whatever was indexed before; the next pass retries
        pending.documents.append(
            DocumentRecord(
                doc_id=doc_id_for(info.path),
                path=info.path,
                size=info.size,
                mtime_ns=info.mtime_ns,
                sha256=sha256,
                pages=pages,
                chunks=0,
                status=Status.FAILED,
                error=reason,
                error_kind=kind,
                indexed_at=time.time(),
            )
        )

    def _flush(self, pending: _Pending, on_file: FileFn | None) -> None:
        faults.reached("flush")
        vectors = np.concatenate(pending.vectors) if pending.vectors else None
        self.store.commit(
            pending.documents,
            pending.chunks,
            vectors,
            replace_doc_ids=[d.doc_id for d in pending.documents],
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
            source, doc_id=doc_id, path=info.path, size=info.size, mtime_ns=info.mtime_ns
        )
        rows = self.store.chunk_rows(source.doc_id)
        chunks = rechunk_ids(
            (
                Chunk(
                    r["chunk_id"],
                    r["doc_id"],
                    r["path"],
                    r["page"],
                    r["start"],
                    r["end"],
                    r["text"],
                )
                for r in rows
            ),
            doc_id,
            info.path,
        )
        vectors = np.asarray([r["vector"] for r in rows], dtype=np.float32)
        remove = [source.doc_id] if decision.action == Action.RENAME else []
        self.store.commit(
            [record], chunks, vectors, replace_doc_ids=[doc_id], remove_doc_ids=remove
        )
        if decision.action == Action.RENAME:
            report.renamed += 1
        else:
            report.indexed += 1
            report.pages += record.pages
            report.chunks += record.chunks
        if on_file is not None:
            on_file(FileEvent(info.path, Status.INDEXED, record.pages, record.chunks))


def _changed_since(info: FileInfo) -> bool:
    try:
        st = os.stat(info.path)
    except OSError:
        return True
    return st.st_size != info.size or st.st_mtime_ns != info.mtime_ns
