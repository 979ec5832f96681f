"""The answer service: retrieve, fit the sources, stream the model's answer, report citations."""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Iterator, Sequence

from desktop_rag.engines.llm import Llm
from desktop_rag.errors import EmptyLibraryError
from desktop_rag.query.figures import unsupported_numbers
from desktop_rag.query.prompt import (
    MODEL_NOT_FOUND,
    NOTHING_RELEVANT,
    build_prompt,
    parse_citations,
)
from desktop_rag.query.retrieve import Retriever
from desktop_rag.store.lance import LanceStore
from desktop_rag.types import (
    AnswerEvent,
    DoneEvent,
    Hit,
    SourcesEvent,
    Timings,
    TokenEvent,
    Turn,
)

log = logging.getLogger(__name__)

# Below this cosine similarity (question vs best passage, all-MiniLM-L6-v2) nothing retrieved is
# about the question: bench/relevance.py puts questions the library answers and questions it
# cannot on either side of it (bench/results/relevance.json). Refusing a question the library
# does answer is the worse failure, so the threshold sits low in the gap between the two.
RELEVANCE_THRESHOLD = 0.25
# A follow-up this short ("and in 2022?") says too little to retrieve on by itself.
SHORT_FOLLOW_UP_WORDS = 6


class AnswerService:
    """Answers a question from the library, as a stream of events for any front end.

    The model loads lazily on the first question; `warm_up()` loads it ahead of time from a
    background thread so the first answer does not wait for it.
    """

    def __init__(
        self,
        retriever: Retriever,
        store: LanceStore,
        llm: Llm,
        *,
        k: int = 6,
        answer_tokens: int = 256,
        threshold: float = RELEVANCE_THRESHOLD,
    ) -> None:
        self.retriever = retriever
        self.store = store
        self.llm = llm
        self.k = k
        self.answer_tokens = answer_tokens
        self.threshold = threshold

    def warm_up(self) -> None:
        """Load the model now (blocking; call it from a worker thread)."""
        self.llm.load()

    def use_llm(self, llm: Llm) -> Llm:
        """Answer with this model from the next question on; the old one, for its caller to
        close (never under a running answer, which holds it)."""
        old, self.llm = self.llm, llm
        return old

    def retrieval_query(self, question: str, history: Sequence[Turn]) -> str:
        """A short follow-up leans on the previous question for its subject."""
        if history and len(question.split()) <= SHORT_FOLLOW_UP_WORDS:
            return f"{history[-1].question} {question}"
        return question

    def relevant(self, hits: Sequence[Hit]) -> bool:
        return bool(hits) and max(h.similarity for h in hits) >= self.threshold

    def ask(
        self,
        question: str,
        history: Sequence[Turn] = (),
        k: int | None = None,
        cancel: threading.Event | None = None,
    ) -> Iterator[AnswerEvent]:
        """Yield one SourcesEvent, then TokenEvents as the answer streams, then one DoneEvent
        (also when cancelled, with cancelled=True)."""
        cancel = cancel or threading.Event()
        t0 = time.perf_counter()
        question = question.strip()
        if self.store.count_chunks() == 0:
            raise EmptyLibraryError(
                "Your library is empty: there is nothing to answer from yet. Add PDF files "
                "(drag them onto the window, or run `desktop-rag index FOLDER`), then ask again."
            )
        hits = self.retriever.search(self.retrieval_query(question, history), k or self.k)
        retrieval_ms = (time.perf_counter() - t0) * 1000.0

        if not question or not self.relevant(hits):
            best = max((h.similarity for h in hits), default=0.0)
            log.info("nothing relevant (best similarity %.3f)", best)
            yield SourcesEvent(())
            yield TokenEvent(NOTHING_RELEVANT)
            total = time.perf_counter() - t0
            yield DoneEvent(
                NOTHING_RELEVANT,
                (),
                Timings(retrieval_ms=retrieval_ms, ttft_s=total, total_s=total),
                refused=True,
            )
            return

        llm = self.llm
        llm.load()
        context = llm.context_size
        answer_tokens = min(self.answer_tokens, context // 4)
        fitted = build_prompt(
            question,
            hits,
            llm,
            context_size=context,
            answer_tokens=answer_tokens,
            history=history,
            chat=llm.has_chat_template,
        )
        if fitted.dropped or fitted.truncated:
            log.info(
                "fitted %d sources (%d cut, %d dropped) in a %d-token context",
                len(fitted.sources),
                fitted.truncated,
                fitted.dropped,
                context,
            )
        yield SourcesEvent(fitted.sources)

        pieces: list[str] = []
        first: float | None = None
        last = time.perf_counter()
        if not cancel.is_set():
            for piece in llm.stream(fitted.prompt, answer_tokens, cancel):
                last = time.perf_counter()
                if first is None:
                    first = last
                    piece = fitted.prompt.answer_prefix + piece
                    if not fitted.prompt.answer_prefix:
                        piece = piece.lstrip()
                    if not piece:
                        continue
                pieces.append(piece)
                yield TokenEvent(piece)
        end = time.perf_counter()
        answer = "".join(pieces).strip()
        cancelled = cancel.is_set()
        n_tokens = llm.count_tokens(answer) if answer else 0
        rate = (n_tokens - 1) / (last - first) if first and n_tokens > 1 and last > first else 0.0
        timings = Timings(
            retrieval_ms=retrieval_ms,
            ttft_s=(first - t0) if first else 0.0,
            tokens_per_s=rate,
            total_s=end - t0,
        )
        said_not_found = bool(_NOT_FOUND.match(_normalise(answer)))
        # What the model read besides the sources may hold figures too: the question, and the
        # earlier turns of the conversation.
        read = [s.text for s in fitted.sources] + [question]
        read += [part for turn in history for part in (turn.question, turn.answer)]
        yield DoneEvent(
            answer,
            () if said_not_found else parse_citations(answer, len(fitted.sources)),
            timings,
            refused=said_not_found,
            cancelled=cancelled,
            unsupported=unsupported_numbers(answer, read),
        )


def _normalise(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


# The model's refusal, also in the words a small model bends it to after the answer prefix:
# "According to [1], the source does not say." cites nothing.
_NOT_FOUND = re.compile(
    rf"^(?:according to \d+ )?(?:{re.escape(_normalise(MODEL_NOT_FOUND))}|the source does not say)"
)
