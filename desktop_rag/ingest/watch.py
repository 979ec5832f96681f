"""Watch folders for documents that appear, change, move or vanish; report them once they settle.

The watcher never reads a document. It notes which watched folder (or watched file) saw a change,
waits until every changed path has stopped changing for `quiet_s` (so a file still being
copied is not read half-written), and then reports the folder. The caller reconciles that
folder with the index, which also recognises renames by content hash.

A folder the system cannot watch (its limit of inotify watches is reached) or that sends no
events for changes made elsewhere (a network share) is reported every `recheck_s` instead,
so it is reconciled periodically; `polled` says which and why.
"""

from __future__ import annotations

import errno
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from watchdog.events import FileSystemEvent, FileSystemEventHandler

from desktop_rag.infra.paths import is_under, normalize
from desktop_rag.ingest.control import RunControl
from desktop_rag.ingest.scan import file_info, is_candidate
from desktop_rag.types import FileInfo

if TYPE_CHECKING:
    from desktop_rag.store.lance import LanceStore
    from desktop_rag.types import IndexReport

log = logging.getLogger(__name__)

QUIET_S = 1.0  # a path must be still this long before it is reported
MAX_WAIT_S = 30.0  # ...unless it keeps changing this long; the pipeline re-checks it anyway
POLL_S = 0.25
RECHECK_S = 300.0  # how often a folder that cannot be watched is reconciled instead
# File systems whose changes made by other machines never reach inotify.
NETWORK_FS = frozenset(
    {"nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "afs", "ceph", "glusterfs", "davfs"}
)
NETWORK_FUSE = ("fuse.sshfs", "fuse.rclone", "fuse.gvfsd-fuse", "fuse.s3fs", "fuse.davfs")


def filesystem_type(path: str) -> str:
    """The type of the file system holding path ("" when it cannot be told: not Linux)."""
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as f:
            mounts = [line.split() for line in f]
    except OSError:
        return ""
    best, kind = "", ""
    real = os.path.realpath(path)
    for fields in mounts:
        if len(fields) < 3:
            continue
        point = fields[1].replace("\\040", " ")
        if is_under(real, point) and len(point) > len(best):
            best, kind = point, fields[2]
    return kind


def is_network_fs(kind: str) -> bool:
    return kind in NETWORK_FS or kind.startswith(NETWORK_FUSE)


def _every(seconds: float) -> str:
    minutes = seconds / 60
    if minutes >= 1:
        n = round(minutes)
        return "every minute" if n == 1 else f"every {n} minutes"
    n = max(1, round(seconds))
    return "every second" if n == 1 else f"every {n} seconds"


@dataclass(frozen=True, slots=True)
class Change:
    """Watched roots whose contents changed, and the paths seen changing under them."""

    roots: tuple[str, ...]
    paths: tuple[str, ...]


@dataclass(slots=True)
class _Seen:
    root: str
    stat: FileInfo | None  # None when the path is gone
    first: float
    last_change: float


def _relevant(path: str, is_dir: bool) -> bool:
    name = os.path.basename(path)
    if name.startswith("."):
        return False
    return is_dir or is_candidate(name)


class _Handler(FileSystemEventHandler):
    """Routes one root's events to the watcher; a file root watches its folder, filtered."""

    def __init__(self, watcher: Watcher, root: str, single_file: bool) -> None:
        self.watcher = watcher
        self.root = root
        self.single_file = single_file

    def on_any_event(self, event: FileSystemEvent) -> None:
        self.watcher._on_event(self.root, self.single_file, event)


class Watcher:
    """Report settled changes under a set of roots (folders, or single files) to `on_change`.

    `on_change` is called from the watcher's own thread, one call per settled batch.
    """

    def __init__(
        self,
        on_change: Callable[[Change], None],
        *,
        quiet_s: float = QUIET_S,
        max_wait_s: float = MAX_WAIT_S,
        poll_s: float | None = POLL_S,
        clock: Callable[[], float] = time.monotonic,
        recheck_s: float | None = None,
    ) -> None:
        """`poll_s=None` runs no settle thread: the caller calls `settle()` (tests do, with
        their own `clock`, so that what counts as quiet never depends on the machine's load)."""
        self.on_change = on_change
        self.quiet_s = quiet_s
        self.max_wait_s = max_wait_s
        self.poll_s = poll_s
        self.clock = clock
        self.recheck_s = RECHECK_S if recheck_s is None else recheck_s
        self.polled: dict[str, str] = {}  # root -> why it is reconciled periodically instead
        self._rechecked: dict[str, float] = {}  # root -> when it was last reported for that
        self._lock = threading.Lock()
        self._pending: dict[str, _Seen] = {}
        self._roots: dict[str, Any] = {}  # root -> watchdog ObservedWatch
        self.errors: dict[str, str] = {}  # root -> why it cannot be watched
        self._observer: Any = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> Watcher:
        from watchdog.observers import Observer

        if self._observer is not None:
            return self
        self._stop.clear()
        self._observer = Observer()
        self._observer.daemon = True
        self._observer.start()
        if self.poll_s is not None:
            self._thread = threading.Thread(
                target=self._settle_loop, args=(self.poll_s,), name="watch-settle", daemon=True
            )
            self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        """Stop watching; changes not yet settled are dropped (the next start reconciles)."""
        self._stop.set()
        observer, self._observer = self._observer, None
        if observer is not None:
            observer.stop()
            observer.join(timeout)
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        with self._lock:
            self._roots.clear()
            self._pending.clear()
            self._rechecked.clear()

    def __enter__(self) -> Watcher:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def roots(self) -> list[str]:
        with self._lock:
            return sorted(self._roots)

    @property
    def problems(self) -> dict[str, str]:
        """Every root not watched live, and why (the window and the CLI show these)."""
        return {**self.polled, **self.errors}

    def set_roots(self, roots: Iterable[str]) -> None:
        """Watch exactly these folders and files; a root that cannot be watched is in `errors`.

        Our lock is never held while calling the observer: its dispatch thread holds the
        observer's lock while it delivers events to us.
        """
        observer = self._observer
        if observer is None:
            raise RuntimeError("start() the watcher first")
        wanted = {normalize(r) for r in roots}
        with self._lock:
            dropped = {r: self._roots.pop(r) for r in set(self._roots) - wanted}
            watching = {r for r, w in self._roots.items() if w is not None}
        for root, watch in dropped.items():
            self.errors.pop(root, None)
            self.polled.pop(root, None)
            with self._lock:
                self._rechecked.pop(root, None)
            if watch is not None:
                observer.unschedule(watch)
        every = _every(self.recheck_s)
        for root in sorted(wanted - watching):  # roots that failed before are tried again
            watch, error, polled = None, "", ""
            if not os.path.exists(root):
                error = "does not exist"
            else:
                folder = os.path.isdir(root)
                handler = _Handler(self, root, single_file=not folder)
                target = root if folder else os.path.dirname(root)
                kind = filesystem_type(target)
                try:
                    watch = observer.schedule(handler, target, recursive=folder)
                except OSError as exc:
                    why = exc.strerror or str(exc)
                    if exc.errno == errno.ENOSPC or "limit" in why:
                        why = "the system's limit of watched folders is reached"
                    polled = f"cannot be watched ({why}): it is checked for changes {every}"
                    log.warning("cannot watch %s (%s); reconciling it %s", root, exc, every)
                if not polled and is_network_fs(kind):
                    # inotify sees only what this machine changes there.
                    polled = (
                        f"is on a network drive ({kind}), which does not report changes made "
                        f"elsewhere: it is checked for changes {every}"
                    )
                    log.info("%s is on %s; reconciling it %s", root, kind, every)
            with self._lock:
                self._roots[root] = watch
                if polled:
                    self._rechecked.setdefault(root, self.clock())
                else:
                    self._rechecked.pop(root, None)
            if error:
                self.errors[root] = error
            else:
                self.errors.pop(root, None)
            if polled:
                self.polled[root] = polled
            else:
                self.polled.pop(root, None)

    # -- events ----------------------------------------------------------------------------------

    def _on_event(self, root: str, single_file: bool, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return  # reading a file (we do, to index it) is not a change
        if event.is_directory and event.event_type in ("modified", "attrib", "closed"):
            return  # a folder's own listing changed: the file events say what matters
        paths = [event.src_path]
        if event.dest_path:
            paths.append(event.dest_path)
        for raw in paths:
            path = os.fsdecode(raw)
            if single_file and path != root:
                continue
            if _relevant(path, event.is_directory):
                self._note(root, path)

    def _note(self, root: str, path: str) -> None:
        """A path changed: it must be still for quiet_s from now. An event that arrives late,
        for a file that has not changed since it was last looked at, starts no new wait."""
        now = self.clock()
        stat = file_info(path)
        with self._lock:
            seen = self._pending.get(path)
            if seen is None:
                self._pending[path] = _Seen(root, stat, now, now)
            elif stat != seen.stat:
                seen.stat = stat
                seen.last_change = now

    @property
    def pending(self) -> list[str]:
        """Paths seen changing and not reported yet."""
        with self._lock:
            return sorted(self._pending)

    def settle(self) -> Change | None:
        """Report (to `on_change`, and return) what has been quiet long enough by `clock()`."""
        batch = self._settled(self.clock())
        if batch is not None:
            self.on_change(batch)
        return batch

    def _settle_loop(self, poll_s: float) -> None:
        while not self._stop.wait(poll_s):
            try:
                self.settle()
            except Exception:  # a failing consumer must not end the watching
                log.exception("handling a folder change failed")

    def _settled(self, now: float) -> Change | None:
        """The roots whose every changed path has been still for quiet_s (or waited too long)."""
        with self._lock:
            for path, seen in self._pending.items():
                stat = file_info(path)
                if stat != seen.stat:
                    seen.stat = stat
                    seen.last_change = now
            busy_roots = {
                s.root
                for s in self._pending.values()
                if now - s.last_change < self.quiet_s and now - s.first < self.max_wait_s
            }
            ready = {p: s for p, s in self._pending.items() if s.root not in busy_roots}
            for path in ready:
                del self._pending[path]
            due = [r for r, t in self._rechecked.items() if now - t >= self.recheck_s]
            for root in due:
                self._rechecked[root] = now
        if not ready and not due:
            return None
        roots = tuple(sorted({s.root for s in ready.values()} | set(due)))
        return Change(roots, tuple(sorted(ready)))


class Indexer(Protocol):
    """What `reindex` needs. The App fits (it records the roots for a rebuild after damage,
    and refuses to write into an index that needs rebuilding); so does an IngestService."""

    @property
    def store(self) -> LanceStore: ...

    def index(self, paths: Sequence[str], control: RunControl | None = None) -> IndexReport: ...

    def remove(self, paths: Sequence[str]) -> list[str]: ...


def reindex(
    indexer: Indexer, roots: Sequence[str], control: RunControl | None = None
) -> IndexReport:
    """Reconcile watched roots with the index: present ones are indexed, a vanished file is
    dropped from the index; a vanished folder is left alone (it may be an unplugged drive)."""
    from desktop_rag.types import IndexReport

    present = [r for r in roots if os.path.exists(r)]
    gone_files = [r for r in roots if not os.path.exists(r) and not _was_folder(indexer, r)]
    control = control or RunControl()
    report = indexer.index(present, control) if present else IndexReport()
    if gone_files and not report.cancelled:
        removed = indexer.remove(gone_files)
        report.removed += len(removed)
        from desktop_rag.types import FileEvent

        for path in removed:
            control.file(FileEvent(path, "removed"))
    return report


def _was_folder(indexer: Indexer, root: str) -> bool:
    """Whether the index holds documents under `root` as a folder (not the file itself)."""
    return any(is_under(d.path, root) and d.path != root for d in indexer.store.documents())
