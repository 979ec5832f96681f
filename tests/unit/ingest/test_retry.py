"""ingest/retry.py: what a failure means for a file's row, without a store or a reader."""

from __future__ import annotations

from dataclasses import replace

from desktop_rag.ingest.retry import failed
from desktop_rag.ingest.scan import MAX_SAME_FAILURES, OCR_READER, doc_id_for
from desktop_rag.types import DocumentRecord, FailKind, FileInfo, Status

INFO = FileInfo("/lib/a.pdf", 100, 7)
INDEXED = DocumentRecord(
    doc_id=doc_id_for(INFO.path),
    path=INFO.path,
    size=90,
    mtime_ns=5,
    sha256="old",
    pages=3,
    chunks=9,
    status=Status.INDEXED,
    error="",
    error_kind="",
    indexed_at=0.0,
)


def test_a_passing_failure_of_an_indexed_file_keeps_its_chunks_and_tries_again() -> None:
    out = failed(INFO, FailKind.LOCKED, "is locked.", INDEXED, forced=False)
    assert out.keeps_chunks and out.row is not None
    assert (out.row.size, out.row.mtime_ns, out.row.chunks) == (90, 5, 9)  # the old version
    assert (out.row.failed_size, out.row.failed_mtime_ns, out.row.failures) == (100, 7, 1)
    assert out.reason.endswith("it will be tried again on the next run.")
    assert out.event.status == Status.INDEXED and out.event.error == out.reason


def test_the_same_failure_on_the_same_version_waits_for_a_change() -> None:
    before = replace(
        INDEXED,
        error_kind=FailKind.LOCKED,
        failures=MAX_SAME_FAILURES - 1,
        failed_size=INFO.size,
        failed_mtime_ns=INFO.mtime_ns,
    )
    out = failed(INFO, FailKind.LOCKED, "is locked.", before, forced=False)
    assert out.row is not None and out.row.failures == MAX_SAME_FAILURES
    assert "so it waits until the file changes" in out.reason
    new = failed(INFO, FailKind.TIMEOUT, "took too long.", None, forced=False)
    assert new.row is not None and new.row.failures == 1 and not new.keeps_chunks


def test_a_lasting_failure_replaces_the_row_and_a_file_still_changing_writes_none() -> None:
    out = failed(INFO, FailKind.CORRUPT, "is damaged.", INDEXED, forced=True, pages=4)
    assert not out.keeps_chunks and out.row is not None
    assert (out.row.status, out.row.chunks, out.row.pages) == (Status.FAILED, 0, 4)
    assert (out.row.reader, out.row.ocr) == (OCR_READER, True)
    assert out.event.status == Status.FAILED
    changing = failed(INFO, FailKind.CHANGING, "is still being written.", None, forced=False)
    assert changing.row is None and changing.event.status == Status.QUEUED
