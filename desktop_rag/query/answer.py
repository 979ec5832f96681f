"""The answer service: retrieve, fit the sources, stream the model's answer, report citations."""

from __future__ import annotations

import contextlib
import logging
import math
import re
import threading
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field

from desktop_rag.engines.embed import common_words
from desktop_rag.engines.llm import Llm, Prompt
from desktop_rag.errors import EmptyLibraryError
from desktop_rag.query import ability, claims, follow_up, gate, unmentioned, verdict
from desktop_rag.query.compose import ANSWERABLE, TOP_SOURCES, Composed, compose
from desktop_rag.query.gate import (
    DF_CAP,
    RELEVANCE_THRESHOLD,
    UNKNOWN_GATE,
    UNKNOWN_GATE_PASSAGES,
)
from desktop_rag.query.prompt import (
    MODEL_NOT_FOUND,
    WORDS_ONLY,
    build_prompt,
    documents_do_not_mention,
    documents_do_not_say,
    nothing_relevant,
    number_sources,
    parse_citations,
    unechoed,
    unmarked,
)
from desktop_rag.query.quote import widen
from desktop_rag.query.retrieve import Retriever
from desktop_rag.query.runaway import Runaway, at_limit, shown_pieces
from desktop_rag.query.scope import Scope
from desktop_rag.store.base import Store
from desktop_rag.types import (
    AnswerEvent,
    AnswerMode,
    DoneEvent,
    Hit,
    QuotesEvent,
    Source,
    SourcesEvent,
    Timings,
    TokenEvent,
    Turn,
)

log = logging.getLogger(__name__)

# A composed answer to a question whose name no passage mentions ("Snowflake" asked of R's
# manuals) is given only when its best sentence answers with at least this probability (the
# cross-encoder's). Chosen on the tune halves of bench/answer_facts.py and bench/
# unanswerable.py (docs/performance.md, "Names the documents never mention").
NAMED_ANSWERABLE = 0.8
# A model that writes reads no page after the last one with a sentence at least this likely to
# answer (or cited by the composed answer). Chosen on the tune halves (docs/performance.md, "The
# pages a model that writes reads").
WRITTEN_FLOOR = 0.1
WRITTEN_BRIEF = 0.3
COMPOSED = AnswerMode.COMPOSED
WRITTEN = AnswerMode.WRITTEN
MODES = (COMPOSED, WRITTEN)


def instead(
    composed: Composed,
    timings: Timings,
    withheld: str,
    note: str,
    *,
    unsupported: tuple[str, ...] = (),
    support: float = 1.0,
) -> DoneEvent:
    """The end of an answer whose sentences, the sources' own, stand in for what the model
    wrote (`withheld`), with the note that says why."""
    return DoneEvent(
        composed.text,
        composed.cited,
        timings,
        unsupported=unsupported,
        support=support,
        withheld=withheld,
        mode=COMPOSED,
        note=note,
        answerable=composed.answerable,
    )


def withheld_note(model: str, composed: bool = False) -> str:
    """What the reader is told when the model's answer is not from its sources at all (and
    whether the sources' own sentences are shown instead)."""
    instead = "their own sentences are shown instead" if composed else "its answer is not shown"
    return (
        f"{model or 'The model'} answered in words its sources do not hold, from what it knows "
        f"rather than from your documents, so {instead}."
    )


def not_found_note(model: str) -> str:
    """What the reader is told when the model found no answer in sources whose sentences do
    answer, by the cross-encoder's judgement."""
    return (
        f"{model or 'The model'} found no answer in the sources, so the sentences of them that "
        "seem to answer are shown instead."
    )


def unbacked_note(words: Sequence[str]) -> str:
    """What the reader is told when a written answer is replaced by the sources' sentences."""
    listed = ", ".join(words[:5]) + (" …" if len(words) > 5 else "")
    return (
        f"The model's answer said {listed}, which its sources do not, so their own sentences "
        "are shown instead."
    )


