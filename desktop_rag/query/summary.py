"""A summary of one document, written by a model able to write over the document's outline.

The outline (query/outline.py) is built without the model, from the document's own sentences;
a model that passes the ability rule (query/ability.py) may write a short paragraph over it,
citing the outline's [n]. Every guard of a written answer still applies: its claims are
checked against the sentences of the pages it cites (query/claims.py), and a summary they do
not back is withheld, the outline shown alone with a note saying why. Either way the outline
follows, so the document's own words are always on screen.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator

from desktop_rag.engines.llm import Llm
from desktop_rag.query import claims
from desktop_rag.query.outline import Outline, outline_events
from desktop_rag.query.prompt import parse_citations, summary_prompt
from desktop_rag.query.runaway import Runaway, at_limit, shown_pieces
from desktop_rag.types import AnswerEvent, AnswerMode, DoneEvent, SourcesEvent, Timings, TokenEvent

log = logging.getLogger(__name__)

# The DoneEvent's mode: a summary written over the outline, the outline after it.
SUMMARY = AnswerMode.SUMMARY
SUMMARY_TOKENS = 200
BELOW = "\n\n"  # between the summary and the outline


def unbacked_summary_note(words: tuple[str, ...]) -> str:
    """What the reader is told when the model's summary is withheld."""
    if not words:
        return (
            "The model's summary said nothing the document's sentences do, so only its "
            "outline is shown."
        )
    listed = ", ".join(words[:5]) + (" …" if len(words) > 5 else "")
    return (
        f"The model's summary said {listed}, which the document's sentences do not, so only "
        "its outline is shown."
    )


def summary_events(
    outline: Outline,
    llm: Llm,
    rarity: Callable[[str], float],
    cancel: threading.Event | None = None,
    answer_tokens: int = SUMMARY_TOKENS,
) -> Iterator[AnswerEvent]:
    """The outline's sources and quotes, then the model's summary as it streams, then the
    outline below it; DoneEvent mode "summary" (or "outline" when the summary is withheld)."""
    cancel = cancel or threading.Event()
    started = time.perf_counter()
    found, quotes, _, plain = outline_events(outline)
    assert isinstance(found, SourcesEvent) and isinstance(plain, DoneEvent)
    yield found
    yield quotes
    llm.load()
    budget = min(answer_tokens, llm.context_size // 4)
    prompt = summary_prompt(
        plain.answer,
        llm,
        context_size=llm.context_size,
        answer_tokens=budget,
        chat=llm.has_chat_template,
    )
    guard = Runaway()
    first: float | None = None

    def heard() -> None:
        nonlocal first
        first = first or time.perf_counter()

    with contextlib.closing(
        shown_pieces(llm.stream(prompt, budget, cancel), guard, "", heard)
    ) as pieces:
        for shown in pieces:
            yield TokenEvent(shown)
    used = llm.last_generation.generated_tokens
    summary = guard.answer(at_limit(used, budget)).strip()
    total = time.perf_counter() - started
    timings = Timings(ttft_s=(first - started) if first else 0.0, total_s=total)
    if cancel.is_set():
        yield DoneEvent(summary, (), timings, cancelled=True)
        return
    n_sources = len(found.sources)
    cited = parse_citations(summary, n_sources)
    texts = {s.n: s.text for s in found.sources}
    checked = claims.check(summary, [texts[n] for n in cited] or list(texts.values()), rarity)
    if not summary or checked.unsupported or checked.refuse:
        log.info("summary of %s withheld: %s", outline.path, checked.unsupported)
        # What streamed is taken back: the DoneEvent's answer is the outline alone, and front
        # ends show it with the note (as they show an answer replaced by its sources' words).
        yield DoneEvent(
            plain.answer,
            plain.cited,
            timings,
            unsupported=checked.unsupported,
            support=checked.support,
            withheld=summary,
            mode=plain.mode,
            note=unbacked_summary_note(checked.unsupported) if summary else "",
        )
        return
    yield TokenEvent(BELOW + plain.answer)
    yield DoneEvent(
        summary + BELOW + plain.answer,
        tuple(dict.fromkeys((*cited, *plain.cited))),
        timings,
        support=checked.support,
        mode=SUMMARY,
        model=llm.name,
    )
