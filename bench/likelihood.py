"""How likely the language model finds a text after a prompt: log-probabilities per token.

A measuring tool, not part of the app: whether the bundled model's own likelihood helps choose
an answer's sentences (issue 29, bench/answer_facts.py `--replay`). It scores each candidate
sentence as the answer to the question ("Question: …\nAnswer: SENTENCE"), with and without
the question (their difference says how much the question raises it, not how common its words
are), and the question after the sentence ("Passage: SENTENCE\nQuestion: …").

The prompt's shared prefix is evaluated once and kept in the KV cache; each continuation is
evaluated after it and removed again, so a dozen short sentences cost a dozen small batches.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from desktop_rag.engines.llm import LlamaCppLlm


def _log_softmax_at(rows: np.ndarray, targets: Sequence[int]) -> np.ndarray:
    """log p(targets[i]) under the logits rows[i]."""
    top = rows.max(axis=1, keepdims=True)
    lse = top[:, 0] + np.log(np.exp(rows - top).sum(axis=1))
    picked = rows[np.arange(len(targets)), np.asarray(targets)]
    return np.asarray(picked - lse, dtype=np.float64)


class Scorer:
    """Token log-probabilities of continuations after a shared prefix, with a loaded model."""

    def __init__(self, llm: LlamaCppLlm) -> None:
        llm.load()
        self._llm = llm
        self._model: Any = llm._model
        self._n_vocab = int(self._model.n_vocab())

    def tokens(self, text: str, bos: bool = False) -> list[int]:
        return list(self._model.tokenize(text.encode("utf-8"), add_bos=bos, special=False))

    def _decode(self, tokens: Sequence[int], start: int, want: int) -> np.ndarray:
        """Evaluate tokens at positions start.. in sequence 0; the logits of the last `want`."""
        import llama_cpp

        n = len(tokens)
        batch = llama_cpp.llama_batch_init(n, 0, 1)
        try:
            batch.n_tokens = n
            for i, t in enumerate(tokens):
                batch.token[i] = t
                batch.pos[i] = start + i
                batch.seq_id[i][0] = 0
                batch.n_seq_id[i] = 1
                batch.logits[i] = i >= n - want
            if llama_cpp.llama_decode(self._model.ctx, batch) != 0:
                raise RuntimeError("llama_decode failed")
            ptr = llama_cpp.llama_get_logits(self._model.ctx)
            return np.ctypeslib.as_array(ptr, shape=(want * self._n_vocab,)).reshape(
                want, self._n_vocab
            )
        finally:
            llama_cpp.llama_batch_free(batch)

    def logprobs(
        self, prefix: str, continuations: Sequence[str], scored: Sequence[int] | None = None
    ) -> list[np.ndarray]:
        """For each continuation, the log-probability of each of its tokens after prefix (the
        last `scored[i]` tokens only when given: the rest is context)."""
        pre = self.tokens(prefix, bos=True)
        out: list[np.ndarray] = []
        with self._llm._gen_lock:
            model = self._model
            ctx = model._ctx
            ctx.kv_cache_seq_rm(-1, 0, -1)
            model.n_tokens = 0
            last = self._decode(pre, 0, 1)[0].copy()
            for k, text in enumerate(continuations):
                cont = self.tokens(text)
                if not cont:
                    out.append(np.zeros(0))
                    continue
                ctx.kv_cache_seq_rm(-1, len(pre), -1)
                rows = self._decode(cont, len(pre), len(cont))
                # Row j predicts token j+1; the prefix's last row predicts token 0.
                lp = np.empty(len(cont))
                lp[0] = _log_softmax_at(last[None, :], [cont[0]])[0]
                if len(cont) > 1:
                    lp[1:] = _log_softmax_at(rows[:-1], cont[1:])
                want = len(cont) if scored is None else min(scored[k], len(cont))
                out.append(lp[len(cont) - want :])
            # Leave llama-cpp-python's bookkeeping matching an empty cache: the next
            # generation evaluates its prompt from the start.
            ctx.kv_cache_seq_rm(-1, 0, -1)
            model.n_tokens = 0
        return out


def answer_prefix(question: str) -> str:
    return f"Question: {' '.join(question.split())}\nAnswer:"


def as_answer(scorer: Scorer, question: str, sentences: Sequence[str]) -> list[float]:
    """Mean log-probability of each sentence's tokens as the answer to the question."""
    lps = scorer.logprobs(answer_prefix(question), [" " + s for s in sentences])
    return [float(lp.mean()) if len(lp) else -99.0 for lp in lps]


def as_text(scorer: Scorer, sentences: Sequence[str]) -> list[float]:
    """The same without the question: how likely the sentence is as an answer to anything."""
    lps = scorer.logprobs("Answer:", [" " + s for s in sentences])
    return [float(lp.mean()) if len(lp) else -99.0 for lp in lps]


def question_after(scorer: Scorer, question: str, sentences: Sequence[str]) -> list[float]:
    """Mean log-probability of the question's tokens after each sentence as its passage."""
    q = "\nQuestion: " + " ".join(question.split())
    n = len(scorer.tokens(q))
    lps = scorer.logprobs("Passage:", [" " + s + q for s in sentences], [n] * len(sentences))
    return [float(lp.mean()) if len(lp) else -99.0 for lp in lps]


def spread(values: Sequence[float]) -> list[float]:
    """Values scaled to 0..1 across the candidates of one question (all 0 when equal)."""
    if not values:
        return []
    lo, hi = min(values), max(values)
    if hi - lo < 1e-9:
        return [0.0] * len(values)
    return [(v - lo) / (hi - lo) for v in values]
