"""Faults that must not lose or hide anything: failed commits, transient read failures."""

from __future__ import annotations

import errno
import os

import pytest

from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.errors import StoreError
from desktop_rag.ingest import local_engine
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.ingest.scan import MAX_SAME_FAILURES
from desktop_rag.query.retrieve import Mode
from desktop_rag.store import maintenance
from desktop_rag.types import FailKind
from tests.fakes import HashEmbedder, WordTokenizer
from tests.helpers import processes
from tests.pdfgen import make_pdf


def _app(tmp_path, embedder=None, isolate=None):
    return build_app(
        Settings(data_dir=str(tmp_path / "data")),
        embedder=embedder or HashEmbedder(),
        tokenizer=WordTokenizer,
        params=ChunkParams(60, 10),
        isolate=processes.isolate() if isolate is None else isolate,
    )


def test_a_failed_commit_is_the_error_reported_not_a_retry_of_it(
    tmp_path, animal_pdfs, monkeypatch
):
    app = _app(tmp_path)
    monkeypatch.setattr(local_engine, "FLUSH_SECONDS", 0.0)  # commit after every file
    calls = []

    def commit(documents, *args, **kwargs):
        calls.append([d.path for d in documents])
        if len(calls) == 1:
            raise StoreError("the disk is full (first)")
        raise StoreError("the index is gone (second)")

    app.store.commit = commit  # type: ignore[method-assign]
    with pytest.raises(StoreError, match="first"):
        app.ingest.index([str(animal_pdfs)])
    assert len(calls) == 1, "a batch that failed to commit was committed again"


def test_an_error_is_not_hidden_by_the_commit_that_keeps_the_work_before_it(
    tmp_path, animal_pdfs, monkeypatch
):
    monkeypatch.setattr(local_engine, "GROUP_CHUNKS", 1)  # each file embedded on its own
    embedder = HashEmbedder()
    app = _app(tmp_path, embedder)
    real_embed = embedder.embed

    def embed(texts):
        if embedder.calls >= 1:  # the first file is embedded, the second breaks the embedder
            raise RuntimeError("the embedder ran out of memory")
        return real_embed(texts)

    embedder.embed = embed  # type: ignore[method-assign]

    def commit(*args, **kwargs):
        raise StoreError("the disk is full")

    app.store.commit = commit  # type: ignore[method-assign]
    with pytest.raises(RuntimeError, match="out of memory") as raised:
        app.ingest.index([str(animal_pdfs)])
    assert any("disk is full" in note for note in raised.value.__notes__)


def test_what_was_embedded_before_an_error_is_kept(tmp_path, animal_pdfs, monkeypatch):
    monkeypatch.setattr(local_engine, "GROUP_CHUNKS", 1)  # each file embedded on its own
    embedder = HashEmbedder()
    app = _app(tmp_path, embedder)
    real_embed = embedder.embed

    def embed(texts):
        if embedder.calls >= 1:
            raise RuntimeError("the embedder ran out of memory")
        return real_embed(texts)

    embedder.embed = embed  # type: ignore[method-assign]
    with pytest.raises(RuntimeError):
        app.ingest.index([str(animal_pdfs)])
    assert app.store.stats()["documents"] == 1


def _fts_indexes(store):
    return [i for i in store._chunks.list_indices() if i.index_type == "FTS"]


def test_a_search_never_builds_the_full_text_index(tmp_path, animal_pdfs, caplog, monkeypatch):
    writer = _app(tmp_path)
    with monkeypatch.context() as patch:
        patch.setattr(maintenance, "optimize", lambda store: None)  # killed before it
        writer.ingest.index([str(animal_pdfs)])
    reader = _app(tmp_path)
    version = reader.store._chunks.version
    with caplog.at_level("WARNING"):
        hits = reader.retriever.search("octopus blood hemocyanin", k=3)
    assert hits and hits[0].path.endswith("octopus.pdf"), "no fallback to the vectors"
    assert _fts_indexes(reader.store) == [], "a search built the full-text index"
    assert reader.store._chunks.version == version, "a search wrote to the index"
    assert "full-text index" in caplog.text
    # The next indexing run, a writer, builds it even when no file changed.
    again = _app(tmp_path)
    assert again.ingest.index([str(animal_pdfs)]).unchanged == 3
    # All of its fields: the text, the section headings, the CJK pairs and the stems.
    columns = sorted(c for i in _fts_indexes(again.store) for c in i.columns)
    assert columns == ["grams", "section", "stems", "text"]
    assert again.retriever.search("hemocyanin", k=1, mode=Mode.TEXT)[0].path.endswith("octopus.pdf")


def _fail_reading(monkeypatch, name, kind, calls):
    """Reading `name` fails with `kind` (passing failures: the file itself is fine). The fake
    replaces the reader in this process, so its apps read inline (_app(..., isolate=False))."""
    from desktop_rag.ingest import sandbox
    from desktop_rag.ingest.extract import ExtractError
    from desktop_rag.ingest.extract import extract as real_extract

    def extract(path, password=None, ocr=None):
        if path.endswith(name):
            calls.append(path)
            if kind == FailKind.CHANGING:  # the file changes while it is read
                result = real_extract(path, password, ocr=ocr)
                st = os.stat(path)
                os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
                return result
            raise ExtractError(kind, f"failed for a passing reason ({kind}).")
        return real_extract(path, password, ocr=ocr)

    monkeypatch.setattr(sandbox, "extract", extract)


