"""The indexing pipeline with fake models over a real LanceDB: reconcile end to end."""

from __future__ import annotations

import shutil
import threading

import pytest

from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.errors import IndexMismatchError, UsageError
from desktop_rag.ingest import local_engine
from desktop_rag.ingest.chunk import ChunkParams, bundled_tokenizer
from desktop_rag.ingest.control import RunControl
from desktop_rag.query.retrieve import Mode
from desktop_rag.types import Status
from tests.fakes import HashEmbedder, WordTokenizer
from tests.helpers import processes
from tests.pdfgen import make_pdf


def _app(tmp_path, embedder=None, params=None):
    settings = Settings(data_dir=str(tmp_path / "data"))
    return build_app(
        settings,
        embedder=embedder or HashEmbedder(),
        tokenizer=WordTokenizer,
        params=params or ChunkParams(60, 10),
        isolate=processes.isolate(),
    )


def _chunk_ids(app):
    return sorted(r["chunk_id"] for r in app.store._chunks.to_arrow().to_pylist())


def test_index_search_reindex_is_a_noop(tmp_path, animal_pdfs):
    emb = HashEmbedder()
    app = _app(tmp_path, emb)
    report = app.ingest.index([str(animal_pdfs)])
    assert (report.indexed, report.unchanged, report.failed) == (3, 0, [])
    assert report.pages == 6
    hits = app.retriever.search("why is octopus blood blue", k=3)
    assert hits[0].path.endswith("octopus.pdf") and hits[0].page == 2
    calls = emb.texts_embedded
    again = app.ingest.index([str(animal_pdfs)])
    assert (again.indexed, again.unchanged) == (0, 3)
    assert emb.texts_embedded == calls


def test_changed_file_replaces_its_chunks(tmp_path, animal_pdfs):
    app = _app(tmp_path)
    app.ingest.index([str(animal_pdfs)])
    before = app.store.count_chunks()
    make_pdf(animal_pdfs / "penguin.pdf", ["Penguins now live on page one.", "And page two."])
    report = app.ingest.index([str(animal_pdfs)])
    assert (report.indexed, report.unchanged) == (1, 2)
    ids = _chunk_ids(app)
    assert len(ids) == len(set(ids))
    penguin = next(d for d in app.store.documents() if d.path.endswith("penguin.pdf"))
    assert penguin.pages == 2
    assert app.store.count_chunks() == before - 1 + penguin.chunks


def test_removed_and_renamed_files(tmp_path, animal_pdfs):
    emb = HashEmbedder()
    app = _app(tmp_path, emb)
    app.ingest.index([str(animal_pdfs)])
    chunks = app.store.count_chunks()
    calls = emb.texts_embedded
    (animal_pdfs / "zebra.pdf").rename(animal_pdfs / "stripes.pdf")
    (animal_pdfs / "penguin.pdf").unlink()
    report = app.ingest.index([str(animal_pdfs)])
    assert (report.renamed, report.removed, report.indexed) == (1, 1, 0)
    assert emb.texts_embedded == calls, "a rename must not embed again"
    paths = sorted(d.path.rsplit("/", 1)[1] for d in app.store.documents())
    assert paths == ["octopus.pdf", "stripes.pdf"]
    hits = app.retriever.search("zebra stripes deter flies", k=1)
    assert hits[0].path.endswith("stripes.pdf") and hits[0].page == 2
    assert app.store.count_chunks() < chunks
    assert len(_chunk_ids(app)) == len(set(_chunk_ids(app)))


def test_copy_reuses_vectors(tmp_path, animal_pdfs):
    emb = HashEmbedder()
    app = _app(tmp_path, emb)
    app.ingest.index([str(animal_pdfs)])
    calls = emb.texts_embedded
    shutil.copy(animal_pdfs / "octopus.pdf", animal_pdfs / "octopus copy.pdf")
    report = app.ingest.index([str(animal_pdfs)])
    assert report.indexed == 1 and emb.texts_embedded == calls
    assert len({d.path for d in app.store.documents()}) == 4


def test_bad_file_is_recorded_and_the_batch_goes_on(tmp_path, animal_pdfs):
    (animal_pdfs / "broken.pdf").write_text("<html>oops</html>")
    app = _app(tmp_path)
    report = app.ingest.index([str(animal_pdfs)])
    assert report.indexed == 3
    assert [f.kind for f in report.failed] == ["not_pdf"]
    assert "broken.pdf" in report.failed[0].path
    stats = app.store.stats()
    assert stats["documents"] == 3 and stats["failed"][0]["kind"] == "not_pdf"
    # Unchanged bad files are not retried on every run.
    assert app.ingest.index([str(animal_pdfs)]).failed == []


