"""An app over a team library on the loopback store, with the fake embedder and model."""

from __future__ import annotations

from desktop_rag.app import App, build_app
from desktop_rag.config import Settings
from desktop_rag.ingest.chunk import ChunkParams
from tests.fakes import FakeLlm, HashEmbedder, WordTokenizer

URI = "s3://team/library"


def team_app(uri: str = URI, llm: FakeLlm | None = None) -> App:
    return build_app(
        Settings(data_dir=uri),
        embedder=HashEmbedder(),
        tokenizer=WordTokenizer,
        params=ChunkParams(sections=0),
        isolate=False,
        llm=llm or FakeLlm(),
    )