def _octopus_hits(app):
    return [h for h in app.retriever.search("octopus hemocyanin blood", k=5) if "octopus" in h.path]


@pytest.mark.parametrize(
    "kind", [FailKind.TIMEOUT, FailKind.UNREADABLE, FailKind.LOCKED, FailKind.CHANGING]
)
def test_a_passing_failure_keeps_the_previous_chunks_and_says_so(
    tmp_path, animal_pdfs, monkeypatch, kind
):
    app = _app(tmp_path, isolate=False)
    app.ingest.index([str(animal_pdfs)])
    old_text = {h.text for h in _octopus_hits(app)}
    assert old_text
    octopus = animal_pdfs / "octopus.pdf"
    make_pdf(octopus, ["A new edition about octopus hemocyanin and blood, not read yet."])
    calls: list[str] = []
    _fail_reading(monkeypatch, "octopus.pdf", kind, calls)
    report = app.ingest.index([str(animal_pdfs)])
    assert {h.text for h in _octopus_hits(app)} == old_text, "the indexed chunks were lost"
    assert [(f.path, f.kind) for f in report.failed] == [(str(octopus), kind)]
    assert "stays searchable" in report.failed[0].reason
    stats = app.store.stats()
    assert stats["documents"] == 3
    assert [(f["path"], f["kind"], f["kept"]) for f in stats["failed"]] == [
        (str(octopus), kind, True)
    ]
    assert len(calls) == 1
    # The next run tries again.
    app.ingest.index([str(animal_pdfs)])
    assert len(calls) == 2
    assert {h.text for h in _octopus_hits(app)} == old_text


@pytest.mark.parametrize("indexed_before", [True, False])
def test_three_same_failures_in_a_row_wait_until_the_file_changes(
    tmp_path, animal_pdfs, monkeypatch, indexed_before
):
    app = _app(tmp_path, isolate=False)
    octopus = animal_pdfs / "octopus.pdf"
    if indexed_before:
        app.ingest.index([str(animal_pdfs)])
        make_pdf(octopus, ["A new edition about octopus hemocyanin and blood, not read yet."])
    calls: list[str] = []
    _fail_reading(monkeypatch, "octopus.pdf", FailKind.TIMEOUT, calls)
    reasons = []
    for _ in range(MAX_SAME_FAILURES):
        report = app.ingest.index([str(animal_pdfs)])
        reasons.append(report.failed[0].reason)
    assert len(calls) == MAX_SAME_FAILURES
    assert "runs in a row" in reasons[-1] and "runs in a row" not in reasons[0]
    report = app.ingest.index([str(animal_pdfs)])
    assert len(calls) == MAX_SAME_FAILURES, "retried though it failed the same way thrice"
    assert report.failed == [] and report.unchanged == 3
    assert bool(_octopus_hits(app)) == indexed_before
    # Once the file changes it is tried again, and indexed once it reads.
    monkeypatch.undo()
    make_pdf(octopus, ["The third edition says octopus blood carries hemocyanin copper."])
    report = app.ingest.index([str(animal_pdfs)])
    assert report.indexed == 1 and report.failed == []
    assert any("third edition" in h.text for h in _octopus_hits(app))
    assert app.store.stats()["failed"] == []


def test_an_index_made_before_the_failure_columns_is_brought_up_to_date(tmp_path, animal_pdfs):
    app = _app(tmp_path)
    app.ingest.index([str(animal_pdfs)])
    app.store._docs.drop_columns(["failures", "failed_size", "failed_mtime_ns"])
    old = _app(tmp_path)
    assert len(old.store.documents()) == 3  # a reader copes with the older table
    make_pdf(animal_pdfs / "penguin.pdf", ["Penguins now live on page one."])
    assert old.ingest.index([str(animal_pdfs)]).indexed == 1
    assert {"failures", "failed_size"} <= set(old.store._docs.schema.names)
    assert all(d.failures == 0 for d in old.store.documents())


@pytest.mark.parametrize("code", [errno.EBUSY, errno.EAGAIN])
def test_a_file_another_program_locks_is_a_passing_failure(tmp_path, monkeypatch, code):
    from desktop_rag.ingest.extract import ExtractError, extract
    from desktop_rag.ingest.readers import base

    path = make_pdf(tmp_path / "open elsewhere.pdf", ["text"])

    def locked_open(*args, **kwargs):
        raise OSError(code, os.strerror(code), str(path))

    monkeypatch.setattr(base, "open", locked_open, raising=False)
    with pytest.raises(ExtractError) as raised:
        extract(str(path))
    assert raised.value.kind == FailKind.LOCKED and "locked by another program" in str(raised.value)
