"""build_app's embedder (issue 46, item 1): the English one unless the settings say the
documents are in several languages, and an index built by the other one opened stale,
searched by its words until rebuilt, over real LanceDB with hashing embedders."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.app import build_app, default_embedder
from desktop_rag.config import Settings, cache_dir
from desktop_rag.engines.onnx_embed import AutoEmbedder
from desktop_rag.infra import frozen
from desktop_rag.ingest.chunk import ChunkParams
from tests.fakes import FakeLlm, HashEmbedder, WordTokenizer
from tests.helpers import multilingual


def test_the_english_embedder_unless_the_documents_are_in_several_languages(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = multilingual.install(monkeypatch)
    assert isinstance(default_embedder(Settings()), AutoEmbedder)
    assert fake.made == [], "an English library never makes the multilingual embedder"
    settings = Settings(multilingual=True, n_threads=3, index_low_priority=False)
    chosen = default_embedder(settings)
    assert isinstance(chosen, fake) and chosen.model_id == multilingual.FAKE_ID
    assert chosen.threads == 3 and chosen.low_priority is False
    assert chosen.cache.root == cache_dir() / "embedders"  # type: ignore[union-attr]


def test_a_frozen_build_gives_the_multilingual_embedder_no_cache_to_export_into(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = multilingual.install(monkeypatch)
    monkeypatch.setattr(frozen, "is_frozen", lambda: True)
    chosen = default_embedder(Settings(multilingual=True))
    assert isinstance(chosen, fake) and chosen.cache is None


def _app(tmp_path: Path, multilingual_on: bool):  # type: ignore[no-untyped-def]
    settings = Settings(data_dir=str(tmp_path / "data"), multilingual=multilingual_on)
    return build_app(
        settings,
        # The English library's embedder stands in for the bundled one; the multilingual one
        # comes from default_embedder, as the window's and the command line's do.
        embedder=None if multilingual_on else HashEmbedder(),
        tokenizer=WordTokenizer,
        params=ChunkParams(60, 10),
        isolate=False,
        llm=FakeLlm(),
    )


def test_an_index_of_the_other_embedder_is_stale_and_searched_by_its_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    multilingual.install(monkeypatch)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "otters.txt").write_text("Otters hold hands while they sleep in the kelp.")
    english = _app(tmp_path, False)
    assert english.index([str(docs)]).indexed == 1 and english.stale is None

    switched = _app(tmp_path, True)
    assert switched.meta.embedder_id == multilingual.FAKE_ID
    assert switched.stale is not None and switched.retriever.text_only
    assert switched.store.meta.embedder_id == HashEmbedder.model_id, "opened as built"
    hits = switched.retriever.search("otters sleep", 3)
    assert [h.path for h in hits] == [str(docs / "otters.txt")], "still answers, by its words"

    switched.rebuild()
    assert switched.stale is None and not switched.retriever.text_only
    assert switched.store.meta.embedder_id == multilingual.FAKE_ID
    back = _app(tmp_path, False)
    assert back.stale is not None and back.retriever.text_only, "and back again"


def test_a_rebuild_begun_for_the_other_embedder_is_started_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Switched on, rebuilding, stopped (or the window closed), switched back: the half-built
    index beside the old one holds the other embedder's vectors and is of no use; resumed, it
    would refuse to open and no rebuild could ever finish."""
    import threading

    from desktop_rag.ingest import rebuild

    multilingual.install(monkeypatch)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "otters.txt").write_text("Otters hold hands while they sleep in the kelp.")
    english = _app(tmp_path, False)
    english.index([str(docs)])
    switched = _app(tmp_path, True)
    stop = threading.Event()
    stop.set()
    assert switched.rebuild(cancel=stop).cancelled
    assert rebuild.next_path(switched.settings.index_path).is_dir()

    back = _app(tmp_path, False)
    back.rebuild()  # the index itself was built by this embedder: only the half-built one is off
    assert back.stale is None and back.store.meta.embedder_id == HashEmbedder.model_id
    assert [d.path for d in back.store.documents()] == [str(docs / "otters.txt")]


def test_a_library_of_the_multilingual_embedder_leans_on_its_vectors(tmp_path: Path) -> None:
    from desktop_rag.engines.multilingual import E5Embedder
    from desktop_rag.query.retrieve import MULTILINGUAL_TEXT_SHARE, TEXT_SHARE

    def app(embedder: object, name: str):  # type: ignore[no-untyped-def]
        return build_app(
            Settings(data_dir=str(tmp_path / name)),
            embedder=embedder,  # type: ignore[arg-type]
            tokenizer=WordTokenizer,
            params=ChunkParams(60, 10),
            isolate=False,
            llm=FakeLlm(),
        )

    # Made, not loaded: nothing is embedded to open a library.
    assert app(E5Embedder(None), "e5").retriever.text_share == MULTILINGUAL_TEXT_SHARE
    assert app(HashEmbedder(), "english").retriever.text_share == TEXT_SHARE
    assert MULTILINGUAL_TEXT_SHARE < TEXT_SHARE
