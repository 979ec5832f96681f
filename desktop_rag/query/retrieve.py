"""Hybrid retrieval: BM25 and vector search over the chunks, fused by reciprocal rank."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from enum import StrEnum

from desktop_rag.ingest.embed import Embedder
from desktop_rag.store.lance import LanceStore
from desktop_rag.types import Hit

log = logging.getLogger(__name__)

RRF_K = 60  # the constant from Cormack et al. (2009); damps the head of each ranking


class Mode(StrEnum):
    HYBRID = "hybrid"
    VECTOR = "vector"
    TEXT = "text"


def fuse(rankings: Sequence[Sequence[Hit]], k: int = RRF_K) -> list[Hit]:
    """Reciprocal rank fusion: score = sum over rankings of 1 / (k + rank), rank from 1."""
    scores: dict[str, float] = {}
    best: dict[str, Hit] = {}
    for ranking in rankings:
        for rank, hit in enumerate(ranking, start=1):
            scores[hit.chunk_id] = scores.get(hit.chunk_id, 0.0) + 1.0 / (k + rank)
            seen = best.get(hit.chunk_id)
            if seen is None or hit.similarity > seen.similarity:
                best[hit.chunk_id] = hit
    fused = [replace(best[cid], score=score) for cid, score in scores.items()]
    # Ties (a passage ranked the same in both lists) break by similarity, then id for stability.
    fused.sort(key=lambda h: (-h.score, -h.similarity, h.chunk_id))
    return fused


class Retriever:
    """Find the passages that best answer a question."""

    def __init__(
        self,
        store: LanceStore,
        embedder: Embedder,
        mode: Mode = Mode.HYBRID,
        candidates: int = 40,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.mode = mode
        self.candidates = candidates
        # BM25 needs no question vector: it runs beside the embedding and the vector search,
        # so a hybrid search costs about the slower of the two, not their sum.
        self._text_pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def search(self, query: str, k: int = 5, mode: Mode | None = None) -> list[Hit]:
        mode = mode or self.mode
        query = query.strip()
        if not query or k <= 0:
            return []
        n = max(k, self.candidates)
        if mode == Mode.VECTOR:
            return self.store.vector_search(self.embedder.embed_query(query), n)[:k]
        if mode == Mode.TEXT:
            return self.store.text_search(query, n)[:k]
        text = self._pool().submit(self.store.text_search, query, n)
        try:
            vector = self.store.vector_search(self.embedder.embed_query(query), n)
        finally:
            bm25 = text.result()
        return fuse([vector, bm25])[:k]

    def _pool(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._text_pool is None:
                self._text_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="bm25")
            return self._text_pool
