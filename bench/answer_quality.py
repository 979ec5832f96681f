"""Answer quality of the default model over whole libraries, with honest measures.

Libraries (each built once and cached under bench/data/quality/, git-ignored):
- covid-qa: all 98 articles (363 pages).
- financebench: 20 of the 74 filings drawn at random (seed 0), or with --finance-filings all
  every one of them (10,206 pages, in bench/data/quality/finance-all: about 70 minutes of
  indexing on two shared cores). Every one of its questions whose filing is held is asked.
  Or, with --finance-library, a ready library (bench/retrieval.py's: 14 filings of 6
  companies, 981 pages) and the questions on its filings.
Questions: covid-qa, a sample of --covid questions (seed 0) over all articles; financebench,
all questions on the drawn filings. Each set's questions (off-topic ones too) are split in two
halves, fixed by a hash of the question: thresholds are chosen on the "tune" half and every
figure is reported for the "report" half (the tune half's are shown too). Off topic: 30
everyday questions (none of bench/relevance.py's, which tuned the retrieval threshold), asked
alone and as follow-ups of the set's on-topic questions (the
follow-up of question i comes after question i and its answer, as `ask -` would).

Measures, per half:
- citation accuracy: of the answers that cite a source, the share whose cited sources include
  a gold page, as the model cited and as the service cites (`_recited`: the source holding
  the answer's words when the cited ones lack them); and the gold page among the sources at
  all (retrieval);
- correctness: financebench, a number of the answer within 1% of the gold figure (questions
  with a figure); covid-qa, the gold answer contained in the answer, and separately in the top
  quote (the sentence shown before the model writes); token F1 (SQuAD style) for both;
- refusals: on-topic refused (by the cosine gate, the model or the claim check), off-topic
  alone and as follow-ups, and the off-topic answers given with a citation (the target: none);
- answers flagged "check this answer" (a name, term or figure not in the sources cited).

Generate once, score offline: every answer is kept with its hits and sources in
bench/data/quality/answers-SET.json (git-ignored; written after each answer, so a run stopped
early keeps what it has), generated with the cosine gate and the claim check's refusal off
(`--reuse FILE...` takes an earlier run's answer where the prompt is the same); `--rescore FILE...`
scores cached runs (files of one set merged) without the model, in seconds. Three rules are
scored: "before" (the claim check over all of an answer's words, no word gate), "after"
(over the words the question does not give; withheld only from sources weaker than a cosine
WEAK_MATCH; a word gate measured too) and "now" (the service's: the word gate before the
model, and an unbacked answer withheld from near sources too when what it adds is words no
source it read holds, OWN_WORDS); each rule's thresholds are chosen on the tune halves
(on-topic and off-topic: `score`); "*_as_shipped*" apply fixed constants: main's of earlier
rounds, and this tree's (`now_as_shipped`).
An off-topic follow-up that does not refer back has, in today's service, the prompt of the
question asked alone: at temperature 0 its answer is that one's, replayed (`Replay`).

Usage: python bench/answer_quality.py [--sets covid,finance] [--covid 60] [--skip N]
       [--data DIR] [--finance-library DIR | --finance-filings N|all] [--no-off-topic]
       [--tag TAG] [--reuse FILE...] [--gates-only]
       python bench/answer_quality.py --rescore bench/data/quality/answers-covid*.json
       python bench/answer_quality.py --from-run bench/results/answer_quality-covid.json
Prints one JSON document (per set: the library, then the figures of each rule).
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import hashlib
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.perfutil import (
    FILINGS,
    OFF_TOPIC,
    OFF_TOPIC_TUNE,
    contains,
    content,
    covid_questions,
    f1,
    finance_filings,
    finance_questions,
    half,
    number_match,
    question_scale,
)

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / ".." / "shared" / "corpus"
DATA = REPO / "bench" / "data" / "quality"
MAX_REFUSED = 0.05
THRESHOLDS = [round(0.05 * i, 2) for i in range(0, 13)]


def prepared(app: Any, question: str, history: list[Any]) -> tuple[str, list[Any], Any]:
    """What the service builds before the model writes, as it builds it: the retrieval query,
    the hits the gate judges and the fitted prompt."""
    from desktop_rag.query import follow_up

    service = app.answer
    used = history if follow_up.refers_back(question) else []
    query = service.retrieval_query(question, used)
    hits = app.retriever.search(query, service.k)
    if query != question:
        hits = follow_up.matching(hits, question)
    service.llm.load()
    return query, hits, fit(service, question, hits, used)


def fit(service: Any, question: str, hits: list[Any], history: list[Any]) -> Any:
    """The prompt as the service fits it to the model's context."""
    from desktop_rag.query.prompt import build_prompt

    llm = service.llm
    context = llm.context_size
    return build_prompt(
        question,
        hits,
        llm,
        context_size=context,
        answer_tokens=min(service.answer_tokens, context // 4),
        history=history,
        chat=llm.has_chat_template,
    )


def prompt_sha(prompt: Any) -> str:
    text = json.dumps([prompt.text, prompt.messages, list(prompt.stop)], default=str)
    return hashlib.sha1(text.encode()).hexdigest()


def same_prompt(old: dict[str, Any], sha: str, sources: Any) -> bool:
    """Whether a cached answer was written from this prompt (at temperature 0, the model
    writes it again). Rows cached before the prompt's hash was kept are matched by their
    sources, which holds while query/prompt.py is as it was then."""
    if "prompt_sha" in old:
        return bool(old["prompt_sha"] == sha)
    now = [[s.n, Path(s.path).name, s.page, s.text] for s in sources]
    was = [[s["n"], s["path"], s["page"], s["text"]] for s in old["sources"]]
    return bool(was) and now == was


def ask(
    app: Any, question: str, history: list[Any], reuse: dict[Any, Any] | None = None
) -> dict[str, Any]:
    """One question through the service (its gates and the claim check's refusal applied
    afterwards, by `status`), kept whole: the hits the gate judges, the sources the model read
    and the answer, so a cached run can be re-scored. An answer of an earlier run written from
    the same prompt is taken from `reuse` instead of generated again."""
    from desktop_rag.types import DoneEvent, QuotesEvent, SourcesEvent

    service = app.answer
    query, hits, fitted = prepared(app, question, history)
    sha = prompt_sha(fitted.prompt)
    old = (reuse or {}).get((question, json.dumps([[t.question, t.answer] for t in history])))
    if old is None or not same_prompt(old, sha, fitted.sources):
        old = (reuse or {}).get(sha)  # another question's row of the same prompt
    if old is not None and same_prompt(old, sha, fitted.sources):
        fields = ("answer", "cited", "model_refused", "top_quote", "ttft_s", "total_s")
        return {
            **kept(question, history, query, hits, fitted.sources, **{k: old[k] for k in fields}),
            "prompt_sha": sha,
            "reused": True,
        }
    sources: tuple[Any, ...] = ()
    quotes: tuple[Any, ...] = ()
    done = None
    for event in service.ask(question, history):
        if isinstance(event, SourcesEvent):
            sources = event.sources
        elif isinstance(event, QuotesEvent):
            quotes = event.quotes
        elif isinstance(event, DoneEvent):
            done = event
    assert done is not None
    return {
        **kept(
            question,
            history,
            query,
            hits,
            sources,
            answer=done.answer,
            cited=list(done.cited),
            model_refused=done.refused,  # the model said the sources do not say
            top_quote=quotes[0].text if quotes else "",
            ttft_s=round(done.timings.ttft_s, 3),
            total_s=round(done.timings.total_s, 3),
        ),
        "prompt_sha": sha,
    }


def kept(
    question: str,
    history: list[Any],
    query: str,
    hits: Any,
    sources: Any,
    **answered: Any,
) -> dict[str, Any]:
    """One asked question as a cached run keeps it: what was asked, the hits the gate judges,
    the sources the model read, then what it answered."""
    return {
        "question": question,
        "history": [[t.question, t.answer] for t in history],
        "query": query,
        "hits": [
            {"chunk_id": h.chunk_id, "similarity": round(h.similarity, 4), "text": h.text}
            for h in hits
        ],
        "sources": [
            {"n": s.n, "path": Path(s.path).name, "page": s.page, "text": s.text} for s in sources
        ],
        **answered,
    }


class Replay:
    """The model, with each prompt's output kept: at temperature 0 a prompt the service builds
    again (an off-topic follow-up, which does not refer back, is answered as if asked first)
    gives the same answer, so it is replayed instead of generated again."""

    def __init__(self, llm: Any) -> None:
        self.llm = llm
        self.kept: dict[tuple[Any, ...], tuple[list[str], Any]] = {}
        self.replayed = False
        self._last: Any = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.llm, name)

    @property
    def last_generation(self) -> Any:
        return self._last if self._last is not None else self.llm.last_generation

    def stream(self, prompt: Any, max_tokens: int, cancel: Any = None) -> Any:
        key = (prompt.text, prompt.messages, prompt.stop, max_tokens)
        if key in self.kept:
            pieces, self._last = self.kept[key]
            self.replayed = True
            yield from pieces
            return
        self._last = None
        pieces = []
        inner = self.llm.stream(prompt, max_tokens, cancel)
        try:
            for piece in inner:
                pieces.append(piece)
                yield piece
        finally:
            inner.close()
            self.kept[key] = (pieces, self.llm.last_generation)