def test_remove_drops_from_index_not_disk(tmp_path, animal_pdfs):
    app = _app(tmp_path)
    app.ingest.index([str(animal_pdfs)])
    removed = app.ingest.remove([str(animal_pdfs / "zebra.pdf")])
    assert len(removed) == 1
    assert (animal_pdfs / "zebra.pdf").exists()
    assert all("zebra" not in h.path for h in app.retriever.search("zebra stripes", k=10))


def test_missing_path_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError):
        _app(tmp_path).ingest.index([str(tmp_path / "nope")])


def test_cancel_keeps_finished_documents(tmp_path, animal_pdfs, monkeypatch):
    monkeypatch.setattr(local_engine, "GROUP_CHUNKS", 1)  # each file embedded on its own
    app = _app(tmp_path)
    cancel = threading.Event()
    seen = []

    def on_file(event):
        seen.append(event)
        if [e.status for e in seen].count("indexing") == 2:  # the first file is embedded
            cancel.set()

    report = app.ingest.index([str(animal_pdfs)], RunControl(cancel=cancel, on_file=on_file))
    assert report.cancelled
    assert report.indexed == 1
    assert app.store.stats()["documents"] == 1
    assert [e.status for e in seen].count("indexed") == 1  # said once it was committed
    # The next run finishes the job without duplicates.
    report = app.ingest.index([str(animal_pdfs)])
    assert (report.indexed, report.unchanged) == (2, 1)
    assert len(_chunk_ids(app)) == len(set(_chunk_ids(app)))


def test_mismatched_index_is_detected(tmp_path, animal_pdfs):
    _app(tmp_path).ingest.index([str(animal_pdfs)])
    stale = _app(tmp_path, embedder=HashEmbedder(dim=32)).stale
    assert isinstance(stale, IndexMismatchError) and "embedder" in str(stale)
    stale = _app(tmp_path, params=ChunkParams(100, 10)).stale
    assert isinstance(stale, IndexMismatchError) and "chunking" in str(stale)


def test_text_and_vector_modes(tmp_path, animal_pdfs):
    app = _app(tmp_path)
    app.ingest.index([str(animal_pdfs)])
    for mode in Mode:
        hits = app.retriever.search("hemocyanin copper protein", k=2, mode=mode)
        assert hits and hits[0].path.endswith("octopus.pdf") and hits[0].page == 2
    # Punctuation in a question never breaks the full-text query.
    assert app.retriever.search('what\'s "blue" (blood)? AND OR: -x', k=2, mode=Mode.TEXT)


def test_a_password_given_later_retries_the_file(tmp_path):
    from tests.pdfgen import encrypt_pdf

    folder = tmp_path / "docs"
    folder.mkdir()
    plain = make_pdf(tmp_path / "plain.pdf", ["The vault code is kept in the blue binder."])
    locked = encrypt_pdf(plain, folder / "vault.pdf", "s3cret")
    app = _app(tmp_path)
    report = app.ingest.index([str(folder)])
    assert [f.kind for f in report.failed] == ["password"]
    again = app.ingest.index([str(folder)])
    assert (again.indexed, again.unchanged, again.failed) == (0, 1, []), "not retried for nothing"
    app.ingest.passwords = {str(locked): "s3cret"}
    unlocked = app.ingest.index([str(folder)])
    assert unlocked.indexed == 1 and unlocked.failed == []
    assert app.retriever.search("vault code binder", k=1)[0].path == str(locked)


def test_a_file_is_said_indexed_only_once_its_chunks_are_committed(tmp_path, animal_pdfs):
    app = _app(tmp_path)
    committed: set[str] = set()
    real_commit = app.store.commit

    def commit(documents, *args, **kwargs):
        real_commit(documents, *args, **kwargs)
        committed.update(d.path for d in documents)

    app.store.commit = commit  # type: ignore[method-assign]
    said: list[str] = []

    def on_file(event):
        if event.status == "indexed":
            assert event.path in committed, f"{event.path} said indexed before its commit"
            said.append(event.path)

    app.ingest.index([str(animal_pdfs)], RunControl(on_file=on_file))
    assert said and sorted(said) == sorted(str(p) for p in animal_pdfs.glob("*.pdf"))


