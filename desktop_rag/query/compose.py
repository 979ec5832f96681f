"""The answer composed from the sources' own sentences: the fact first, in the document's words.

A 270M base model's written answers held the fact in 10% of user-phrased questions while the
first source held it in 77%, and some said the opposite of the page they cited. So with such a
model the answer a user reads is not written: it is the few sentences of the sources that best
answer the question, verbatim, each with its [n], in reading order, joined with a neighbour
where the fact runs on into the next sentence ("… as follows:", "This …"), and short (at most
MAX_SENTENCES sentences and WORD_BUDGET words unless the question asks for steps or a list).

Each sentence of the top sources is scored by meaning (the embedder's cosine to the question),
by the question's words (BM25 over these sentences) and by its source's rank (retrieval put the
fact in the first source far more often than in the others); the weights were chosen on the
tune halves of bench/answer_facts.py's sets and are reported on the other halves.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from desktop_rag.engines.embed import Embedder
from desktop_rag.engines.rerank import SENTENCE_TOKENS, Reranker, sentence_text
from desktop_rag.query.quote import answer_blocks, term_scores
from desktop_rag.types import Quote, Source

# The sources read: retrieval's first few hold the fact nearly always.
TOP_SOURCES = 4
MAX_CANDIDATES = 48
# Weights of meaning, the question's words and the source's rank (1 for the first source,
# falling as 1/rank); each score is in 0..1. The weights, the cue, the budget and the keep
# ratio were chosen on the tune halves of bench/answer_facts.py's manual and covid-qa sets
# (`--replay`, docs/performance.md "Answers true to the page"); a second sentence from the
# first source only, one sentence per source, always the next sentence, or the model picking
# among numbered sentences each did no better there.
VECTOR_WEIGHT = 0.5
TERM_WEIGHT = 0.3
RANK_WEIGHT = 0.2
# A sentence holding what the question asks for (a figure for "how many", a reason for
# "why", a command or a name of code for "how do I" and "which") gains this much.
CUE_WEIGHT = 0.2
# At most this many sentences and about this many words: a fact, not a pasted passage.
MAX_SENTENCES = 3
WORD_BUDGET = 65
WORD_LIMIT = 80
# ... more for a question asking for steps or a list.
LIST_SENTENCES = 5
LIST_WORD_BUDGET = 110
# A further sentence is added only when it scores at least this share of the best one.
KEEP_RATIO = 0.6
# With the cross-encoder (engines/rerank.py): the answer is given only when the best sentence's
# probability of answering (read with its neighbours) reaches ANSWERABLE, else the documents do
# not seem to say; the sentences are chosen by the scores above plus CROSS_WEIGHT × that
# probability. The shipped model chose sentences worse than the scores above on the tune halves
# (bench/answer_facts.py: states the fact 0.44 against 0.59 on the manuals): it decides whether
# to answer, and what to say stays with the scores. Chosen on the tune halves with the
# passages widened to whole sentences and the check of names no passage mentions: the most
# unanswerable questions refused with at most 5% of answerable ones (docs/performance.md,
# "Names the documents never mention").
ANSWERABLE = 0.08
CROSS_WEIGHT = 0.0

# A sentence that announces what follows, or one that continues the one before it.
_ANNOUNCES = re.compile(r"(?::|\bas follows\.?|\bfollowing\.?)\s*$", re.I)
_CONTINUES = re.compile(
    r"^(?:it|its|this|these|that|those|they|their|such|then|otherwise|however|here|"
    r"for example|for instance|e\.g\.|i\.e\.|in this case|in that case|note that|so)\b",
    re.I,
)
# "There are three ways to …: Drag and drop files." starts a list: its next sentences are
# the list, taken in order within the list budget.
_STARTS_LIST = re.compile(
    r"\b(?:two|three|four|five|six|several|these|the following) (?:ways|options|steps|methods|"
    r"things|kinds|cases|commands)\b",
    re.I,
)
_ASKS_LIST = re.compile(
    r"\b(?:steps?|list|which (?:are|options|files|commands)|what are (?:the )?(?:ways|options|"
    r"steps)|how do i (?:set ?up|install|configure))\b",
    re.I,
)


_ASKS_NUMBER = re.compile(
    r"\b(?:how (?:many|much|long|large|big|often|far|old)|what (?:size|percentage|number)|"
    r"maximum|minimum|limit|at most|at least)\b",
    re.I,
)
_ASKS_REASON = re.compile(r"\bwhy\b|\bwhat causes\b|\bhow come\b", re.I)
_ASKS_CODE = re.compile(
    r"\b(?:how (?:do|can|should) (?:i|you|we)|which|what (?:command|option|argument|package|"
    r"file|function|setting|variable)|command|option)\b",
    re.I,
)
_NUMBER = re.compile(r"\d")
_REASON = re.compile(r"\b(?:because|since|due to|so that|therefore|caused by|as a result)\b", re.I)
# A name of code: a command line, an option, a variable, a path or a call.
_CODE = re.compile(
    r"(?:\b[a-z]+[_.][a-z_.]+\b|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|--?[a-z]|\\[a-z]+|"
    r"\w\(|/\w+/|\b\w+=|\bR CMD\b)"
)


def cue(question: str, text: str) -> float:
    """1 when the sentence holds the kind of thing the question asks for, else 0."""
    if _ASKS_NUMBER.search(question):
        return float(bool(_NUMBER.search(text)))
    if _ASKS_REASON.search(question):
        return float(bool(_REASON.search(text)))
    if _ASKS_CODE.search(question):
        return float(bool(_CODE.search(text)))
    return 0.0


@dataclass(frozen=True, slots=True)
class Candidate:
    n: int  # the source's number
    rank: int  # its rank among the sources read (0 for the first)
    index: int  # the sentence's place in its source
    text: str
    block: int = 0  # the block of the source it is in (between headings, breaks and cuts)
    closed: bool = False  # its block ends before its source does (query/quote.py, Block)
    cut: str = ""  # "start" or "end": a sentence cut where its passage starts or ends


@dataclass(frozen=True, slots=True)
class Composed:
    """The answer's text with its [n] marks, the sentences it is made of (as quotes, in the
    answer's order) and the sources it cites; `answerable` the cross-encoder's probability that
    the best sentence answers (None without it). An empty text: no sentence answers, or one
    answers too unsurely a question about names no passage mentions (`missing`)."""

    text: str
    quotes: tuple[Quote, ...]
    cited: tuple[int, ...]
    answerable: float | None = None
    missing: tuple[str, ...] = ()  # the question's names no passage mentions (a refusal's why)
    # Each source's best sentence's probability of answering, (n, p) in the sources' order
    # (with the cross-encoder; empty without it).
    strength: tuple[tuple[int, float], ...] = ()
    # ... and that sentence, (n, sentence), for the sources that have one.
    leads: tuple[tuple[int, str], ...] = ()


def candidates(sources: Sequence[Source], top: int = TOP_SOURCES) -> list[Candidate]:
    out: list[Candidate] = []
    for rank, source in enumerate(sources[:top]):
        index = 0
        blocks = answer_blocks(source.text, source.start == 0, source.whole)
        for block, found in enumerate(blocks):
            cut = dict(found.cut)
            for at, text in enumerate(found.sentences):
                if len(out) >= MAX_CANDIDATES:
                    return out
                # A question (an FAQ's heading) restates what was asked and states nothing.
                if not text.rstrip().endswith("?"):
                    out.append(
                        Candidate(source.n, rank, index, text, block, found.closed, cut.get(at, ""))
                    )
                index += 1
    return out


def score(
    question: str,
    found: Sequence[Candidate],
    embedder: Embedder,
    weights: tuple[float, float, float] = (VECTOR_WEIGHT, TERM_WEIGHT, RANK_WEIGHT),
    cue_weight: float | None = None,
) -> list[float]:
    """Each candidate's score: meaning, the question's words, its source's rank and whether
    it holds what the question asks for."""
    if not found:
        return []
    vector_w, term_w, rank_w = weights
    cue_w = CUE_WEIGHT if cue_weight is None else cue_weight
    terms = term_scores(question, [c.text for c in found])
    q = np.asarray(embedder.embed_query(question), dtype=np.float32).reshape(-1)
    vectors = np.asarray(embedder.embed([c.text for c in found]), dtype=np.float32)
    cosine = vectors @ q
    return [
        vector_w * max(0.0, float(cos))
        + term_w * t
        + rank_w / (1 + c.rank)
        + (cue_w * cue(question, c.text) if cue_w else 0.0)
        for c, cos, t in zip(found, cosine, terms, strict=True)
    ]


def cross_probs(question: str, found: Sequence[Candidate], reranker: Reranker) -> list[float]:
    """Each candidate's probability of answering the question, read with its neighbours."""
    if not found:
        return []
    where = {(c.n, c.index): c for c in found}
    texts = []
    for c in found:
        before = where.get((c.n, c.index - 1))
        after = where.get((c.n, c.index + 1))
        texts.append(
            sentence_text(c.text, before.text if before else "", after.text if after else "")
        )
    return reranker.score(question, texts, SENTENCE_TOKENS)


