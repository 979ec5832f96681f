"""build_app(settings): wire the services once, with no globals, for the CLI, window and tests."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from desktop_rag.config import Settings, cache_dir
from desktop_rag.ingest.chunk import ChunkParams, TokenOffsets, bundled_tokenizer
from desktop_rag.ingest.embed import Embedder, SentenceTransformerEmbedder
from desktop_rag.ingest.export import ExportCache
from desktop_rag.ingest.onnx_embed import AutoEmbedder
from desktop_rag.ingest.pipeline import IngestService
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


def default_embedder(settings: Settings) -> Embedder:
    """The bundled embedder on the backend the settings ask for.

    auto and onnx (the same today): ONNX Runtime, int8 for passages (3-4x PyTorch fp32 on two
    cores) and fp32 for questions, recall@5 on covid-qa within 1% of PyTorch fp32
    (bench/embed_quality.py); exported once into the cache dir by the first index run or a
    warm-up, PyTorch until then or if the export fails. torch: PyTorch fp32 only.
    """
    if settings.embed_backend == "torch":
        return SentenceTransformerEmbedder(threads=settings.threads)
    if settings.embed_backend not in ("auto", "onnx"):
        log.warning("unknown embed_backend %r; using auto", settings.embed_backend)
    # The cache dir, not the data dir: an export is derived from the installed model alone,
    # is the same for every library, and is rebuilt offline in seconds if deleted.
    cache = ExportCache(cache_dir() / "embedders")
    return AutoEmbedder(cache, threads=settings.threads)


def build_app(
    settings: Settings,
    *,
    embedder: Embedder | None = None,
    tokenizer: Callable[[], TokenOffsets] | None = None,
    params: ChunkParams | None = None,
    isolate: bool = True,
) -> App:
    """Open the index under settings.data_path and wire ingest and retrieval over it."""
    embedder = embedder or default_embedder(settings)
    params = params or ChunkParams()
    meta = IndexMeta(SCHEMA_VERSION, embedder.model_id, embedder.dim, params.to_json())
    store = LanceStore(settings.index_path, meta).open()
    ingest = IngestService(store, embedder, tokenizer or bundled_tokenizer, params, isolate=isolate)
    retriever = Retriever(store, embedder)
    return App(settings, embedder, store, ingest, retriever)
