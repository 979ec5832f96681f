"""Extraction in reader processes, ahead of the embedder, with a time and memory limit per file.

A pathological PDF can hang a reader or eat all memory; in a reader process it costs only that
file: the process is killed, the file is reported, and a fresh process carries on with the rest.
The processes are a pebble ProcessPool: each file is a task with its own future, so its result,
its time-out and the crash of the process reading it can only ever be that file's.
"""

from __future__ import annotations

import collections
import concurrent.futures as cf
import contextlib
import itertools
import logging
import multiprocessing as mp
import os
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from pebble import ProcessExpired, ProcessPool

from desktop_rag.errors import DesktopRagError
from desktop_rag.infra import memory, priority
from desktop_rag.ingest.extract import Extracted, ExtractError, extract
from desktop_rag.ingest.layout import Heading
from desktop_rag.ingest.ocr import OcrDeferred, OcrRequest
from desktop_rag.types import FailKind, Page

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 300.0
DEFAULT_MEMORY_MB = 3072
# Files read by one process before a fresh one takes over: a long-lived reader slowly
# fragments its heap, and pdfium keeps caches between documents.
MAX_TASKS = 200
# Files handed to the readers beyond the one being embedded: enough for the readers to keep
# reading while the pipeline embeds a group of small files (local_engine.GROUP_CHUNKS), instead
# of idling after two files while the group embeds and then keeping the embedder waiting.
AHEAD = 8
# OCR limits, in the reader's CPU seconds (bench/ocr.py: a dense page takes 25-40 s of one
# core here). A page that takes longer than OCR_PAGE_TIMEOUT_S stops its file; a file's limit
# grows by OCR_PAGE_BUDGET_S for each page it has to OCR, so a long scan is not cut by the
# limit made for text PDFs.
OCR_PAGE_TIMEOUT_S = 120.0
OCR_PAGE_BUDGET_S = 30.0
# Pools that may break in a row without a file read in between before the run stops: readers
# that cannot start at all (a damaged install) would otherwise be started again for ever.
MAX_FRUITLESS_POOLS = 3
_READERS_FAILED = (
    "The processes that read your files stopped again and again before reading any, so "
    "indexing stopped. Nothing was lost: the files not read yet are read on the next run. "
    "If this keeps happening, restart the app, or reinstall it if that does not help."
)
STALL_FACTOR = 10.0  # wall time beyond the OCR limits (in CPU seconds) that is a stall


def _cpu_seconds(pid: int) -> float:
    """CPU seconds a reader process has used (0 if it cannot be told)."""
    try:
        import psutil

        times = psutil.Process(pid).cpu_times()
        return float(times.user + times.system)
    except Exception:  # gone, or the platform cannot say: the wall-time backstop remains
        return 0.0


class OcrMode:
    """How a job's pages are read: never with OCR, only where the text layer is unusable, or
    every page (the user said its text layer is garbage)."""

    OFF = "off"
    AUTO = "auto"
    FORCE = "force"


@dataclass(frozen=True, slots=True)
class Job:
    """One file to read. `defer`: a file with pages to OCR is not read now but handed back
    to be read after the others (Deferred), so that one scan does not hold the queue."""

    path: str
    password: str | None = None
    ocr: str = OcrMode.AUTO
    defer: bool = False


@dataclass(frozen=True, slots=True)
class Deferred:
    """A deferred job's outcome: it has `pages` to read with OCR."""

    pages: int


@dataclass(frozen=True, slots=True)
class Reading:
    """Not an outcome but news: the job started reading `pages` pages with OCR, so nothing
    the caller holds back should wait for it. Its outcome follows later."""

    pages: int


Outcome = Extracted | ExtractError
ReadFn = Callable[..., Extracted]
# What crosses the pipe: plain tuples, since ExtractError does not survive pickling.
_Wire = tuple[Any, ...]
OcrFn = Callable[[Job, int, int], None]  # (job, pages done, pages to OCR)
DeferFn = Callable[[Job, int], None]  # (job, pages to OCR), when it is put off

# In a reader process: where to say how far OCR is, and whether to hold between pages.
_channel: Any = None
_pause: Any = None


