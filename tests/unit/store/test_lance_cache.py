"""LanceDB's caches stay within the store's bounds over a long run of small commits."""

from __future__ import annotations

import numpy as np

from desktop_rag.store import lance, schema
from desktop_rag.store.lance import LanceStore
from desktop_rag.store.schema import IndexMeta
from desktop_rag.types import Chunk, DocumentRecord, Status

DIM = 8
BOUND = 256 * 1024


def _commit(store: LanceStore, n: int) -> None:
    doc_id = f"doc{n}"
    path = f"/lib/{doc_id}.pdf"
    chunks = [Chunk(f"{doc_id}:{i:06d}", doc_id, path, 1, 0, 4, f"text {n} {i}") for i in range(3)]
    doc = DocumentRecord(doc_id, path, 1, 1, "", 1, 3, Status.INDEXED, "", "", 0)
    store.commit([doc], chunks, np.ones((3, DIM), dtype=np.float32), replace_doc_ids=[doc_id])


def test_cached_versions_stay_within_the_bound(tmp_path, monkeypatch):
    """An index run commits every few seconds, each commit a new version of both tables whose
    manifest lists every fragment so far: with LanceDB's default session (1 GB of metadata)
    every one stayed cached, growing with the square of the commits."""
    monkeypatch.setattr(lance, "METADATA_CACHE_BYTES", BOUND)
    meta = IndexMeta(schema.SCHEMA_VERSION, "test/ones", DIM, {"max_tokens": 1, "overlap": 0})
    store = LanceStore(tmp_path / "index", meta).open()
    sizes = []
    for n in range(160):
        _commit(store, n)
        if n % 20 == 19:
            store.documents()  # a window reads its rows back after a run
            sizes.append(store.cache_bytes)
    assert store.count_chunks() == 480
    # The bound is reached (the test exercises it) and held (no index is built here, so the
    # index cache holds next to nothing).
    assert max(sizes) > BOUND // 2, sizes
    assert max(sizes) <= 2 * BOUND, sizes
