"""Extraction in a child process, ahead of the embedder, with a time and memory limit per file.

A pathological PDF can hang a reader or eat all memory; in the child it costs only that file:
the child is killed, the file is reported, and a fresh child carries on with the rest.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing as mp
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from desktop_rag.ingest.extract import Extracted, ExtractError, extract
from desktop_rag.types import FailKind, Page

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 300.0
DEFAULT_MEMORY_MB = 3072
_RECYCLE_AFTER = 200  # files; a long-lived reader process slowly fragments its heap


@dataclass(frozen=True, slots=True)
class Job:
    path: str
    password: str | None = None


Outcome = Extracted | ExtractError


def _serve(conn: Connection, memory_mb: int) -> None:
    """The child's loop: read a path, send back the pages or the error, until told to stop."""
    if memory_mb > 0:
        try:
            import resource

            limit = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ImportError, ValueError, OSError):  # not on this platform
            pass
    logging.disable(logging.WARNING)  # pypdf chatters about every odd font
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        try:
            result = extract(job.path, job.password)
            conn.send(
                (
                    "ok",
                    [(p.number, p.text, p.section) for p in result.pages],
                    result.reader,
                    result.sha256,
                )
            )
        except ExtractError as exc:
            conn.send(("err", exc.kind.value, str(exc)))
        except MemoryError:
            conn.send(("err", FailKind.MEMORY.value, _memory_message(memory_mb)))
        except Exception as exc:  # never let one file end the loop
            conn.send(("err", FailKind.CORRUPT.value, f"could not be read ({exc})."))


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


def _from_wire(message: tuple[Any, ...]) -> Outcome:
    if message[0] == "ok":
        _, pages, reader, sha = message
        return Extracted([Page(*page) for page in pages], reader, sha)
    _, kind, text = message
    return ExtractError(FailKind(kind), text)


class Sandbox:
    """A reader process fed a few files ahead, so extraction overlaps embedding."""

    def __init__(
        self,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        memory_mb: int = DEFAULT_MEMORY_MB,
        ahead: int = 2,
    ) -> None:
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self.ahead = max(1, ahead)
        self._proc: Any = None
        self._conn: Connection | None = None
        self._served = 0
        self._lock = threading.Lock()

    def _start(self) -> None:
        ctx = mp.get_context("spawn")  # never fork a process that holds torch and lance threads
        parent, child = ctx.Pipe()
        proc = ctx.Process(
            target=_serve, args=(child, self.memory_mb), name="desktop-rag-reader", daemon=True
        )
        proc.start()
        child.close()
        self._proc, self._conn, self._served = proc, parent, 0

    def _kill(self) -> None:
        proc, conn = self._proc, self._conn
        self._proc = self._conn = None
        if conn is not None:
            conn.close()
        if proc is not None and proc.is_alive():
            proc.kill()
            proc.join(5)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                with contextlib.suppress(OSError):
                    self._conn.send(None)
            if self._proc is not None:
                self._proc.join(2)
            self._kill()

    def run(
        self, jobs: Iterable[Job], cancel: threading.Event | None = None
    ) -> Iterator[tuple[Job, Outcome]]:
        """Yield each job with its outcome, in order, keeping `ahead` files in flight."""
        pending = iter(jobs)
        in_flight: deque[Job] = deque()
        exhausted = False
        try:
            while True:
                if cancel is not None and cancel.is_set():
                    self._kill()
                    return
                while not exhausted and len(in_flight) < self.ahead:
                    job = next(pending, None)
                    if job is None:
                        exhausted = True
                        break
                    self._send(job)
                    in_flight.append(job)
                if not in_flight:
                    return
                job = in_flight[0]
                outcome = self._receive(job, cancel)
                if outcome is None:  # cancelled while waiting
                    self._kill()
                    return
                in_flight.popleft()
                if self._conn is None:
                    # The child was killed or died; resend what it had queued to a fresh one.
                    for queued in in_flight:
                        self._send(queued)
                yield job, outcome
        finally:
            if cancel is not None and cancel.is_set():
                self._kill()

    def _send(self, job: Job) -> None:
        if self._conn is None or self._served >= _RECYCLE_AFTER:
            if self._conn is not None:
                self.close()
            self._start()
        assert self._conn is not None
        self._conn.send(job)
        self._served += 1

    def _receive(self, job: Job, cancel: threading.Event | None) -> Outcome | None:
        assert self._conn is not None
        deadline = time.monotonic() + self.timeout_s
        while True:
            if cancel is not None and cancel.is_set():
                return None
            left = deadline - time.monotonic()
            if left <= 0:
                log.warning("reading %s timed out after %.0fs", job.path, self.timeout_s)
                self._kill()
                return ExtractError(FailKind.TIMEOUT, _timeout_message(self.timeout_s))
            try:
                if self._conn.poll(min(left, 0.2)):
                    return _from_wire(self._conn.recv())
            except (EOFError, OSError):
                code = None
                if self._proc is not None:
                    self._proc.join(2)
                    code = self._proc.exitcode
                log.warning("the reader process died on %s (exit code %s)", job.path, code)
                self._kill()
                return _crash_error(code, self.memory_mb)


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