def words(text: str) -> int:
    return len(text.split())


def choose(
    question: str,
    found: Sequence[Candidate],
    scores: Sequence[float],
    *,
    keep_ratio: float = KEEP_RATIO,
) -> list[Candidate]:
    """The best sentence, its neighbour where the fact runs on, then the next best while
    they score near it, within the sentence and word budgets; in reading order."""
    if not found:
        return []
    listing = bool(_ASKS_LIST.search(question))
    max_sentences = LIST_SENTENCES if listing else MAX_SENTENCES
    budget = LIST_WORD_BUDGET if listing else WORD_BUDGET
    where = {(c.n, c.index): i for i, c in enumerate(found)}
    order = sorted(range(len(found)), key=lambda i: (-scores[i], i))
    best = scores[order[0]]
    chosen: list[int] = []
    unsaid: set[int] = set()  # a list's announcement, when the list cannot be given whole
    used = 0

    def take(i: int, limit: int) -> bool:
        nonlocal used
        if i in chosen or i in unsaid or len(chosen) >= max_sentences:
            return False
        if used + words(found[i].text) > limit:
            return False
        chosen.append(i)
        used += words(found[i].text)
        return True

    for i in order:
        if chosen and scores[i] < keep_ratio * best:
            break
        if not chosen:
            best = scores[i]  # the first sentence said (an unsaid announcement is not)
        c = found[i]
        # The first sentence is taken whatever its length (split_sentences caps it).
        if not take(i, WORD_LIMIT if not chosen else budget):
            continue
        if len(chosen) == 1 and _STARTS_LIST.search(c.text):
            # The list it announces, whole: the rest of its block, in order, instead of the
            # next best sentences. One too long to give whole is not announced ("There are
            # three ways" followed by two).
            rest = _rest_of_block(c, found, where)
            whole = c.closed and sum(words(found[r].text) for r in rest) <= LIST_WHOLE_WORDS
            if rest and whole:
                max_sentences, budget = len(rest) + 1, LIST_WHOLE_WORDS + words(c.text)
                for r in rest:
                    take(r, budget)
                break
            chosen.remove(i)
            used -= words(c.text)
            unsaid.add(i)
            continue
        before = where.get((c.n, c.index - 1))
        after = where.get((c.n, c.index + 1))
        if after is not None and (_ANNOUNCES.search(c.text) or _CONTINUES.match(found[after].text)):
            take(after, WORD_LIMIT)
        if before is not None and _CONTINUES.match(c.text):
            take(before, WORD_LIMIT)
        if len(chosen) >= max_sentences or used >= budget:
            break
    # Reading order: sources in the order of their best sentence, sentences as they stand.
    first_seen: dict[int, int] = {}
    for i in chosen:
        first_seen.setdefault(found[i].n, len(first_seen))
    chosen.sort(key=lambda i: (first_seen[found[i].n], found[i].index))
    return [found[i] for i in chosen]


