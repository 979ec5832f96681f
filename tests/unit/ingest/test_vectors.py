"""The thread that gives chunks stored with their text only their vectors (ingest/vectors.py),
over a real LanceStore: in the order stored, in batches, woken for new work, paused, stopped,
cancelled, and its failures raised by finish()."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

from desktop_rag.errors import StoreError
from desktop_rag.ingest.vectors import VectorFiller
from desktop_rag.store.lance import LanceStore
from desktop_rag.store.schema import SCHEMA_VERSION, IndexMeta
from desktop_rag.types import Chunk, DocumentRecord, Status
from tests.fakes import HashEmbedder

EMB = HashEmbedder()


def _store(tmp_path: Path) -> LanceStore:
    return LanceStore(
        tmp_path / "index", IndexMeta(SCHEMA_VERSION, EMB.model_id, EMB.dim, {})
    ).open()


def _stored(store: LanceStore, doc_id: str, n: int) -> list[Chunk]:
    """A document of n chunks committed with their text only, as a long file's first commit."""
    path = f"/docs/{doc_id}.txt"
    chunks = [
        Chunk(f"{doc_id}-{j:03d}", doc_id, path, 1, 0, 10, f"passage {j} of {doc_id} on pumps")
        for j in range(n)
    ]
    doc = DocumentRecord(
        doc_id=doc_id, path=path, size=1, mtime_ns=0, sha256=doc_id, pages=1, chunks=n,
        status=Status.INDEXED, error="", error_kind="", indexed_at=0.0,
    )  # fmt: skip
    store.commit([doc], chunks, None, pending=True, new=True)
    return chunks


class Embeds:
    """The hash embedder, each call's texts kept (and, with `pause`, whether it was set)."""

    def __init__(self, pause: threading.Event | None = None) -> None:
        self.calls: list[list[str]] = []
        self.paused_at_call: list[bool] = []
        self.pause = pause

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        self.paused_at_call.append(self.pause is not None and self.pause.is_set())
        return EMB.embed(texts)


def _text(chunk: Chunk) -> str:
    return f"pumps: {chunk.text}"


def test_every_waiting_chunk_gets_the_vector_of_its_text_in_the_order_stored(
    tmp_path: Path,
) -> None:
    store = _store(tmp_path)
    first = _stored(store, "a", 5)
    second = _stored(store, "b", 4)
    assert store.count_pending() == 9
    embeds, filled = Embeds(), []
    filler = VectorFiller(store, embeds, _text, threading.Event(), on_filled=filled.extend, batch=4)
    filler.start()
    filler.finish()
    assert store.count_pending() == 0 and filler.filled == 9
    assert [len(c) for c in embeds.calls] == [4, 4, 1], "one embed call per batch"
    assert [c.chunk_id for c in filled] == [c.chunk_id for c in first + second]
    assert embeds.calls[0][0] == _text(first[0]), "the text the run embeds, not the raw text"
    # Vector search now finds them, by the vector of the embedded text.
    hit = store.vector_search(EMB.embed([_text(second[2])])[0], 1, exact=True)[0]
    assert hit.chunk_id == second[2].chunk_id and hit.similarity == pytest.approx(1.0, abs=1e-5)


def test_chunks_stored_after_the_start_are_filled_too(tmp_path: Path) -> None:
    store = _store(tmp_path)
    _stored(store, "a", 2)
    filler = VectorFiller(store, Embeds(), _text, threading.Event())
    filler.start()
    _stored(store, "b", 3)
    filler.start()  # new work: wakes it, starts nothing new
    filler.finish()
    assert store.count_pending() == 0 and filler.filled == 5


def test_a_cancelled_run_leaves_its_chunks_waiting(tmp_path: Path) -> None:
    store = _store(tmp_path)
    _stored(store, "a", 3)
    cancel = threading.Event()
    cancel.set()
    embeds = Embeds()
    filler = VectorFiller(store, embeds, _text, cancel)
    filler.start()
    filler.finish()
    assert not embeds.calls and store.count_pending() == 3


def test_stop_keeps_the_batch_being_embedded_and_embeds_no_more(tmp_path: Path) -> None:
    store = _store(tmp_path)
    _stored(store, "a", 6)
    inside, release = threading.Event(), threading.Event()
    embeds = Embeds()

    def slow(texts: list[str]) -> np.ndarray:
        inside.set()
        assert release.wait(30)
        return embeds(texts)

    filler = VectorFiller(store, slow, _text, threading.Event(), batch=2)
    filler.start()
    assert inside.wait(30)
    stopping = threading.Thread(target=filler.stop)
    stopping.start()
    release.set()
    stopping.join(30)
    assert not stopping.is_alive()
    assert len(embeds.calls) == 1 and filler.filled == 2 and store.count_pending() == 4


def test_nothing_is_embedded_while_the_run_is_paused(tmp_path: Path) -> None:
    store = _store(tmp_path)
    _stored(store, "a", 3)
    pause = threading.Event()
    pause.set()
    embeds = Embeds(pause)
    filler = VectorFiller(store, embeds, _text, threading.Event(), pause=pause)
    filler.start()
    time.sleep(0.3)  # room for a filler that ignored the pause to embed (the check is below)
    assert store.count_pending() == 3
    pause.clear()
    filler.finish()
    assert embeds.paused_at_call == [False] and store.count_pending() == 0


def test_an_embedder_failure_is_raised_by_finish(tmp_path: Path) -> None:
    store = _store(tmp_path)
    _stored(store, "a", 2)

    def broken(texts: list[str]) -> np.ndarray:
        raise RuntimeError("the embedder ran out of memory")

    filler = VectorFiller(store, broken, _text, threading.Event())
    filler.start()
    with pytest.raises(RuntimeError, match="out of memory"):
        filler.finish()
    assert store.count_pending() == 2


class Forgetful(LanceStore):
    """A store that takes vectors and keeps none of them."""

    def fill_vectors(self, chunks, vectors):  # type: ignore[no-untyped-def]
        return 0


def test_a_store_that_keeps_no_vectors_is_an_error_not_a_loop(tmp_path: Path) -> None:
    _stored(_store(tmp_path), "a", 2)
    store = Forgetful(tmp_path / "index", IndexMeta(SCHEMA_VERSION, EMB.model_id, EMB.dim, {}))
    embeds = Embeds()
    filler = VectorFiller(store.open(), embeds, _text, threading.Event())
    filler.start()
    with pytest.raises(StoreError, match="did not keep the vectors"):
        filler.finish()
    assert len(embeds.calls) == 3, "the same chunks three times, then it says so"
