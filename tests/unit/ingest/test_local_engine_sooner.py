"""A long document is findable by its words as soon as it is read, before its vectors exist
(issue 32 item 4); the vectors follow, and vector search never returns a row still waiting."""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest

from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.ingest import local_engine
from desktop_rag.ingest.chunk import ChunkParams, embedded_text
from desktop_rag.ingest.control import RunControl
from desktop_rag.query.retrieve import Mode
from desktop_rag.store.schema import chunk_from_row
from desktop_rag.types import Progress
from tests.fakes import HashEmbedder
from tests.helpers import processes
from tests.helpers.cli import run_in_process
from tests.pdfgen import make_pdf

PAGES = 6
WAIT_S = 120.0  # the gate's, longer than FIND_S: a failure is the test's, not a timeout's
FIND_S = 30.0


class GatedEmbedder(HashEmbedder):
    """Embeds nothing for the indexing run until `gate` is set: a document being embedded
    slowly. The test's own searches (its main thread) are answered at once."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.waiting = threading.Event()

    def embed(self, texts):  # type: ignore[no-untyped-def]
        if threading.current_thread() is not threading.main_thread():
            self.waiting.set()
            if not self.gate.wait(WAIT_S):
                raise TimeoutError("the test never opened the gate")
        return super().embed(texts)


def _manual(path):
    """A long document: every page has a word of its own (pageNword) among common words."""
    topics = ["pumps", "valves", "filters", "gauges", "motors", "belts"]

    def sentences(p: int, first: int) -> str:
        return " ".join(
            f"The {topics[(p + s) % 6]} of unit {p * 100 + s} need care {s} times a year."
            for s in range(first, first + 20)
        )

    # The word of its own in the middle of the page: first and last lines may be taken for
    # running headers and footers.
    pages = [
        f"{sentences(p, 0)}\nOnly this page mentions page{p}word.\n{sentences(p, 20)}"
        for p in range(1, PAGES + 1)
    ]
    return make_pdf(path, pages)


def _app(tmp_path, embedder):
    from tests.fakes import WordTokenizer

    return build_app(
        Settings(data_dir=str(tmp_path / "data")),
        embedder=embedder,
        tokenizer=WordTokenizer,
        params=ChunkParams(60, 10),
        isolate=processes.isolate(),
    )


@pytest.fixture
def text_first(monkeypatch):
    # Small enough that the test's manual is "long"; the fake embedder makes it slow.
    monkeypatch.setattr(local_engine, "TEXT_FIRST_CHUNKS", 8)


def _found_pages(app, path) -> set[int]:
    found = set()
    for p in range(1, PAGES + 1):
        hits = app.retriever.search(f"page{p}word", k=3, mode=Mode.TEXT)
        found |= {h.page for h in hits if h.path == str(path) and f"page{p}word" in h.text}
    return found


def _wait(cond, seconds=FIND_S):
    deadline = threading.Event()
    timer = threading.Timer(seconds, deadline.set)
    timer.start()
    try:
        while not deadline.is_set():
            if cond():
                return True
            deadline.wait(0.1)
        return False
    finally:
        timer.cancel()


def test_a_long_document_is_findable_by_its_words_before_its_vectors(tmp_path, text_first):
    doc = _manual(tmp_path / "lib" / "manual.pdf")
    embedder = GatedEmbedder()
    app = _app(tmp_path, embedder)
    box: dict = {}
    said: list[Progress] = []
    run = threading.Thread(
        target=lambda: box.update(
            report=app.ingest.index([str(doc)], RunControl(on_progress=said.append))
        )
    )
    run.start()
    try:
        assert embedder.waiting.wait(WAIT_S), "the embedder was never called"
        # The embedder holds its first call: no vector exists, yet every page is found.
        assert _wait(lambda: _found_pages(app, doc) == set(range(1, PAGES + 1))), (
            "the document was not findable by its words while its vectors were computed"
        )
        stats = app.store.stats()
        assert stats["pending"] == stats["chunks"] > 0
        assert app.store.stats()["documents"] == 1
        # Vector search never returns a row whose vector is a placeholder.
        query = embedder.embed_query("page1word setting")
        assert app.store.vector_search(query, 50) == []
        assert app.store.vector_search(query, 50, exact=True) == []
        # Hybrid search finds the page by its words meanwhile.
        hits = app.retriever.search("page3word", k=3)
        assert hits and hits[0].page == 3
    finally:
        embedder.gate.set()
        run.join(WAIT_S)
    assert box["report"].indexed == 1 and box["report"].failed == []
    # The window and the CLI say that vectors are being computed, and how many are left.
    waiting = [p for p in said if p.stage == "vectors"]
    assert waiting and any("passages to go" in p.message for p in waiting)
    stats = app.store.stats()
    assert stats["pending"] == 0
    _assert_vectors_are_the_embedders(app)
    vector_hits = app.store.vector_search(HashEmbedder().embed_query("page2word"), 50)
    assert {h.page for h in vector_hits} == set(range(1, PAGES + 1))


def _assert_vectors_are_the_embedders(app):
    rows = app.store.chunks_table.to_arrow().to_pylist()
    assert rows
    texts = [embedded_text(chunk_from_row(r), app.ingest.params) for r in rows]
    want = HashEmbedder().embed(texts)
    got = np.asarray([r["vector"] for r in rows], dtype=np.float32)
    np.testing.assert_allclose(got, want, atol=1e-6)
    assert not any(r["pending"] for r in rows)


def test_vectors_left_to_compute_by_an_error_are_computed_by_the_next_run(
    tmp_path, text_first, capsys
):
    doc = _manual(tmp_path / "lib" / "manual.pdf")
    broken = HashEmbedder()

    def fail(texts):  # type: ignore[no-untyped-def]
        raise RuntimeError("the embedder ran out of memory")

    broken.embed = fail  # type: ignore[method-assign]
    app = _app(tmp_path, broken)
    with pytest.raises(RuntimeError, match="out of memory"):
        app.ingest.index([str(doc)])
    assert _found_pages(app, doc) == set(range(1, PAGES + 1)), "its words are kept"
    assert app.store.stats()["pending"] > 0
    code, out, _ = run_in_process(app, ["status"], capsys)
    assert code == 0 and "wait for their vectors" in out
    code, out, _ = run_in_process(app, ["status", "--json"], capsys)
    assert json.loads(out)["pending"] == app.store.stats()["chunks"]

    again = _app(tmp_path, HashEmbedder())
    report = again.ingest.index([str(doc)])
    assert (report.indexed, report.unchanged, report.failed) == (0, 1, [])
    assert again.store.stats()["pending"] == 0
    _assert_vectors_are_the_embedders(again)


def test_cancel_while_vectors_are_computed_keeps_the_words(tmp_path, text_first):
    doc = _manual(tmp_path / "lib" / "manual.pdf")
    embedder = GatedEmbedder()
    app = _app(tmp_path, embedder)
    cancel = threading.Event()
    box: dict = {}
    run = threading.Thread(
        target=lambda: box.update(report=app.ingest.index([str(doc)], RunControl(cancel=cancel)))
    )
    run.start()
    assert embedder.waiting.wait(WAIT_S)
    cancel.set()
    embedder.gate.set()
    run.join(WAIT_S)
    assert box["report"].cancelled
    assert _found_pages(app, doc) == set(range(1, PAGES + 1))

    again = _app(tmp_path, HashEmbedder())
    again.ingest.index([str(doc)])
    assert again.store.stats()["pending"] == 0
    _assert_vectors_are_the_embedders(again)


def test_small_files_keep_their_single_commit(tmp_path, monkeypatch):
    """Below TEXT_FIRST_CHUNKS a file is committed once, with its vectors."""
    lib = tmp_path / "lib"
    for i in range(3):
        make_pdf(lib / f"note {i}.pdf", [f"A short note that says marker{i}word."])
    commits: list[bool] = []
    app = _app(tmp_path, HashEmbedder())
    real = app.store.commit

    def commit(*args, **kwargs):  # type: ignore[no-untyped-def]
        commits.append(bool(kwargs.get("pending", False)))
        return real(*args, **kwargs)

    monkeypatch.setattr(app.store, "commit", commit)
    report = app.ingest.index([str(lib)])
    assert report.indexed == 3
    assert commits == [False], "small files: one commit, no text-first pass"
    assert app.store.stats()["pending"] == 0


def test_a_renamed_document_still_waiting_for_its_vectors_gets_them(tmp_path, text_first):
    """A rename reuses the stored chunks: those still waiting wait under the new name too,
    and get real vectors, never the placeholders copied as if they were vectors."""
    doc = _manual(tmp_path / "lib" / "manual.pdf")
    broken = HashEmbedder()
    broken.embed = lambda texts: (_ for _ in ()).throw(RuntimeError("no memory"))  # type: ignore[method-assign]
    app = _app(tmp_path, broken)
    with pytest.raises(RuntimeError):
        app.ingest.index([str(tmp_path / "lib")])
    renamed = doc.rename(tmp_path / "lib" / "renamed manual.pdf")

    again = _app(tmp_path, HashEmbedder())
    report = again.ingest.index([str(tmp_path / "lib")])
    assert report.renamed == 1 and report.failed == []
    assert again.store.stats()["pending"] == 0
    _assert_vectors_are_the_embedders(again)
    assert {h.path for h in again.store.vector_search(HashEmbedder().embed_query("pumps"), 5)} == {
        str(renamed)
    }
