"""What a run writes without reading a file: the new times of touched files, the stored chunks of
renamed and copied ones, and the rows of files gone or removed by the user."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from desktop_rag.errors import Cancelled
from desktop_rag.infra.paths import is_under, normalize
from desktop_rag.ingest.chunk import rechunk_ids
from desktop_rag.ingest.control import RunControl
from desktop_rag.ingest.scan import Action, Decision, doc_id_for
from desktop_rag.store.lance import LanceStore
from desktop_rag.store.schema import chunk_from_row
from desktop_rag.types import DocumentRecord, FileEvent, IndexReport, Status

# Touched files (same content, new mtime) are written this many rows per commit: a restore
# from backup touches every file, and one commit per file would cost more than the hashing.
TOUCH_BATCH = 500


def reuse_all(
    store: LanceStore, reused: Sequence[Decision], report: IndexReport, control: RunControl
) -> None:
    """Files whose content is known: touched rows in batches, renames and copies one by one.
    What was decided before a cancel is kept."""
    touched: list[DocumentRecord] = []
    try:
        for decision in reused:
            control.checkpoint()
            if decision.action == Action.TOUCH:
                touched.append(_touched(decision, report))
                if len(touched) >= TOUCH_BATCH:
                    rows, touched = touched, []
                    _commit_touched(store, rows, control)
            else:
                _reuse(store, decision, report, control)
    except Cancelled:
        _commit_touched(store, touched, control)  # what was decided is kept
        raise
    _commit_touched(store, touched, control)


def drop(
    store: LanceStore, removed: Sequence[DocumentRecord], report: IndexReport, control: RunControl
) -> bool:
    """Drop the rows and chunks of files that are gone; whether anything was."""
    if not removed:
        return False
    store.remove([d.doc_id for d in removed])
    # A file the user had removed and that is now gone from the disk too: forgotten.
    gone = [d for d in removed if d.status != Status.EXCLUDED]
    report.removed = len(gone)
    for doc in gone:
        control.file(FileEvent(doc.path, "removed"))
    return True


@dataclass(frozen=True, slots=True)
class Removal:
    """Documents the user removes from the index (the disk is not touched). A file removed by
    its own path while it is still on disk stays out: its row is kept, marked excluded, so
    reconciling its folder does not add it back; indexing it by its path does. Removing a
    folder, or a file that is gone, forgets them altogether."""

    doomed: list[DocumentRecord]  # at or under the paths, in the table's order
    excluded: list[DocumentRecord]
    forgotten: list[DocumentRecord]

    @property
    def paths(self) -> list[str]:
        """What was in the index and is no more (a file excluded before is not news)."""
        return [d.path for d in self.doomed if d.status != Status.EXCLUDED]


def removal(store: LanceStore, paths: Sequence[str]) -> Removal:
    """What removing these files and folders drops."""
    roots = [normalize(p) for p in paths]
    doomed = [d for d in store.documents() if any(is_under(d.path, r) for r in roots)]
    excluded = [d for d in doomed if d.path in roots and os.path.isfile(d.path)]
    forgotten = [d for d in doomed if d not in excluded]
    return Removal(doomed, excluded, forgotten)


def remove(store: LanceStore, removal: Removal) -> None:
    """Commit a removal, holding the writer lock."""
    rows = [_excluded_row(d) for d in removal.excluded]
    store.commit(
        rows,
        [],
        None,
        replace_doc_ids=[d.doc_id for d in rows],
        remove_doc_ids=[d.doc_id for d in removal.forgotten],
    )


def _touched(decision: Decision, report: IndexReport) -> DocumentRecord:
    """A file with new times and the same content: only its row changes."""
    info, source = decision.info, decision.source
    assert source is not None
    report.unchanged += 1
    return replace(source, size=info.size, mtime_ns=info.mtime_ns)


def _commit_touched(store: LanceStore, records: list[DocumentRecord], control: RunControl) -> None:
    if not records:
        return
    store.commit(records, [], None)
    for record in records:
        control.file(FileEvent(record.path, Status.INDEXED, record.pages, record.chunks))


def _reuse(store: LanceStore, decision: Decision, report: IndexReport, control: RunControl) -> None:
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
    rows = store.chunk_rows(source.doc_id)
    chunks = rechunk_ids((chunk_from_row(r) for r in rows), doc_id, info.path)
    vectors = np.asarray([r["vector"] for r in rows], dtype=np.float32)
    remove = [source.doc_id] if decision.action == Action.RENAME else []
    # A source still waiting for its vectors: the copy waits too (the run fills both).
    waiting = any(r.get("pending") for r in rows)
    store.commit(
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
    control.file(FileEvent(info.path, Status.INDEXED, record.pages, record.chunks))


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
