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
from desktop_rag.ingest import pipeline
from desktop_rag.ingest.chunk import ChunkParams
from tests.fakes import HashEmbedder, WordTokenizer
from tests.pdfgen import make_pdf


def _library(root, n):
    return [
        make_pdf(root / f"dossier {i % 3}" / f"file {i}.pdf", [f"page about item{i}"])
        for i in range(n)
    ]


def _app(tmp_path, embedder):
    return build_app(
        Settings(data_dir=str(tmp_path / "data")),
        embedder=embedder,
        tokenizer=WordTokenizer,
        params=ChunkParams(60, 10),
        isolate=False,
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
    monkeypatch.setattr(pipeline, "TOUCH_BATCH", 5)
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
    real_hash = pipeline.sha256_file

    def slow_hash(path):  # a large library on a slow disk
        time.sleep(0.06)
        return real_hash(path)

    monkeypatch.setattr(pipeline, "sha256_file", slow_hash)
    cancel = threading.Event()
    seen = []

    def on_progress(p):
        seen.append(p)
        if p.stage == "hashing" and p.files_done >= 30:
            cancel.set()

    report = app.index([str(tmp_path / "lib")], on_progress, cancel)
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


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
def test_indexing_runs_at_low_priority_in_its_own_thread_only(tmp_path):
    import psutil

    _library(tmp_path / "lib", 2)
    app = _app(tmp_path, HashEmbedder())
    seen = []

    def on_progress(p):
        tid = threading.get_native_id()
        seen.append((os.getpriority(os.PRIO_PROCESS, tid), psutil.Process(tid).ionice().ioclass))

    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    worker = threading.Thread(target=app.index, args=([str(tmp_path / "lib")], on_progress))
    worker.start()
    worker.join()
    assert seen and all(n >= priority.NICE and io == psutil.IOPRIO_CLASS_IDLE for n, io in seen)
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before
