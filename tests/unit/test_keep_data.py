"""Faults that must not lose or hide anything: failed commits, transient read failures."""

from __future__ import annotations

import pytest

from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.errors import StoreError
from desktop_rag.ingest import pipeline
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.query.retrieve import Mode
from tests.fakes import HashEmbedder, WordTokenizer


def _app(tmp_path, embedder=None):
    return build_app(
        Settings(data_dir=str(tmp_path / "data")),
        embedder=embedder or HashEmbedder(),
        tokenizer=WordTokenizer,
        params=ChunkParams(60, 10),
        isolate=False,
    )


def test_a_failed_commit_is_the_error_reported_not_a_retry_of_it(
    tmp_path, animal_pdfs, monkeypatch
):
    app = _app(tmp_path)
    monkeypatch.setattr(pipeline, "FLUSH_SECONDS", 0.0)  # commit after every file
    calls = []

    def commit(documents, *args, **kwargs):
        calls.append([d.path for d in documents])
        if len(calls) == 1:
            raise StoreError("the disk is full (first)")
        raise StoreError("the index is gone (second)")

    app.store.commit = commit  # type: ignore[method-assign]
    with pytest.raises(StoreError, match="first"):
        app.ingest.index([str(animal_pdfs)])
    assert len(calls) == 1, "a batch that failed to commit was committed again"


def test_an_error_is_not_hidden_by_the_commit_that_keeps_the_work_before_it(tmp_path, animal_pdfs):
    embedder = HashEmbedder()
    app = _app(tmp_path, embedder)
    real_embed = embedder.embed

    def embed(texts):
        if embedder.calls >= 1:  # the first file is embedded, the second breaks the embedder
            raise RuntimeError("the embedder ran out of memory")
        return real_embed(texts)

    embedder.embed = embed  # type: ignore[method-assign]

    def commit(*args, **kwargs):
        raise StoreError("the disk is full")

    app.store.commit = commit  # type: ignore[method-assign]
    with pytest.raises(RuntimeError, match="out of memory") as raised:
        app.ingest.index([str(animal_pdfs)])
    assert any("disk is full" in note for note in raised.value.__notes__)


def test_what_was_embedded_before_an_error_is_kept(tmp_path, animal_pdfs):
    embedder = HashEmbedder()
    app = _app(tmp_path, embedder)
    real_embed = embedder.embed

    def embed(texts):
        if embedder.calls >= 1:
            raise RuntimeError("the embedder ran out of memory")
        return real_embed(texts)

    embedder.embed = embed  # type: ignore[method-assign]
    with pytest.raises(RuntimeError):
        app.ingest.index([str(animal_pdfs)])
    assert app.store.stats()["documents"] == 1


def _fts_indexes(store):
    return [i for i in store._chunks.list_indices() if i.index_type == "FTS"]


def test_a_search_never_builds_the_full_text_index(tmp_path, animal_pdfs, caplog):
    writer = _app(tmp_path)
    writer.store.optimize = lambda: None  # type: ignore[method-assign]  # killed before it
    writer.ingest.index([str(animal_pdfs)])
    reader = _app(tmp_path)
    version = reader.store._chunks.version
    with caplog.at_level("WARNING"):
        hits = reader.retriever.search("octopus blood hemocyanin", k=3)
    assert hits and hits[0].path.endswith("octopus.pdf"), "no fallback to the vectors"
    assert _fts_indexes(reader.store) == [], "a search built the full-text index"
    assert reader.store._chunks.version == version, "a search wrote to the index"
    assert "full-text index" in caplog.text
    # The next indexing run, a writer, builds it even when no file changed.
    again = _app(tmp_path)
    assert again.ingest.index([str(animal_pdfs)]).unchanged == 3
    assert len(_fts_indexes(again.store)) == 1
    assert again.retriever.search("hemocyanin", k=1, mode=Mode.TEXT)[0].path.endswith("octopus.pdf")