class AnswerService:
    """Answers a question from the library, as a stream of events for any front end.

    The model loads lazily on the first question; `warm_up()` loads it ahead of time from a
    background thread so the first answer does not wait for it.
    """

    def __init__(
        self,
        retriever: Retriever,
        store: Store,
        llm: Llm,
        *,
        k: int = 6,
        answer_tokens: int = 256,
        threshold: float = RELEVANCE_THRESHOLD,
        abilities: ability.Abilities | None = None,
    ) -> None:
        self.retriever = retriever
        self.store = store
        self.llm = llm
        self.k = k
        self.answer_tokens = answer_tokens
        self.threshold = threshold
        self.refuse_below = claims.REFUSE_BELOW
        self.refuse_below_words_only = claims.REFUSE_BELOW_WORDS_ONLY
        self.weak_match = claims.WEAK_MATCH
        self.own_words = claims.OWN_WORDS
        self.unknown_gate = UNKNOWN_GATE
        self.unknown_gate_passages = UNKNOWN_GATE_PASSAGES
        # With the cross-encoder: below this probability that its best sentence answers, the
        # documents do not seem to say (query/compose.py).
        self.answerable = ANSWERABLE
        # ... and when a name the question asks about is in no passage (query/unmentioned.py),
        # below this one.
        self.named_answerable = NAMED_ANSWERABLE
        self._idf: dict[str, float] = {}
        self._idf_rows = -1
        # Everyday words the claims check never names as terms a source lacks.
        self.common_words = common_words()
        # Who writes the answer: None decides per model (`writes`, the measured rule of
        # query/ability.py), or COMPOSED / WRITTEN whatever the model.
        self.mode: str | None = None
        self.abilities = abilities
        # The sources (pages) a model that writes reads, the first ones (None: all that fit):
        # as many as the composed answer's sentences come from. On the 1.5B model's answers to
        # the manuals' tune half, three pages stated the fact as often as six (0.667 and 0.641)
        # with the first words at 5.8 s instead of 10.7 on two cores; four, 0.692 at 6.9 s
        # (docs/performance.md, "A model the user brings writes the answer").
        self.written_sources: int | None = TOP_SOURCES
        # ... and of those, none after the last page the composed answer cites or whose best
        # sentence the cross-encoder gives at least this (0: all of them): a page that answers
        # nothing is tokens the model reads before its first word (issue 43, item 5).
        self.written_floor = WRITTEN_FLOOR
        # ... and a page it reads that the composed answer does not cite and whose best
        # sentence the cross-encoder gives less than this is given by that sentence alone
        # (0: every page whole): the model keeps the page's number and its lead, and reads a
        # sentence where it read a page (issue 43, item 5). On the tune halves the 1.5B model
        # stated the fact as often on the prompts this shortens (9 and 5 of 12, each set) from
        # a quarter fewer tokens (docs/performance.md, "Weak pages given by their best sentence").
        self.written_brief = WRITTEN_BRIEF
        # A written answer that its cited sources do not back is replaced by the composed one
        # (off: flagged or withheld as before, for the benchmark's "before").
        self.replace_unbacked = True

    def warm_up(self) -> None:
        """Load the model now, and measure once whether it writes (blocking; call it from a
        worker thread)."""
        self.llm.load()
        self.decide()

    def verdict(self) -> ability.Verdict | None:
        """The measured verdict on the model the user picked (None for the bundled one, whose
        answers are composed, and for a model not measured yet)."""
        model = getattr(self.llm, "chosen_file", None)
        if model is None or self.abilities is None:
            return None
        return self.abilities.get(model)

    def decide(
        self,
        cancel: threading.Event | None = None,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> str:
        """The answer mode, measuring a model the user picked the first time it is used."""
        if self.mode in MODES:
            return self.mode
        model = getattr(self.llm, "chosen_file", None)
        if model is None or self.abilities is None:
            return COMPOSED
        found = self.abilities.get(model)
        if found is None:
            found = ability.measure(self.llm, self.compose, cancel, on_progress)
            if found.probes:
                self.abilities.put(model, found)
            log.info("answer mode of %s measured: %s", model.name, found)
        return WRITTEN if found.writes else COMPOSED

    def describe_mode(self) -> str:
        """What Settings and each answer say of who writes the answers."""
        return ability.describe(self.answer_mode(), self.llm.name)

    def use_llm(self, llm: Llm) -> Llm:
        """Answer with this model from the next question on; the old one, for its caller to
        close (never under a running answer, which holds it)."""
        old, self.llm = self.llm, llm
        return old

    def answer_mode(self) -> str:
        """COMPOSED or WRITTEN, for the model answering now."""
        if self.mode in MODES:
            return self.mode
        found = self.verdict()
        return WRITTEN if found is not None and found.writes else COMPOSED

    def retrieval_query(self, question: str, history: Sequence[Turn]) -> str:
        """A follow-up that refers back leans on the previous question for its subject."""
        return follow_up.retrieval_query(question, history)

    def relevant(self, hits: Sequence[Hit], query: str = "", question: str = "") -> bool:
        """Whether the hits are about the question, by this service's gate (query/gate.py)."""
        return gate.relevant(
            self.store,
            hits,
            query,
            question,
            words_only=self.retriever.text_only,
            threshold=self.threshold,
            unknown_gate=self.unknown_gate,
            unknown_gate_passages=self.unknown_gate_passages,
        )

    def ask(
        self,
        question: str,
        history: Sequence[Turn] = (),
        k: int | None = None,
        cancel: threading.Event | None = None,
        scope: Scope | None = None,
    ) -> Iterator[AnswerEvent]:
        """Yield one SourcesEvent, one QuotesEvent, then TokenEvents as the answer streams,
        then one DoneEvent (also when cancelled, with cancelled=True). A written answer
        replaced by the sources' sentences gets a second QuotesEvent, of those sentences,
        just before its DoneEvent. With a scope, the sources come from its documents only."""
        cancel = cancel or threading.Event()
        t0 = time.perf_counter()
        question = question.strip()
        if self.store.count_chunks() == 0:
            raise EmptyLibraryError(
                "Your library is empty: there is nothing to answer from yet. Add documents "
                "(drag them onto the window, or run `desktop-rag index FOLDER`), then ask again."
            )
        # A question that does not refer back is answered as if it came first: neither the
        # previous sources nor the previous answer's words are lent to it (the model would
        # otherwise answer "What is the capital of France?" from a conversation about vaccines).
        history = history if follow_up.refers_back(question) else ()
        query = self.retrieval_query(question, history)
        hits = self.retriever.search(query, k or self.k, scope=scope)
        if query != question:
            # The previous question found these: keep those that are about this one too.
            hits = follow_up.matching(hits, question)
        clock = _Clock(t0, (time.perf_counter() - t0) * 1000.0)
        notice = WORDS_ONLY if self.retriever.text_only else ""
        if not question or not self.relevant(hits, query, question):
            yield from self._irrelevant(question, hits, notice, clock)
        elif self.answer_mode() == COMPOSED:
            answered = follow_up.answer_query(question, history)
            yield from self._composed(question, answered, hits, notice, clock)
        else:
            yield from self._written(question, history, hits, notice, clock, cancel)

    def _irrelevant(
        self, question: str, hits: Sequence[Hit], notice: str, clock: _Clock
    ) -> Iterator[AnswerEvent]:
        """The refusal of a question nothing retrieved is about (in its language): no sources,
        no model."""
        best = max((h.similarity for h in hits), default=0.0)
        log.info("nothing relevant (best similarity %.3f)", best)
        yield SourcesEvent((), notice)
        yield QuotesEvent(())
        refusal = nothing_relevant(question)
        yield TokenEvent(refusal)
        yield DoneEvent(refusal, (), clock.at_once(), refused=True)

    def _written(
        self,
        question: str,
        history: Sequence[Turn],
        hits: Sequence[Hit],
        notice: str,
        clock: _Clock,
        cancel: threading.Event,
    ) -> Iterator[AnswerEvent]:
        """The model's answer, streamed, then judged against its sources (`_judged`)."""
        # The sentences that answer come first: when none does, the documents do not seem to
        # say, and the model is not asked; when some do, the model is shown them, marked.
        answered = follow_up.answer_query(question, history)
        widened = self.whole_sentences(hits)
        numbered = number_sources(widened)
        composed = self._sentences(question, answered, numbered)
        if not composed.text:
            yield from self._composed_events(question, composed, numbered, notice, clock)
            return
        llm = self.llm
        llm.load()
        context = llm.context_size
        answer_tokens = min(self.answer_tokens, context // 4)
        fitted = build_prompt(
            question,
            widened,
            llm,
            context_size=context,
            answer_tokens=answer_tokens,
            history=history,
            chat=llm.has_chat_template,
            marked=composed.quotes,
            max_sources=pages_read(
                composed, len(numbered), self.written_sources, self.written_floor
            ),
            brief=briefs(composed, self.written_brief),
        )
        if fitted.dropped or fitted.truncated:
            log.info(
                "fitted %d sources (%d cut, %d dropped) in a %d-token context",
                len(fitted.sources),
                fitted.truncated,
                fitted.dropped,
                context,
            )
        # Every source found is shown, numbered as the model read the first of them: the
        # sentences shown instead of its answer may be another's.
        yield SourcesEvent(numbered, notice)
        # The sentences that answer need no model: they are shown while the model reads.
        yield QuotesEvent(composed.quotes)
        streamed = yield from self._stream(llm, fitted.prompt, answer_tokens, cancel)
        answer = unechoed(streamed.answer)
        n_tokens = llm.count_tokens(answer) if answer else 0
        yield self._judged(
            question,
            history,
            hits,
            answer,
            fitted.sources,
            composed,
            clock.streamed(streamed, n_tokens),
            cancel.is_set(),
        )

    def _stream(
        self, llm: Llm, prompt: Prompt, budget: int, cancel: threading.Event
    ) -> Generator[AnswerEvent, None, _Streamed]:
        """Yield the model's answer as it streams, stopped where a base model runs on into a
        prompt of its own (query/runaway.py); return what it said and when."""
        guard = Runaway()
        streamed = _Streamed()
        hit_limit = False
        if not cancel.is_set() and budget > 0:
            with contextlib.closing(
                shown_pieces(
                    unmarked(llm.stream(prompt, budget, cancel)),
                    guard,
                    prompt.answer_prefix,  # put before the first piece: the prompt said it
                    streamed.heard,
                )
            ) as pieces:
                for shown in pieces:
                    yield TokenEvent(shown)
            hit_limit = at_limit(llm.last_generation.generated_tokens, budget)
        streamed.end = time.perf_counter()
        streamed.answer = guard.answer(hit_limit)
        return streamed

    def _judged(
        self,
        question: str,
        history: Sequence[Turn],
        hits: Sequence[Hit],
        answer: str,
        sources: Sequence[Source],
        composed: Composed,
        timings: Timings,
        cancelled: bool,
    ) -> DoneEvent:
        """The end of a written answer, after the claims check: shown as written, cited to the
        source that holds its words, withheld, or replaced by the sources' own sentences."""
        llm = self.llm
        said_not_found = bool(_NOT_FOUND.match(_normalise(answer)))
        cited = () if said_not_found else parse_citations(answer, len(sources))
        if cancelled or not answer:
            return DoneEvent(answer, cited, timings, cancelled=cancelled)
        if said_not_found and composed.answerable is None:
            return DoneEvent(answer, (), timings, refused=True)
        if said_not_found:
            # The cross-encoder found sentences that answer: they are shown, and why.
            log.info("the model found no answer where the cross-encoder did: composed")
            return instead(composed, timings, answer, not_found_note(llm.name))
        # The answer's claims must be in the sources it cites (all of them, if it cites none).
        # Figures may also come from what the model read besides: the question, earlier turns.
        text_only = self.retriever.text_only
        cited_texts = [s.text for s in sources if s.n in cited] or [s.text for s in sources]
        read = [question] + [part for turn in history for part in (turn.question, turn.answer)]
        asked = asked_words(question, history)
        refuse_below = self.refuse_below_words_only if text_only else self.refuse_below
        found = claims.check(
            answer,
            cited_texts,
            self.rarity,
            also_read=read,
            asked=asked,
            refuse_below=refuse_below,
            common=self.common_words,
        )

        def own_words() -> float:
            every = [s.text for s in sources]
            own = claims.check(
                answer, every, self.rarity, also_read=read, asked=asked, common=self.common_words
            )
            return own.words_lacking

        best = max((h.similarity for h in hits), default=0.0)
        if verdict.withheld(
            found.refuse,
            best,
            own_words,
            words_only=text_only,
            weak_match=self.weak_match,
            own_limit=self.own_words,
        ):
            log.info("answer withheld: %.2f of its words are in its sources", found.support)
            if composed.answerable is not None:
                # The cross-encoder found sentences that answer: they are shown, not a refusal.
                note = withheld_note(llm.name, composed=True)
                return instead(composed, timings, answer, note, support=found.support)
            return DoneEvent(
                nothing_relevant(question),
                (),
                timings,
                refused=True,
                support=found.support,
                withheld=answer,
                note=withheld_note(llm.name),
            )
        unsupported, support = found.unsupported, found.support
        recited_from: tuple[int, ...] = ()
        # The model cites [1] for what it read in another source: cite the one holding it.
        backed = claims.backing_source(
            answer,
            cited,
            found,
            {s.n: s.text for s in sources},
            self.rarity,
            also_read=read,
            asked=asked,
            common=self.common_words,
        )
        if backed is not None:
            n, by = backed
            log.info("answer cited %s, its words are in [%d]: cited to it", list(cited), n)
            answer, recited_from, cited = claims.recite(answer, n), cited, (n,)
            unsupported, support = by.unsupported, by.support
        if unsupported and self.replace_unbacked:
            # Never the opposite of the page: the sources' own sentences stand in for it.
            log.info("written answer not backed by its sources (%s): composed", unsupported)
            note = unbacked_note(unsupported)
            return instead(
                composed, timings, answer, note, unsupported=unsupported, support=support
            )
        return DoneEvent(
            answer,
            cited,
            timings,
            unsupported=unsupported,
            support=support,
            recited_from=recited_from,
            mode=WRITTEN,
            model=llm.name,
        )

    def compose(self, query: str, sources: Sequence[Source]) -> Composed:
        """The answer from the sources' own sentences, with this service's cross-encoder and
        refusal threshold."""
        return compose(
            query,
            sources,
            self.retriever.recent,
            self.retriever.reranker,
            answerable=self.answerable,
        )

    def _composed(
        self,
        question: str,
        query: str,
        hits: Sequence[Hit],
        notice: str,
        clock: _Clock,
    ) -> Iterator[AnswerEvent]:
        """The answer from the sources' own sentences: no model, so it is on screen at once."""
        sources = number_sources(self.whole_sentences(hits))
        composed = self._sentences(question, query, sources)
        yield from self._composed_events(question, composed, sources, notice, clock)

    def _sentences(self, question: str, query: str, sources: Sequence[Source]) -> Composed:
        """The sources' sentences that answer `query` (the question as answered), or none with
        the reason: none answers, or not surely enough a question about a name no passage
        mentions."""
        composed = self.compose(query, sources)
        if composed.answerable is not None and composed.answerable < self.named_answerable:
            missing = unmentioned.unmentioned(self.store, question)
            if missing:
                log.info(
                    "no passage mentions %s (best sentence %.2f)", missing, composed.answerable
                )
                return Composed("", (), (), composed.answerable, missing=tuple(missing))
        return composed

    def _composed_events(
        self,
        question: str,
        composed: Composed,
        sources: Sequence[Source],
        notice: str,
        clock: _Clock,
    ) -> Iterator[AnswerEvent]:
        """The events of a composed answer, or of the refusal that says why there is none (in
        the question's language)."""
        yield SourcesEvent(tuple(sources), notice)
        yield QuotesEvent(composed.quotes)
        if composed.text:
            answer = composed.text
        elif composed.missing:
            answer = documents_do_not_mention(unmentioned.quoted(composed.missing), question)
        elif composed.answerable is not None:
            answer = documents_do_not_say(question)  # passages on the subject, none answers
        else:
            answer = nothing_relevant(question)
        yield TokenEvent(answer)
        yield DoneEvent(
            answer,
            composed.cited,
            clock.at_once(),
            refused=not composed.text,
            mode=COMPOSED,
            answerable=composed.answerable,
        )

    def whole_sentences(self, hits: Sequence[Hit]) -> list[Hit]:
        """The passages of this desktop's library widened to the sentences they cut, from their
        pages' text (query/quote.py, widen); the team's as they are."""
        pages: dict[tuple[str, int], str] = {}
        out = []
        for hit in hits:
            if hit.library:
                out.append(hit)
                continue
            key = (hit.path, hit.page)
            if key not in pages:
                pages[key] = self.store.page_text(hit.path, hit.page)
            out.append(widen(hit, pages[key]))
        return out

    def rarity(self, word: str) -> float:
        """A word's IDF over the library's passages, as the full-text index reads it (at least
        claims.RARE_IDF for a word in none of them); 0 when there is no full-text index yet."""
        rows = self.store.count_chunks()
        if rows != self._idf_rows:
            self._idf.clear()
            self._idf_rows = rows
        idf = self._idf.get(word)
        if idf is None:
            if not self.store.has_fts_index():
                return 0.0
            df = self.store.term_frequency(word, min(rows, DF_CAP))
            idf = math.log((rows + 1) / (df + 0.5)) if rows else 0.0
            if df == 0:
                idf = max(idf, claims.RARE_IDF)  # in no passage at all: rare, however small
            self._idf[word] = idf
        return idf


@dataclass
class _Streamed:
    """What the model said, and when it was heard first and last."""

    answer: str = ""
    first: float | None = None
    last: float = field(default_factory=time.perf_counter)
    end: float = 0.0

    def heard(self) -> None:
        self.last = time.perf_counter()
        if self.first is None:
            self.first = self.last


@dataclass(frozen=True)
class _Clock:
    """When the question was asked, and how long retrieval took: an answer's timings."""

    t0: float
    retrieval_ms: float

    def at_once(self) -> Timings:
        """An answer given whole, with no model: its first words are its last."""
        total = time.perf_counter() - self.t0
        return Timings(retrieval_ms=self.retrieval_ms, ttft_s=total, total_s=total)

    def streamed(self, streamed: _Streamed, n_tokens: int) -> Timings:
        """A streamed answer of `n_tokens`: its first words, its rate, its end."""
        first, last = streamed.first, streamed.last
        rate = (n_tokens - 1) / (last - first) if first and n_tokens > 1 and last > first else 0.0
        return Timings(
            retrieval_ms=self.retrieval_ms,
            ttft_s=(first - self.t0) if first else 0.0,
            tokens_per_s=rate,
            total_s=streamed.end - self.t0,
        )


def asked_words(question: str, history: Sequence[Turn]) -> list[str]:
    """What the user asked: the question, and the one before when it refers back to it (the
    history a question that does not is answered without)."""
    if history and follow_up.refers_back(question):
        return [history[-1].question, question]
    return [question]


def pages_read(composed: Composed, found: int, most: int | None, floor: float) -> int | None:
    """How many of the `found` pages a model that writes reads: at most `most` (None: all
    that fit), and none after the last one that answers (cited by the composed answer, or
    holding a sentence at least `floor` likely to answer; 0: no such cut)."""
    if not composed.strength or floor <= 0:
        return most
    strength = dict(composed.strength)
    last = 1
    for n in range(1, min(most or found, found) + 1):
        if n in composed.cited or strength.get(n, 0.0) >= floor:
            last = n
    return last


def briefs(composed: Composed, below: float) -> dict[int, str]:
    """The sources a model that writes is given by their best sentence alone, by number: those
    the composed answer does not cite whose best sentence is less than `below` likely to
    answer (none when `below` is 0, or without the cross-encoder)."""
    if below <= 0:
        return {}
    strength = dict(composed.strength)
    return {
        n: lead
        for n, lead in composed.leads
        if n not in composed.cited and strength.get(n, 0.0) < below
    }


def _normalise(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


# The model's refusal, also in the words a small model bends it to after the answer prefix
# ("According to [1], the source does not say." cites nothing) and a larger one words its own
# ("The sources do not provide information on whether …").
_NOT_FOUND = re.compile(
    rf"^(?:according to \d+ )?(?:{re.escape(_normalise(MODEL_NOT_FOUND))}|"
    r"the sources? (?:do|does) not (?:say|provide|mention|contain|state|give))"
)