def _init_reader(
    memory_mb: int, low_priority: bool, channel: Any = None, pause: Any = None
) -> None:
    """Runs once in each reader process: low priority, the memory limit, and quiet logs."""
    global _channel, _pause
    _channel, _pause = channel, pause
    _watch_parent(os.getppid())
    if low_priority:
        priority.lower_process()
    memory.limit(memory_mb)  # RLIMIT_AS, a Job Object on Windows, a watchdog on macOS
    memory.return_large_blocks()  # a page's OCR arrays leave with the page
    logging.disable(logging.WARNING)  # pypdf chatters about every odd font


def _watch_parent(parent: int) -> None:
    """End this reader when the indexer that started it is gone (killed, crashed): a reader
    busy with a long OCR would otherwise keep reading for nobody until its file is done."""

    def watch() -> None:
        import psutil

        while True:
            time.sleep(1.0)
            if os.getppid() != parent or not psutil.pid_exists(parent):
                os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _say(*message: Any) -> None:
    """(kind, token, done, total) with this reader's CPU seconds so far and the time.

    One small message is one write to a pipe every reader shares, which the system keeps
    whole (under PIPE_BUF bytes), so the readers need no lock among them: a reader killed
    while holding a multiprocessing.Queue's lock left every later reader stuck on exit, and
    the run waiting for them for good."""
    if _channel is not None:
        with contextlib.suppress(OSError):  # the indexer is gone: nobody to tell
            _channel.send((*message, time.process_time(), time.time()))


def _read(job: Job, read: ReadFn, memory_mb: int, token: int = 0) -> _Wire:
    """One file in a reader process; every error becomes a value, never a dead process."""
    pid = os.getpid()
    _say("start", token, pid, 0)
    try:
        if job.ocr == OcrMode.OFF:
            result = read(job.path, job.password)
        else:
            pause = _pause
            request = OcrRequest(
                force=job.ocr == OcrMode.FORCE,
                defer=job.defer,
                on_start=lambda total: _say("page", token, 0, total),
                on_page=lambda done, total: _say("page", token, done, total),
                paused=None if pause is None else pause.is_set,
            )
            result = read(job.path, job.password, ocr=request)
        pages = [(p.number, p.text, p.section, p.ocr, p.boxes, p.error) for p in result.pages]
        headings = [(h.page, h.level, h.title) for h in result.outline]
        return ("ok", pid, pages, result.reader, result.sha256, headings, result.date_ns)
    except OcrDeferred as exc:
        return ("defer", pid, exc.pages)
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


def _page_timeout_message(page: int, total: int, seconds: float) -> str:
    return (
        f"took longer than {seconds:.0f} s to read page {page} of {total} with OCR, so it was "
        "skipped to keep the rest of your library moving. The page may be huge or damaged."
    )


@dataclass(slots=True)
class _Watch:
    """What the parent knows of a file a reader works on: when it started, OCR's progress."""

    job: Job
    started: float | None = None
    paused_at_start: float = 0.0
    ocr_total: int = 0
    ocr_done: int = 0
    last_page: float = 0.0
    paused_at_page: float = 0.0
    pid: int = 0
    cpu_at_ocr: float = 0.0  # the reader's CPU seconds when OCR began, and at the last page
    cpu_at_page: float = 0.0
    killed: ExtractError | None = field(default=None)
    token: int = 0  # how the reader names it in what it says (by_token)
    pool: Any = None  # the pool reading it
    tries: int = 0  # times a broken pool lost it already


def _answered(future: cf.Future[_Wire]) -> bool:
    """Whether a reader sent this file's result (its own failure included)."""
    return future.done() and not future.cancelled() and future.exception() is None


def _lost_error(detail: str = "the reader processes failed") -> ExtractError:
    return ExtractError(
        FailKind.ERROR, f"could not be read this time ({detail}); it will be retried."
    )