# The longest announced list given whole (the guide's three ways to add documents).
LIST_WHOLE_WORDS = 150


def _rest_of_block(
    announced: Candidate, found: Sequence[Candidate], where: dict[tuple[int, int], int]
) -> list[int]:
    """The sentences after one, to the end of its block."""
    rest: list[int] = []
    k = announced.index + 1
    while (announced.n, k) in where and found[where[(announced.n, k)]].block == announced.block:
        rest.append(where[(announced.n, k)])
        k += 1
    return rest


def verbatim(sentence: str, text: str) -> str:
    """The sentence as its source writes it, line breaks and all (a quote is the source's own
    words); the sentence itself when it is not found so."""
    pattern = r"\s+".join(re.escape(word) for word in sentence.split())
    found = re.search(pattern, text) if pattern else None
    return found.group(0) if found else sentence


def render(chosen: Sequence[Candidate], sources: Sequence[Source]) -> Composed:
    """The sentences with one [n] after each run of neighbours from the same source."""
    by_n = {s.n: s for s in sources}
    parts: list[str] = []
    quotes: list[Quote] = []
    cited: list[int] = []
    for k, c in enumerate(chosen):
        # A sentence cut where its passage starts or ends is shown as the fragment it is.
        parts.append(f"… {c.text}" if c.cut == "start" else f"{c.text} …" if c.cut else c.text)
        nxt = chosen[k + 1] if k + 1 < len(chosen) else None
        if nxt is None or nxt.n != c.n or nxt.index != c.index + 1:
            parts[-1] = f"{parts[-1]} [{c.n}]"
        source = by_n[c.n]
        quote = verbatim(c.text, source.text)
        quotes.append(Quote(c.n, source.path, source.page, quote, 1.0 - k * 0.01))
        if c.n not in cited:
            cited.append(c.n)
    return Composed(" ".join(parts), tuple(quotes), tuple(cited))


def compose(
    question: str,
    sources: Sequence[Source],
    embedder: Embedder,
    reranker: Reranker | None = None,
    *,
    answerable: float = ANSWERABLE,
    cross_weight: float = CROSS_WEIGHT,
) -> Composed:
    """The answer from the sources' own sentences (empty when they have none, or, with the
    cross-encoder, when none of them answers the question)."""
    found = candidates(sources)
    if not found or not question.strip():
        return Composed("", (), ())
    if reranker is None:
        return render(choose(question, found, score(question, found, embedder)), sources)
    probs = cross_probs(question, found, reranker)
    best = max(probs)
    strength: dict[int, float] = {}
    leads: dict[int, str] = {}
    for c, p in zip(found, probs, strict=True):
        if c.n not in strength or p > strength[c.n]:
            strength[c.n], leads[c.n] = p, c.text
    if best < answerable:
        return Composed(
            "", (), (), best, strength=tuple(strength.items()), leads=tuple(leads.items())
        )
    scores = score(question, found, embedder)
    if cross_weight:
        scores = [s + cross_weight * p for s, p in zip(scores, probs, strict=True)]
    made = render(choose(question, found, scores), sources)
    return Composed(
        made.text,
        made.quotes,
        made.cited,
        best,
        strength=tuple(strength.items()),
        leads=tuple(leads.items()),
    )