def generate(
    name: str,
    app: Any,
    questions: list[dict[str, Any]],
    off_topic: list[str],
    save: Any,
    reuse: dict[Any, Any] | None = None,
    keep_gate: bool = False,
    off_topic_first: bool = False,
    with_extra: bool = True,
) -> dict[str, Any]:
    """Every answer of the set, generated once (or taken from `reuse`, written from the same
    prompt); `save(run)` after each, so a run stopped early keeps what it has."""
    from desktop_rag.types import Turn

    # Every gate and the claim check's refusal are applied afterwards (`status`), so each is
    # scored offline: the cosine gate too, off here, so that a question below it reaches the
    # model and what a gate of another kind would let through is known.
    # With keep_gate the model's time is saved on questions below the gate, and no rule may
    # let one by.
    app.answer.refuse_below = 0.0
    app.answer.unknown_gate = OFF  # the word gate too: scored in `status`
    if not keep_gate:
        app.answer.threshold = -1.0
    app.answer.warm_up()
    replay = Replay(app.answer.llm)
    app.answer.use_llm(replay)
    run: dict[str, Any] = {
        "set": name,
        "chunks": app.store.count_chunks(),
        "documents": len(app.store.documents()),
        "pages": app.store.stats()["pages"],
        "gate_off": not keep_gate,
        "on_topic": [],
        "off_topic": [],
        "off_topic_follow_ups": [],
    }
    on, alone, follow = run["on_topic"], run["off_topic"], run["off_topic_follow_ups"]

    def asked(question: str, history: list[Any]) -> dict[str, Any]:
        replay.replayed = False
        row = ask(app, question, history, reuse)
        row["replayed"] = replay.replayed
        row["half"] = half(question)
        return row

    def on_topic(i: int) -> None:
        q = questions[i]
        row = asked(q["question"], [])
        row.update({k: v for k, v in q.items() if k != "question"})
        on.append(row)
        save(run)
        print(f"{name} {i + 1}/{len(questions)} {row['answer'][:90]!r}", file=sys.stderr)

    def off(q: str, after: dict[str, Any]) -> None:
        if q not in asked_alone:
            ask_alone(q)
        row = asked(q, [Turn(after["question"], after["answer"])])
        row["after"] = after["question"]
        follow.append(row)
        save(run)
        print(f"{name} follow-up {q!r}: {row['answer'][:80]!r}", file=sys.stderr)

    asked_alone: set[str] = set()

    def ask_alone(q: str) -> None:
        asked_alone.add(q)
        alone.append(asked(q, []))
        save(run)
        print(f"{name} off {q!r}: {alone[-1]['answer'][:80]!r}", file=sys.stderr)

    # Interleaved, so a run stopped early has as many of each kind: on-topic question i, the
    # off-topic question i alone, then as a follow-up of question i. With off_topic_first,
    # every off-topic question is asked alone first (a follow-up that does not refer back has
    # the same prompt: replayed).
    extra = [q for q in OFF_TOPIC_TUNE if off_topic and with_extra]
    if off_topic_first:
        for q in [*off_topic, *extra]:
            ask_alone(q)
    for i in range(len(questions)):
        on_topic(i)
        if i < len(off_topic):
            off(off_topic[i], on[-1])
    # The tune half's extra off-topic questions, as follow-ups of the on-topic ones in turn.
    for j, q in enumerate(extra):
        if on:
            off(q, on[j % len(on)])
    return run


