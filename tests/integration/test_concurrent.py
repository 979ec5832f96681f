"""Searching while another process indexes: answers come from the committed state, no errors.

And a second indexer on the same library waits for the first, saying so, then runs.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.infra import locks
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.slow


def test_search_during_indexing_and_a_second_indexer(tmp_path):
    lib = tmp_path / "lib"
    for i in range(10):
        make_pdf(
            lib / f"atlas {i}.pdf",
            [
                " ".join(
                    f"Island {i} lies at latitude {i}.{j} and has {j} lighthouses."
                    for j in range(50)
                )
                for _ in range(3)
            ],
        )
    data = tmp_path / "data"
    env = dict(os.environ)
    env.pop("DESKTOP_RAG_DATA_DIR", None)
    cmd = [
        sys.executable,
        "-m",
        "desktop_rag",
        "index",
        str(lib),
        "--json",
        "--data-dir",
        str(data),
    ]
    indexer = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    # Wait until the indexer has created the index, then read while it writes.
    deadline = time.monotonic() + 300
    while not (data / "index" / "meta.json").exists():
        assert indexer.poll() is None, indexer.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.2)
    app = build_app(Settings(data_dir=str(data)))
    seen_docs = []
    searches = 0
    while indexer.poll() is None:
        docs = app.store.documents()
        counts = app.store.chunk_counts()
        for d in docs:  # every document visible is whole
            assert counts.get(d.doc_id, 0) >= d.chunks > 0
        seen_docs.append(len(docs))
        hits = app.retriever.search("how many lighthouses on island 7", k=3)
        assert all(h.page in (1, 2, 3) for h in hits)
        searches += 1
    out, err = indexer.communicate()
    assert indexer.returncode == 0, err[-2000:]
    assert json.loads(out)["indexed"] == 10
    assert searches >= 3 and seen_docs == sorted(seen_docs)
    assert max(seen_docs) <= 10
    hits = app.retriever.search("how many lighthouses on island 7", k=3)
    assert hits[0].path.endswith("atlas 7.pdf")


def _atlas(lib: Path, n: int) -> None:
    for i in range(n):
        make_pdf(
            lib / f"atlas {i}.pdf",
            [f"Island {i} lies at latitude {i}.{j} and has {j} lighthouses." for j in range(3)],
        )


def _stored(data: Path) -> dict[str, tuple[int, int]]:
    """path -> (pages, chunks) of every indexed document."""
    app = build_app(Settings(data_dir=str(data)))
    counts = app.store.chunk_counts()
    return {d.path: (d.pages, counts.get(d.doc_id, 0)) for d in app.store.documents()}


def test_a_second_indexer_waits_for_the_first_then_runs(tmp_path):
    """The first writer is this test, holding the writer lock for as long as it likes, so the
    second one always meets it (two real runs race: one may finish before the other starts)."""
    lib = tmp_path / "lib"
    _atlas(lib, 6)
    data = tmp_path / "data"
    env = dict(os.environ)
    env.pop("DESKTOP_RAG_DATA_DIR", None)

    def index(*paths: Path, data_dir: Path = data) -> list[str]:
        return [sys.executable, "-m", "desktop_rag", "index", *map(str, paths), "--json",
                "--data-dir", str(data_dir)]  # fmt: skip

    first = subprocess.run(index(lib / "atlas 0.pdf"), capture_output=True, text=True, env=env)
    assert first.returncode == 0, first.stderr[-2000:]
    fd = locks.open_lock(data / "index.lock")
    try:
        assert locks.try_lock(fd)
        locks.write_holder(fd)
        second = subprocess.Popen(
            index(lib), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        lines: queue.Queue[str] = queue.Queue()
        reader = threading.Thread(target=lambda: [lines.put(x) for x in second.stderr], daemon=True)
        reader.start()
        deadline = time.monotonic() + 300
        while True:
            assert time.monotonic() < deadline, "the second indexer never said it was waiting"
            assert second.poll() is None, "the second indexer gave up instead of waiting"
            try:
                if "Waiting for another indexing run" in lines.get(timeout=0.5):
                    break
            except queue.Empty:
                continue
        time.sleep(1.0)  # it keeps waiting (not a timing assertion: it cannot finish held)
        assert second.poll() is None
        assert len(_stored(data)) == 1, "nothing was written while the lock was held"
    finally:
        os.close(fd)  # the first writer is done
    assert second.stdout is not None
    out = second.stdout.read()  # the report, once it has run
    assert second.wait(timeout=300) == 0
    reader.join(10)
    report = json.loads(out)
    assert (report["indexed"], report["unchanged"]) == (5, 1)

    single = tmp_path / "single"
    alone = subprocess.run(index(lib, data_dir=single), capture_output=True, text=True, env=env)
    assert alone.returncode == 0, alone.stderr[-2000:]
    assert _stored(data) == _stored(single)
