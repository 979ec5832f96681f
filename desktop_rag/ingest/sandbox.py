"""Extraction in reader processes, ahead of the embedder, with a time and memory limit per file.

A pathological PDF can hang a reader or eat all memory; in a reader process it costs only that
file: the process is killed, the file is reported, and a fresh process carries on with the rest.
The processes are a pebble ProcessPool: each file is a task with its own future, so its result,
its time-out and the crash of the process reading it can only ever be that file's.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import multiprocessing as mp
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from pebble import ProcessExpired, ProcessPool

from desktop_rag.infra import priority
from desktop_rag.ingest.extract import Extracted, ExtractError, extract
from desktop_rag.ingest.outline import Heading
from desktop_rag.types import FailKind, Page

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 300.0
DEFAULT_MEMORY_MB = 3072
# Files read by one process before a fresh one takes over: a long-lived reader slowly
# fragments its heap, and pdfium keeps caches between documents.
MAX_TASKS = 200
AHEAD = 2  # files handed to the readers beyond the one being embedded


@dataclass(frozen=True, slots=True)
class Job:
    path: str
    password: str | None = None


Outcome = Extracted | ExtractError
ReadFn = Callable[[str, "str | None"], Extracted]
# What crosses the pipe: plain tuples, since ExtractError does not survive pickling.
_Wire = tuple[Any, ...]


def _init_reader(memory_mb: int, low_priority: bool) -> None:
    """Runs once in each reader process: low priority, the memory limit, and quiet logs."""
    if low_priority:
        priority.lower_process()
    if memory_mb > 0:
        try:
            import resource

            limit = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ImportError, ValueError, OSError):  # not on this platform
            pass
    logging.disable(logging.WARNING)  # pypdf chatters about every odd font


def _read(job: Job, read: ReadFn, memory_mb: int) -> _Wire:
    """One file in a reader process; every error becomes a value, never a dead process."""
    pid = os.getpid()
    try:
        result = read(job.path, job.password)
        pages = [(p.number, p.text, p.section) for p in result.pages]
        headings = [(h.page, h.level, h.title) for h in result.outline]
        return ("ok", pid, pages, result.reader, result.sha256, headings)
    except ExtractError as exc:
        return ("err", pid, exc.kind.value, str(exc))
    except MemoryError:
        return ("err", pid, FailKind.MEMORY.value, _memory_message(memory_mb))
    except Exception as exc:  # one strange file must not end the process
        return ("err", pid, FailKind.CORRUPT.value, f"could not be read ({exc}).")


def _memory_message(memory_mb: int) -> str:
    return (
        f"needs more than {memory_mb} MB of memory to read, so it was skipped to protect "
        "the rest of your library. Splitting it into smaller PDFs usually helps."
    )


def _timeout_message(seconds: float) -> str:
    return (
        f"took longer than {seconds:.0f} s to read, so it was skipped to keep the rest of "
        "your library moving. It may be damaged or unusually complex."
    )


def _crash_error(code: int | None, memory_mb: int) -> ExtractError:
    # Killed (OOM killer), aborted (a failed allocation in C++), or a Python error while
    # sending the result: with a memory limit in force these mean the limit was hit.
    if code in (-9, -6, 1):
        return ExtractError(FailKind.MEMORY, _memory_message(memory_mb))
    return ExtractError(
        FailKind.CORRUPT,
        "made the PDF reader crash, so it was skipped to protect the rest of your library. "
        "It is probably damaged; try opening and re-saving it in a PDF viewer.",
    )


class Sandbox:
    """Reader processes fed `ahead` files beyond the one being embedded.

    `workers` processes read in parallel (one is enough beside an embedder that uses every
    core); each is replaced after `max_tasks` files. `pids` holds every reader process that
    returned a result, for tests and logs.
    """

    def __init__(
        self,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        memory_mb: int = DEFAULT_MEMORY_MB,
        ahead: int = AHEAD,
        *,
        max_tasks: int | None = None,
        workers: int = 1,
        read: ReadFn = extract,
        low_priority: bool = True,
    ) -> None:
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self.ahead = max(1, ahead)
        self.max_tasks = MAX_TASKS if max_tasks is None else max_tasks
        self.workers = max(1, workers)
        self.read = read
        self.low_priority = low_priority
        self.pids: set[int] = set()
        self._pool: ProcessPool | None = None
        self._lock = threading.Lock()

    def _ensure_pool(self) -> ProcessPool:
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPool(
                    max_workers=self.workers,
                    max_tasks=self.max_tasks,
                    initializer=_init_reader,
                    initargs=(self.memory_mb, self.low_priority),
                    # Never fork a process that holds torch, ONNX and Lance threads.
                    context=mp.get_context("spawn"),
                )
            return self._pool

    def close(self) -> None:
        """Stop the readers; a file still being read is abandoned (its process killed)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.stop()
            pool.join(10)

    def alive(self) -> bool:
        """Whether reader processes may still be running."""
        return self._pool is not None

    def run(
        self, jobs: Iterable[Job], cancel: threading.Event | None = None
    ) -> Iterator[tuple[Job, Outcome]]:
        """Yield each job with its own outcome as it is read, keeping `ahead` files in flight
        (queued ones are handed over while the caller works on the last one yielded)."""
        pending = iter(jobs)
        in_flight: dict[cf.Future[_Wire], Job] = {}
        exhausted = False

        def fill() -> None:
            nonlocal exhausted
            while not exhausted and len(in_flight) < self.ahead + self.workers - 1:
                job = next(pending, None)
                if job is None:
                    exhausted = True
                    return
                future = self._ensure_pool().schedule(
                    _read, args=(job, self.read, self.memory_mb), timeout=self.timeout_s
                )
                in_flight[future] = job

        try:
            fill()
            while in_flight:
                if cancel is not None and cancel.is_set():
                    return
                done, _ = cf.wait(in_flight, timeout=0.2, return_when=cf.FIRST_COMPLETED)
                ready = [(f, in_flight.pop(f)) for f in list(in_flight) if f in done]
                fill()  # before yielding, so the readers work while the caller does
                for future, job in ready:
                    if cancel is not None and cancel.is_set():
                        return
                    yield job, self._outcome(job, future)
        finally:
            if cancel is not None and cancel.is_set():
                self.close()  # a file being read is abandoned, not waited for
            else:
                for future in in_flight:
                    future.cancel()

    def _outcome(self, job: Job, future: cf.Future[_Wire]) -> Outcome:
        try:
            wire = future.result()
        except TimeoutError:
            log.warning("reading %s timed out after %.0fs", job.path, self.timeout_s)
            return ExtractError(FailKind.TIMEOUT, _timeout_message(self.timeout_s))
        except ProcessExpired as exc:
            log.warning("the reader process died on %s (exit code %s)", job.path, exc.exitcode)
            return _crash_error(exc.exitcode, self.memory_mb)
        except cf.CancelledError:
            return ExtractError(FailKind.ERROR, "was not read: indexing stopped first.")
        except Exception as exc:  # the pool itself failed, not the file: worth another try
            log.warning("the reader pool failed on %s: %s", job.path, exc)
            return ExtractError(
                FailKind.ERROR, f"could not be read this time ({exc}); it will be retried."
            )
        self.pids.add(wire[1])
        if wire[0] == "ok":
            _, _, pages, reader, sha, headings = wire
            outline = tuple(Heading(*h) for h in headings)
            return Extracted([Page(*page) for page in pages], reader, sha, outline)
        _, _, kind, text = wire
        return ExtractError(FailKind(kind), text)


def run_inline(
    jobs: Iterable[Job], cancel: threading.Event | None = None
) -> Iterator[tuple[Job, Outcome]]:
    """The same contract in this thread, without limits: for tests and tiny jobs."""
    for job in jobs:
        if cancel is not None and cancel.is_set():
            return
        try:
            yield job, extract(job.path, job.password)
        except ExtractError as exc:
            yield job, exc
