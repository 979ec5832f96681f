"""Find the documents under the given paths and decide what indexing must do with each."""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from desktop_rag.infra import cloud
from desktop_rag.infra import paths as syspaths
from desktop_rag.infra.paths import is_under, normalize
from desktop_rag.ingest.readers import SUFFIXES, reader_for
from desktop_rag.types import DocumentRecord, FailKind, FileInfo, Status

log = logging.getLogger(__name__)

PDF_SUFFIX = ".pdf"
# Failures that may go away without the file changing (permissions fixed, copy finished, the
# program that locked it closed, a busy machine): an indexed file keeps its chunks meanwhile.
TRANSIENT_KINDS = frozenset(
    {FailKind.UNREADABLE, FailKind.LOCKED, FailKind.TIMEOUT, FailKind.CHANGING, FailKind.ERROR}
)
# A file that failed the same way this many runs in a row waits until it changes.
MAX_SAME_FAILURES = 3


def doc_id_for(path: str) -> str:
    """A stable id from the path: re-indexing after a crash replaces rather than duplicates."""
    return hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:24]


def format_for(path: str) -> str:
    """The format a file is read as, from its name ("pdf", "docx", ...)."""
    reader = reader_for(path)
    return reader.format if reader is not None else "pdf"


def is_candidate(name: str) -> bool:
    """A document by name (a PDF or a format of ingest.readers), not a hidden file or an
    office lock file."""
    suffix = os.path.splitext(name)[1].lower()
    return (suffix == PDF_SUFFIX or suffix in SUFFIXES) and not name.startswith((".", "~$"))


@dataclass(slots=True)
class ScanResult:
    files: dict[str, FileInfo] = field(default_factory=dict)
    folders: list[str] = field(default_factory=list)  # roots that are folders
    named: list[str] = field(default_factory=list)  # roots that are files
    problems: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    # Online-only files (infra/cloud.py): path -> why. Never read, never dropped from the index.
    online: dict[str, str] = field(default_factory=dict)


def scan(paths: Iterable[str]) -> ScanResult:
    """Every document under the paths, following folder symlinks once (loops are cut)."""
    result = ScanResult()
    for raw in paths:
        root = normalize(raw)
        if os.path.isdir(root):
            result.folders.append(root)
            _walk(root, result)
        elif os.path.isfile(root):
            info = file_info(root, result.problems, result.online)
            if info is not None:
                result.files[root] = info
                result.named.append(root)
        else:
            result.problems.append((root, "does not exist"))
    return result


def _walk(root: str, result: ScanResult) -> None:
    seen: set[tuple[int, int]] = set()

    def on_error(exc: OSError) -> None:
        result.problems.append((exc.filename or root, f"cannot be listed ({exc.strerror})"))

    # Walked by its long form on Windows (past 260 characters); every path kept is plain.
    for long_folder, dirs, names in os.walk(
        syspaths.long_path(root), followlinks=True, onerror=on_error
    ):
        folder = syspaths.plain_path(long_folder)
        try:
            st = os.stat(long_folder)
        except OSError:
            dirs[:] = []
            continue
        key = (st.st_dev, st.st_ino)
        if key in seen:  # a symlink loop, or the same folder reached twice
            dirs[:] = []
            continue
        seen.add(key)
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if is_candidate(name):
                path = os.path.join(folder, name)
                info = file_info(path, result.problems, result.online)
                if info is not None:
                    result.files[path] = info


def file_info(
    path: str,
    problems: list[tuple[str, str]] | None = None,
    online: dict[str, str] | None = None,
) -> FileInfo | None:
    """What the file system says about a file now; None if it cannot say (gone, unreadable),
    and why, added to `problems` when given; None for a cloud file whose contents are not on
    this computer, and why, added to `online` when given."""
    try:
        st = os.stat(syspaths.long_path(path))
    except OSError as exc:
        if problems is not None:
            problems.append((path, f"cannot be read ({exc.strerror})"))
        return None
    why = cloud.online_only(st)
    if why:
        if online is not None:
            online[path] = why
        return None
    return FileInfo(path, st.st_size, st.st_mtime_ns)


class Action(StrEnum):
    INDEX = "index"  # extract, chunk, embed
    TOUCH = "touch"  # same content, new size/mtime: update the row only
    RENAME = "rename"  # content known under a path that is gone: move its chunks
    COPY = "copy"  # content known under another live path: copy its chunks


@dataclass(frozen=True, slots=True)
class Decision:
    action: Action
    info: FileInfo
    sha256: str = ""
    source: DocumentRecord | None = None


@dataclass(slots=True)
class Plan:
    """What an index run will do. `candidates` still need their hash to be decided."""

    unchanged: list[DocumentRecord] = field(default_factory=list)
    candidates: list[FileInfo] = field(default_factory=list)
    removed: list[DocumentRecord] = field(default_factory=list)
    excluded: list[DocumentRecord] = field(default_factory=list)  # removed by the user


OCR_READER = "ocr"  # documents.reader of a file read with OCR on every page