def from_run(app: Any, old: dict[str, Any], questions: list[dict[str, Any]]) -> dict[str, Any]:
    """A cached run made from the answers of an earlier run of this benchmark (the same model,
    retrieval and prompt: its answers are what the model writes again at temperature 0), with
    the hits and sources found again (retrieval and prompt fitting need no generation). Its
    follow-ups, asked with the previous turn in their prompt as the service did then, are kept
    for the rule before; under today's service an off-topic follow-up that does not refer back
    has the prompt of the question asked alone, so its answer is that one's (replayed)."""
    from desktop_rag.query import follow_up, gate
    from desktop_rag.types import Turn

    service = app.answer
    llm = service.llm
    llm.load()
    golds = {q["question"]: q for q in questions}

    def rebuilt(row: dict[str, Any], history: list[Any]) -> dict[str, Any]:
        question = row["question"]
        query = follow_up.retrieval_query(question, history)
        hits = app.retriever.search(query, service.k)
        if query != question:
            hits = follow_up.matching(hits, question)
        fitted = fit(service, question, hits, history)
        gated = not hits or not gate.similar(max(h.similarity for h in hits))
        return kept(
            question,
            history,
            query,
            hits,
            [] if gated else fitted.sources,
            answer=row["answer"],
            cited=row["cited"],
            model_refused=row["refused"],
            top_quote=row["top_quote"],
            ttft_s=row["ttft_s"],
            total_s=row["total_s"],
            half=half(question),
            replayed=False,
        )

    on = []
    for row in old["on_topic"]:
        new = rebuilt(row, [])
        new.update({k: v for k, v in golds[row["question"]].items() if k != "question"})
        on.append(new)
    alone = [rebuilt(row, []) for row in old["off_topic"]]
    before, after = [], []
    by_question = {r["question"]: r for r in old["on_topic"]}
    for row, same in zip(old["off_topic_follow_ups"], alone, strict=True):
        first = by_question[row["after"]]
        history = [] if first["refused"] else [Turn(first["question"], first["answer"])]
        past = rebuilt(row, history)
        past["after"] = row["after"]
        before.append(past)
        assert not follow_up.refers_back(row["question"]), row["question"]
        now = {**same, "history": [[first["question"], first["answer"]]], "replayed": True}
        now["after"] = row["after"]
        after.append(now)
    return {
        "set": "covid",
        "chunks": app.store.count_chunks(),
        "documents": len(app.store.documents()),
        "pages": app.store.stats()["pages"],
        "on_topic": on,
        "off_topic": alone,
        "off_topic_follow_ups": after,
        "off_topic_follow_ups_before": before,
    }


