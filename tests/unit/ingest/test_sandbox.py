"""The reader processes: every result goes with its own file, whatever happens to the reader.

Real processes with a small recycle count and fake files that crash, hang or run out of memory,
at every position of the queue (first task of a process, its last before recycling, in flight
while another one fails).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from desktop_rag.infra import priority
from desktop_rag.ingest import sandbox
from desktop_rag.ingest.extract import Extracted, ExtractError
from desktop_rag.types import FailKind
from tests.fake_readers import read_by_name, text_of

TIMEOUT_S = 1.0


def _files(tmp_path: Path, names: list[str]) -> list[str]:
    paths = []
    for name in names:
        path = tmp_path / name
        path.write_bytes(b"%PDF-1.4 fake")
        paths.append(str(path))
    return paths


def _run(paths: list[str], *, ahead: int, max_tasks: int) -> list[tuple[str, sandbox.Outcome]]:
    box = sandbox.Sandbox(
        timeout_s=TIMEOUT_S, memory_mb=0, ahead=ahead, max_tasks=max_tasks, read=read_by_name
    )
    try:
        return [(job.path, outcome) for job, outcome in box.run(sandbox.Job(p) for p in paths)]
    finally:
        box.close()


def _check(results: list[tuple[str, sandbox.Outcome]], paths: list[str], bad: dict[str, FailKind]):
    assert sorted(p for p, _ in results) == sorted(paths), "every file gets exactly one result"
    for path, outcome in results:
        if path in bad:
            assert isinstance(outcome, ExtractError), path
            assert outcome.kind == bad[path], (path, outcome)
        else:
            assert isinstance(outcome, Extracted), (path, outcome)
            assert outcome.pages[0].text == text_of(path), "a result matched to another file"


@pytest.mark.parametrize("ahead", [1, 2, 3])
@pytest.mark.parametrize("max_tasks", [1, 2, 3])
def test_recycling_keeps_every_result_with_its_file(tmp_path, ahead, max_tasks):
    paths = _files(tmp_path, [f"file {i:02d}.pdf" for i in range(10)])
    _check(_run(paths, ahead=ahead, max_tasks=max_tasks), paths, {})


FAULTS = {"crash": FailKind.CORRUPT, "hang": FailKind.TIMEOUT, "oom": FailKind.MEMORY}


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("position", range(7))
def test_a_fault_at_any_position_costs_only_that_file(tmp_path, fault, position):
    # 7 files with a process recycled every 3: the fault falls on the first, middle and last
    # task of a process, with the next file already in flight (production keeps 2 ahead).
    names = [f"file {i}.pdf" for i in range(7)]
    names[position] = f"file {position} {fault}.pdf"
    paths = _files(tmp_path, names)
    results = _run(paths, ahead=2, max_tasks=3)
    _check(results, paths, {paths[position]: FAULTS[fault]})


def test_a_reader_killed_while_telling_the_indexer_stops_no_other_reader(tmp_path):
    # A reader killed mid-message (a crash in the PDF library while it reports a page) once
    # left the readers' shared queue lock held: every later reader then hung on exit and the
    # run never ended. Run in a thread so that such a hang fails the test instead of the suite.
    names = ["a.pdf", "b dies-telling.pdf", "c.pdf", "d.pdf", "e.pdf"]
    paths = _files(tmp_path, names)
    results: list[tuple[str, sandbox.Outcome]] = []
    worker = threading.Thread(
        target=lambda: results.extend(_run(paths, ahead=2, max_tasks=1)), daemon=True
    )
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "the run hung after a reader died mid-message"
    _check(results, paths, {paths[1]: FailKind.CORRUPT})


def test_faults_back_to_back_and_at_both_ends(tmp_path):
    names = ["a crash.pdf", "b hang.pdf", "c.pdf", "d crash.pdf", "e.pdf", "f oom.pdf"]
    names += ["g.pdf", "h hang.pdf", "i crash.pdf"]
    paths = _files(tmp_path, names)
    bad = {p: FAULTS[k] for p in paths for k in FAULTS if k in Path(p).name}
    _check(_run(paths, ahead=3, max_tasks=2), paths, bad)


def test_cancel_stops_at_once_and_leaves_no_reader_behind(tmp_path):
    paths = _files(tmp_path, ["a.pdf", "b hang.pdf", "c.pdf", "d.pdf"])
    box = sandbox.Sandbox(timeout_s=60, memory_mb=0, ahead=2, max_tasks=2, read=read_by_name)
    cancel = threading.Event()
    got = []
    t0 = 0.0
    try:
        for job, outcome in box.run((sandbox.Job(p) for p in paths), cancel):
            got.append((job.path, outcome))
            # The next file hangs: cancel while the reader is stuck in it.
            threading.Timer(0.3, cancel.set).start()
            t0 = time.monotonic()
        waited = time.monotonic() - t0
    finally:
        box.close()
    assert [p for p, _ in got] == paths[:1]
    assert waited < 10, "cancel must not wait for the hanging file"
    assert not box.alive()
    assert _reader_processes() == [], "the hanging reader was killed"


def _reader_processes() -> list[int]:
    import psutil

    found = []
    for child in psutil.Process().children():
        try:
            if "spawn_main" in " ".join(child.cmdline()) and child.status() != "zombie":
                found.append(child.pid)
        except psutil.Error:
            continue
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="nice and ionice as on Linux")
def test_readers_run_at_low_cpu_and_io_priority(tmp_path):
    import psutil

    before = os.getpriority(os.PRIO_PROCESS, 0)
    [(_, outcome)] = _run(_files(tmp_path, ["priority.pdf"]), ahead=2, max_tasks=3)
    assert isinstance(outcome, Extracted)
    nice, io_class = map(int, outcome.pages[0].text.split())
    assert nice >= priority.NICE
    assert io_class == psutil.IOPRIO_CLASS_IDLE
    assert os.getpriority(os.PRIO_PROCESS, 0) == before, "only the readers are lowered"


def test_readers_are_spawned_as_on_windows_and_macos_never_forked(tmp_path):
    """A spawned reader starts from a fresh interpreter: nothing this test process imported
    (pytest) is in it, whatever multiprocessing's default start method is here."""
    [(_, outcome)] = _run(_files(tmp_path, ["modules.pdf"]), ahead=1, max_tasks=3)
    assert isinstance(outcome, Extracted)
    assert outcome.pages[0].text == "pytest not loaded"


