"""A vector search of a team library with the approximate index: each candidate it re-ranks
by exact distance has its vector read from the store, so a team library re-ranks fewer than a
local one (store/remote.py: REMOTE_REFINE), reads less, and keeps its recall against exact
search. The bytes are counted at a loopback proxy in front of moto."""

from __future__ import annotations

import statistics

import numpy as np
import pytest

from desktop_rag.store import lance, maintenance
from desktop_rag.store.remote import REMOTE_REFINE, RemoteStore
from desktop_rag.store.schema import SCHEMA_VERSION, IndexMeta
from desktop_rag.types import Chunk, DocumentRecord, Status
from tests.fakes import HashEmbedder
from tests.helpers.s3 import Moto, proxy
from tests.helpers.team import URI

ROWS = 10000
K = 40  # what the Retriever asks for


def _meta(dim: int) -> IndexMeta:
    return IndexMeta(SCHEMA_VERSION, HashEmbedder().model_id, dim, {})


def fill(store: RemoteStore, embedder: HashEmbedder) -> None:
    rng = np.random.default_rng(5)
    words = [f"w{i}" for i in range(400)]
    texts = [" ".join(rng.choice(words, size=30)) for _ in range(ROWS)]
    docs = [
        DocumentRecord(
            doc_id=f"d{i}", path=f"/team/d{i}.pdf", size=1, mtime_ns=0, sha256=f"d{i}",
            pages=50, chunks=50, status=Status.INDEXED, error="", error_kind="", indexed_at=0.0,
        )
        for i in range(ROWS // 50)
    ]  # fmt: skip
    chunks = [
        Chunk(
            chunk_id=f"d{i // 50}-{i % 50}", doc_id=f"d{i // 50}", path=f"/team/d{i // 50}.pdf",
            page=i % 50 + 1, start=0, end=len(t), text=t,
        )
        for i, t in enumerate(texts)
    ]  # fmt: skip
    for a in range(0, ROWS, 2000):
        store.commit(
            [d for d in docs if a // 50 <= int(d.doc_id[1:]) < (a + 2000) // 50],
            chunks[a : a + 2000],
            embedder.embed(texts[a : a + 2000]),
        )


@pytest.mark.slow
def test_the_indexed_search_reads_less_and_keeps_recall(
    moto: Moto, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = HashEmbedder()
    meta = _meta(embedder.dim)
    writer = RemoteStore(URI, meta).open()
    fill(writer, embedder)
    monkeypatch.setattr(maintenance, "ANN_MIN_ROWS", 1000)
    with writer.write_lock:
        maintenance.ensure_vector_index(writer)
    assert maintenance.vector_index_type(writer)

    questions = [f"w{i} w{i + 7} w{i + 50}" for i in range(0, 200, 20)]
    vectors = [embedder.embed_query(q) for q in questions]
    with proxy(moto.endpoint) as p:
        moto.use(endpoint=p.endpoint)
        desktop = RemoteStore(URI, meta, read_only=True).open()

        def search(refine: int | None) -> tuple[int, list[list[str]]]:
            """Bytes read from the store by the searches, and their results."""
            if refine is not None:
                desktop.refine = refine
            desktop.vector_search(vectors[0], K)  # the index and metadata cached
            before = p.sent
            found = [[h.chunk_id for h in desktop.vector_search(v, K)] for v in vectors]
            return p.sent - before, found

        read, found = search(None)  # as a desktop searches
        local_read, _ = search(lance.ANN_REFINE)  # as a local library re-ranks
        exact = [[h.chunk_id for h in desktop.vector_search(v, K, exact=True)] for v in vectors]
    print(f"bytes read by {len(vectors)} searches: refine {REMOTE_REFINE} {read}, "
          f"refine {lance.ANN_REFINE} {local_read}")  # fmt: skip
    assert read * 2 < local_read
    recall = statistics.mean(
        len(set(f[:5]) & set(e[:5])) / 5 for f, e in zip(found, exact, strict=True)
    )
    assert recall >= 0.9, recall
