"""An app over a real LanceStore with the fake embedder and a fake model, for answer tests."""

from __future__ import annotations

from pathlib import Path

from desktop_rag.app import App, build_app
from desktop_rag.config import Settings
from desktop_rag.engines.rerank import Reranker
from desktop_rag.ingest.chunk import ChunkParams
from tests.fakes import FakeLlm, HashEmbedder, WordTokenizer


def make_app(
    tmp_path: Path, llm: FakeLlm, mode: str | None = "written", reranker: Reranker | None = None
) -> App:
    """The app over a fake model whose answers are WRITTEN (most answer tests check the
    guards on what a model writes), COMPOSED from the sources' sentences, or None: decided
    per model, as the app does."""
    # Without the file names section-aware chunks embed: the hash embedder counts "octopus" of
    # octopus.pdf as a word of every passage, which ties the pages these tests name. Ranking
    # itself is tested with tests/helpers/manual.py's manual and measured by bench/retrieval.py.
    app = build_app(
        Settings(data_dir=str(tmp_path / "data")),
        embedder=HashEmbedder(),
        tokenizer=WordTokenizer,
        params=ChunkParams(sections=0),
        isolate=False,
        llm=llm,
        reranker=reranker,
    )
    app.answer.mode = mode
    return app
