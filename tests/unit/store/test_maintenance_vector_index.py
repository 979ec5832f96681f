"""The approximate vector index: built only past the threshold, close to exact search."""

from __future__ import annotations

import numpy as np
import pytest

from desktop_rag.store import maintenance, schema
from desktop_rag.store.lance import LanceStore
from desktop_rag.store.schema import IndexMeta
from desktop_rag.types import Chunk, DocumentRecord, Status

DIM = 32


def _batch(rng, start: int, n: int):
    doc_id = f"doc{start}"
    chunks = [
        Chunk(f"{doc_id}:{i:06d}", doc_id, f"/lib/{doc_id}.pdf", 1, 0, 4, f"text {start + i}")
        for i in range(n)
    ]
    vectors = rng.normal(size=(n, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    doc = DocumentRecord(doc_id, f"/lib/{doc_id}.pdf", 1, 1, "", 1, n, Status.INDEXED, "", "", 0)
    return [doc], chunks, vectors


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setattr(maintenance, "ANN_MIN_ROWS", 2000)
    meta = IndexMeta(schema.SCHEMA_VERSION, "test/random", DIM, {"max_tokens": 1, "overlap": 0})
    return LanceStore(tmp_path / "index", meta).open()


def test_index_appears_past_the_threshold_and_agrees_with_exact(store):
    rng = np.random.default_rng(0)
    store.commit(*_batch(rng, 0, 1500))
    maintenance.optimize(store)
    assert maintenance.vector_index_type(store) is None  # small: exact search
    store.commit(*_batch(rng, 1500, 1500))
    maintenance.optimize(store)
    assert maintenance.vector_index_type(store) is not None
    overlap = []
    for _ in range(20):
        q = rng.normal(size=DIM).astype(np.float32)
        approx = [h.chunk_id for h in store.vector_search(q, 10)]
        exact = [h.chunk_id for h in store.vector_search(q, 10, exact=True)]
        assert len(exact) == 10
        overlap.append(len(set(approx) & set(exact)) / 10)
    assert np.mean(overlap) >= 0.9


def test_new_rows_are_searchable_before_and_after_folding_in(store):
    rng = np.random.default_rng(1)
    store.commit(*_batch(rng, 0, 2500))
    maintenance.optimize(store)
    assert maintenance.vector_index_type(store) is not None
    docs, chunks, vectors = _batch(rng, 9000, 10)
    store.commit(docs, chunks, vectors)
    # Not yet in the index: still found (the unindexed rows are searched exactly).
    assert store.vector_search(vectors[3], 1)[0].chunk_id == chunks[3].chunk_id
    maintenance.optimize(store)
    assert store.vector_search(vectors[3], 1)[0].chunk_id == chunks[3].chunk_id
