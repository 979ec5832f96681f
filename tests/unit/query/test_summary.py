"""A model able to write (query/ability.py) writes a summary over a document's outline; its
claims are checked against the outline's sentences, and the outline stays below it."""

from __future__ import annotations

import threading

from desktop_rag.query.outline import build_outline, outline_events
from desktop_rag.query.summary import summary_events
from desktop_rag.types import DoneEvent, QuotesEvent, SourcesEvent, TokenEvent
from tests.fakes import FakeLlm, HashEmbedder
from tests.helpers.rows import manual

EMB = HashEmbedder()


def _outline():
    return build_outline(manual(), EMB, path="/docs/manual.pdf", pages=3)


def _no_rarity(word: str) -> float:
    return 0.0


def test_a_writing_model_summarises_above_the_outline() -> None:
    outline = _outline()
    plain = outline_events(outline)[-1]
    assert isinstance(plain, DoneEvent)
    n = next(s.n for s in outline_events(outline)[0].sources if s.page == 2)  # type: ignore[union-attr]
    llm = FakeLlm(f"The battery charges fully in about two hours [{n}].")
    events = list(summary_events(outline, llm, _no_rarity))
    assert isinstance(events[0], SourcesEvent) and isinstance(events[1], QuotesEvent)
    tokens = "".join(e.text for e in events if isinstance(e, TokenEvent))
    done = events[-1]
    assert isinstance(done, DoneEvent)
    assert done.mode == "summary" and done.model == "fake" and not done.note
    summary, rest = done.answer.split("\n\n", 1)
    assert summary == f"The battery charges fully in about two hours [{n}]."
    assert rest == plain.answer  # the outline, unchanged, below the summary
    assert tokens == done.answer and n in done.cited
    # The model read the outline, its sentences numbered as the answer cites them.
    (prompt,) = llm.prompts
    assert "2.1 Battery" in prompt.text and f"[{n}]" in prompt.text


def test_a_summary_its_outline_does_not_back_is_withheld_for_the_outline() -> None:
    outline = _outline()
    llm = FakeLlm("Nikola Tesla invented this device in 1890 [1].")
    done = list(summary_events(outline, llm, _no_rarity))[-1]
    assert isinstance(done, DoneEvent)
    assert done.mode == "outline" and done.answer == outline_events(outline)[-1].answer  # type: ignore[union-attr]
    assert done.withheld.startswith("Nikola Tesla") and "Tesla" in done.note


def test_a_stopped_summary_keeps_what_it_wrote() -> None:
    cancel = threading.Event()
    cancel.set()
    done = list(summary_events(_outline(), FakeLlm("Words."), _no_rarity, cancel))[-1]
    assert isinstance(done, DoneEvent) and done.cancelled


def test_a_summary_cut_near_its_token_limit_loses_its_unfinished_sentence() -> None:
    """The summary counted its limit as `used >= budget` where answers allow LIMIT_SLACK:
    llama.cpp's pieces count tokens roughly, so a summary that ran into its limit a few tokens
    early kept half a sentence. Both now end the same way (query/runaway.at_limit)."""
    outline = _outline()
    n = next(s.n for s in outline_events(outline)[0].sources if s.page == 2)  # type: ignore[union-attr]
    text = f"The battery charges fully in about two hours [{n}]. The battery"
    llm = FakeLlm(text)
    budget = llm.count_tokens(text) + 3  # stopped three tokens short of its limit
    done = list(summary_events(outline, llm, _no_rarity, answer_tokens=budget))[-1]
    assert isinstance(done, DoneEvent) and done.mode == "summary"
    assert done.answer.split("\n\n", 1)[0] == f"The battery charges fully in about two hours [{n}]."
