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


class FakeLlm:
    """A language model with no model behind: one token per word, a canned answer streamed
    word by word, every prompt recorded. `delay_s` slows each token, to test cancelling."""

    name = "fake"

    def __init__(
        self,
        answer: str = "1], octopus blood is blue because of hemocyanin.",
        *,
        context_size: int = 2048,
        chat: bool = False,
        delay_s: float = 0.0,
    ) -> None:
        from desktop_rag.engines.llm import Generation, Prompt

        self.answer = answer
        self._context_size = context_size
        self._chat = chat
        self.delay_s = delay_s
        self.loads = 0
        self.closes = 0
        self.prompts: list[Prompt] = []
        self._last = Generation()

    @property
    def context_size(self) -> int:
        return self._context_size

    @property
    def has_chat_template(self) -> bool:
        return self._chat

    @property
    def loaded(self) -> bool:
        return self.loads > 0

    def load(self) -> None:
        self.loads += 1

    def close(self) -> None:
        self.closes += 1

    def count_tokens(self, text: str) -> int:
        return len(_WORD.findall(text))

    def truncate(self, text: str, max_tokens: int) -> str:
        words = list(_WORD.finditer(text))
        if len(words) <= max_tokens:
            return text
        return text[: words[max_tokens - 1].end()] if max_tokens > 0 else ""

    def stream(self, prompt, max_tokens, cancel=None):  # type: ignore[no-untyped-def]
        import time

        from desktop_rag.engines.llm import Generation

        self.prompts.append(prompt)
        words = self.answer.split(" ")
        produced = 0
        cancelled = False
        for i, word in enumerate(words[:max_tokens]):
            if cancel is not None and cancel.is_set():
                cancelled = True
                break
            if self.delay_s:
                time.sleep(self.delay_s)
            produced += 1
            yield word if i == 0 else " " + word
        self._last = Generation(generated_tokens=produced, cancelled=cancelled)

    @property
    def last_generation(self):  # type: ignore[no-untyped-def]
        return self._last


class FakeOcr:
    """An OCR engine with no model behind: every image reads as the same lines (text, score)
    laid out one under the other, left to right across the image; `calls` counts images."""

    name = "fake-ocr"

    def __init__(self, lines: Sequence[tuple[str, float]] = (("scanned words here", 0.95),)):
        self.lines = list(lines)
        self.calls = 0
        self.shapes: list[tuple[int, ...]] = []

    def read(self, image):  # type: ignore[no-untyped-def]
        from desktop_rag.engines.ocr import OcrLine

        self.calls += 1
        self.shapes.append(tuple(image.shape))
        height, width = image.shape[:2]
        step = height / (len(self.lines) + 1)
        out = []
        for i, (text, score) in enumerate(self.lines):
            y0 = step * (i + 0.5)
            out.append(OcrLine(text, score, (0.1 * width, y0, 0.9 * width, y0 + 0.6 * step)))
        return out


class FakeReranker:
    """A cross-encoder that answers from a table: a text's probability is the highest of the
    phrases it contains (`answers`: phrase -> probability), `default` where it holds none; a
    sentence's neighbours (after " [SEP] ", engines/rerank.sentence_text) are not looked in.
    The texts it was asked about are kept in `seen` (question, text, max_tokens)."""

    def __init__(self, answers: dict[str, float] | None = None, default: float = 0.05) -> None:
        self.answers = dict(answers or {})
        self.default = default
        self.seen: list[tuple[str, str, int]] = []

    def score(self, question: str, texts: Sequence[str], max_tokens: int = 256) -> list[float]:
        out = []
        for text in texts:
            self.seen.append((question, text, max_tokens))
            own = text.split(" [SEP] ", 1)[0]
            held = [p for phrase, p in self.answers.items() if phrase in own]
            out.append(max(held) if held else self.default)
        return out