def merged(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Cached runs of one set as one (their questions told apart by nothing else)."""
    out = dict(runs[0])
    for key in ("on_topic", "off_topic", "off_topic_follow_ups", "off_topic_follow_ups_before"):
        rows = [r for run in runs for r in run.get(key, [])]
        if rows or key in out:
            out[key] = rows
    return out


RULES = ("before", "after", "now")
WORD_SHARES = [round(0.05 * i, 2) for i in range(0, 13)]
# The claim check withholds an answer only when its sources are this far from the question
# (best cosine below it); 1.0: always.
WEAK_MATCHES = [round(0.25 + 0.05 * i, 2) for i in range(0, 8)] + [1.0]
# Rule "now" (this round's candidates): sources near by cosine still count as weak when this
# share of the question's weight is on words no passage of the library holds; and a question
# below the cosine gate still reaches the model when its best passage holds this share of
# the question's weight (`word_share`). OFF: never.
OFF = 1.01
UNKNOWN_SHARES = [0.2, 0.3, 0.4, 0.5, 0.6, OFF]
RESCUES = [0.5, 0.6, 0.7, 0.8, 0.9, OFF]
# Rule "now": a question with this share of its weight on plain words no passage of the
# library holds is refused before the model, whatever its cosine (query/answer.py).
UNKNOWN_GATES = [0.5, 0.6, 0.7, 0.8, 0.9, OFF]
# Rule "now": an unbacked answer from near sources is withheld too when this share of what it
# adds is words no source it read holds (the rest being figures, or words a source holds).
OWN_WORDS = [0.5, 0.6, 0.7, 0.8, 0.9, 1.0, OFF]


def features(row: dict[str, Any], service: Any) -> dict[str, Any]:
    """What every rule decides on, computed once per answer: the best cosine similarity, the
    share of the question's rarer words its best passage holds (the word gate's measure), the
    share on words the library lacks, and the claim check's support under each rule (before:
    over all the answer's words; after: over the words the question does not give)."""
    from desktop_rag.query import answer as answer_mod
    from desktop_rag.query import claims, follow_up, gate
    from desktop_rag.types import Hit, Turn

    hits = [
        Hit(h["chunk_id"], "", "", 0, 0, 0, h["text"], 0.0, h["similarity"]) for h in row["hits"]
    ]
    history = [Turn(q, a) for q, a in row["history"]]
    feat: dict[str, Any] = {
        "similarity": max((h.similarity for h in hits), default=0.0),
        "word_share": round(gate.word_relevance(service.store, row["question"], hits), 4),
        "unknown_share": round(gate.unknown_share(service.store, row["question"]), 4),
        # the service's word gate applies only in a library this large (query/gate.py)
        "gate_passages": service.store.count_chunks() >= gate.UNKNOWN_GATE_PASSAGES,
        "model_refused": row["model_refused"],
        "empty": not content(row["answer"]),
        # Asked with the cosine gate on and below it: no answer to score if a rule lets it by.
        "not_asked": not row["sources"],
    }
    if feat["model_refused"] or feat["empty"]:
        return feat
    cited = set(row["cited"])
    texts = [s["text"] for s in row["sources"] if s["n"] in cited] or [
        s["text"] for s in row["sources"]
    ]
    before_read = [row["question"]] + [p for t in history for p in (t.question, t.answer)]
    old = claims.check(row["answer"], texts, service.rarity, also_read=before_read)
    # after: a question that does not refer back is answered without the conversation
    now = history if follow_up.refers_back(row["question"]) else []
    read = [row["question"]] + [p for t in now for p in (t.question, t.answer)]
    asked = answer_mod.asked_words(row["question"], now)
    new = claims.check(
        row["answer"],
        texts,
        service.rarity,
        also_read=read,
        asked=asked,
    )
    # Over every source the model read: an on-topic answer often cites [1] for what it took
    # from [2]; an answer of the model's own has words none of them holds.
    read_all = claims.check(
        row["answer"],
        [s["text"] for s in row["sources"]],
        service.rarity,
        also_read=read,
        asked=asked,
    )
    # What the service cites: the source backing the answer when the cited ones do not
    # (query/claims.py backing_source), with what the answer then lacks.
    backed = claims.backing_source(
        row["answer"],
        row["cited"],
        new,
        {s["n"]: s["text"] for s in row["sources"]},
        service.rarity,
        also_read=read,
        asked=asked,
    )
    feat.update(
        recited_to=backed[0] if backed else None,
        unsupported_recited=list(backed[1].unsupported) if backed else list(new.unsupported),
        support_before=round(old.support, 4),
        support_after=round(new.support, 4),
        unsupported=list(new.unsupported),
        adds_nothing=new.adds_nothing,
        words_lacking=round(new.words_lacking, 4),
        own_words=round(read_all.words_lacking, 4),
    )
    return feat


@dataclass(frozen=True)
class Thresholds:
    words: float = 0.0  # the word gate (after): below this word share, refused before the model
    claims: float = 0.0  # the claim check's REFUSE_BELOW
    weak: float = 1.0  # WEAK_MATCH: from sources this near by cosine, flagged, never withheld
    unknown: float = OFF  # now: ... unless this share of the question is on unknown words
    rescue: float = OFF  # now: below the cosine gate, let through from this word share
    unknown_gate: float = OFF  # now: refused before the model from this share on unknown words
    # now: from near sources too, an unbacked answer is withheld when at least this share of
    # what it adds is words (not figures) that no source it read holds
    own_words: float = OFF