def test_a_broken_pool_is_a_failure_worth_retrying_not_a_damaged_file(tmp_path):
    from concurrent.futures import Future

    from desktop_rag.ingest.scan import TRANSIENT_KINDS

    broken: Future = Future()
    broken.set_exception(RuntimeError("the pool's manager stopped"))
    box = sandbox.Sandbox(memory_mb=0)
    outcome = box._outcome(sandbox.Job(str(tmp_path / "a.pdf")), broken)
    assert isinstance(outcome, ExtractError) and outcome.kind in TRANSIENT_KINDS


def test_files_that_read_fast_go_ahead_of_a_scan(tmp_path: Path) -> None:
    """Issue 31: a .docx added with a scan stayed queued until the scan was read. A file with
    pages to OCR is put after the others; its OCR is announced when it begins."""
    scan = tmp_path / "ocr-slow-5.pdf"
    fast = [tmp_path / f"fast-{i}.pdf" for i in range(3)]
    for p in (scan, *fast):
        p.write_bytes(b"%PDF-1.4")
    deferred: list[tuple[str, int]] = []
    box = sandbox.Sandbox(timeout_s=60, memory_mb=0, read=read_by_name, ahead=1)
    try:
        got = [
            (Path(job.path).name, type(outcome).__name__)
            for job, outcome in box.run(
                [sandbox.Job(str(p), defer=True) for p in (scan, *fast)],
                on_defer=lambda job, pages: deferred.append((Path(job.path).name, pages)),
                news=True,
            )
        ]
    finally:
        box.close()
    assert deferred == [("ocr-slow-5.pdf", 5)]
    assert got == [
        ("fast-0.pdf", "Extracted"),
        ("fast-1.pdf", "Extracted"),
        ("fast-2.pdf", "Extracted"),
        ("ocr-slow-5.pdf", "Reading"),
        ("ocr-slow-5.pdf", "Extracted"),
    ]


def _killing_between(paths: list[str], box: sandbox.Sandbox, after: int):
    """Jobs for `paths`, killing the reader process while it waits for work after `after`
    files: pebble then finds a worker dead with no task of its own and breaks the pool."""
    import signal

    for i, path in enumerate(paths):
        if i == after:
            for pid in list(box.pids):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(1.0)  # pebble's manager notices within 0.1 s
        yield sandbox.Job(path)


def test_a_reader_dead_between_files_breaks_no_run(tmp_path):
    """Round 3's CI: a reader process ended while it held no file ("All workers expired"):
    pebble broke the whole pool, the file in flight failed and the run never ended. Today the
    broken pool is replaced and every file is read, each with its own text."""
    paths = _files(tmp_path, [f"file {i}.pdf" for i in range(4)])
    box = sandbox.Sandbox(timeout_s=30, memory_mb=0, ahead=1, max_tasks=50, read=read_by_name)
    try:
        results = [(job.path, outcome) for job, outcome in box.run(_killing_between(paths, box, 2))]
    finally:
        box.close()
    _check(results, paths, {})


