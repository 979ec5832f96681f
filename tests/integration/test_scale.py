"""A real library's size through the real reader processes: every file keeps its own text.

1,000 generated PDFs in nested folders with spaces and non-ASCII names are indexed with the
production reader settings (files in flight, time and memory limits) and a lowered recycle
count, so the run replaces its reader process many times; then each file's unique word must
find that file and that page by BM25.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.ingest import sandbox
from desktop_rag.ingest.chunk import ChunkParams, embedded_text
from desktop_rag.store.schema import chunk_from_row
from tests.fakes import HashEmbedder, WordTokenizer
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.slow  # a thousand files through 16 reader processes

FILES = 1000
RECYCLE_AFTER = 64  # files per reader process in this test: 16 processes for 1,000 files
FOLDERS = ["Année 2024", "Année 2024/Q1 rapports", "Projets — été", "日本語 フォルダ", "plain"]
FILLER = (
    "The committee reviewed the quarterly figures, the staffing plan and the budget for the "
    "coming year, and agreed to meet again after the audit."
)


def unique_word(i: int) -> str:
    """A word found in file i only: its number spelled in letters (BM25 ignores digits)."""
    return "zq" + "".join("bcdfghjklm"[int(d)] for d in f"{i:04d}")


def _library(root: Path) -> dict[str, tuple[str, int]]:
    """Write FILES PDFs of 1-3 pages; returns word -> (path, page it is on)."""
    expected = {}
    for i in range(FILES):
        folder = root / FOLDERS[i % len(FOLDERS)] / f"lot {i // 100}"
        pages = [f"Page {p + 1}. {FILLER}" for p in range(1 + i % 3)]
        page = 1 + (i * 7) % len(pages)
        word = unique_word(i)
        pages[page - 1] += f" The reference word of this file is {word}."
        path = make_pdf(folder / f"rapport n° {i:04d} – résumé.pdf", pages)
        expected[word] = (str(path), page)
    return expected


def _app(data: Path):
    return build_app(
        Settings(data_dir=str(data)),
        embedder=HashEmbedder(),
        tokenizer=WordTokenizer,
        params=ChunkParams(60, 10),
        isolate=True,
    )


def test_a_thousand_files_each_keep_their_own_text(tmp_path, monkeypatch):
    expected = _library(tmp_path / "Ma bibliothèque")
    boxes: list[sandbox.Sandbox] = []

    class Recorded(sandbox.Sandbox):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            boxes.append(self)

    monkeypatch.setattr(sandbox, "MAX_TASKS", RECYCLE_AFTER)
    monkeypatch.setattr(sandbox, "Sandbox", Recorded)
    app = _app(tmp_path / "data")
    report = app.index([str(tmp_path / "Ma bibliothèque")])

    assert report.failed == [] and report.indexed == FILES
    assert report.pages == sum(1 + i % 3 for i in range(FILES))
    [box] = boxes
    assert box.ahead == sandbox.AHEAD and box.timeout_s == sandbox.DEFAULT_TIMEOUT_S
    assert box.memory_mb == sandbox.DEFAULT_MEMORY_MB
    # One reader at a time, each replaced after RECYCLE_AFTER files.
    assert len(box.pids) == -(-FILES // RECYCLE_AFTER) == 16
    wrong = []
    for word, (path, page) in expected.items():
        hits = app.store.text_search(word, k=3)
        top = (hits[0].path, hits[0].page) if hits else None
        if top != (path, page) or len(hits) != 1:
            wrong.append((word, path, page, [(h.path, h.page) for h in hits]))
    assert wrong == [], f"{len(wrong)} files found under another file's word: {wrong[:3]}"


def test_an_edit_that_keeps_the_size_is_embedded_again(tmp_path):
    lib = tmp_path / "lib"
    path = make_pdf(lib / "notes.pdf", ["The password hint is albatross."], compress=False)
    make_pdf(lib / "other.pdf", ["Something else entirely."])
    app = _app(tmp_path / "data")
    assert app.index([str(lib)]).indexed == 2
    size, mtime = path.stat().st_size, path.stat().st_mtime_ns
    make_pdf(path, ["The password hint is cormorant."], compress=False)
    os.utime(path, ns=(mtime + 1_000_000, mtime + 1_000_000))  # an editor saving a second later
    assert path.stat().st_size == size
    again = app.index([str(lib)])
    assert (again.indexed, again.unchanged) == (1, 1)
    assert [h.path for h in app.store.text_search("cormorant", k=3)] == [str(path)]
    assert app.store.text_search("albatross", k=3) == []


@pytest.mark.parametrize("i", [0, 9, 1234])
def test_unique_words_differ(i):
    assert unique_word(i) != unique_word(i + 1) and unique_word(i).isalpha()


def test_a_thousand_files_stored_text_first_each_keep_their_own_text_and_vectors(
    tmp_path, monkeypatch
):
    """Every file through the text-first path (issue 32 item 4): 1,000 text commits, their
    vectors filled by the run's VectorFiller while the next files are read; each file's word
    still finds that file and page, and each file's vectors are its own text's."""
    from desktop_rag.ingest import local_engine

    monkeypatch.setattr(local_engine, "TEXT_FIRST_CHUNKS", 1)
    expected = _library(tmp_path / "Ma bibliothèque")
    app = _app(tmp_path / "data")
    commits: list[bool] = []
    real = app.store.commit

    def commit(*args, **kwargs):  # type: ignore[no-untyped-def]
        commits.append(bool(kwargs.get("pending")))
        return real(*args, **kwargs)

    monkeypatch.setattr(app.store, "commit", commit)
    report = app.index([str(tmp_path / "Ma bibliothèque")])
    assert report.failed == [] and report.indexed == FILES
    assert commits.count(True) == FILES, "each file's text committed before its vectors"
    assert app.store.count_pending() == 0
    wrong = []
    for word, (path, page) in expected.items():
        hits = app.store.text_search(word, k=3)
        if [(h.path, h.page) for h in hits] != [(path, page)]:
            wrong.append((word, path, page, [(h.path, h.page) for h in hits]))
    assert wrong == [], f"{len(wrong)} files found under another file's word: {wrong[:3]}"
    # Each chunk's vector is its own text's, filled in whatever order the filler went.
    rows = app.store.chunks_table.to_arrow().to_pylist()
    texts = [embedded_text(chunk_from_row(r), app.ingest.params) for r in rows]
    got = np.asarray([r["vector"] for r in rows], dtype=np.float32)
    np.testing.assert_allclose(got, HashEmbedder().embed(texts), atol=1e-6)
