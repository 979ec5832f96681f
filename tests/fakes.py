"""Deterministic fakes for fast unit tests: an embedder and a tokenizer with no model behind."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

_WORD = re.compile(r"\w+|[^\w\s]")


class HashEmbedder:
    """Bag of hashed words, normalised: texts sharing words are near, as a real embedder's are."""

    model_id = "test/hash-embedder"

    def __init__(self, dim: int = 64) -> None:
        self._dim = dim
        self.calls = 0
        self.texts_embedded = 0

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.texts_embedded += len(texts)
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "big")
                out[i, h % self._dim] += 1.0
            norm = np.linalg.norm(out[i])
            out[i] = out[i] / norm if norm else out[i]
            if not norm:
                out[i, 0] = 1.0
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


class WordTokenizer:
    """One token per word or punctuation mark, with character offsets, like a BERT tokenizer."""

    def offsets(self, texts: Sequence[str]) -> list[list[tuple[int, int]]]:
        return [[(m.start(), m.end()) for m in _WORD.finditer(t)] for t in texts]

    def count(self, text: str) -> int:
        return len(_WORD.findall(text)) + 2
