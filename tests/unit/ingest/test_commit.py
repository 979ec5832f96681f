"""The Committer: a file is said indexed only once its batch is committed, new files are
appended and known ones replaced, a passing failure keeps the chunks indexed before, and a
failed commit is neither retried nor hidden by the commit that keeps the work before an error."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from desktop_rag.errors import Cancelled, StoreError
from desktop_rag.infra import priority
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.ingest.commit import Committer
from desktop_rag.ingest.control import RunControl
from desktop_rag.ingest.engine import Run
from desktop_rag.ingest.extract import Extracted
from desktop_rag.ingest.progress import Tracker
from desktop_rag.ingest.scan import Action, Decision, doc_id_for
from desktop_rag.types import (
    Chunk,
    DocumentRecord,
    FailKind,
    FileEvent,
    FileInfo,
    IndexReport,
    Page,
    Status,
)
from tests.fakes import HashEmbedder, WordTokenizer


class _Store:
    """Records commits; fails the next ones when told to."""

    def __init__(self) -> None:
        self.commits: list[dict] = []
        self.fail: list[Exception] = []

    def commit(self, documents, chunks, vectors, replace_doc_ids=(), remove_doc_ids=(), **kw):
        if self.fail:
            raise self.fail.pop(0)
        self.commits.append(
            {
                "docs": [d.path for d in documents],
                "chunks": [c.chunk_id for c in chunks],
                "vectors": 0 if vectors is None else len(vectors),
                "replace": sorted(replace_doc_ids),
                **kw,
            }
        )


def _file(tmp_path: Path, name: str) -> FileInfo:
    path = tmp_path / name
    path.write_text(f"the file {name}", encoding="utf-8")
    st = os.stat(path)
    return FileInfo(str(path), st.st_size, st.st_mtime_ns)


def _row(info: FileInfo, **changes) -> DocumentRecord:
    fields = {
        "doc_id": doc_id_for(info.path),
        "path": info.path,
        "size": info.size,
        "mtime_ns": info.mtime_ns,
        "sha256": "old",
        "pages": 1,
        "chunks": 1,
        "status": Status.INDEXED,
        "error": "",
        "error_kind": "",
        "indexed_at": 0.0,
        **changes,
    }
    return DocumentRecord(**fields)


def _run(store, previous=(), events=None) -> Run:
    return Run(
        store=store,
        embedder=HashEmbedder(),
        params=ChunkParams(60, 10),
        tokenizer=WordTokenizer,
        passwords={},
        ocr=False,
        isolate=False,
        timeout_s=1.0,
        memory_mb=64,
        low_priority=False,
        control=RunControl(on_file=None if events is None else events.append),
        report=IndexReport(),
        tracker=Tracker(None, 2, 2),
        lowered=priority.Lowered(enabled=False),
        previous={d.path: d for d in previous},
        forced=frozenset(),
    )


def _read(info: FileInfo) -> tuple[Decision, Extracted, list[Chunk]]:
    chunk = Chunk(f"{doc_id_for(info.path)}:1:0", doc_id_for(info.path), info.path, 1, 0, 3, "the")
    extracted = Extracted([Page(1, "the file")], "text", "new")
    return Decision(Action.INDEX, info), extracted, [chunk]


def _embedded(out: Committer, info: FileInfo) -> None:
    decision, extracted, chunks = _read(info)
    cut = out.ready(decision, extracted, lambda: chunks)
    assert cut is not None
    out.embedded(cut, np.zeros((len(chunks), 4), dtype=np.float32))


def test_a_file_is_said_indexed_once_its_batch_is_committed(tmp_path):
    new, known = _file(tmp_path, "new.txt"), _file(tmp_path, "known.txt")
    store, events = _Store(), []
    run = _run(store, previous=[_row(known)], events=events)
    out = Committer(run)
    _embedded(out, new)
    _embedded(out, known)
    assert [e.status for e in events] == [Status.INDEXING, Status.INDEXING]
    assert run.report.indexed == 2 and store.commits == []
    out.flush()
    (commit,) = store.commits
    assert commit["docs"] == [new.path, known.path] and commit["vectors"] == 2
    # The new file has nothing to replace; the known one replaces its chunks.
    assert commit["replace"] == [doc_id_for(known.path)] and commit["new"] is False
    assert [(e.path, e.status) for e in events[2:]] == [
        (new.path, Status.INDEXED),
        (known.path, Status.INDEXED),
    ]
    assert not out.pending


def test_a_file_changed_since_the_scan_waits_for_the_next_run(tmp_path):
    info = _file(tmp_path, "moving.txt")
    Path(info.path).write_text("grew while it was read", encoding="utf-8")
    events: list[FileEvent] = []
    run = _run(_Store(), events=events)
    out = Committer(run)
    decision, extracted, _ = _read(info)
    assert out.ready(decision, extracted, lambda: pytest.fail("cut although it changed")) is None
    assert [f.kind for f in run.report.failed] == [FailKind.CHANGING]
    assert [e.status for e in events] == [Status.QUEUED] and not out.pending


def test_a_file_without_words_fails_with_its_pages_counted(tmp_path):
    info = _file(tmp_path, "symbols.txt")
    run = _run(_Store())
    out = Committer(run)
    decision, extracted, _ = _read(info)
    assert out.ready(decision, extracted, lambda: []) is None
    (row,) = out.pending.documents
    assert (row.status, row.error_kind, row.pages, row.sha256) == (
        Status.FAILED,
        FailKind.NO_TEXT,
        1,
        "new",
    )


def test_a_passing_failure_keeps_the_chunks_indexed_before(tmp_path):
    info = _file(tmp_path, "locked.txt")
    store = _Store()
    out = Committer(_run(store, previous=[_row(info)]))
    out.failed(info, FailKind.LOCKED, "is locked by another program.")
    out.flush()
    (commit,) = store.commits
    assert commit["docs"] == [info.path] and commit["replace"] == []


def test_a_failed_commit_is_not_committed_again_by_the_keeping_commit(tmp_path):
    info = _file(tmp_path, "a.txt")
    store = _Store()
    out = Committer(_run(store))
    _embedded(out, info)
    store.fail.append(StoreError("disk full"))
    with pytest.raises(StoreError):
        out.flush()
    out.flush_after(Cancelled("cancelled"))  # the batch was handed over: nothing left
    assert store.commits == []


def test_the_error_stays_the_one_raised_when_keeping_the_work_fails_too(tmp_path):
    store = _Store()
    out = Committer(_run(store))
    _embedded(out, _file(tmp_path, "a.txt"))
    store.fail.append(StoreError("disk full"))
    error = RuntimeError("the embedder broke")
    out.flush_after(error)  # not raised: the embedder's error is what the run reports
    assert any("disk full" in note for note in error.__notes__)
    _embedded(out, _file(tmp_path, "b.txt"))
    store.fail.append(StoreError("disk full"))
    with pytest.raises(StoreError):  # on cancel the lost batch is the news
        out.flush_after(Cancelled("cancelled"))


def test_chunks_stored_elsewhere_leave_only_their_rows(tmp_path):
    info, other = _file(tmp_path, "a.txt"), _file(tmp_path, "b.txt")
    store = _Store()
    out = Committer(_run(store, previous=[_row(other)]))
    _embedded(out, info)
    _embedded(out, other)
    out.stored_already(out.pending.new)  # lance-ray appended the new file's chunks
    out.flush()
    (commit,) = store.commits
    assert commit["docs"] == [info.path, other.path]
    assert commit["chunks"] == [f"{doc_id_for(other.path)}:1:0"]
