"""Index format 2: chunks carry their section, nav flag and word boxes; a format-1 index still
opens as built and answers until it is rebuilt."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from desktop_rag import app as app_module
from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.errors import IndexMismatchError
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.query.retrieve import Mode
from desktop_rag.store import lance, maintenance, schema
from desktop_rag.types import Chunk
from tests.fakes import HashEmbedder, WordTokenizer


def _app(data):
    return build_app(
        Settings(data_dir=str(data)),
        embedder=HashEmbedder(),
        tokenizer=WordTokenizer,
        params=ChunkParams(60, 10),
        isolate=False,
    )


_DOCUMENTS_SCHEMA = schema.documents_schema
_CHUNKS_SCHEMA = schema.chunks_schema


def _v1_documents_schema() -> pa.Schema:
    # As format 1 wrote it: no format, no reader.
    return pa.schema([f for f in _DOCUMENTS_SCHEMA() if f.name not in ("format", "reader")])


def _v1_chunks_schema(dim: int) -> pa.Schema:
    return pa.schema([f for f in _CHUNKS_SCHEMA(dim) if f.name not in ("section", "nav", "boxes")])


def _build_format_1(data, folder, monkeypatch):
    """Index `folder` exactly as format 1 did: its schema, its version number."""
    with monkeypatch.context() as m:
        m.setattr(schema, "SCHEMA_VERSION", 1)
        m.setattr(app_module, "SCHEMA_VERSION", 1)
        m.setattr(lance, "documents_schema", _v1_documents_schema)
        m.setattr(lance, "chunks_schema", _v1_chunks_schema)
        old = _app(data)
        report = old.index([str(folder)])
        assert report.indexed == 3
    meta = json.loads((data / "index" / "meta.json").read_text())
    assert meta["schema_version"] == 1
    assert "section" not in old.store._chunks.schema.names
    assert "format" not in old.store._docs.schema.names


def test_format_1_index_answers_as_built_until_rebuilt(tmp_path, animal_pdfs, monkeypatch):
    data = tmp_path / "data"
    _build_format_1(data, animal_pdfs, monkeypatch)

    app = _app(data)
    assert app.stale is not None and "index format 1 → 2" in str(app.stale)
    for mode in Mode:
        hits = app.retriever.search("hemocyanin copper protein", k=2, mode=mode)
        assert hits[0].path.endswith("octopus.pdf") and hits[0].page == 2
        assert hits[0].section == ""
    chunks = [schema.chunk_from_row(r) for r in app.store.chunk_rows(hits[0].doc_id)]
    assert chunks and all(c.section == "" and c.boxes == "" and not c.nav for c in chunks)
    docs = app.store.documents()
    assert len(docs) == 3 and {d.format for d in docs} == {"pdf"}
    assert {d.reader for d in docs} == {""}  # format 1 did not record it
    with pytest.raises(IndexMismatchError):
        app.index([str(animal_pdfs)])

    report = app.rebuild()
    assert report.indexed == 3 and app.stale is None
    assert {"section", "nav", "boxes"} <= set(app.store._chunks.schema.names)
    assert {d.reader for d in app.store.documents()} == {"pdfium"}
    assert app.retriever.search("hemocyanin", k=1)[0].path.endswith("octopus.pdf")
    assert _app(data).stale is None


def test_section_nav_and_boxes_round_trip(tmp_path):
    import numpy as np

    meta = schema.IndexMeta(schema.SCHEMA_VERSION, "test", 4, {"max_tokens": 1, "overlap": 0})
    store = lance.LanceStore(tmp_path / "index", meta).open()
    chunk = Chunk(
        "d:000000",
        "d",
        "/lib/manual.docx",
        7,
        0,
        20,
        "Choose a USB printer",
        section="3 Setup › 3.4 Choosing a printer",
        nav=True,
        boxes='[[0, 0, 10, 10, "Choose"]]',
    )
    store.commit([], [chunk], np.ones((1, 4), dtype=np.float32))
    maintenance.optimize(store)
    assert [schema.chunk_from_row(r) for r in store.chunk_rows("d")] == [chunk]
    (hit,) = store.text_search("printer", 1)
    assert hit.section == "3 Setup › 3.4 Choosing a printer"
    (hit,) = store.vector_search(np.ones(4, dtype=np.float32), 1)
    assert hit.section == "3 Setup › 3.4 Choosing a printer"
