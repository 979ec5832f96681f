"""A run's read files written to the index: each file's row and counts, its failure as the retry
policy decides, and the batches committed (chunks first, then rows), or a long file's text first."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from desktop_rag.errors import Cancelled
from desktop_rag.infra import faults
from desktop_rag.ingest import retry
from desktop_rag.ingest.engine import Run
from desktop_rag.ingest.extract import Extracted
from desktop_rag.ingest.ocr import page_problems, reader_name
from desktop_rag.ingest.scan import OCR_READER, Decision, doc_id_for, format_for
from desktop_rag.store import maintenance
from desktop_rag.store.lance import LanceStore
from desktop_rag.types import (
    Chunk,
    DocumentRecord,
    FailKind,
    Failure,
    FileEvent,
    FileInfo,
    Status,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Cut:
    """A file read and cut, ready to embed."""

    decision: Decision
    extracted: Extracted
    chunks: list[Chunk]
    before: DocumentRecord | None  # its row before the run


@dataclass(slots=True)
class Pending:
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


class Committer:
    """Gathers a run's files (`pending`) and commits them when its engine says so."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self.pending = Pending()

    def ready(
        self, decision: Decision, extracted: Extracted, chunks: Callable[[], list[Chunk]]
    ) -> Cut | None:
        """A read file with its chunks (`chunks()`, waited for once the file is said to be
        read), ready to embed; None when it failed (recorded)."""
        info = decision.info
        before = self.run.previous.get(info.path)
        if _changed_since(info) or (decision.sha256 and decision.sha256 != extracted.sha256):
            self.failed(
                info,
                FailKind.CHANGING,
                "is still being written; it will be indexed once it stops changing.",
            )
            return None
        self.run.control.file(FileEvent(info.path, Status.INDEXING, pages=len(extracted.pages)))
        cut = chunks()
        if not cut:
            self.failed(
                info,
                FailKind.NO_TEXT,
                "has no readable words, only symbols a reader cannot turn into text. If its "
                "pages show text, run OCR on it (for example with OCRmyPDF) and add the result.",
                sha256=extracted.sha256,
                pages=len(extracted.pages),
            )
            return None
        return Cut(decision, extracted, cut, before)

    def embedded(self, cut: Cut, vectors: NDArray[np.float32]) -> None:
        """An embedded file's row and chunks, waiting in `pending` for the next commit."""
        record = self._record(cut)
        self.pending.documents.append(record)
        if cut.before is None:
            self.pending.new.add(record.doc_id)
        self.pending.chunks.extend(cut.chunks)
        self.pending.vectors.append(vectors)
        self.pending.indexed.append(self._counted(record, cut))

    def text_first(self, cut: Cut) -> None:
        """Store a long file with its text only: found by its words from now on, and said
        indexed; its vectors follow (ingest/vectors.py's VectorFiller)."""
        store = self.run.store
        record = self._record(cut)
        new = cut.before is None
        store.commit(
            [record],
            cut.chunks,
            None,
            replace_doc_ids=[] if new else [record.doc_id],
            new=new,
            pending=True,
        )
        ensure_text_index(store)
        maintenance.fold_text_index(store)  # searches meanwhile stay fast
        faults.reached("text-committed")
        self.run.control.file(self._counted(record, cut))

    def failed(
        self, info: FileInfo, kind: FailKind, reason: str, *, sha256: str = "", pages: int = 0
    ) -> None:
        """Record why a file failed, as the retry policy (`retry.failed`) decides."""
        before = self.run.previous.get(info.path)
        failure = retry.failed(
            info,
            kind,
            reason,
            before,
            forced=info.path in self.run.forced,
            sha256=sha256,
            pages=pages,
        )
        self.run.report.failed.append(Failure(info.path, failure.reason, kind))
        log.info("could not index %s (%s): %s", info.path, kind, failure.reason)
        if failure.row is not None:
            self.pending.documents.append(failure.row)
            if before is None:
                self.pending.new.add(failure.row.doc_id)
            if failure.keeps_chunks:
                self.pending.keep.add(failure.row.doc_id)
        self.run.control.file(failure.event)

    def stored_already(self, doc_ids: set[str]) -> None:
        """These documents' chunks are stored (by lance-ray): only their rows are left."""
        self.pending.chunks = [c for c in self.pending.chunks if c.doc_id not in doc_ids]

    def flush(self) -> None:
        """Commit what waits. Handed over first: a batch whose commit failed is not committed
        again by flush_after, where its second error would hide the first."""
        batch, self.pending = self.pending, Pending()
        faults.reached("flush")
        vectors = np.concatenate(batch.vectors) if batch.vectors else None
        old = batch.keep | batch.new
        self.run.store.commit(
            batch.documents,
            batch.chunks,
            vectors,
            replace_doc_ids=[d.doc_id for d in batch.documents if d.doc_id not in old],
            new=all(d.doc_id in batch.new for d in batch.documents),
        )
        for event in batch.indexed:
            self.run.control.file(event)

    def flush_after(self, exc: BaseException) -> None:
        """Keep what was embedded before `exc`; a failure here must not hide `exc` itself."""
        if not self.pending:
            return
        try:
            self.flush()
        except Exception as second:
            if isinstance(exc, Cancelled):
                raise  # the user knows they cancelled; that the last batch was lost is news
            log.error("could not keep the files embedded before the error: %s", second)
            exc.add_note(f"Keeping the files embedded before it failed too: {second}")

    def _record(self, cut: Cut) -> DocumentRecord:
        """The documents-table row of a file read and cut."""
        info, extracted = cut.decision.info, cut.extracted
        forced = info.path in self.run.forced
        ocr_done = sum(bool(p.boxes) for p in extracted.pages)
        return DocumentRecord(
            doc_id=doc_id_for(info.path),
            path=info.path,
            size=info.size,
            mtime_ns=info.mtime_ns,
            sha256=extracted.sha256,
            pages=len(extracted.pages),
            chunks=len(cut.chunks),
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

    def _counted(self, record: DocumentRecord, cut: Cut) -> FileEvent:
        """Count a file in the report and the progress; the event that says it is indexed."""
        tracker, report = self.run.tracker, self.run.report
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


def ensure_text_index(store: LanceStore) -> None:
    """A new index has no full-text index until the end of its first run: built now, over what
    is stored, the words stored with their text only are found at once (rows stored later are
    searched unindexed until the run's optimize folds them in)."""
    if not store.has_fts_index():
        with store.write_lock:
            maintenance.ensure_text_index(store)


def _changed_since(info: FileInfo) -> bool:
    try:
        st = os.stat(info.path)
    except OSError:
        return True
    return st.st_size != info.size or st.st_mtime_ns != info.mtime_ns