def status(feat: dict[str, Any], rule: str, th: Thresholds) -> str:
    """What the service does with the answer: "gate" (retrieval found nothing relevant),
    "model" (the model said the sources do not say), "claims" (withheld: its words are not
    from its sources) or "answered". Rule "now" is the service's: its gate (query/gate.py)
    and its verdict (query/verdict.py), at the thresholds `th`."""
    from desktop_rag.query import gate, verdict

    below = not gate.similar(feat["similarity"])
    if below and rule == "now" and feat["word_share"] >= th.rescue:
        if feat["not_asked"]:
            raise ValueError("a rescue of a question the run did not ask: generate again")
        below = False
    if below or (rule != "before" and feat["word_share"] < th.words):
        return "gate"
    if (
        rule == "now"
        and feat["gate_passages"]
        and gate.off_subject(feat["unknown_share"], th.unknown_gate)
    ):
        return "gate"  # most of the question is in words no passage holds
    if feat["model_refused"]:
        return "model"
    if feat["empty"]:
        return "answered"
    support = feat["support_before" if rule == "before" else "support_after"]
    if rule == "now":
        # it only repeats its question (query/claims.py), or its words are mostly not cited
        refused = bool(th.claims > 0 and feat.get("adds_nothing")) or support < th.claims
        # a candidate of the grid: sources of a question this much on unknown words are weak
        best = feat["similarity"] if feat["unknown_share"] < th.unknown else -math.inf
        own = feat.get("own_words", 0.0)
        kept = not verdict.withheld(
            refused, best, lambda: own, weak_match=th.weak, own_limit=th.own_words
        )
        return "answered" if kept else "claims"
    near = feat["similarity"] >= th.weak and feat["unknown_share"] < th.unknown
    if rule != "before" and near:
        return "answered"  # sources this near the question: flagged, never withheld
    return "claims" if support < th.claims else "answered"


def shipped() -> Thresholds:
    """The service's own constants, as rule "now" reads them."""
    from desktop_rag.query import claims
    from desktop_rag.query.gate import UNKNOWN_GATE

    return Thresholds(
        claims=claims.REFUSE_BELOW,
        weak=claims.WEAK_MATCH,
        unknown_gate=UNKNOWN_GATE,
        own_words=claims.OWN_WORDS,
    )


def grid(rule: str, asked_all: bool) -> list[Thresholds]:
    if rule == "before":
        return [Thresholds(claims=t) for t in THRESHOLDS]
    if rule == "after":
        return [
            Thresholds(words=w, claims=t, weak=m)
            for w in WORD_SHARES
            for t in THRESHOLDS
            for m in WEAK_MATCHES
        ]
    return [
        Thresholds(claims=t, weak=m, unknown=u, rescue=r, unknown_gate=g, own_words=x)
        for t in THRESHOLDS
        for m in WEAK_MATCHES
        for u in UNKNOWN_SHARES
        for r in (RESCUES if asked_all else [OFF])
        for g in UNKNOWN_GATES
        for x in OWN_WORDS
    ]


def leniency(th: Thresholds) -> tuple[float, ...]:
    """Ties broken towards the rule that refuses least, each new gate off where it can be."""
    return (
        th.words + th.claims + th.weak,
        -th.unknown,
        -th.unknown_gate,
        -th.own_words,
        -th.rescue,
    )


def score(name: str, run: dict[str, Any], service: Any, rule: str) -> dict[str, Any]:
    """The set's figures under a rule, its thresholds chosen on the tune halves: those that
    let the fewest off-topic questions of the tune half (alone and as follow-ups, the extra
    tune-only ones too) through with a citation while refusing at most 5% more of the tune
    half's on-topic questions than the cosine gate and the model do; fewer on-topic
    refusals, then the most lenient thresholds (`leniency`), break ties."""
    on = run["on_topic"]
    alone, follow = run["off_topic"], follow_ups(run, rule)
    for row in on + alone + follow:
        if "features" not in row:
            row["features"] = features(row, service)
    for row in on:
        gold_pages = {tuple(p) for p in row["gold_pages"]}
        row["source_pages"] = [(s["path"], s["page"]) for s in row["sources"]]
        row["cited_pages"] = [
            (s["path"], s["page"]) for s in row["sources"] if s["n"] in row["cited"]
        ]
        row["gold_retrieved"] = any(p in gold_pages for p in row["source_pages"])
        row["gold_cited"] = any(p in gold_pages for p in row["cited_pages"])
        to = row["features"].get("recited_to")
        recited = [(s["path"], s["page"]) for s in row["sources"] if s["n"] == to]
        row["gold_cited_recited"] = any(p in gold_pages for p in recited or row["cited_pages"])
        said = content(row["answer"])
        row["f1"] = round(max(f1(said, g) for g in row["golds"]), 4)
        if name == "finance":
            row["has_figure"] = bool(row["figures"])
            scale = question_scale(row["question"])
            row["correct"] = any(number_match(said, tuple(g), scale) for g in row["figures"])
        else:
            row["contained"] = any(contains(said, g) for g in row["golds"])
            row["in_top_quote"] = any(contains(row["top_quote"], g) for g in row["golds"])
    chosen, base = choose([run], rule)
    return {
        "rule": rule,
        "thresholds_chosen_on_tune_half": dataclasses.asdict(chosen),
        "on_topic_refused_by_gate_and_model_on_tune_half": base[0],
        **summarise(name, run, rule, chosen),
    }