def test_the_next_file_is_cut_into_chunks_while_one_embeds(tmp_path, animal_pdfs):
    cut = threading.Semaphore(0)

    class CountingTokenizer(WordTokenizer):
        def offsets(self, texts):
            out = super().offsets(texts)
            cut.release()  # one file's pages cut
            return out

    class WaitingEmbedder(HashEmbedder):
        def __init__(self):
            super().__init__()
            self.overlapped: list[bool] = []

        def embed(self, texts):
            if not self.overlapped:
                # The first file's chunks are here: the second file's are cut meanwhile.
                self.overlapped.append(cut.acquire(timeout=5) and cut.acquire(timeout=5))
            return super().embed(texts)

    emb = WaitingEmbedder()
    app = build_app(
        Settings(data_dir=str(tmp_path / "data")),
        embedder=emb,
        tokenizer=CountingTokenizer,
        params=ChunkParams(60, 10),
        isolate=processes.isolate(),
    )
    report = app.ingest.index([str(animal_pdfs)])
    assert (report.indexed, report.failed) == (3, [])
    assert emb.overlapped == [True]
    # Each file keeps its own chunks.
    for name in ("octopus", "penguin", "zebra"):
        hits = app.retriever.search(name, k=1, mode=Mode.TEXT)
        assert hits[0].path.endswith(f"{name}.pdf")


class _Engine:
    """Reads nothing: records what the pipeline hands it."""

    def __init__(self):
        self.calls = []

    def read_and_embed(self, to_read, run):
        self.calls.append(([d.info.path for d in to_read], run))
        return False


def test_reading_and_embedding_are_left_to_the_engine(tmp_path, animal_pdfs):
    app = _app(tmp_path)
    app.index([str(animal_pdfs / "zebra.pdf")])
    app.ingest.ocr_requested.add(str(animal_pdfs / "octopus.pdf"))
    engine = _Engine()
    other = app.ingest.with_engine(engine)
    assert other.ocr_requested == {str(animal_pdfs / "octopus.pdf")}
    assert app.ingest.for_store(app.store).engine is app.ingest.engine
    (animal_pdfs / "zebra.pdf").rename(animal_pdfs / "stripes.pdf")
    said = []
    report = other.index([str(animal_pdfs)], RunControl(on_file=said.append))
    ((paths, run),) = engine.calls
    penguin, octopus = sorted(paths, reverse=True)
    assert penguin.endswith("penguin.pdf") and octopus.endswith("octopus.pdf")
    assert run.forced == {octopus} and set(run.previous) == {str(animal_pdfs / "zebra.pdf")}
    assert run.report is report and run.store is app.store
    # Planning and reuse stay the pipeline's: the rename was written whatever the engine.
    assert report.renamed == 1 and (report.indexed, report.failed) == (0, [])
    assert [e.status for e in said if e.path == penguin] == [Status.QUEUED]


class _Recording(HashEmbedder):
    """The fake embedder, keeping every text it was given."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def embed(self, texts):
        self.seen.extend(texts)
        return super().embed(texts)


def test_a_capped_code_page_embeds_its_head_and_keeps_every_word_findable(tmp_path):
    code = r"\expandafter\ifx\csname stockwidth\endcsname\relax \newdimen\stockwidth " * 3
    docs = tmp_path / "docs"
    docs.mkdir()
    make_pdf(docs / "crop.pdf", [code + r"\def\zebrapattern{1}"])
    emb = _Recording()
    app = build_app(
        Settings(data_dir=str(tmp_path / "data")),
        embedder=emb,
        tokenizer=bundled_tokenizer,
        params=ChunkParams(code_ratio=20, code_head=48),
        isolate=processes.isolate(),
    )
    assert app.ingest.index([str(docs)]).indexed == 1
    [stored] = [r["text"] for r in app.store._chunks.to_arrow().to_pylist()]
    assert "zebrapattern" in stored  # the chunk is whole in the index
    assert any("stockwidth" in t for t in emb.seen)
    assert not any("zebrapattern" in t for t in emb.seen)  # its vector read the head alone
    hits = app.retriever.search("zebrapattern", k=1, mode=Mode.TEXT)
    assert hits and hits[0].path.endswith("crop.pdf")