def wants_ocr(doc: DocumentRecord) -> bool:
    """Asked to be read with OCR ("Read with OCR") and not read so since: a change."""
    return doc.ocr and doc.reader != OCR_READER and doc.status != Status.EXCLUDED


def gave_up(doc: DocumentRecord, info: FileInfo) -> bool:
    """This very version of the file failed the same passing way too many runs in a row."""
    return (
        doc.error_kind in TRANSIENT_KINDS
        and doc.failures >= MAX_SAME_FAILURES
        and (doc.failed_size, doc.failed_mtime_ns) == (info.size, info.mtime_ns)
    )


def plan(
    files: Mapping[str, FileInfo],
    folders: Sequence[str],
    known: Sequence[DocumentRecord],
    named: Iterable[str] = (),
    online: Iterable[str] = (),
) -> Plan:
    """Compare size and mtime with the documents table; no file is read here. A file that is
    `online` only (in the cloud) is neither read nor removed: what was indexed stays.

    A file the user removed stays out, unless it is among `named` (given by its own path); a
    file that failed is read again when it is named, even unchanged.
    """
    by_path = {d.path: d for d in known}
    named = set(named)
    out = Plan()
    for path, info in files.items():
        doc = by_path.get(path)
        if doc is not None and wants_ocr(doc):  # the user asked to read it with OCR
            out.candidates.append(info)
            continue
        if doc is not None and doc.status == Status.EXCLUDED:
            if path in named:  # indexing a removed file by name brings it back
                out.candidates.append(info)
            else:
                out.excluded.append(doc)
            continue
        if doc is not None and doc.status == Status.FAILED and path in named:
            out.candidates.append(info)  # "Index again": the user asks, whatever failed before
            continue
        if doc is not None and (doc.size, doc.mtime_ns) == (info.size, info.mtime_ns):
            failed_for_good = doc.status == Status.FAILED and doc.error_kind not in TRANSIENT_KINDS
            if doc.status == Status.INDEXED or failed_for_good:
                out.unchanged.append(doc)
                continue
        if doc is not None and gave_up(doc, info):
            out.unchanged.append(doc)
            continue
        out.candidates.append(info)
    online = set(online)
    folded = {path.casefold(): path for path in files}
    for doc in known:
        if doc.path in online or doc.path in files:
            continue
        if any(is_under(doc.path, f) for f in folders) or _respelled(doc.path, folded):
            out.removed.append(doc)
    return out


def _respelled(path: str, folded: Mapping[str, str]) -> bool:
    """Whether a file found under another spelling is this indexed path: a case-insensitive
    file system after a rename that only changed case. Its old row is then removed and the
    content recognised as a rename (a named file is not under any folder that was listed)."""
    other = folded.get(path.casefold())
    if other is None:
        return False
    try:
        return os.path.samefile(path, other)
    except OSError:
        return False


def decide(
    candidates: Sequence[FileInfo],
    removed: Sequence[DocumentRecord],
    known: Sequence[DocumentRecord],
    hash_file: Callable[[str], str],
    on_hashed: Callable[[FileInfo], None] | None = None,
) -> tuple[list[Decision], list[DocumentRecord]]:
    """Hash the candidates and choose how each is handled; returns (decisions, still removed).

    `on_hashed` is called after each file (for progress; it may raise to cancel).

    A candidate whose content matches a document whose path disappeared is a rename; one that
    matches a live indexed document is a copy; one whose path is known with the same hash was
    only touched. Everything else is indexed.
    """
    by_path = {d.path: d for d in known}
    gone = {d.doc_id for d in removed}
    live_by_sha: dict[str, DocumentRecord] = {}
    gone_by_sha: dict[str, list[DocumentRecord]] = {}
    for d in known:
        if d.status != Status.INDEXED or not d.sha256:
            continue
        if d.doc_id in gone:
            gone_by_sha.setdefault(d.sha256, []).append(d)
        else:
            live_by_sha.setdefault(d.sha256, d)
    decisions: list[Decision] = []
    renamed: set[str] = set()
    for info in candidates:
        try:
            sha = hash_file(info.path)
        except OSError as exc:
            log.debug("cannot hash %s: %s", info.path, exc)
            sha = ""
        if on_hashed is not None:
            on_hashed(info)
        if not sha:
            decisions.append(Decision(Action.INDEX, info))  # extraction will report why
            continue
        same_path = by_path.get(info.path)
        if (
            same_path is not None
            and same_path.sha256 == sha
            and same_path.status == "indexed"
            and not wants_ocr(same_path)
        ):
            decisions.append(Decision(Action.TOUCH, info, sha, same_path))
        elif gone_by_sha.get(sha):
            source = gone_by_sha[sha].pop()
            renamed.add(source.doc_id)
            decisions.append(Decision(Action.RENAME, info, sha, source))
        elif sha in live_by_sha and live_by_sha[sha].path != info.path:
            decisions.append(Decision(Action.COPY, info, sha, live_by_sha[sha]))
        else:
            decisions.append(Decision(Action.INDEX, info, sha))
    still_removed = [d for d in removed if d.doc_id not in renamed]
    return decisions, still_removed
