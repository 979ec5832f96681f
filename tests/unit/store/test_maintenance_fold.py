"""Rows stored during a run are folded into the full-text index once enough wait (issue 32
item 4): found either way, but a scan of unindexed rows makes every search slow."""

from __future__ import annotations

from desktop_rag.ingest.scan import doc_id_for
from desktop_rag.store import maintenance
from desktop_rag.store.lance import LanceStore
from desktop_rag.store.schema import SCHEMA_VERSION, IndexMeta
from desktop_rag.types import Chunk, DocumentRecord, Status


def _doc(i: int, words: str) -> tuple[DocumentRecord, list[Chunk]]:
    path = f"/docs/file {i}.pdf"
    doc_id = doc_id_for(path)
    chunks = [
        Chunk(f"{doc_id}:{n:06d}", doc_id, path, n + 1, 0, 10, f"{words} n{n}") for n in range(5)
    ]
    record = DocumentRecord(doc_id, path, 1, 1, "", 5, 5, Status.INDEXED, "", "", 0.0)
    return record, chunks


def _unindexed(store: LanceStore) -> int:
    name = next(i.name for i in store.chunks_table.list_indices() if i.columns == ["text"])
    return store.chunks_table.index_stats(name).num_unindexed_rows


def test_rows_stored_since_the_index_are_folded_in_once_enough_wait(tmp_path, monkeypatch):
    monkeypatch.setattr(maintenance, "FOLD_ROWS", 10)
    store = LanceStore(tmp_path / "index", IndexMeta(SCHEMA_VERSION, "t", 4, {})).open()
    record, chunks = _doc(0, "first words")
    store.commit([record], chunks, None, new=True, pending=True)
    maintenance.ensure_text_index(store)
    for i in range(1, 3):  # 10 rows, as many as are indexed: not yet worth folding
        record, chunks = _doc(i, f"later words{i}")
        store.commit([record], chunks, None, new=True, pending=True)
    monkeypatch.setattr(maintenance, "FOLD_SHARE", 3.0)
    assert not maintenance.fold_text_index(store)
    assert _unindexed(store) == 10
    assert [h.path for h in store.text_search("words2", 3)] == ["/docs/file 2.pdf"] * 3

    monkeypatch.setattr(maintenance, "FOLD_SHARE", 0.25)
    assert maintenance.fold_text_index(store)
    assert _unindexed(store) == 0
    assert [h.path for h in store.text_search("words2", 3)] == ["/docs/file 2.pdf"] * 3
    assert store.count_pending() == 15, "folding changes no row"
