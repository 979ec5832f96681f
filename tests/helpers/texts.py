"""A real LanceDB index of one-passage documents, each named by its file, for the tests of the
full-text index's words in other languages (store/grams.py, store/stems.py)."""

from __future__ import annotations

from pathlib import Path

from desktop_rag.ingest.scan import doc_id_for
from desktop_rag.store import maintenance
from desktop_rag.store.lance import LanceStore
from desktop_rag.store.schema import SCHEMA_VERSION, IndexMeta
from desktop_rag.types import Chunk, DocumentRecord, Status


def add_text(store: LanceStore, name: str, text: str) -> None:
    """Document /docs/NAME, one page of one chunk: `text`."""
    path = f"/docs/{name}"
    doc_id = doc_id_for(path)
    record = DocumentRecord(doc_id, path, 1, 1, "", 1, 1, Status.INDEXED, "", "", 0.0)
    chunk = Chunk(f"{doc_id}:000000", doc_id, path, 1, 0, len(text), text)
    store.commit([record], [chunk], None, new=True, pending=True)


def text_store(tmp_path: Path, texts: dict[str, str]) -> LanceStore:
    """An index of these documents (name: text) with its full-text indexes built."""
    store = LanceStore(tmp_path / "index", IndexMeta(SCHEMA_VERSION, "t", 4, {})).open()
    for name, text in texts.items():
        add_text(store, name, text)
    maintenance.ensure_text_index(store)
    return store


def found_by_words(store: LanceStore, question: str) -> list[str]:
    """The names of the documents the full-text search finds for `question`, best first."""
    return [h.path.rsplit("/", 1)[-1] for h in store.text_search(question, 3)]
