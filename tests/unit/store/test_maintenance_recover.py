"""A damaged index is detected and rebuilt; an outdated one keeps answering until rebuilt."""

from __future__ import annotations

import shutil

import pytest

from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.errors import IndexMismatchError
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.query.retrieve import Mode
from tests.fakes import HashEmbedder, WordTokenizer


def _app(data, embedder=None, params=None):
    return build_app(
        Settings(data_dir=str(data)),
        embedder=embedder or HashEmbedder(),
        tokenizer=WordTokenizer,
        params=params or ChunkParams(60, 10),
        isolate=False,
    )


def _damage_data_file(index):
    files = sorted((index / "chunks.lance" / "data").glob("*.lance"))
    assert files
    for f in files:
        f.write_bytes(b"garbage" * 10)


def _damage_manifest(index):
    versions = sorted((index / "documents.lance" / "_versions").glob("*.manifest"))
    assert versions
    for v in versions:
        v.write_bytes(b"\x00" * 64)


def _damage_meta(index):
    (index / "meta.json").write_text("{not json")


def _lose_meta(index):
    (index / "meta.json").unlink()


@pytest.mark.parametrize("damage", [_damage_data_file, _damage_manifest, _damage_meta, _lose_meta])
def test_damaged_index_is_detected_and_rebuilt(tmp_path, animal_pdfs, damage):
    data = tmp_path / "data"
    app = _app(data)
    app.index([str(animal_pdfs)])
    before = sorted(d.path for d in app.store.documents())
    damage(data / "index")
    app = _app(data)
    assert app.needs_reindex
    assert "damaged" in app.notices[0] and "not touched" in app.notices[0]
    assert app.store.documents() == []
    assert app.roots() == [str(animal_pdfs)]
    report = app.index(app.roots())
    assert report.indexed == 3
    assert sorted(d.path for d in app.store.documents()) == before
    assert app.retriever.search("octopus blood", k=1)[0].path.endswith("octopus.pdf")
    assert (data / "index.damaged").is_dir()  # kept aside once, for diagnosis
    assert all((animal_pdfs / n).exists() for n in ("zebra.pdf", "octopus.pdf", "penguin.pdf"))


def test_outdated_index_answers_until_rebuilt(tmp_path, animal_pdfs):
    data = tmp_path / "data"
    _app(data).index([str(animal_pdfs)])
    # A new chunking: same embedder, so the old vectors still answer.
    app = _app(data, params=ChunkParams(80, 10))
    assert app.stale is not None and "chunking" in str(app.stale)
    assert app.retriever.search("octopus blood", k=1, mode=Mode.HYBRID)[0].path.endswith(
        "octopus.pdf"
    )
    with pytest.raises(IndexMismatchError):
        app.index([str(animal_pdfs)])
    assert app.rebuild_estimate_s() > 0
    report = app.rebuild()
    assert report.indexed == 3 and app.stale is None
    assert _app(data, params=ChunkParams(80, 10)).stale is None
    assert not (data / "index.next").exists()


def test_an_index_that_embedded_navigation_text_is_kept_and_takes_new_files(tmp_path, animal_pdfs):
    data = tmp_path / "data"
    before = _app(data, params=ChunkParams(60, 10, nav_headings=0))
    assert before.index([str(animal_pdfs)]).indexed == 3
    # A navigation page's vector changes, not what a chunk is: no rebuild.
    app = _app(data)
    assert app.stale is None
    extra = tmp_path / "more"
    extra.mkdir()
    shutil.copy(animal_pdfs / "octopus.pdf", extra / "squid.pdf")
    (extra / "squid.pdf").write_bytes((extra / "squid.pdf").read_bytes() + b"\n% another file")
    report = app.index([str(animal_pdfs), str(extra)])
    assert report.indexed == 1 and report.unchanged == 3
    hit = app.retriever.search("octopus blood", k=1)[0]
    assert hit.path.endswith(("octopus.pdf", "squid.pdf"))
    # Any other change of chunking still asks for a rebuild.
    assert _app(data, params=ChunkParams(80, 10)).stale is not None


def test_outdated_embedder_answers_by_text_alone(tmp_path, animal_pdfs):
    data = tmp_path / "data"
    _app(data).index([str(animal_pdfs)])
    app = _app(data, embedder=HashEmbedder(dim=32))
    assert app.retriever.text_only
    hits = app.retriever.search("hemocyanin", k=1)
    assert hits[0].path.endswith("octopus.pdf")
    app.rebuild()
    assert not app.retriever.text_only
    assert app.store.meta.dim == 32


def test_cancelled_rebuild_keeps_the_old_index(tmp_path, animal_pdfs):
    import threading

    data = tmp_path / "data"
    _app(data).index([str(animal_pdfs)])
    app = _app(data, params=ChunkParams(80, 10))
    cancel = threading.Event()
    cancel.set()
    report = app.rebuild(cancel=cancel)
    assert report.cancelled and app.stale is not None
    assert len(app.store.documents()) == 3
    shutil.rmtree(data / "index.next")
