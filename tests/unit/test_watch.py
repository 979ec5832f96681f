"""The folder watcher on a real file system: settled changes only, and reconcile through them."""

from __future__ import annotations

import os
import queue
import threading
import time
from pathlib import Path

import pytest

from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.ingest.watch import Change, Watcher, reindex
from tests.fakes import HashEmbedder, WordTokenizer
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


def test_a_file_still_being_written_is_reported_only_once_it_settles(watched):
    folder, changes, _ = watched
    target = folder / "slow.pdf"
    writes_done = threading.Event()
    final_size = 0

    def slow_copy() -> None:
        nonlocal final_size
        with open(target, "wb") as f:
            for _ in range(12):  # ~1.2 s of writing, in bursts shorter than quiet_s
                f.write(b"x" * 4096)
                f.flush()
                time.sleep(0.1)
        final_size = target.stat().st_size
        writes_done.set()

    writer = threading.Thread(target=slow_copy)
    writer.start()
    change = _next(changes)
    assert writes_done.is_set(), "reported while the file was still being written"
    assert "slow.pdf" in _paths(change)
    assert target.stat().st_size == final_size
    writer.join()


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


def _app(tmp_path: Path, emb: HashEmbedder):
    return build_app(
        Settings(data_dir=str(tmp_path / "data")),
        embedder=emb,
        tokenizer=WordTokenizer,
        params=ChunkParams(60, 10),
        isolate=False,
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
        report = reindex(app, _next(changes).roots, on_file=events.append)
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
