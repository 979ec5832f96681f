"""The right page first: a manual's contents page must not outrank the section it lists."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.app import App, build_app
from desktop_rag.config import Settings
from tests.fakes import HashEmbedder, WordTokenizer
from tests.helpers.manual import BROAD, CONTENTS_PAGE, SECTIONS, manual


def indexed_manual(tmp_path: Path, embedder: HashEmbedder) -> App:
    app = build_app(
        Settings(data_dir=str(tmp_path / "data")),
        embedder=embedder,
        tokenizer=WordTokenizer,
        isolate=False,
    )
    app.ingest.index([str(manual(tmp_path))])
    return app


@pytest.fixture
def app(tmp_path: Path) -> App:
    return indexed_manual(tmp_path, HashEmbedder())


@pytest.mark.parametrize(
    ("query", "page"),
    [(title.split(" ", 1)[1], page) for page, (title, _) in enumerate(SECTIONS, start=3)],
)
def test_a_section_title_finds_the_section_before_the_contents(
    app: App, query: str, page: int
) -> None:
    pages = [h.page for h in app.retriever.search(query, k=5)]
    assert pages[0] == page
    if CONTENTS_PAGE in pages:
        assert pages.index(page) < pages.index(CONTENTS_PAGE)


def test_the_contents_page_stays_findable(app: App) -> None:
    hits = app.retriever.search(BROAD, k=10)
    assert CONTENTS_PAGE in [h.page for h in hits]
    shown = next(h for h in hits if h.page == CONTENTS_PAGE)
    assert shown.why is not None and "navigation page" in shown.why.demoted


def test_the_contents_page_is_embedded_by_its_heading_and_found_by_its_words(
    tmp_path: Path,
) -> None:
    seen: list[str] = []

    class Recording(HashEmbedder):
        def embed(self, texts):  # type: ignore[no-untyped-def]
            seen.extend(texts)
            return super().embed(texts)

    app = indexed_manual(tmp_path, Recording())
    assert any("Unpack the vacuum cleaner" in t for t in seen)
    assert not any(". . . ." in t for t in seen), "the contents lines were embedded"
    hits = app.retriever.search("Contents getting started battery care", k=10)
    assert CONTENTS_PAGE in [h.page for h in hits]
