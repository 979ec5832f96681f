"""The folder watcher on a real file system: settled changes only, and reconcile through them."""

from __future__ import annotations

import errno
import os
import queue
import time
from pathlib import Path

import pytest

from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.ingest.control import RunControl
from desktop_rag.ingest.watch import Change, Watcher, reindex
from tests.fakes import HashEmbedder, WordTokenizer
from tests.helpers import processes
from tests.pdfgen import make_pdf

WAIT_S = 10.0  # generous: the machine is shared; a healthy watcher answers in ~1 s


@pytest.fixture
def watched(tmp_path: Path):
    folder = tmp_path / "watched"
    folder.mkdir()
    changes: queue.Queue[Change] = queue.Queue()
    watcher = Watcher(changes.put, quiet_s=0.3, poll_s=0.05).start()
    watcher.set_roots([str(folder)])
    yield folder, changes, watcher
    watcher.stop()


def _next(changes: queue.Queue[Change]) -> Change:
    return changes.get(timeout=WAIT_S)


def _paths(change: Change) -> set[str]:
    return {os.path.basename(p) for p in change.paths}


def test_new_changed_deleted_and_renamed_files_are_reported(watched):
    folder, changes, _ = watched
    make_pdf(folder / "a.pdf", ["alpha"])
    change = _next(changes)
    assert change.roots == (str(folder),) and "a.pdf" in _paths(change)

    make_pdf(folder / "a.pdf", ["alpha, changed"])
    assert "a.pdf" in _paths(_next(changes))

    (folder / "a.pdf").rename(folder / "b.pdf")
    change = _next(changes)
    assert {"a.pdf", "b.pdf"} <= _paths(change), "a rename arrives as one batch"

    (folder / "b.pdf").unlink()
    assert "b.pdf" in _paths(_next(changes))


def test_other_files_and_reading_are_not_changes(watched):
    folder, changes, _ = watched
    make_pdf(folder / "a.pdf", ["alpha"])
    _next(changes)
    (folder / "photo.jpg").write_bytes(b"\xff\xd8\xff not a document")
    (folder / ".hidden.pdf").write_bytes(b"%PDF-1.4")
    (folder / "a.pdf").read_bytes()
    make_pdf(folder / "marker.pdf", ["marker"])  # the next batch must be this one alone
    assert _paths(_next(changes)) == {"marker.pdf"}


def test_documents_of_other_formats_are_changes(watched):
    folder, changes, _ = watched
    (folder / "notes.md").write_text("# Notes\n\nThe spare key is under the mat.")
    assert _paths(_next(changes)) == {"notes.md"}


