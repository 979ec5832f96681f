"""The answer service: retrieve, fit the sources, stream the model's answer, report citations."""

from __future__ import annotations

import contextlib
import logging
import math
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from desktop_rag.engines.embed import common_words
from desktop_rag.engines.llm import Llm
from desktop_rag.errors import EmptyLibraryError
from desktop_rag.query import ability, claims, follow_up, unmentioned
from desktop_rag.query.compose import ANSWERABLE, TOP_SOURCES, Composed, compose
from desktop_rag.query.prompt import (
    DOCUMENTS_DO_NOT_SAY,
    MODEL_NOT_FOUND,
    NOTHING_RELEVANT,
    WORDS_ONLY,
    build_prompt,
    documents_do_not_mention,
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
from desktop_rag.store.lance import fts_terms
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

# Below this cosine similarity (question vs best passage, all-MiniLM-L6-v2) nothing retrieved is
# about the question: bench/relevance.py puts questions the library answers and questions it
# cannot on either side of it (bench/results/relevance.json). Refusing a question the library
# does answer is the worse failure, so the threshold sits low in the gap between the two.
RELEVANCE_THRESHOLD = 0.25
LIST_START = "\n- "
# Searching by words only (an index of another embedder gives no similarity), a question is
# on topic when its best passage holds this share of the question's words, each weighted by
# its rarity in the library (IDF): bench/relevance.py --words-only puts the same questions on
# either side of it (bench/results/relevance-words.json); low in the gap, for the same reason.
WORDS_THRESHOLD = 0.4
# A question with at least this share of its weight (by IDF) on plain words no passage of the
# library holds is about something the library does not cover, whatever the cosine: MiniLM
# puts "What is the main ingredient of guacamole?" at 0.404 to a passage on carrageenan (0.84
# of its weight on "ingredient" and "guacamole"), "How many days are in a leap year?" at 0.28
# to a filing's "365-day year" (0.65 on "leap"). Chosen by bench/answer_quality.py on the tune
# halves of covid-qa and financebench; on-topic questions reach 0.47 (a misspelt
# "limtations"); names, acronyms and fiscal-year codes are not plain words (unknown_share).
UNKNOWN_GATE = 0.6
# ... in a library of at least this many passages (covid-qa's 98 articles make 6,080): in fewer,
# an everyday word ("keep", "away") is missing by chance, and its absence says nothing.
UNKNOWN_GATE_PASSAGES = 1000
# A composed answer to a question whose name no passage mentions ("Snowflake" asked of R's
# manuals) is given only when its best sentence answers with at least this probability (the
# cross-encoder's). Chosen on the tune halves of bench/answer_facts.py and bench/
# unanswerable.py (docs/performance.md, "Names the documents never mention").
NAMED_ANSWERABLE = 0.8
# Counting how many passages hold a word stops here: beyond it, the word is common anyway.
_DF_CAP = 2000
# Words the full-text index drops (lancedb's English stop words, NLTK's list: they match
# nothing, so they would look like words the library lacks, the rarest of all) and question
# words: they say nothing of a topic.
_STOP_TEXT = """i me my myself we our ours ourselves you your yours yourself yourselves he him his
    himself she her hers herself it its itself they them their theirs themselves what which who
    whom this that these those am is are was were be been being have has had having do does did
    doing a an the and but if or because as until while of at by for with about against between
    into through during before after above below to from up down in out on off over under again
    further then once here there when where why how all any both each few more most other some
    such no nor not only own same so than too very s t can will just don should now d ll m o re
    ve y ain aren couldn didn doesn hadn hasn haven isn ma mightn mustn needn shan shouldn wasn
    weren won wouldn would could may might must shall also many much"""
_STOP_WORDS = frozenset(_STOP_TEXT.split())

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
        # Start a list the model announced but was cut before. Off: with the bundled 270M
        # model (bench/complete.py), the items it then wrote were invented source lines.
        self.continue_lists = False
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
        """Whether the hits are about the question: by cosine similarity, or, searching by
        words only, by the share of the question's rarer words its best passage holds; and
        not when most of the question's own words are in no passage of the library."""
        if (
            self.store.count_chunks() >= self.unknown_gate_passages
            and unknown_share(self.store, question or query) >= self.unknown_gate
        ):
            return False
        if self.retriever.text_only:
            return word_relevance(self.store, query, hits) >= WORDS_THRESHOLD
        return bool(hits) and max(h.similarity for h in hits) >= self.threshold

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
        retrieval_ms = (time.perf_counter() - t0) * 1000.0
        notice = WORDS_ONLY if self.retriever.text_only else ""

        if not question or not self.relevant(hits, query, question):
            best = max((h.similarity for h in hits), default=0.0)
            log.info("nothing relevant (best similarity %.3f)", best)
            yield SourcesEvent((), notice)
            yield QuotesEvent(())
            yield TokenEvent(NOTHING_RELEVANT)
            total = time.perf_counter() - t0
            yield DoneEvent(
                NOTHING_RELEVANT,
                (),
                Timings(retrieval_ms=retrieval_ms, ttft_s=total, total_s=total),
                refused=True,
            )
            return

        if self.answer_mode() == COMPOSED:
            answered = follow_up.answer_query(question, history)
            yield from self._composed(question, answered, hits, notice, t0, retrieval_ms)
            return

        # The sentences that answer come first: when none does, the documents do not seem to
        # say, and the model is not asked; when some do, the model is shown them, marked.
        answered = follow_up.answer_query(question, history)
        widened = self.whole_sentences(hits)
        numbered = number_sources(widened)
        composed = self._sentences(question, answered, numbered)
        if not composed.text:
            yield from self._composed_events(composed, numbered, notice, t0, retrieval_ms)
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
            max_sources=self.written_sources,
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

        guard = Runaway()
        first: float | None = None
        last = time.perf_counter()

        def heard() -> None:
            nonlocal first, last
            last = time.perf_counter()
            if first is None:
                first = last

        hit_limit = False
        prompt = fitted.prompt
        lead = prompt.answer_prefix  # put before the first piece: the prompt said it already
        budget = answer_tokens
        while not cancel.is_set() and budget > 0:
            with contextlib.closing(
                shown_pieces(unmarked(llm.stream(prompt, budget, cancel)), guard, lead, heard)
            ) as pieces:
                for shown in pieces:
                    yield TokenEvent(shown)
            used = llm.last_generation.generated_tokens
            hit_limit = at_limit(used, budget)
            budget -= max(used, 1)
            said = guard.answer()
            if (
                not self.continue_lists
                or prompt is not fitted.prompt
                or prompt.is_chat
                or hit_limit
                or not said.endswith(":")
            ):
                break
            # A list announced ("… are the following:") and cut before its first item: the
            # base model's next line was a prompt part of its own. Start the list for it; the
            # prompt so far is in llama.cpp's cache.
            guard.resume()
            said = said.removeprefix(fitted.prompt.answer_prefix)
            prompt = replace(
                fitted.prompt,
                text=f"{fitted.prompt.text}{said}{LIST_START}",
                stop=(*fitted.prompt.stop, "\n\n"),
                answer_prefix="",
            )
            lead = LIST_START
        end = time.perf_counter()
        answer = unechoed(guard.answer(hit_limit))
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
        cited = () if said_not_found else parse_citations(answer, len(fitted.sources))
        if cancelled or not answer:
            yield DoneEvent(answer, cited, timings, cancelled=cancelled)
            return
        if said_not_found and composed.answerable is None:
            yield DoneEvent(answer, (), timings, refused=True)
            return
        if said_not_found:
            # The cross-encoder found sentences that answer: they are shown, and why.
            log.info("the model found no answer where the cross-encoder did: composed")
            yield instead(composed, timings, answer, not_found_note(llm.name))
            return
        # The answer's claims must be in the sources it cites (all of them, if it cites none).
        # Figures may also come from what the model read besides: the question, earlier turns.
        text_only = self.retriever.text_only
        cited_texts = [s.text for s in fitted.sources if s.n in cited] or [
            s.text for s in fitted.sources
        ]
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
        # Sources this near the question are about it: an answer they do not back is flagged
        # (a wrong figure, a word of the source next to the one cited), not withheld; from
        # sources only somewhat near it, such an answer is the model's own knowledge under a
        # citation, and so is one whose new words none of the sources it read holds.
        best = max((h.similarity for h in hits), default=0.0)
        withhold = found.refuse and (best < self.weak_match or text_only)
        if found.refuse and not withhold:
            every = [s.text for s in fitted.sources]
            own = claims.check(
                answer, every, self.rarity, also_read=read, asked=asked, common=self.common_words
            )
            withhold = own.words_lacking >= self.own_words
        if withhold:
            log.info("answer withheld: %.2f of its words are in its sources", found.support)
            if composed.answerable is not None:
                # The cross-encoder found sentences that answer: they are shown, not a refusal.
                note = withheld_note(llm.name, composed=True)
                yield instead(composed, timings, answer, note, support=found.support)
            else:
                yield DoneEvent(
                    NOTHING_RELEVANT,
                    (),
                    timings,
                    refused=True,
                    support=found.support,
                    withheld=answer,
                    note=withheld_note(llm.name),
                )
            return
        unsupported, support = found.unsupported, found.support
        recited_from: tuple[int, ...] = ()
        # The model cites [1] for what it read in another source: cite the one holding it.
        backed = claims.backing_source(
            answer,
            cited,
            found,
            {s.n: s.text for s in fitted.sources},
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
            yield instead(composed, timings, answer, note, unsupported=unsupported, support=support)
            return
        yield DoneEvent(
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
        t0: float,
        retrieval_ms: float,
    ) -> Iterator[AnswerEvent]:
        """The answer from the sources' own sentences: no model, so it is on screen at once."""
        sources = number_sources(self.whole_sentences(hits))
        composed = self._sentences(question, query, sources)
        yield from self._composed_events(composed, sources, notice, t0, retrieval_ms)

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
        composed: Composed,
        sources: Sequence[Source],
        notice: str,
        t0: float,
        retrieval_ms: float,
    ) -> Iterator[AnswerEvent]:
        """The events of a composed answer, or of the refusal that says why there is none."""
        yield SourcesEvent(tuple(sources), notice)
        yield QuotesEvent(composed.quotes)
        if composed.text:
            answer = composed.text
        elif composed.missing:
            answer = documents_do_not_mention(unmentioned.quoted(composed.missing))
        elif composed.answerable is not None:
            answer = DOCUMENTS_DO_NOT_SAY  # passages on the subject, none that answers
        else:
            answer = NOTHING_RELEVANT
        yield TokenEvent(answer)
        total = time.perf_counter() - t0
        timings = Timings(retrieval_ms=retrieval_ms, ttft_s=total, total_s=total)
        yield DoneEvent(
            answer,
            composed.cited,
            timings,
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
            df = self.store.term_frequency(word, min(rows, _DF_CAP))
            idf = math.log((rows + 1) / (df + 0.5)) if rows else 0.0
            if df == 0:
                idf = max(idf, claims.RARE_IDF)  # in no passage at all: rare, however small
            self._idf[word] = idf
        return idf


def asked_words(question: str, history: Sequence[Turn]) -> list[str]:
    """What the user asked: the question, and the one before when it refers back to it (the
    history a question that does not is answered without)."""
    if history and follow_up.refers_back(question):
        return [history[-1].question, question]
    return [question]


def _normalise(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


# The model's refusal, also in the words a small model bends it to after the answer prefix
# ("According to [1], the source does not say." cites nothing) and a larger one words its own
# ("The sources do not provide information on whether …").
_NOT_FOUND = re.compile(
    rf"^(?:according to \d+ )?(?:{re.escape(_normalise(MODEL_NOT_FOUND))}|"
    r"the sources? (?:do|does) not (?:say|provide|mention|contain|state|give))"
)


def question_terms(store: Store, query: str) -> dict[str, tuple[float, int]]:
    """The question's words as the full-text index reads them (stemmed), stop words left out,
    each with its weight, its IDF over the library's passages, and how many passages hold it
    (counted up to a cap)."""
    terms = {t.lower().split("'")[0] for t in fts_terms(query)} - _STOP_WORDS - {""}
    rows = store.count_chunks()
    out = {}
    for term in terms:
        df = store.term_frequency(term, min(rows, _DF_CAP))
        out[term] = (math.log((rows + 1) / (df + 0.5)), df)
    return out


def word_relevance(store: Store, query: str, hits: Sequence[Hit]) -> float:
    """The share of the question's words, each weighted by its rarity in the library (IDF),
    that its best passage holds, as the full-text index reads words (stemmed). A word the
    library lacks weighs most: an off-topic question's rare words are nowhere in it."""
    terms = question_terms(store, query)
    ids = [h.chunk_id for h in hits]
    if not terms or not ids:
        return 0.0
    holders = {t: store.chunks_holding(t, ids) if df else set() for t, (_, df) in terms.items()}
    total = sum(w for w, _ in terms.values())
    best = max(sum(w for t, (w, _) in terms.items() if cid in holders[t]) for cid in ids)
    return best / total if total > 0 else 0.0


def unknown_share(store: Store, query: str) -> float:
    """The share of the question's words, each weighted by its IDF, that are plain words of
    the language no passage of the library holds at all: "guacamole" in a library of virology
    papers. Names, acronyms and codes ("Pfizer", "PPNE", "FY20") are left out of the absent
    ones: a filing spells them its own way, so on-topic questions lack them too."""
    terms = question_terms(store, query)
    total = sum(w for w, _ in terms.values())
    plain = _plain_words(query)
    absent = sum(w for t, (w, df) in terms.items() if df == 0 and t in plain)
    return absent / total if total > 0 else 0.0


def _plain_words(query: str) -> set[str]:
    """The question's words written in lower-case letters only (the first may be capitalised,
    as a sentence starts), lower-cased as question_terms reads them."""
    out = set()
    for i, raw in enumerate(fts_terms(query)):
        if raw.isalpha() and (raw.islower() or (i == 0 and raw[1:].islower())):
            out.add(raw.lower())
    return out