def choose(runs: list[dict[str, Any]], rule: str) -> tuple[Thresholds, list[float]]:
    """The thresholds that let the fewest off-topic questions of the runs' tune halves through
    with a citation (summed over the runs) while refusing, in each run, at most MAX_REFUSED
    more of its tune half's on-topic questions than the cosine gate and the model do; and
    those refusals of the gate and the model, per run. Features must be computed."""
    tune_on = [[r["features"] for r in run["on_topic"] if r["half"] == "tune"] for run in runs]
    tune_off = [
        r["features"]
        for run in runs
        for r in run["off_topic"] + follow_ups(run, rule)
        if r["half"] == "tune" and r["cited"]
    ]

    def passing(th: Thresholds) -> int:
        return sum(status(f, rule, th) == "answered" for f in tune_off)

    def refused(th: Thresholds) -> list[float]:
        return [_share(on, lambda f: status(f, rule, th) != "answered") for on in tune_on]

    asked_all = not any(
        r["features"]["not_asked"]
        for run in runs
        for r in run["on_topic"] + run["off_topic"] + follow_ups(run, rule)
    )
    # The cosine gate is retrieval's (bench/relevance.py chose it): what it and the model
    # refuse is counted in the figures, and the rules tuned here may add at most MAX_REFUSED.
    base = refused(Thresholds())
    within = [
        g
        for g in grid(rule, asked_all)
        if all(r - b <= MAX_REFUSED + 1e-9 for r, b in zip(refused(g), base, strict=True))
    ]
    chosen = min(within, key=lambda g: (passing(g), sum(refused(g)), leniency(g)))
    return chosen, base


