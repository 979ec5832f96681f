"""The cross-encoder: reads a question together with a passage or a sentence, says if it answers.

A bi-encoder (the embedder) compares a question's vector with a passage's, each made without
seeing the other; a cross-encoder reads both at once, so it tells the sentence that answers
from the one that restates the question, and says when nothing does. Ours is all-MiniLM-L6-v2's
weights (the bundled embedder's) trained to score (question, passage) and (question, sentence
with its neighbours) pairs, with a larger model as the teacher at training time only
(training/), exported to ONNX and quantized to int8 with 7-bit weights (so no CPU's int8
kernels saturate); it ships in the package (resources/reranker) and loads by path.

Scores are probabilities (0..1) that the text answers the question.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

import numpy as np

log = logging.getLogger(__name__)

# A passage is read up to this many word pieces (question included), a sentence with its
# neighbours up to SENTENCE_TOKENS: the lengths it was trained at.
PASSAGE_TOKENS = 256
SENTENCE_TOKENS = 128
BATCH = 16
MODEL_FILE = "model.onnx"


class Reranker(Protocol):
    """Scores texts against a question: the probability that each answers it."""

    def score(
        self, question: str, texts: Sequence[str], max_tokens: int = PASSAGE_TOKENS
    ) -> list[float]: ...


def sentence_text(sentence: str, before: str = "", after: str = "") -> str:
    """A sentence as the cross-encoder reads it: the sentence, then its neighbours for context
    ("it", "this" and a fact that runs on are understood from them)."""
    context = " ".join(t for t in (before, after) if t).strip()
    return f"{sentence} [SEP] {context}" if context else sentence


def passage_text(text: str, section: str = "") -> str:
    """A passage as the cross-encoder reads it: its section's heading first, when it has one."""
    return f"{section}: {text}" if section else text


def model_dir() -> Path:
    """The shipped model's folder (inside the package, or the frozen app's copy of it)."""
    return Path(str(resources.files("desktop_rag.resources") / "reranker"))


def card() -> dict[str, Any]:
    """What the shipped model is: its training figures and threshold (card.json beside it)."""
    data: dict[str, Any] = json.loads((model_dir() / "card.json").read_text())
    return data


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


class OnnxReranker:
    """The shipped cross-encoder, run by ONNX Runtime; loaded on first use."""

    def __init__(self, folder: Path | None = None, threads: int = 2) -> None:
        self.folder = folder or model_dir()
        self._threads = threads
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None
        self._inputs: frozenset[str] = frozenset()

    @property
    def loaded(self) -> bool:
        return self._session is not None

    def load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime as ort
            from tokenizers import Tokenizer

            from desktop_rag.engines.onnx_embed import session_options

            session = ort.InferenceSession(
                str(self.folder / MODEL_FILE),
                session_options(self._threads),
                providers=["CPUExecutionProvider"],
            )
            tok = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
            tok.no_padding()
            self._inputs = frozenset(i.name for i in session.get_inputs())
            self._tokenizer = tok
            self._session = session
            log.info("reranker loaded from %s", self.folder)

    def score(
        self, question: str, texts: Sequence[str], max_tokens: int = PASSAGE_TOKENS
    ) -> list[float]:
        if not texts:
            return []
        self.load()
        encodings = encode_pairs(self._tokenizer, question, texts, max_tokens)
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        out = np.zeros(len(texts), dtype=np.float32)
        for start in range(0, len(order), BATCH):
            part = order[start : start + BATCH]
            feed = pair_feed([encodings[i] for i in part])
            with self._lock:  # one run at a time: ONNX Runtime's threads are the cores
                logits = self._session.run(
                    None, {k: v for k, v in feed.items() if k in self._inputs}
                )[0]
            out[part] = np.asarray(logits, dtype=np.float32).reshape(-1)
        return [float(p) for p in _sigmoid(out)]


def encode_pairs(tokenizer: Any, question: str, texts: Sequence[str], max_tokens: int) -> list[Any]:
    """The tokenizer's encodings of (question, text) pairs, the text cut to fit max_tokens."""
    tokenizer.enable_truncation(max_length=max_tokens, strategy="only_second")
    return list(tokenizer.encode_batch([(question, t) for t in texts]))


def pair_feed(encodings: Sequence[Any]) -> dict[str, np.ndarray]:
    """A batch of pair encodings as the graph's inputs, padded to the longest."""
    width = max(len(e.ids) for e in encodings)
    ids = np.zeros((len(encodings), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    types = np.zeros_like(ids)
    for row, e in enumerate(encodings):
        n = len(e.ids)
        ids[row, :n] = e.ids
        mask[row, :n] = 1
        types[row, :n] = e.type_ids
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
