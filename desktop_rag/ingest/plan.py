"""What a run does with each file, decided before anything is read: the index repaired after a
crash, the files compared with it (size and mtime, then content hash), and each one to read,
to reuse (touched, renamed, copied) or to drop."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from desktop_rag.infra import priority
from desktop_rag.infra.paths import normalize
from desktop_rag.ingest import scan
from desktop_rag.ingest.control import RunControl
from desktop_rag.ingest.extract import sha256_file
from desktop_rag.ingest.progress import Tracker
from desktop_rag.ingest.scan import Action, Decision, decide
from desktop_rag.store import maintenance
from desktop_rag.store.lance import LanceStore
from desktop_rag.types import DocumentRecord, FailKind, FileInfo, IndexReport

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RunPlan:
    """A run's decisions."""

    known: list[DocumentRecord]  # the documents table, after the repair and the OCR marks
    reused: list[Decision]  # known content under a new path or time: its chunks are reused
    to_read: list[Decision]  # new and changed files
    removed: list[DocumentRecord]  # rows whose files are gone
    forced: frozenset[str]  # files to read with OCR on every page

    @property
    def previous(self) -> dict[str, DocumentRecord]:
        """The documents table by path."""
        return {d.path: d for d in self.known}


def plan_run(
    store: LanceStore,
    found: scan.ScanResult,
    passwords: Mapping[str, str],
    ocr_requested: set[str],
    report: IndexReport,
    control: RunControl,
    lowered: priority.Lowered,
) -> RunPlan:
    """Plan a run over the files `scan` found, holding the writer lock. `ocr_requested` is
    taken (emptied): its files are marked to be read with OCR from now on. Unchanged files
    are counted in the report."""
    repaired = maintenance.repair(store)
    if repaired:
        log.warning("re-indexing %d file(s) left half-written by a crash", len(repaired))
    known, ocr_new = _mark_ocr_requested(store, store.documents(), ocr_requested)
    todo = scan.plan(found.files, found.folders, known, found.named, found.online or {})
    # A password given since the last run makes a password failure worth another try.
    unlocked = [
        d for d in todo.unchanged if d.error_kind == FailKind.PASSWORD and d.path in passwords
    ]
    for doc in unlocked:
        todo.unchanged.remove(doc)
        todo.candidates.append(found.files[doc.path])
    report.unchanged = len(todo.unchanged)
    decisions, removed = _decide(todo.candidates, todo.removed, known, control, lowered)
    return RunPlan(
        known,
        reused=[d for d in decisions if d.action != Action.INDEX],
        to_read=[d for d in decisions if d.action == Action.INDEX],
        removed=removed,
        forced=frozenset({d.path for d in known if d.ocr} | ocr_new),
    )


def _mark_ocr_requested(
    store: LanceStore, known: list[DocumentRecord], requested: set[str]
) -> tuple[list[DocumentRecord], set[str]]:
    """Record "read with OCR" on the rows of the files asked for (chunks kept until they are
    read again); the documents table as it now stands, and the files asked for that are not
    in the index yet (read with OCR in this run, their rows record it)."""
    wanted = {normalize(p) for p in requested}
    marked = [replace(d, ocr=True) for d in known if d.path in wanted and not d.ocr]
    requested.clear()
    new = wanted - {d.path for d in known}
    if not marked:
        return known, new
    store.commit(marked, [], None)
    by_id = {d.doc_id: d for d in marked}
    return [by_id.get(d.doc_id, d) for d in known], new


def _decide(
    candidates: list[FileInfo],
    removed: list[DocumentRecord],
    known: list[DocumentRecord],
    control: RunControl,
    lowered: priority.Lowered,
) -> tuple[list[Decision], list[DocumentRecord]]:
    """What to do with each candidate (read, reuse, touch), hashing them when there is
    something known to recognise; and the rows to drop."""
    # Hashing is only worth it when there is something to recognise.
    hasher: Callable[[str], str] = (
        (lambda path: lowered.call(sha256_file, path)) if known else (lambda _path: "")
    )
    hashing = Tracker(control.on_progress, len(candidates), sum(i.size for i in candidates))

    def hashed(info: FileInfo) -> None:
        control.checkpoint()
        hashing.files_done += 1
        hashing.bytes_done += info.size
        hashing.emit("hashing", info.path, message="Checking which files changed")

    if known and candidates:
        hashing.emit("hashing", force=True, message="Checking which files changed")
    return decide(candidates, removed, known, hasher, hashed if known else None)
