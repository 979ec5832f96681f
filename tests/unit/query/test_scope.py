"""Scopes: the filter a scope makes, and that the store applies it inside each search."""

from __future__ import annotations

import os

import numpy as np
import pytest

from desktop_rag.errors import UsageError
from desktop_rag.query.retrieve import Mode, Retriever
from desktop_rag.query.scope import Scope, resolve
from desktop_rag.store import maintenance, schema
from desktop_rag.store.lance import LanceStore
from desktop_rag.store.schema import IndexMeta
from desktop_rag.types import Chunk, DocumentRecord, Status
from tests.fakes import HashEmbedder

DIM = 64


def test_paths_become_files_and_folders(tmp_path) -> None:
    folder = tmp_path / "Tax 2024"
    folder.mkdir()
    scope = Scope.of([str(folder), str(tmp_path / "contract.pdf"), str(folder)])
    assert scope.folders == (str(folder),)  # once
    assert scope.files == (str(tmp_path / "contract.pdf"),)
    assert scope.contains(str(folder / "later" / "added.pdf"))
    assert not scope.contains(str(tmp_path / "Tax 2024 old" / "a.pdf"))  # a prefix, not a folder
    assert scope.contains(str(tmp_path / "contract.pdf"))
    assert scope.label() == "1 document and 1 folder"
    assert Scope.of([str(folder)]).label() == "Tax 2024"
    assert Scope().label() == "All documents" and Scope().where() is None


def test_where_quotes_paths(tmp_path) -> None:
    scope = Scope(files=("/a/it's.pdf",), folders=("/b/100%_done",))
    where = scope.where()
    assert where == (
        "(path IN ('/a/it''s.pdf') OR starts_with(path, '/b/100%_done" + os.sep + "'))"
    )


def test_json_round_trip_and_garbage() -> None:
    scope = Scope(("/a.pdf",), ("/b",), "Taxes")
    assert Scope.from_json(scope.to_json()) == scope
    assert Scope.from_json({"files": "nope", "folders": [3, "/c"]}) == Scope((), ("/c",), "")
    assert Scope.from_json(None).whole_library


def test_resolve_collection(tmp_path) -> None:
    scope = resolve([], "Taxes", {"Taxes": [str(tmp_path)]})
    assert scope.folders == (str(tmp_path),) and scope.label() == "Taxes"
    with pytest.raises(UsageError, match="no collection named 'Nope'"):
        resolve([], "Nope", {"Taxes": []})


def _library(store: LanceStore, docs: int, per_doc: int, seed: int = 0) -> np.ndarray:
    """`docs` documents under /lib/big/, each of per_doc chunks saying 'warranty' with random
    vectors, and one small document /lib/small/note.pdf whose one chunk also does."""
    rng = np.random.default_rng(seed)
    records, chunks = [], []
    for d in range(docs):
        doc_id = f"doc{d:05d}"
        path = f"/lib/big/{doc_id}.pdf"
        records.append(
            DocumentRecord(doc_id, path, 1, 1, "", 1, per_doc, Status.INDEXED, "", "", 0)
        )
        for i in range(per_doc):
            text = "the warranty covers parts and labour " * 3
            chunks.append(Chunk(f"{doc_id}:{i:06d}", doc_id, path, 1 + i, 0, len(text), text))
    records.append(
        DocumentRecord("small", "/lib/small/note.pdf", 1, 1, "", 1, 1, Status.INDEXED, "", "", 0)
    )
    text = "minutes of the garden meeting: the fence, the shed, the pond " * 4 + "and a warranty"
    chunks.append(Chunk("small:000000", "small", "/lib/small/note.pdf", 2, 0, len(text), text))
    vectors = rng.normal(size=(len(chunks), DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    store.commit(records, chunks, vectors)
    maintenance.optimize(store)
    return vectors


@pytest.fixture
def store(tmp_path) -> LanceStore:
    meta = IndexMeta(schema.SCHEMA_VERSION, "test/hash", DIM, {"max_tokens": 1, "overlap": 0})
    return LanceStore(tmp_path / "index", meta).open()


@pytest.mark.parametrize("mode", list(Mode))
def test_a_small_scope_gets_its_passage_however_far_it_ranks(store, mode) -> None:
    _library(store, docs=60, per_doc=5)
    retriever = Retriever(store, HashEmbedder(DIM), candidates=10)
    unscoped = retriever.search("warranty", 5, mode)
    assert unscoped and all(h.path != "/lib/small/note.pdf" for h in unscoped)
    # Dropping hits afterwards would leave nothing: the filter is inside the search.
    scoped = retriever.search("warranty", 5, mode, Scope(files=("/lib/small/note.pdf",)))
    assert [(h.path, h.page) for h in scoped] == [("/lib/small/note.pdf", 2)]
    folder = retriever.search("warranty", 5, mode, Scope(folders=("/lib/small",)))
    assert [h.path for h in folder] == ["/lib/small/note.pdf"]
    big = retriever.search("warranty", 5, mode, Scope(folders=("/lib/big",)))
    assert len(big) == 5 and all(h.path.startswith("/lib/big/") for h in big)


def test_a_scope_filters_the_approximate_index_too(store, monkeypatch) -> None:
    monkeypatch.setattr(maintenance, "ANN_MIN_ROWS", 1000)
    vectors = _library(store, docs=300, per_doc=5)
    assert maintenance.vector_index_type(store) is not None
    near_small = vectors[-1] + 0.3 * vectors[0]
    hits = store.vector_search(near_small, 3, where=Scope(files=("/lib/small/note.pdf",)).where())
    assert [h.chunk_id for h in hits] == ["small:000000"]
    far = store.vector_search(-vectors[-1], 3, where=Scope(folders=("/lib/small",)).where())
    assert [h.chunk_id for h in far] == ["small:000000"]  # the farthest, but the only one
    exact = store.vector_search(
        -vectors[-1], 3, exact=True, where=Scope(folders=("/lib/big",)).where()
    )
    approx = store.vector_search(-vectors[-1], 3, where=Scope(folders=("/lib/big",)).where())
    assert len(approx) == 3 and [h.chunk_id for h in approx] == [h.chunk_id for h in exact]


def test_a_scope_typed_in_another_case_is_spelled_as_the_index_spells_it(monkeypatch) -> None:
    """On a case-insensitive file system (Windows, macOS) `--in ~/papers` names the folder the
    index holds as ~/Papers: the scope is spelled as the folder lists it, as the index's paths
    are (infra/paths.normalize), so its filter finds the documents."""
    from desktop_rag.infra import paths

    listed = {"/": ["Users"], "/Users": ["Me"], "/Users/Me": ["Papers"]}
    known = {"/Users", "/Users/Me", "/Users/Me/Papers"}

    def exists(path: str) -> bool:
        return path == "/" or path.casefold() in {k.casefold() for k in known}

    def listdir(path: str) -> list[str]:
        return listed[next(k for k in listed if k.casefold() == path.casefold())]

    monkeypatch.setattr(paths.os.path, "exists", exists)
    monkeypatch.setattr(paths.os, "listdir", listdir)
    try:
        scope = Scope.of(["/users/me/papers/"])  # a folder, by its trailing separator
    finally:
        monkeypatch.undo()
    assert scope.contains("/Users/Me/Papers/report.pdf")
    assert scope.where() == "starts_with(path, '/Users/Me/Papers/')"
