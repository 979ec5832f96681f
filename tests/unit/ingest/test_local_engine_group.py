"""Small files are embedded together (issue 32), and a group is kept whole or not at all."""

from __future__ import annotations

import pytest

from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.ingest import local_engine
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.query.retrieve import Mode
from tests.fakes import HashEmbedder, WordTokenizer
from tests.helpers import processes
from tests.pdfgen import make_pdf

FILES = 12
WORDS = [f"marker{chr(97 + i)}word" for i in range(FILES)]  # one word found in one file only


def _library(root):
    for i, word in enumerate(WORDS):
        make_pdf(root / f"sub {i % 3}" / f"note {i:02d}.pdf", [f"A short note that says {word}."])
    return root


def _app(tmp_path, embedder):
    return build_app(
        Settings(data_dir=str(tmp_path / "data")),
        embedder=embedder,
        tokenizer=WordTokenizer,
        params=ChunkParams(60, 10),
        isolate=processes.isolate(),
    )


def _own_words_found(app):
    wrong = []
    for i, word in enumerate(WORDS):
        hits = app.retriever.search(word, k=3, mode=Mode.TEXT)
        if [h.path.rsplit("/", 1)[-1] for h in hits] != [f"note {i:02d}.pdf"]:
            wrong.append((word, [h.path for h in hits]))
    return wrong


def test_small_files_share_an_embed_call_and_keep_their_own_text(tmp_path, monkeypatch):
    monkeypatch.setattr(
        local_engine, "GROUP_SECONDS", 600.0, raising=False
    )  # only the size closes a group
    embedder = HashEmbedder()
    app = _app(tmp_path, embedder)
    report = app.ingest.index([str(_library(tmp_path / "lib"))])
    assert report.indexed == FILES and report.failed == []
    assert embedder.calls == 1, "one embed call per file"
    assert embedder.texts_embedded == report.chunks == FILES
    assert _own_words_found(app) == []


def test_an_error_keeps_the_groups_before_it_and_nothing_of_its_own(tmp_path, monkeypatch):
    monkeypatch.setattr(local_engine, "GROUP_SECONDS", 600.0)
    # four one-chunk files a group
    monkeypatch.setattr(local_engine, "GROUP_CHUNKS", 4)
    monkeypatch.setattr(local_engine, "FLUSH_SECONDS", 0.0)  # commit after every group
    embedder = HashEmbedder()
    real_embed = embedder.embed

    def embed(texts):
        if embedder.calls >= 1:
            raise RuntimeError("the embedder ran out of memory")
        return real_embed(texts)

    embedder.embed = embed  # type: ignore[method-assign]
    app = _app(tmp_path, embedder)
    lib = _library(tmp_path / "lib")
    with pytest.raises(RuntimeError, match="out of memory"):
        app.ingest.index([str(lib)])
    assert app.store.stats()["documents"] == 4, "the first group is kept, whole"
    assert app.store.stats()["chunks"] == 4

    again = _app(tmp_path, HashEmbedder())
    report = again.ingest.index([str(lib)])
    assert (report.indexed, report.unchanged, report.failed) == (FILES - 4, 4, [])
    ids = again.store.chunks_table.to_arrow().column("chunk_id").to_pylist()
    assert len(ids) == len(set(ids)) == FILES
    assert _own_words_found(again) == []


def test_new_files_are_appended_and_changed_ones_replaced(tmp_path, monkeypatch):
    monkeypatch.setattr(local_engine, "FLUSH_SECONDS", 0.0)  # a commit per group
    monkeypatch.setattr(local_engine, "GROUP_CHUNKS", 4)
    app = _app(tmp_path, HashEmbedder())
    real_commit = app.store.commit
    seen: list[tuple[int, bool]] = []

    def commit(documents, chunks, vectors, *args, **kwargs):
        seen.append((len(chunks), kwargs.get("new", False)))
        return real_commit(documents, chunks, vectors, *args, **kwargs)

    app.store.commit = commit  # type: ignore[method-assign]
    lib = _library(tmp_path / "lib")
    assert app.ingest.index([str(lib)]).indexed == FILES
    with_chunks = [new for n, new in seen if n]
    assert len(with_chunks) >= 3 and all(with_chunks), "new files went through the merge"

    # A changed file replaces its chunks (the merge), and nothing is duplicated.
    seen.clear()
    make_pdf(lib / "sub 0" / "note 00.pdf", ["Now it says nothing of the sort.", "Two pages."])
    assert app.ingest.index([str(lib)]).indexed == 1
    assert [new for n, new in seen if n] == [False]
    ids = app.store.chunks_table.to_arrow().column("chunk_id").to_pylist()
    assert len(ids) == len(set(ids))
    assert app.retriever.search(WORDS[0], k=3, mode=Mode.TEXT) == []