def follow_ups(run: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    """The follow-ups as the rule's service asked them (before: with the previous turn in the
    prompt, when the run has them)."""
    if rule == "before" and "off_topic_follow_ups_before" in run:
        return list(run["off_topic_follow_ups_before"])
    return list(run["off_topic_follow_ups"])


def summarise(name: str, run: dict[str, Any], rule: str, th: Thresholds) -> dict[str, Any]:
    """Every figure at these thresholds, per half (off-topic questions too: half of them
    chose the thresholds; "all" is the 30 of OFF_TOPIC, "tune_extra" the tune half's extra)."""
    on = run["on_topic"]
    alone, follow = run["off_topic"], follow_ups(run, rule)
    for row in on + alone + follow:
        row["status"] = status(row["features"], rule, th)
        row["unsupported"] = row["features"].get("unsupported", [])
        row["unsupported_recited"] = row["features"].get("unsupported_recited", [])
        row["recited"] = row["features"].get("recited_to") is not None
    out: dict[str, Any] = {"questions": len(on)}
    for part in ("report", "tune"):
        out[part] = _figures(name, [r for r in on if r["half"] == part])
    answered = lambda r: r["status"] == "answered"  # noqa: E731
    extra = set(OFF_TOPIC_TUNE)
    if alone or follow:
        off: dict[str, Any] = {}
        parts: list[tuple[str, Any]] = [
            ("all", lambda r: r["question"] not in extra),
            ("report", lambda r: r["half"] == "report"),
            ("tune", lambda r: r["half"] == "tune" and r["question"] not in extra),
            ("tune_extra", lambda r: r["question"] in extra),
        ]
        for part, pick in parts:
            a = [r for r in alone if pick(r)]
            f = [r for r in follow if pick(r)]
            off[part] = {
                "questions": len(a),
                "alone_refused_by": dict(collections.Counter(r["status"] for r in a)),
                "alone_citing_a_source": sum(bool(r["cited"]) and answered(r) for r in a),
                "follow_ups": len(f),
                "follow_ups_refused_by": dict(collections.Counter(r["status"] for r in f)),
                "follow_ups_citing_a_source": sum(bool(r["cited"]) and answered(r) for r in f),
            }
        off["citing"] = [r["question"] for r in alone if r["cited"] and answered(r)]
        off["follow_ups_citing"] = [r["question"] for r in follow if r["cited"] and answered(r)]
        off["follow_ups_replayed"] = sum(bool(r.get("replayed")) for r in follow)
        out["off_topic"] = off
    return out


def _figures(name: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    answered = [r for r in rows if r["status"] == "answered"]
    citing = [r for r in answered if r["cited"]]
    out: dict[str, Any] = {
        "questions": len(rows),
        "on_topic_refused": _share(rows, lambda r: r["status"] != "answered"),
        "on_topic_refused_by": dict(collections.Counter(r["status"] for r in rows)),
        "citation_accuracy": _share(citing, lambda r: r["gold_cited"]),
        "answers_citing": len(citing),
        # As the service cites since answers are cited to the source holding their words:
        "citation_accuracy_recited": _share(citing, lambda r: r["gold_cited_recited"]),
        "answers_recited": sum(r["recited"] for r in citing),
        "gold_page_among_sources": _share(
            rows, lambda r: r["gold_retrieved"] and r["status"] != "gate"
        ),
        "flagged_check_this_answer": _share(answered, lambda r: bool(r["unsupported"])),
        "flagged_after_reciting": _share(answered, lambda r: bool(r["unsupported_recited"])),
        # A refused answer scores 0: the measure is of what the user is given.
        "token_f1": _mean([r["f1"] if r in answered else 0.0 for r in rows]),
        "median_ttft_s": _median([r["ttft_s"] for r in rows]),
        "median_total_s": _median([r["total_s"] for r in rows]),
    }
    if name == "finance":
        numeric = [r for r in rows if r["has_figure"]]
        out["questions_with_a_figure"] = len(numeric)
        out["figure_within_1pct"] = _share(numeric, lambda r: r["correct"] and r in answered)
    else:
        out["gold_in_answer"] = _share(rows, lambda r: r["contained"] and r in answered)
        out["gold_in_top_quote"] = _share(rows, lambda r: r["in_top_quote"])
    return out


def _share(rows: list[dict[str, Any]], test: Any) -> float:
    return round(sum(bool(test(r)) for r in rows) / len(rows), 4) if rows else 0.0


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if ordered else 0.0


def gates(app: Any, questions: list[dict[str, Any]], off_topic: list[str]) -> dict[str, Any]:
    """What the service refuses before the model (the cosine gate, the word gate), for every
    on-topic and off-topic question, per half: retrieval only, so every question of a large
    set is counted, not only those a run had time to answer."""
    from desktop_rag.query import gate

    service = app.answer
    large = app.store.count_chunks() >= service.unknown_gate_passages
    out: dict[str, Any] = {"chunks": app.store.count_chunks()}
    asked = [("on_topic", q["question"]) for q in questions] + [("off_topic", q) for q in off_topic]
    rows = []
    for kind, question in asked:
        hits = app.retriever.search(question, service.k)
        similarity = max((h.similarity for h in hits), default=0.0)
        unknown = gate.unknown_share(app.store, question)
        by = (
            "cosine"
            if not gate.similar(similarity, service.threshold)
            else "words"
            if large and gate.off_subject(unknown, service.unknown_gate)
            else ""
        )
        rows.append(
            {
                "kind": kind,
                "half": half(question),
                "question": question,
                "similarity": round(similarity, 4),
                "unknown_share": round(unknown, 4),
                "refused_by": by,
            }
        )
    for kind in ("on_topic", "off_topic"):
        for part in ("report", "tune"):
            picked = [r for r in rows if r["kind"] == kind and r["half"] == part]
            out[f"{kind}_{part}"] = {
                "questions": len(picked),
                "refused_by_cosine_gate": sum(r["refused_by"] == "cosine" for r in picked),
                "refused_by_word_gate": sum(r["refused_by"] == "words" for r in picked),
                "max_unknown_share_let_by": max(
                    (r["unknown_share"] for r in picked if not r["refused_by"]), default=0.0
                ),
            }
    out["word_gate_refused"] = [r["question"] for r in rows if r["refused_by"] == "words"]
    out["rows"] = rows
    return out


def open_library(name: str, paths: list[Path] | None, data: Path) -> Any:
    """The cached library (indexed first when paths are given: unchanged files cost nothing)."""
    from desktop_rag.app import build_app
    from desktop_rag.config import Settings

    app = build_app(Settings(data_dir=str(data)))
    if paths is not None:
        t0 = time.perf_counter()
        report = app.ingest.index([str(p) for p in paths])
        print(
            f"{name}: {report.indexed} indexed, {report.unchanged} unchanged, "
            f"{app.store.count_chunks()} chunks, {time.perf_counter() - t0:.0f} s",
            file=sys.stderr,
        )
    return app


def library_questions(app: Any, corpus: Path) -> list[dict[str, Any]]:
    """financebench's questions on the filings a ready library holds (bench/retrieval.py's)."""
    held = {Path(d.path).stem for d in app.store.documents()}
    return [q for q in finance_questions(corpus, held)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", default=str(CORPUS))
    parser.add_argument("--sets", default="covid,finance")
    parser.add_argument("--covid", type=int, default=60, help="covid-qa questions sampled")
    parser.add_argument("--data", default=str(DATA), help="the cached libraries")
    parser.add_argument(
        "--finance-library",
        help="a ready financebench library (a data folder): its filings' questions, no indexing",
    )
    parser.add_argument(
        "--finance-filings",
        default=str(FILINGS),
        help="how many filings to draw (seed 0), or 'all': all of them, in bench/data/quality/"
        "finance-all",
    )
    parser.add_argument(
        "--from-run",
        metavar="FILE",
        help="a covid run from an earlier run's printed JSON (its answers; sources found again)",
    )
    parser.add_argument(
        "--skip", type=int, default=0, help="leave out the first N sampled covid-qa questions"
    )
    parser.add_argument(
        "--no-off-topic", action="store_true", help="on-topic questions only (saves the model)"
    )
    parser.add_argument(
        "--reuse",
        nargs="+",
        metavar="FILE",
        default=[],
        help="cached runs whose answers are taken where the prompt is the same (no generation)",
    )
    parser.add_argument(
        "--keep-gate",
        action="store_true",
        help="keep the cosine gate while generating (faster; no rule may then let a question by)",
    )
    parser.add_argument(
        "--off-topic-first",
        action="store_true",
        help="ask every off-topic question alone before the on-topic ones",
    )
    parser.add_argument(
        "--no-extra-off-topic",
        action="store_true",
        help="leave out the tune half's extra off-topic questions (OFF_TOPIC_TUNE)",
    )
    parser.add_argument("--tag", default="", help="kept in bench/data/quality/answers-SET-TAG.json")
    parser.add_argument("--build-only", action="store_true", help="build the libraries, stop")
    parser.add_argument(
        "--gates-only",
        action="store_true",
        help="retrieval only, every question: what the service's gates refuse before the model",
    )
    parser.add_argument(
        "--rescore",
        nargs="+",
        metavar="FILE",
        help="score cached runs (bench/data/quality/answers-SET.json) again, without the model",
    )
    args = parser.parse_args()
    corpus = Path(args.corpus)
    data = Path(args.data)
    out: dict[str, Any] = {"load_average_at_start": list(os.getloadavg())}
    runs: list[tuple[dict[str, Any], Any]] = []
    if args.from_run:
        app = open_library("covid", None, data / "covid")
        old = json.loads(Path(args.from_run).read_text())["covid"]
        run = from_run(app, old, covid_questions(corpus, len(old["on_topic"])))
        run["library"] = str((data / "covid").resolve())
        cache = data / "answers-covid-from-run.json"
        cache.write_text(json.dumps(run, indent=1))
        print(f"covid: answers kept in {cache}", file=sys.stderr)
        runs.append((run, app))
    elif args.rescore:
        cached = [json.loads(Path(file).read_text()) for file in args.rescore]
        for name in dict.fromkeys(r["set"] for r in cached):
            run = merged([r for r in cached if r["set"] == name])
            app = open_library(name, None, Path(run["library"]))
            runs.append((run, app))
    else:
        for name in [s for s in args.sets.split(",") if s]:
            if name == "covid":
                folder = data / name
                # A library already built is opened as it is: indexing runs at a low priority,
                # which the process would keep for the model's answers.
                paths: list[Path] | None = (
                    None if folder.exists() else sorted((corpus / "covid-qa" / "pdf").glob("*.pdf"))
                )
                app = open_library(name, paths, folder)
                questions = covid_questions(corpus, args.covid)[args.skip :]
            elif args.finance_library:
                folder = Path(args.finance_library)
                app = open_library(name, None, folder)
                questions = library_questions(app, corpus)
            else:
                every = args.finance_filings == "all"
                count = None if every else int(args.finance_filings)
                # A new name for the whole set: the 20-filing library keeps its own cache.
                folder = data / ("finance-all" if every else name)
                filings = finance_filings(corpus, count)
                app = open_library(name, filings, folder)
                questions = finance_questions(corpus, {p.stem for p in filings})
            if args.build_only:
                continue
            if args.gates_only:
                out[name] = gates(app, questions, [*OFF_TOPIC, *OFF_TOPIC_TUNE])
                continue
            t0 = time.perf_counter()
            tag = f"-from{args.skip}" if args.skip else ""
            tag += f"-{args.tag}" if args.tag else ""
            cache = data / f"answers-{name}{tag}.json"
            cache.parent.mkdir(parents=True, exist_ok=True)
            load_at_start = list(os.getloadavg())

            def save(
                run: dict[str, Any],
                cache: Path = cache,
                folder: Path = folder,
                t0: float = t0,
                load_at_start: list[float] = load_at_start,
            ) -> None:
                run.update(
                    library=str(folder.resolve()),
                    generate_seconds=round(time.perf_counter() - t0),
                    load_average_at_start=load_at_start,
                    load_average_now=list(os.getloadavg()),
                )
                tmp = cache.with_suffix(".tmp")
                tmp.write_text(json.dumps(run, indent=1))
                os.replace(tmp, cache)

            off = [] if args.no_off_topic else OFF_TOPIC
            rows = [
                r
                for file in args.reuse
                for cached_run in [json.loads(Path(file).read_text())]
                if cached_run["set"] == name
                for key in ("on_topic", "off_topic", "off_topic_follow_ups")
                for r in cached_run.get(key, [])
            ]
            # By question and history, and by the prompt's hash (a follow-up that does not
            # refer back has the prompt of the question asked alone).
            reuse: dict[Any, Any] = {(r["question"], json.dumps(r["history"])): r for r in rows}
            reuse.update({r["prompt_sha"]: r for r in rows if "prompt_sha" in r})
            run = generate(
                name,
                app,
                questions,
                off,
                save,
                reuse,
                args.keep_gate,
                args.off_topic_first,
                not args.no_extra_off_topic,
            )
            print(f"{name}: answers kept in {cache}", file=sys.stderr)
            runs.append((run, app))
    for run, app in runs:
        name = run["set"]
        out[name] = {
            "library": {k: run[k] for k in ("chunks", "documents", "pages") if k in run},
            **{rule: score(name, run, app.answer, rule) for rule in RULES},
            # main as it was: its constant REFUSE_BELOW = 0.25, no word gate
            "before_as_shipped": summarise(name, run, "before", Thresholds(claims=0.25)),
            # main before this round's change: REFUSE_BELOW 0.05 below WEAK_MATCH 0.4
            "after_0.05_as_shipped_before": summarise(
                name, run, "after", Thresholds(claims=0.05, weak=0.4)
            ),
            # main before the word gate: REFUSE_BELOW 0.5 below WEAK_MATCH 0.4
            "now_0.5_as_shipped_before": summarise(
                name, run, "now", Thresholds(claims=0.5, weak=0.4)
            ),
            # main before an unbacked answer's own words withheld it from near sources too
            "now_0.55_as_shipped_before": summarise(
                name, run, "now", dataclasses.replace(shipped(), own_words=OFF)
            ),
            # this tree's constants (query/claims.py), whatever this run's halves would choose
            "now_as_shipped": summarise(name, run, "now", shipped()),
        }
    if len(runs) > 1:
        # One set of constants ships for every library: chosen on all the sets' tune halves.
        chosen, _ = choose([run for run, _ in runs], "now")
        out["pooled"] = {
            "thresholds_chosen_on_every_tune_half": dataclasses.asdict(chosen),
            **{run["set"]: summarise(run["set"], run, "now", chosen) for run, _ in runs},
        }
    out["load_average_at_end"] = list(os.getloadavg())
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
