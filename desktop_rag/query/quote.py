"""Quote first: the sentences of the sources that best answer the question, word for word.

A 270M model's paraphrase may be wrong; the page's own words are what a reader can trust at a
glance. Each sentence of the top sources is scored by the embedder (cosine to the question) and
by a BM25 term match against the question's content words; the best one or two are shown with
their [n] and page before the model has written anything.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from desktop_rag.engines.embed import Embedder
from desktop_rag.types import Quote, Source

if TYPE_CHECKING:
    from numpy.typing import NDArray

# Only the best-ranked sources are read: the answer is nearly always in them. Their sentences
# are ranked by the question's words first, which costs nothing, and only the best PRESELECT
# are embedded: embedding every sentence of three sources took 0.5 s on two busy cores.
TOP_SOURCES = 3
MAX_SENTENCES = 36
PRESELECT = 8
# Retrieval re-ranks its first sources by their best sentence (query/retrieve.py): the
# sentences of five sources sharing most of the question's words are embedded. Fewer ranked
# the tuning halves lower; more ranked them the same (bench/rerank_sweep.py).
RERANK_PRESELECT = 12
# Shorter than this is a heading or a cut-off fragment; longer is a table run together, cut
# into pieces of at most MAX_WORDS words.
MIN_WORDS = 4
MAX_WORDS = 60
# The second quote is shown only when it scores nearly as well as the first.
SECOND_RATIO = 0.85
# Weights of the two scores (each in 0..1): meaning, and the question's own words.
VECTOR_WEIGHT = 0.6
TERM_WEIGHT = 0.4
BM25_K1 = 1.2
BM25_B = 0.75

# A sentence ends at . ! or ? followed by a space and a capital, digit or opening mark; not
# after a lone capital or a common abbreviation ("e.g. The", "Fig. 3", "J. Smith").
_SENTENCE_END = re.compile(
    r"(?<!\b[A-Z]\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bFig\.)(?<!\bfig\.)(?<!\bal\.)"
    r"(?<!\bvs\.)(?<!\bNo\.)(?<!\bDr\.)(?<!\bMr\.)(?<!\bSt\.)"
    r"(?:(?<=[.!?])|(?<=[.!?][\"')\]]))\s+(?=[\"'(\[]?[A-Z0-9])"
)
_GAP = " … "
_WORD = re.compile(r"[A-Za-z0-9]+(?:[-'][A-Za-z0-9]+)*")

# Words that say nothing of a question's subject.
_STOPWORDS_TEXT = """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    out over own same she should so some such than that the their theirs them then there these
    they this those through to too under until up very was we were what when where which while
    who whom why will with would you your yours many much tell show give list describe explain
    according please say says said use used using get"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())


@dataclass(frozen=True, slots=True)
class Sentence:
    n: int  # the source it comes from
    text: str


def content_words(text: str) -> list[str]:
    """The words that carry meaning, lowercased, with a plural's s dropped ("vaccines" and
    "vaccine" match)."""
    out = []
    for word in _WORD.findall(text.lower()):
        word = word.removesuffix("'s")
        if word in STOPWORDS or len(word) < 2:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        out.append(word)
    return out


def split_sentences(text: str) -> list[str]:
    """The sentences of a source, verbatim; a run of words with no full stop is cut into
    pieces of at most MAX_WORDS words."""
    out: list[str] = []
    for part in text.split(_GAP):
        for sentence in _SENTENCE_END.split(part):
            sentence = sentence.strip().removesuffix("…").strip()
            words = sentence.split(" ")
            for i in range(0, len(words), MAX_WORDS):
                piece = " ".join(words[i : i + MAX_WORDS])
                if len(piece.split()) >= MIN_WORDS:
                    out.append(piece)
    return out


def sentences_of(sources: Sequence[Source]) -> list[Sentence]:
    out: list[Sentence] = []
    for source in sources[:TOP_SOURCES]:
        for text in split_sentences(source.text):
            if len(out) >= MAX_SENTENCES:
                return out
            out.append(Sentence(source.n, text))
    return out


def term_scores(question: str, texts: Sequence[str]) -> list[float]:
    """BM25 of each text against the question's content words, the statistics taken over
    these texts; scaled so the best is 1 (all 0 when none shares a word)."""
    terms = set(content_words(question))
    docs = [Counter(content_words(t)) for t in texts]
    if not terms or not docs:
        return [0.0] * len(texts)
    n = len(docs)
    avg = sum(sum(d.values()) for d in docs) / n or 1.0
    df = {t: sum(1 for d in docs if t in d) for t in terms}
    scores = []
    for d in docs:
        length = sum(d.values())
        score = 0.0
        for t in terms:
            f = d.get(t, 0)
            if not f:
                continue
            idf = math.log(1.0 + (n - df[t] + 0.5) / (df[t] + 0.5))
            score += idf * f * (BM25_K1 + 1) / (f + BM25_K1 * (1 - BM25_B + BM25_B * length / avg))
        scores.append(score)
    best = max(scores)
    return [s / best if best > 0 else 0.0 for s in scores]


def _scored(
    question: str,
    sentences: Sequence[str],
    question_vector: NDArray[np.float32],
    embedder: Embedder,
    preselect: int,
) -> list[tuple[float, int]]:
    """The `preselect` sentences sharing most of the question's words (in reading order when
    none does), each scored VECTOR_WEIGHT × cosine + TERM_WEIGHT × term score, best first."""
    terms = term_scores(question, sentences)
    chosen = sorted(range(len(sentences)), key=lambda i: (-terms[i], i))[:preselect]
    q = np.asarray(question_vector, dtype=np.float32).reshape(-1)
    vectors = np.asarray(embedder.embed([sentences[i] for i in chosen]), dtype=np.float32)
    cosine = vectors @ q
    scored = [
        (VECTOR_WEIGHT * max(0.0, float(c)) + TERM_WEIGHT * terms[i], i)
        for i, c in zip(chosen, cosine, strict=True)
    ]
    scored.sort(key=lambda x: (-x[0], x[1]))
    return scored


def best_sentences(
    question: str,
    texts: Sequence[str],
    question_vector: NDArray[np.float32],
    embedder: Embedder,
    preselect: int = RERANK_PRESELECT,
) -> list[float]:
    """Each text's best sentence, scored as a quote is (the term statistics over all these
    texts' sentences): 0 for a text none of whose sentences was among the preselected."""
    sentences: list[str] = []
    owner: list[int] = []
    for n, text in enumerate(texts):
        for sentence in split_sentences(text):
            sentences.append(sentence)
            owner.append(n)
    best = [0.0] * len(texts)
    if not sentences or not question.strip():
        return best
    for score, i in _scored(question, sentences, question_vector, embedder, preselect):
        best[owner[i]] = max(best[owner[i]], score)
    return best


def pick_quotes(
    question: str,
    sources: Sequence[Source],
    embedder: Embedder,
    *,
    limit: int = 2,
) -> tuple[Quote, ...]:
    """The one or two sentences of the top sources that best answer the question, best first."""
    sentences = sentences_of(sources)
    if not sentences or not question.strip():
        return ()
    q = np.asarray(embedder.embed_query(question), dtype=np.float32)
    scored = _scored(question, [s.text for s in sentences], q, embedder, PRESELECT)
    by_n = {s.n: s for s in sources}
    quotes: list[Quote] = []
    for score, i in scored[:limit]:
        if quotes and score < SECOND_RATIO * quotes[0].score:
            break
        sentence = sentences[i]
        source = by_n[sentence.n]
        quotes.append(Quote(sentence.n, source.path, source.page, sentence.text, score))
    return tuple(quotes)
