"""What a file's failure means: the reason the user reads, whether the version indexed before
stays searchable, and whether the next run tries it again."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from desktop_rag.ingest.scan import (
    MAX_SAME_FAILURES,
    OCR_READER,
    TRANSIENT_KINDS,
    doc_id_for,
    format_for,
)
from desktop_rag.types import DocumentRecord, FailKind, FileEvent, FileInfo, Status


@dataclass(frozen=True, slots=True)
class Failed:
    """A failure decided: what to tell, and what (if anything) to write for it."""

    reason: str  # the whole reason, with what happens next
    event: FileEvent  # what the window is told about the file
    row: DocumentRecord | None  # the documents row to write; None: nothing is recorded
    keeps_chunks: bool  # the row is the version indexed before, whose chunks stay


def failed(
    info: FileInfo,
    kind: FailKind,
    reason: str,
    before: DocumentRecord | None,
    *,
    forced: bool,
    sha256: str = "",
    pages: int = 0,
) -> Failed:
    """Decide a failure of `info`. A passing failure of a file indexed before keeps its
    chunks: its row keeps the old size and mtime, so the next run tries again, until it has
    failed the same way MAX_SAME_FAILURES runs in a row. `forced`: read with OCR as asked."""
    transient = kind in TRANSIENT_KINDS
    failures = 1
    if (
        before is not None
        and before.error_kind == kind
        and (before.failed_size, before.failed_mtime_ns) == (info.size, info.mtime_ns)
    ):
        failures = before.failures + 1
    if transient and before is not None and before.status == Status.INDEXED:
        reason += " The version indexed before stays searchable"
        reason += (
            "; it will be tried again on the next run."
            if failures < MAX_SAME_FAILURES
            else f". It failed this way {failures} runs in a row, so it waits until the "
            "file changes."
        )
        row = replace(
            before,
            error=reason,
            error_kind=kind,
            failures=failures,
            failed_size=info.size,
            failed_mtime_ns=info.mtime_ns,
        )
        event = FileEvent(info.path, Status.INDEXED, before.pages, before.chunks, reason)
        return Failed(reason, event, row, keeps_chunks=True)
    if transient and failures >= MAX_SAME_FAILURES:
        reason += (
            f" It failed this way {failures} runs in a row, so it is not tried again "
            "until it changes."
        )
    if kind == FailKind.CHANGING:
        # Nothing to record for a file not indexed before: the next pass (the watcher's,
        # once it settles) reads it again.
        return Failed(reason, FileEvent(info.path, Status.QUEUED, error=reason), None, False)
    row = DocumentRecord(
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
        format=format_for(info.path),
        failures=failures,
        failed_size=info.size,
        failed_mtime_ns=info.mtime_ns,
        # Tried with OCR as asked: a failure is not a reason to try again unchanged.
        reader=OCR_READER if forced else "",
        ocr=forced,
    )
    event = FileEvent(info.path, Status.FAILED, pages=pages, error=reason)
    return Failed(reason, event, row, keeps_chunks=False)
