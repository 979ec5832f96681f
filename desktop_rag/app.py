"""build_app(settings): wire the services once, with no globals, for the CLI, window and tests."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from desktop_rag.config import Settings
from desktop_rag.ingest.chunk import ChunkParams, TokenOffsets, bundled_tokenizer
from desktop_rag.ingest.embed import Embedder, SentenceTransformerEmbedder
from desktop_rag.ingest.pipeline import IngestService
from desktop_rag.query.answer import AnswerService
from desktop_rag.query.llm import LlamaCppLlm, Llm
from desktop_rag.query.retrieve import Retriever
from desktop_rag.store.lance import SCHEMA_VERSION, IndexMeta, LanceStore

log = logging.getLogger(__name__)


@dataclass
class App:
    """The core services, shared by every front end."""

    settings: Settings
    embedder: Embedder
    store: LanceStore
    ingest: IngestService
    retriever: Retriever
    answer: AnswerService


def default_embedder(settings: Settings) -> Embedder:
    return SentenceTransformerEmbedder(threads=settings.threads)


def default_llm(settings: Settings, verbose: bool = False) -> Llm:
    """The user's GGUF if they picked one, else the bundled model; loads on first use."""
    return LlamaCppLlm(
        settings.model_path or None,
        threads=settings.threads,
        n_ctx=settings.n_ctx,
        verbose=verbose,
    )


def build_app(
    settings: Settings,
    *,
    embedder: Embedder | None = None,
    tokenizer: Callable[[], TokenOffsets] | None = None,
    params: ChunkParams | None = None,
    isolate: bool = True,
    llm: Llm | None = None,
    verbose: bool = False,
) -> App:
    """Open the index under settings.data_path and wire ingest, retrieval and answers over it.
    Cheap: the embedder and the language model load on first use."""
    embedder = embedder or default_embedder(settings)
    params = params or ChunkParams()
    meta = IndexMeta(SCHEMA_VERSION, embedder.model_id, embedder.dim, params.to_json())
    store = LanceStore(settings.index_path, meta).open()
    ingest = IngestService(store, embedder, tokenizer or bundled_tokenizer, params, isolate=isolate)
    retriever = Retriever(store, embedder)
    answer = AnswerService(
        retriever, store, llm or default_llm(settings, verbose), k=settings.top_k
    )
    return App(settings, embedder, store, ingest, retriever, answer)