def test_files_in_flight_when_the_pool_breaks_are_read_again(tmp_path):
    """The pool breaks with files queued for it (pebble aborts those it registered and
    forgets the rest): each is read again by a fresh pool, once, and keeps its own text."""
    from concurrent.futures.process import BrokenProcessPool

    paths = _files(tmp_path, [f"file {i}.pdf" for i in range(8)])
    box = sandbox.Sandbox(timeout_s=30, memory_mb=0, ahead=4, max_tasks=50, read=read_by_name)

    def jobs():
        for i, path in enumerate(paths):
            if i == 5:  # four files in flight: break the pool as pebble does on a lost worker
                pool = box._pool
                assert pool is not None
                pool._pool_manager.handle_broken_pool(BrokenProcessPool("All workers expired"))
            yield sandbox.Job(path)

    try:
        results = [(job.path, outcome) for job, outcome in box.run(jobs())]
    finally:
        box.close()
    _check(results, paths, {})


def test_a_pool_that_keeps_breaking_ends_the_run_with_every_file_told(tmp_path):
    """Each fresh pool breaks once it has read a file: every file still gets one result, its
    own text or a failure the next scan retries, and the run ends."""
    from concurrent.futures.process import BrokenProcessPool

    from desktop_rag.ingest.scan import TRANSIENT_KINDS

    paths = _files(tmp_path, [f"file {i} slow.pdf" for i in range(30)])
    box = sandbox.Sandbox(timeout_s=30, memory_mb=0, ahead=3, max_tasks=50, read=read_by_name)
    stop = threading.Event()
    broken = []
    seen: set[int] = set()

    def breaker():
        while not stop.wait(0.02):
            pool = box._pool
            if pool is not None and pool.active and pool not in broken and box.pids - seen:
                seen.update(box.pids)
                broken.append(pool)
                pool._pool_manager.handle_broken_pool(BrokenProcessPool("All workers expired"))

    thread = threading.Thread(target=breaker, daemon=True)
    thread.start()
    try:
        results = [(job.path, outcome) for job, outcome in box.run(sandbox.Job(p) for p in paths)]
    finally:
        stop.set()
        thread.join()
        box.close()
    assert sorted(p for p, _ in results) == sorted(paths), "every file gets exactly one result"
    assert len(broken) >= 2, "the pool broke and was replaced"
    for path, outcome in results:
        if isinstance(outcome, Extracted):
            assert outcome.pages[0].text == text_of(path)
        else:
            assert outcome.kind in TRANSIENT_KINDS, (path, outcome)
            assert "will be retried" in str(outcome)


def test_readers_that_never_read_a_file_stop_the_run_with_a_message(tmp_path):
    """Readers that cannot work at all (every pool breaks before reading a file) are not
    started again for ever: after a few pools the run stops, saying nothing was lost."""
    from concurrent.futures.process import BrokenProcessPool

    from desktop_rag.errors import DesktopRagError

    paths = _files(tmp_path, [f"file {i} hang.pdf" for i in range(40)])
    box = sandbox.Sandbox(timeout_s=60, memory_mb=0, ahead=2, max_tasks=50, read=read_by_name)
    stop = threading.Event()
    broken: list = []

    def breaker():
        while not stop.wait(0.02):
            pool = box._pool
            if pool is not None and pool.active and pool not in broken:
                broken.append(pool)
                pool._pool_manager.handle_broken_pool(BrokenProcessPool("All workers expired"))

    thread = threading.Thread(target=breaker, daemon=True)
    thread.start()
    results = []
    try:
        with pytest.raises(DesktopRagError, match="Nothing was lost"):
            for result in box.run(sandbox.Job(p) for p in paths):
                results.append(result)
    finally:
        stop.set()
        thread.join()
        box.close()
    assert len(broken) == sandbox.MAX_FRUITLESS_POOLS
    # Stopped without waiting for any reader's time limit: a file whose reader hangs comes
    # back as a time-out only when its limit is up, and none did; the files in flight when a
    # pool broke are to be retried.
    assert all(o.kind != FailKind.TIMEOUT for _, o in results)
    assert all("will be retried" in str(o) for _, o in results)


def test_a_broken_pool_counts_once_however_often_its_files_turn_up() -> None:
    """A pool found broken by `schedule` and again by its files in flight is one breakage,
    not two, toward MAX_FRUITLESS_POOLS."""
    box = sandbox.Sandbox(memory_mb=0)
    pool = box._ensure_pool()
    try:
        assert box._count_broken(pool) and not box._count_broken(pool)
        assert box._fruitless == 1
    finally:
        box.close()
