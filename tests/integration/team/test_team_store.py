"""A library on object storage, for real, against moto on loopback: round trips of the three
searches, where each file lives, read-only users with IAM enforced, the conditional-PUT
check, freshness, and concurrent writers."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

import numpy as np
import pytest

from desktop_rag.config import Settings, team_local_dir
from desktop_rag.errors import IndexMismatchError, ReadOnlyError, StoreError
from desktop_rag.query.retrieve import Mode
from desktop_rag.store import remote
from desktop_rag.store.remote import RemoteStore
from desktop_rag.store.schema import SCHEMA_VERSION, IndexMeta
from desktop_rag.types import Chunk, DocumentRecord, Status
from tests.fakes import HashEmbedder
from tests.helpers.s3 import Moto, proxy
from tests.helpers.team import URI, keys_in, team_app


def test_index_and_the_three_searches_round_trip(moto: Moto, animal_pdfs: Path) -> None:
    app = team_app()
    report = app.index([str(animal_pdfs)])
    assert report.indexed == 3 and not report.failed
    for mode in (Mode.VECTOR, Mode.TEXT, Mode.HYBRID):
        hits = app.retriever.search("How many hearts does an octopus have?", 3, mode=mode)
        assert hits and hits[0].path.endswith("octopus.pdf"), mode
    # The tables and their metadata are on the bucket; the native full-text index too.
    stored = keys_in(moto, "library/index/")
    assert "library/index/meta.json" in stored
    assert any(k.startswith("library/index/chunks.lance/_indices/") for k in stored)
    assert app.store.has_fts_index()
    # Nothing of the index on this disk: only the desktop's own files, in its cache dir.
    local = team_local_dir(URI)
    assert not list(local.rglob("*.lance"))
    assert app.settings.data_path == local
    # A second desktop sees the same library.
    other = team_app()
    assert other.store.stats()["documents"] == 3


def test_no_probe_objects_or_credentials_left_behind(moto: Moto, animal_pdfs: Path) -> None:
    app = team_app()
    app.index([str(animal_pdfs)])
    assert not [k for k in keys_in(moto, "") if "/_probe/" in k]
    settings_text = "".join(
        p.read_text(errors="replace") for p in Path(app.settings.data_path).rglob("*.json")
    )
    assert "admin-secret" not in settings_text
    assert "admin-secret" not in repr(app.store)


def test_a_desktop_with_another_embedder_is_told(moto: Moto, animal_pdfs: Path) -> None:
    team_app().index([str(animal_pdfs)])
    other = IndexMeta(SCHEMA_VERSION, "some-other-embedder", 32, {})
    told = "cannot search it: set its embedder to test/hash-embedder"
    with pytest.raises(IndexMismatchError, match=told):
        RemoteStore(URI, other).open()


def test_read_only_users_search_and_are_told_plainly_they_cannot_write(
    moto: Moto, animal_pdfs: Path, tmp_path: Path
) -> None:
    writer = moto.user("writer", ["s3:*"])
    reader = moto.user("reader", ["s3:GetObject", "s3:ListBucket"])
    moto.enforce_iam()
    moto.use(writer)
    team_app().index([str(animal_pdfs)])

    moto.use(reader)
    app = team_app()
    assert app.store.stats()["documents"] == 3
    hits = app.retriever.search("octopus hearts", 3)
    assert hits and hits[0].path.endswith("octopus.pdf")
    events = list(app.answer.ask("How many hearts does an octopus have?"))
    assert events
    extra = tmp_path / "more"
    extra.mkdir()
    (extra / "note.txt").write_text("Giraffes sleep about thirty minutes a day.\n")
    with pytest.raises(ReadOnlyError, match="read-only for you"):
        app.index([str(extra)])
    with pytest.raises(ReadOnlyError, match="read-only"):
        app.remove([str(animal_pdfs / "zebra.pdf")])
    moto.use(writer)
    assert team_app().store.stats()["documents"] == 3  # the refused writes left nothing


def test_a_reader_cannot_create_a_library(moto: Moto) -> None:
    reader = moto.user("reader", ["s3:GetObject", "s3:ListBucket"])
    moto.enforce_iam()
    moto.use(reader)
    with pytest.raises(StoreError, match="no team library at s3://team/library yet"):
        team_app()


def test_a_store_that_ignores_if_none_match_is_refused(moto: Moto, animal_pdfs: Path) -> None:
    with proxy(moto.endpoint, "strip") as stripping:
        moto.use(endpoint=stripping.endpoint)
        with pytest.raises(StoreError, match=r"s3\+ddb://team/library"):
            team_app().index([str(animal_pdfs)])
        # Refused before any table was written.
        assert not [k for k in keys_in(moto, "library/") if ".lance" in k]


def _meta() -> IndexMeta:
    from desktop_rag.ingest.chunk import ChunkParams

    return IndexMeta(
        SCHEMA_VERSION, HashEmbedder().model_id, HashEmbedder().dim, ChunkParams().to_json()
    )


def _docs(tag: str, n: int, per: int = 5) -> tuple[list[DocumentRecord], list[Chunk], np.ndarray]:
    docs, chunks = [], []
    for i in range(n):
        doc_id = f"{tag}-{i}"
        path = f"/docs/{doc_id}.txt"
        docs.append(
            DocumentRecord(
                doc_id=doc_id, path=path, size=1, mtime_ns=0, sha256=doc_id, pages=1,
                chunks=per, status=Status.INDEXED, error="", error_kind="", indexed_at=0.0,
            )
        )  # fmt: skip
        for j in range(per):
            chunks.append(
                Chunk(
                    chunk_id=f"{doc_id}-{j}", doc_id=doc_id, path=path, page=1, start=0,
                    end=10, text=f"passage {j} of {doc_id} about {tag}",
                )
            )  # fmt: skip
    vectors = HashEmbedder().embed([c.text for c in chunks])
    return docs, chunks, vectors


def _write(tag: str, batches: int) -> None:
    store = RemoteStore(URI, _meta()).open()
    for b in range(batches):
        docs, chunks, vectors = _docs(f"{tag}b{b}", 2)
        store.commit(docs, chunks, vectors, replace_doc_ids=[d.doc_id for d in docs])


@pytest.mark.slow
@pytest.mark.parametrize("writers", [2, 4])
def test_concurrent_writers_keep_every_row(moto: Moto, writers: int) -> None:
    RemoteStore(URI, _meta()).open()  # created once, as the team's first job does
    batches = 3
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_write, args=(f"w{i}", batches)) for i in range(writers)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(240)
    assert [p.exitcode for p in procs] == [0] * writers
    store = RemoteStore(URI, _meta()).open()
    assert store.count_chunks() == writers * batches * 2 * 5
    assert len(store.documents()) == writers * batches * 2


def test_new_documents_appear_within_the_freshness_interval(moto: Moto) -> None:
    writer = RemoteStore(URI, _meta()).open()
    fresh = RemoteStore(URI, _meta(), freshness_s=1.0).open()
    lagging = RemoteStore(URI, _meta(), freshness_s=300.0).open()
    assert fresh.count_chunks() == lagging.count_chunks() == 0
    docs, chunks, vectors = _docs("new", 1)
    writer.commit(docs, chunks, vectors)
    t0 = time.monotonic()
    while fresh.count_chunks() == 0:
        assert time.monotonic() - t0 < 5, "not seen within the interval"
        time.sleep(0.1)
    seen_after = time.monotonic() - t0
    assert seen_after <= 1.0 + 1.5  # the interval, and a request's time under load
    assert lagging.count_chunks() == 0  # the interval is what bounds it


def test_settings_keep_the_uri_and_never_a_credential(moto: Moto) -> None:
    settings = Settings(data_dir=URI + "/")
    assert settings.library_uri == URI
    assert settings.data_path == team_local_dir(URI)
    assert remote.Location.parse(URI).key("meta.json") == "library/index/meta.json"


UNKNOWN = (
    "Writing the index failed: Commit result for version 3 is unknown: the commit may or may "
    "not have been applied; check the table state before retrying"
)


@pytest.mark.parametrize("applied", [True, False])
def test_a_commit_whose_result_is_unknown_is_checked_not_repeated(
    moto: Moto, monkeypatch: pytest.MonkeyPatch, applied: bool
) -> None:
    """LanceDB's answer to a commit lost and not verifiable: the table's state decides."""
    from desktop_rag.store.lance import LanceStore

    store = RemoteStore(URI, _meta()).open()
    first = _docs("a", 2)
    store.commit(*first, replace_doc_ids=[d.doc_id for d in first[0]])
    real = LanceStore.commit
    calls = []

    def lost_answer(  # type: ignore[no-untyped-def]
        self, documents, chunks, vectors, replace_doc_ids=(), remove_doc_ids=(), *, new=False
    ):
        calls.append(len(chunks))
        if len(calls) == 1:  # the chunk step reaches the store (or not); its answer is lost
            if applied:
                real(self, [], chunks, vectors, replace_doc_ids=replace_doc_ids, new=new)
            raise StoreError(UNKNOWN)
        return real(self, documents, chunks, vectors, replace_doc_ids, remove_doc_ids, new=new)

    monkeypatch.setattr(LanceStore, "commit", lost_answer)
    docs, chunks, vectors = _docs("b", 2)
    if applied:
        store.commit(docs, chunks, vectors, replace_doc_ids=[d.doc_id for d in docs])
        assert calls == [10, 0]  # the documents written after the check, the chunks not again
        assert sorted(d.doc_id for d in store.documents()) == ["a-0", "a-1", "b-0", "b-1"]
    else:
        with pytest.raises(StoreError, match="result is unknown; nothing was written twice"):
            store.commit(docs, chunks, vectors, replace_doc_ids=[d.doc_id for d in docs])
        assert calls == [10]
        assert sorted(d.doc_id for d in store.documents()) == ["a-0", "a-1"]
    ids = store.chunks_table.search().select(["chunk_id"]).limit(None).to_arrow()["chunk_id"]
    assert len(ids) == len(set(ids.to_pylist())) == (20 if applied else 10)


def test_a_commit_whose_answer_is_lost_is_stored_once(moto: Moto) -> None:
    """The store applies a commit and its answer is lost on the way back (a loopback proxy
    drops it): the commit is read back, not written again."""
    with proxy(moto.endpoint) as p:
        moto.use(endpoint=p.endpoint)
        store = RemoteStore(URI, _meta()).open()
        first = _docs("a", 2)
        store.commit(*first, replace_doc_ids=[d.doc_id for d in first[0]])
        p.mode = "lose-commit"
        docs, chunks, vectors = _docs("b", 2)
        store.commit(docs, chunks, vectors, replace_doc_ids=[d.doc_id for d in docs])
        assert p.server.lost  # an answer was indeed lost
    moto.use()
    again = RemoteStore(URI, _meta()).open()
    ids = again.chunks_table.search().select(["chunk_id"]).limit(None).to_arrow()["chunk_id"]
    assert len(ids) == len(set(ids.to_pylist())) == 20
    assert len(again.documents()) == 4


def test_s3_ddb_writes_where_conditional_puts_are_ignored(moto: Moto) -> None:
    """The way the refusal names: commits through a DynamoDB table (moto's), past a store
    that strips If-None-Match, with no probe."""
    from tests.helpers.s3 import client

    ddb = client(moto.endpoint, service="dynamodb")
    ddb.create_table(
        TableName="commits",
        KeySchema=[
            {"AttributeName": "base_uri", "KeyType": "HASH"},
            {"AttributeName": "version", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": "base_uri", "AttributeType": "S"},
            {"AttributeName": "version", "AttributeType": "N"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    with proxy(moto.endpoint, "strip") as stripping:
        moto.use(endpoint=stripping.endpoint)
        uri = "s3+ddb://team/library?ddbTableName=commits"
        store = RemoteStore(uri, _meta()).open()
        docs, chunks, vectors = _docs("a", 2)
        store.commit(docs, chunks, vectors)
        assert RemoteStore(uri, _meta()).open().count_chunks() == 10
    assert ddb.scan(TableName="commits")["Count"] >= 2  # the commits went through DynamoDB
    assert not [k for k in keys_in(moto, "") if "/_probe/" in k]