def _crash_error(code: int | None, memory_mb: int) -> ExtractError:
    # Killed (OOM killer), aborted (a failed allocation in C or C++), ended by the memory
    # watchdog, or a Python error while sending the result: with a memory limit in force
    # these mean the limit was hit (infra/memory.py knows each platform's codes).
    if memory.is_memory_exit(code):
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
        page_timeout_s: float = OCR_PAGE_TIMEOUT_S,
        page_budget_s: float = OCR_PAGE_BUDGET_S,
    ) -> None:
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self.ahead = max(1, ahead)
        self.max_tasks = MAX_TASKS if max_tasks is None else max_tasks
        self.workers = max(1, workers)
        self.read = read
        self.low_priority = low_priority
        self.page_timeout_s = page_timeout_s
        self.page_budget_s = page_budget_s
        self.pids: set[int] = set()
        self._pool: ProcessPool | None = None
        self._lock = threading.Lock()
        self._ctx = mp.get_context("spawn")  # never fork a process holding torch/ONNX threads
        self._channel: Any = None  # the readers' end of their pipe to this process
        self._inbox: Any = None  # this process's end
        self._pause: Any = None
        self._paused_s = 0.0  # time spent paused, not counted against any limit
        self._tokens = itertools.count(1)
        self._fruitless = 0  # pools that broke in a row without reading a file
        self._broken: weakref.WeakSet[ProcessPool] = weakref.WeakSet()  # counted in it

    def _ensure_pool(self) -> ProcessPool:
        with self._lock:
            if self._pool is None:
                self._inbox, self._channel = self._ctx.Pipe(duplex=False)
                self._pause = self._ctx.Event()
                self._pool = ProcessPool(
                    max_workers=self.workers,
                    max_tasks=self.max_tasks,
                    initializer=_init_reader,
                    initargs=(self.memory_mb, self.low_priority, self._channel, self._pause),
                    context=self._ctx,
                )
            return self._pool

    def close(self) -> None:
        """Stop the readers; a file still being read is abandoned (its process killed)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.stop()
            pool.join(10)
            for end in (self._inbox, self._channel):
                with contextlib.suppress(OSError):
                    end.close()

    def alive(self) -> bool:
        """Whether reader processes may still be running."""
        return self._pool is not None

    def run(
        self,
        jobs: Iterable[Job],
        cancel: threading.Event | None = None,
        *,
        pause: threading.Event | None = None,
        on_ocr: OcrFn | None = None,
        on_defer: DeferFn | None = None,
        news: bool = False,
    ) -> Iterator[tuple[Job, Outcome | Reading]]:
        """Yield each job with its own outcome as it is read, keeping `ahead` files in flight
        (queued ones are handed over while the caller works on the last one yielded). A job
        deferred by its reader (pages to OCR) is told to `on_defer` and read again once every
        other job has been handed over. With `news`, a job whose OCR begins is yielded with
        Reading (before its outcome).

        `on_ocr` hears how far OCR of a file is (called from this generator, so in the
        caller's thread); while `pause` is set, readers hold between pages and no limit runs.
        """
        pending = iter(jobs)
        later: collections.deque[Job] = collections.deque()  # deferred: read after the rest
        again: collections.deque[tuple[Job, int]] = collections.deque()  # lost by a pool
        in_flight: dict[cf.Future[_Wire], _Watch] = {}
        by_token: dict[int, _Watch] = {}
        exhausted = False
        stop_mirror = threading.Event()
        mirror = None
        if pause is not None:
            mirror = threading.Thread(
                target=self._mirror_pause, args=(pause, stop_mirror), daemon=True
            )
            mirror.start()

        def fill() -> None:
            nonlocal exhausted
            while len(in_flight) < self.ahead + self.workers - 1:
                job, tries = None, 0
                if again:
                    job, tries = again.popleft()
                if job is None and not exhausted:
                    job = next(pending, None)
                    exhausted = job is None
                if job is None and later:
                    job = later.popleft()
                if job is None:
                    return
                token = next(self._tokens)
                pool, future = self._schedule(job, token)
                watch = _Watch(job, token=token, pool=pool, tries=tries)
                in_flight[future] = watch
                by_token[token] = watch

        try:
            fill()
            while in_flight:
                if cancel is not None and cancel.is_set():
                    return
                done, _ = cf.wait(in_flight, timeout=0.2, return_when=cf.FIRST_COMPLETED)
                for watch in self._hear(by_token, on_ocr):
                    if news:
                        yield watch.job, Reading(watch.ocr_total)
                self._enforce(in_flight)
                ready = self._recover(in_flight, by_token, again)
                if self._fruitless >= MAX_FRUITLESS_POOLS:
                    raise DesktopRagError(_READERS_FAILED)
                for future in [f for f in list(in_flight) if f in done]:
                    watch = in_flight.pop(future)
                    # What the reader says of a file after its result is not news.
                    by_token.pop(watch.token, None)
                    outcome = self._outcome(watch.job, future, watch.killed)
                    if _answered(future):
                        self._fruitless = 0
                    if isinstance(outcome, Deferred):
                        later.append(replace(watch.job, defer=False))
                        if on_defer is not None:
                            on_defer(watch.job, outcome.pages)
                    else:
                        ready.append((watch.job, outcome))
                fill()  # before yielding, so the readers work while the caller does
                for job, outcome in ready:
                    if cancel is not None and cancel.is_set():
                        return
                    yield job, outcome
        finally:
            stop_mirror.set()
            if mirror is not None:
                mirror.join(1)
            if self._pause is not None:
                self._pause.clear()
            if cancel is not None and cancel.is_set():
                self.close()  # a file being read is abandoned, not waited for
            else:
                for future in in_flight:
                    future.cancel()

    def _schedule(self, job: Job, token: int) -> tuple[ProcessPool, cf.Future[_Wire]]:
        """Hand a job to the readers; a pool found broken is replaced first. Limits are the
        parent's (_enforce): a file's grows with its pages to OCR."""
        args = (job, self.read, self.memory_mb, token)
        pool = self._ensure_pool()
        try:
            return pool, pool.schedule(_read, args=args)
        except RuntimeError as exc:  # pebble's "Unexpected error within the Pool"
            log.warning("the reader processes failed (%s); starting new ones", exc)
            self._count_broken(pool)
            self._drop(pool)
            pool = self._ensure_pool()
            return pool, pool.schedule(_read, args=args)

    def _recover(
        self,
        in_flight: dict[cf.Future[_Wire], _Watch],
        by_token: dict[int, _Watch],
        again: collections.deque[tuple[Job, int]],
    ) -> list[tuple[Job, Outcome]]:
        """Files a broken pool lost, put back to be read by a fresh one; those it lost twice
        fail as worth another try (the next scan). Returns those failures.

        pebble breaks a whole pool when a reader ends holding no file ("All workers
        expired"): it aborts the files it had taken and never answers for the rest, so
        every file in flight on that pool is read again, not only those that heard."""
        failed: list[tuple[Job, Outcome]] = []
        for pool in {id(w.pool): w.pool for w in in_flight.values()}.values():
            if pool.active:
                continue
            if self._count_broken(pool):
                log.warning("the reader processes failed; reading their files again")
            for future, watch in list(in_flight.items()):
                if watch.pool is not pool or _answered(future):
                    continue  # a file it read before it broke keeps its result
                del in_flight[future]
                by_token.pop(watch.token, None)
                if watch.tries < 1:
                    again.append((watch.job, watch.tries + 1))
                else:
                    log.warning("the reader processes failed twice on %s", watch.job.path)
                    failed.append((watch.job, _lost_error()))
            self._drop(pool)
        return failed

    def _count_broken(self, pool: ProcessPool) -> bool:
        """Count a broken pool once (its files may be found lost after it was replaced);
        whether it was new."""
        if pool in self._broken:
            return False
        self._broken.add(pool)
        self._fruitless += 1
        return True

    def _drop(self, pool: ProcessPool) -> None:
        """Stop a broken pool; the next file starts a new one."""
        if self._pool is pool:
            self.close()

    def _mirror_pause(self, pause: threading.Event, stop: threading.Event) -> None:
        """Hand the caller's pause to the reader processes, and count the time paused."""
        last = time.monotonic()
        while not stop.wait(0.1):
            now = time.monotonic()
            if pause.is_set():
                self._paused_s += now - last
                if self._pause is not None:
                    self._pause.set()
            elif self._pause is not None and self._pause.is_set():
                self._pause.clear()
            last = now

    def _hear(self, by_token: dict[int, _Watch], on_ocr: OcrFn | None) -> list[_Watch]:
        """Read what the readers said (a file started, a page OCR'd) since last time; the
        files whose OCR began."""
        inbox = self._inbox
        began: list[_Watch] = []
        if inbox is None:
            return began
        while True:
            try:
                if not inbox.poll():
                    return began
                kind, token, done, total, cpu, stamp = inbox.recv()
            except (OSError, ValueError, EOFError):  # the pipe went with a closed pool
                return began
            watch = by_token.get(token)
            if watch is None:
                continue
            # The reader's wall clock: the caller may have been busy when it arrives.
            now = time.monotonic() - max(0.0, time.time() - stamp)
            if kind == "start":
                watch.started = now
                watch.paused_at_start = self._paused_s
                watch.pid = done
            elif kind == "page":
                if watch.ocr_total == 0:
                    watch.cpu_at_ocr = cpu
                    began.append(watch)
                watch.ocr_total, watch.ocr_done = total, done
                watch.last_page = now
                watch.paused_at_page = self._paused_s
                watch.cpu_at_page = cpu
                if on_ocr is not None:
                    on_ocr(watch.job, done, total)

    def _enforce(self, in_flight: dict[cf.Future[_Wire], _Watch]) -> None:
        """Stop a reader over its file's limit, or stuck on one page past the page limit.

        Before OCR starts the limit is timeout_s of wall time, as for any file. OCR limits
        count the reader's CPU seconds: on a machine busy with other work a page may wait
        minutes for a core without being stuck; a reader that gets no CPU at all for
        STALL_FACTOR times the limit is stopped all the same.
        """
        now = time.monotonic()
        for future, watch in in_flight.items():
            if watch.started is None or watch.killed is not None or future.done():
                continue
            spent = now - watch.started - (self._paused_s - watch.paused_at_start)
            error = None
            if not watch.ocr_total:
                if spent > self.timeout_s:
                    log.warning("reading %s timed out after %.0fs", watch.job.path, spent)
                    error = ExtractError(FailKind.TIMEOUT, _timeout_message(self.timeout_s))
            else:
                cpu = _cpu_seconds(watch.pid)
                limit = self.timeout_s + watch.ocr_total * self.page_budget_s
                on_page = now - watch.last_page - (self._paused_s - watch.paused_at_page)
                if cpu - watch.cpu_at_ocr > limit or spent > STALL_FACTOR * limit:
                    log.warning("OCR of %s went over its limit of %.0fs", watch.job.path, limit)
                    error = ExtractError(FailKind.TIMEOUT, _timeout_message(limit))
                elif watch.ocr_done < watch.ocr_total and (
                    cpu - watch.cpu_at_page > self.page_timeout_s
                    or on_page > STALL_FACTOR * self.page_timeout_s
                ):
                    page = watch.ocr_done + 1
                    log.warning("OCR of page %d of %s timed out", page, watch.job.path)
                    error = ExtractError(
                        FailKind.TIMEOUT,
                        _page_timeout_message(page, watch.ocr_total, self.page_timeout_s),
                    )
            if error is not None:
                watch.killed = error
                future.cancel()  # pebble ends the process reading it

    def _outcome(
        self, job: Job, future: cf.Future[_Wire], killed: ExtractError | None = None
    ) -> Outcome | Deferred:
        if killed is not None:
            return killed
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
            return _lost_error(str(exc))
        self.pids.add(wire[1])
        if wire[0] == "defer":
            return Deferred(wire[2])
        if wire[0] == "ok":
            _, _, pages, reader, sha, headings, date_ns = wire
            outline = tuple(Heading(*h) for h in headings)
            return Extracted([Page(*page) for page in pages], reader, sha, outline, date_ns)
        _, _, kind, text = wire
        return ExtractError(FailKind(kind), text)


def run_inline(
    jobs: Iterable[Job],
    cancel: threading.Event | None = None,
    *,
    pause: threading.Event | None = None,
    on_ocr: OcrFn | None = None,
    on_defer: DeferFn | None = None,
    news: bool = False,
) -> Iterator[tuple[Job, Outcome | Reading]]:
    """The same contract in this thread, without limits: for tests and tiny jobs."""
    later: list[Job] = []
    pages_of: dict[str, int] = {}
    for job in itertools.chain(jobs, later):  # deferred jobs join the end as they come
        if cancel is not None and cancel.is_set():
            return
        request = None
        if job.ocr != OcrMode.OFF:

            def said(done: int, total: int, job: Job = job) -> None:
                if on_ocr is not None:
                    on_ocr(job, done, total)

            def started(total: int, said: Callable[[int, int], None] = said) -> None:
                said(0, total)

            request = OcrRequest(
                force=job.ocr == OcrMode.FORCE,
                defer=job.defer,
                on_start=started,
                on_page=said,
                paused=None if pause is None else pause.is_set,
            )
        if news and job in later:
            yield job, Reading(pages_of.get(job.path, 0))
        try:
            yield job, extract(job.path, job.password, ocr=request)
        except OcrDeferred as deferred:
            pages_of[job.path] = deferred.pages
            later.append(replace(job, defer=False))
            if on_defer is not None:
                on_defer(job, deferred.pages)
        except ExtractError as exc:
            yield job, exc
