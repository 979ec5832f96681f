"""Every file touched, no content changed (a restore from backup): nothing is embedded again.

The run hashes every file with progress and an ETA, can be cancelled while it hashes, and
writes the new times in a few commits rather than one per file.
"""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest

from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.infra import priority
from desktop_rag.ingest import plan, reuse
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.ingest.control import RunControl
from tests.fakes import HashEmbedder, WordTokenizer
from tests.helpers import processes
from tests.pdfgen import make_pdf


def _library(root, n):
    # A text layer of 16 letters and digits or more: a shorter one would be read with OCR
    # (ingest/ocr.py's USABLE_CHARS), which these tests do not need and which takes minutes.
    return [
        make_pdf(root / f"dossier {i % 3}" / f"file {i}.pdf", [f"a page about item{i} alone"])
        for i in range(n)
    ]


def _app(tmp_path, embedder):
    return build_app(
        Settings(data_dir=str(tmp_path / "data")),
        embedder=embedder,
        tokenizer=WordTokenizer,
        params=ChunkParams(60, 10),
        isolate=processes.isolate(),
    )


def _touch_all(paths, seconds=60):
    later = time.time() + seconds
    for path in paths:
        os.utime(path, (later, later))


def test_touching_every_file_embeds_nothing_and_commits_in_batches(tmp_path, monkeypatch):
    paths = _library(tmp_path / "lib", 23)
    emb = HashEmbedder()
    app = _app(tmp_path, emb)
    assert app.index([str(tmp_path / "lib")]).indexed == 23
    embedded = emb.texts_embedded
    _touch_all(paths)
    monkeypatch.setattr(reuse, "TOUCH_BATCH", 5)
    commits = []
    real_commit = app.store.commit
    monkeypatch.setattr(
        app.store,
        "commit",
        lambda docs, *a, **k: (commits.append(len(docs)), real_commit(docs, *a, **k)),
    )
    report = app.index([str(tmp_path / "lib")])
    assert (report.indexed, report.unchanged, report.chunks) == (0, 23, 0)
    assert emb.texts_embedded == embedded
    assert commits == [5, 5, 5, 5, 3]
    stored = {d.path: d.mtime_ns for d in app.store.documents()}
    assert stored == {str(p): p.stat().st_mtime_ns for p in paths}
    monkeypatch.setattr(app.store, "commit", real_commit)
    assert app.index([str(tmp_path / "lib")]).unchanged == 23  # and now nothing to hash


def test_hashing_shows_progress_with_an_eta_and_can_be_cancelled(tmp_path, monkeypatch):
    paths = _library(tmp_path / "lib", 40)
    emb = HashEmbedder()
    app = _app(tmp_path, emb)
    app.index([str(tmp_path / "lib")])
    embedded = emb.texts_embedded
    _touch_all(paths)
    real_hash = plan.sha256_file

    def slow_hash(path):  # a large library on a slow disk
        time.sleep(0.06)
        return real_hash(path)

    monkeypatch.setattr(plan, "sha256_file", slow_hash)
    cancel = threading.Event()
    seen = []

    def on_progress(p):
        seen.append(p)
        if p.stage == "hashing" and p.files_done >= 30:
            cancel.set()

    report = app.index([str(tmp_path / "lib")], RunControl(on_progress=on_progress, cancel=cancel))
    assert report.cancelled
    hashing = [p for p in seen if p.stage == "hashing"]
    assert hashing and all(p.files_total == 40 for p in hashing)
    assert any(p.eta_s is not None and p.eta_s > 0 for p in hashing)
    assert max(p.files_done for p in hashing) < 40, "cancel stops the hashing"
    assert not any(p.stage == "indexing" for p in seen)
    # Nothing was lost: the next run finishes the job without embedding anything.
    again = app.index([str(tmp_path / "lib")])
    assert (again.indexed, again.unchanged, again.cancelled) == (0, 40, False)
    assert emb.texts_embedded == embedded


def _cpu_and_io():
    import psutil

    tid = threading.get_native_id()
    return tid, os.getpriority(os.PRIO_PROCESS, tid), psutil.Process(tid).ionice().ioclass


class _PriorityEmbedder(HashEmbedder):
    """Records the thread and its priority of every embedding call."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def embed(self, texts):
        self.seen.append(_cpu_and_io())
        return super().embed(texts)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
def test_indexing_computes_at_low_priority_and_keeps_its_own_thread_at_the_callers(
    tmp_path, monkeypatch
):
    """Embedding and hashing run lowered (CPU and I/O), off the indexing thread; the indexing
    thread, which holds the GIL for the run's Python, keeps its CPU priority (lowered, a busy
    machine pre-empting it kept the GUI thread waiting for the GIL) and lowers its I/O."""
    import psutil

    own_nice = os.getpriority(os.PRIO_PROCESS, 0)
    if own_nice >= 19:
        pytest.skip("the tests run at the lowest priority: nothing lower to tell apart")
    if own_nice >= priority.NICE:  # started lowered (nice -n): lower further, or nothing differs
        monkeypatch.setattr(priority, "NICE", min(19, own_nice + 5))
    paths = _library(tmp_path / "lib", 3)
    emb = _PriorityEmbedder()
    app = _app(tmp_path, emb)
    hashed = []
    real_hash = plan.sha256_file

    def recording_hash(path):
        hashed.append(_cpu_and_io())
        return real_hash(path)

    monkeypatch.setattr(plan, "sha256_file", recording_hash)
    indexing = []

    def on_progress(p):
        indexing.append(_cpu_and_io())

    def run():
        before.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        app.index([str(tmp_path / "lib")], RunControl(on_progress=on_progress))
        _touch_all(paths)  # the second run hashes them
        app.index([str(tmp_path / "lib")], RunControl(on_progress=on_progress))

    before = []
    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    assert indexing and emb.seen and len(hashed) == 3
    (own,) = {tid for tid, _, _ in indexing}
    assert before[0] < priority.NICE
    assert {(n, io) for _, n, io in indexing} == {(before[0], psutil.IOPRIO_CLASS_IDLE)}
    for tid, nice, io in emb.seen + hashed:
        assert tid != own and nice >= priority.NICE and io == psutil.IOPRIO_CLASS_IDLE
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before[0]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
def test_indexing_at_normal_priority_lowers_nothing(tmp_path):
    emb = _PriorityEmbedder()
    _library(tmp_path / "lib", 2)
    app = build_app(
        Settings(data_dir=str(tmp_path / "data"), index_low_priority=False),
        embedder=emb,
        tokenizer=WordTokenizer,
        params=ChunkParams(60, 10),
        isolate=processes.isolate(),
    )
    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    worker = threading.Thread(target=app.index, args=([str(tmp_path / "lib")],))
    worker.start()
    worker.join()
    assert emb.seen and {n for _, n, _ in emb.seen} == {before}