class FakeClock:
    """Time that passes only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def _wait_pending(watcher: Watcher, path: Path) -> None:
    """Until the observer has delivered the first event for path (real inotify, any delay)."""
    deadline = time.monotonic() + WAIT_S
    while str(path) not in watcher.pending:
        assert time.monotonic() < deadline, "the watcher never saw the file"
        time.sleep(0.01)


def test_a_file_still_being_written_is_reported_only_once_it_settles(tmp_path):
    """The quiet window is measured on the watcher's clock, so a loaded machine (a writer
    thread sleeping longer than asked) cannot make a half-written file look settled."""
    folder = tmp_path / "watched"
    folder.mkdir()
    clock = FakeClock()
    reported: list[Change] = []
    target = folder / "slow.pdf"
    with Watcher(reported.append, quiet_s=0.3, poll_s=None, clock=clock) as watcher:
        watcher.set_roots([str(folder)])
        with open(target, "wb") as f:
            f.write(b"x" * 4096)
            f.flush()
            _wait_pending(watcher, target)
            for _ in range(12):  # 1.2 s of copying, in bursts shorter than the quiet window
                clock.advance(0.1)
                f.write(b"x" * 4096)
                f.flush()
                assert watcher.settle() is None, "reported while still being written"
        clock.advance(0.29)
        assert watcher.settle() is None, "reported before it was quiet for quiet_s"
        clock.advance(0.02)
        change = watcher.settle()
    assert change is not None and _paths(change) == {"slow.pdf"}
    assert reported == [change]
    assert target.stat().st_size == 13 * 4096


def test_a_file_that_never_stops_changing_is_reported_after_max_wait(tmp_path):
    folder = tmp_path / "watched"
    folder.mkdir()
    clock = FakeClock()
    target = folder / "log.pdf"
    with Watcher(lambda c: None, quiet_s=0.3, max_wait_s=2.0, poll_s=None, clock=clock) as w:
        w.set_roots([str(folder)])
        with open(target, "wb") as f:
            f.write(b"x")
            f.flush()
            _wait_pending(w, target)
            change, steps = None, 0
            while change is None and steps < 40:
                clock.advance(0.125)
                f.write(b"x")
                f.flush()
                steps += 1
                change = w.settle()
    assert change is not None and _paths(change) == {"log.pdf"}
    assert steps == 16, "reported at max_wait_s (2 s in 0.125 s steps), not before or after"


def test_a_watched_single_file(tmp_path):
    folder = tmp_path / "f"
    folder.mkdir()
    one = make_pdf(folder / "one.pdf", ["one"])
    changes: queue.Queue[Change] = queue.Queue()
    with Watcher(changes.put, quiet_s=0.3, poll_s=0.05) as watcher:
        watcher.set_roots([str(one)])
        make_pdf(folder / "other.pdf", ["not watched"])
        make_pdf(one, ["one, changed"])
        change = _next(changes)
        assert change.roots == (str(one),) and _paths(change) == {"one.pdf"}


def test_a_root_that_cannot_be_watched_is_reported_not_raised(tmp_path):
    with Watcher(lambda c: None) as watcher:
        watcher.set_roots([str(tmp_path / "missing")])
        assert str(tmp_path / "missing") in watcher.errors


def _full(*args, **kwargs):  # type: ignore[no-untyped-def]
    raise OSError(errno.ENOSPC, "inotify watch limit reached")


def test_a_folder_over_the_inotify_limit_is_reconciled_periodically(
    tmp_path, animal_pdfs, monkeypatch
):
    root = str(animal_pdfs)
    clock = FakeClock()
    app = _app(tmp_path, HashEmbedder())
    assert reindex(app, [root]).indexed == 3
    with Watcher(lambda c: None, poll_s=None, clock=clock, recheck_s=60) as watcher:
        monkeypatch.setattr(watcher._observer, "schedule", _full)
        watcher.set_roots([root])
        assert root not in watcher.errors, "it is not an error: it is checked another way"
        assert watcher.polled[root] == (
            "cannot be watched (the system's limit of watched folders is reached): "
            "it is checked for changes every minute"
        )
        assert watcher.problems == watcher.polled
        clock.advance(59)
        assert watcher.settle() is None
        clock.advance(1)
        change = watcher.settle()
        assert change is not None and change.roots == (root,)
        assert reindex(app, change.roots).unchanged == 3, "a reconcile with nothing new is cheap"

        make_pdf(animal_pdfs / "koala.pdf", ["Koalas sleep up to twenty hours a day."])
        clock.advance(30)
        assert watcher.settle() is None
        clock.advance(30)
        change = watcher.settle()
        assert change is not None and reindex(app, change.roots).indexed == 1

        watcher.set_roots([])  # no longer wanted: no longer checked
        assert watcher.polled == {}
        clock.advance(600)
        assert watcher.settle() is None


def test_a_folder_on_a_network_share_is_watched_and_also_reconciled(tmp_path, monkeypatch):
    from desktop_rag.ingest import watch

    share = tmp_path / "share"
    share.mkdir()
    monkeypatch.setattr(watch, "filesystem_type", lambda p: "nfs4" if p == str(share) else "ext4")
    clock = FakeClock()
    with Watcher(lambda c: None, poll_s=None, clock=clock, recheck_s=300) as watcher:
        watcher.set_roots([str(share), str(tmp_path / "missing")])
        assert "network drive (nfs4)" in watcher.polled[str(share)]
        assert "every 5 minutes" in watcher.polled[str(share)]
        assert watcher.errors == {str(tmp_path / "missing"): "does not exist"}
        make_pdf(share / "local.pdf", ["Written from this machine: inotify sees it."])
        _wait_pending(watcher, share / "local.pdf")
        clock.advance(300)
        change = watcher.settle()
    assert change is not None and change.roots == (str(share),)
    assert _paths(change) == {"local.pdf"}


def test_the_file_system_type_of_a_local_folder(tmp_path):
    from desktop_rag.ingest.watch import filesystem_type, is_network_fs

    kind = filesystem_type(str(tmp_path))
    assert kind and not is_network_fs(kind)
    assert is_network_fs("nfs4") and is_network_fs("fuse.sshfs") and not is_network_fs("fuse")


def _app(tmp_path: Path, emb: HashEmbedder):
    return build_app(
        Settings(data_dir=str(tmp_path / "data")),
        embedder=emb,
        tokenizer=WordTokenizer,
        params=ChunkParams(60, 10),
        isolate=processes.isolate(),
    )


def test_reindex_follows_watched_changes_end_to_end(tmp_path, animal_pdfs):
    emb = HashEmbedder()
    app = _app(tmp_path, emb)
    changes: queue.Queue[Change] = queue.Queue()
    with Watcher(changes.put, quiet_s=0.3, poll_s=0.05) as watcher:
        watcher.set_roots([str(animal_pdfs)])
        report = reindex(app, [str(animal_pdfs)])
        assert report.indexed == 3
        calls = emb.texts_embedded

        (animal_pdfs / "zebra.pdf").rename(animal_pdfs / "stripes.pdf")
        report = reindex(app, _next(changes).roots)
        assert report.renamed == 1 and emb.texts_embedded == calls

        make_pdf(animal_pdfs / "new.pdf", ["Koalas sleep up to twenty hours a day."])
        events = []
        report = reindex(app, _next(changes).roots, RunControl(on_file=events.append))
        assert report.indexed == 1
        assert [e.status for e in events if e.path.endswith("new.pdf")] == [
            "queued",
            "indexing",
            "indexed",
        ]

        (animal_pdfs / "penguin.pdf").unlink()
        report = reindex(app, _next(changes).roots)
        assert report.removed == 1
    names = sorted(os.path.basename(d.path) for d in app.store.documents())
    assert names == ["new.pdf", "octopus.pdf", "stripes.pdf"]


def test_reindex_drops_a_vanished_file_root_but_keeps_a_vanished_folder(tmp_path, animal_pdfs):
    app = _app(tmp_path, HashEmbedder())
    single = make_pdf(tmp_path / "single.pdf", ["A single watched file about herons."])
    reindex(app, [str(animal_pdfs), str(single)])
    assert len(app.store.documents()) == 4
    single.unlink()
    moved = tmp_path / "elsewhere"
    animal_pdfs.rename(moved)  # like an unplugged drive: its documents stay answerable
    report = reindex(app, [str(animal_pdfs), str(single)])
    assert report.removed == 1
    assert len(app.store.documents()) == 3
