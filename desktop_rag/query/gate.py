"""The relevance gate: whether what retrieval found is about the question at all, before any
answer is composed or written."""

from __future__ import annotations

import math
from collections.abc import Sequence

from desktop_rag.store.base import Store
from desktop_rag.store.lance import fts_terms
from desktop_rag.types import Hit

# Below this cosine similarity (question vs best passage, all-MiniLM-L6-v2) nothing retrieved is
# about the question: bench/tune/relevance.py puts questions the library answers and questions
# it cannot on either side of it (bench/results/relevance.json). Refusing a question the library
# does answer is the worse failure, so the threshold sits low in the gap between the two.
RELEVANCE_THRESHOLD = 0.25
# Searching by words only (an index of another embedder gives no similarity), a question is
# on topic when its best passage holds this share of the question's words, each weighted by
# its rarity in the library (IDF): bench/tune/relevance.py --words-only puts the same questions
# on either side of it (bench/results/relevance-words.json); low in the gap, for the same reason.
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
# Counting how many passages hold a word stops here: beyond it, the word is common anyway.
DF_CAP = 2000
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


def relevant(
    store: Store,
    hits: Sequence[Hit],
    query: str,
    question: str = "",
    *,
    words_only: bool = False,
    threshold: float = RELEVANCE_THRESHOLD,
    unknown_gate: float = UNKNOWN_GATE,
    unknown_gate_passages: int = UNKNOWN_GATE_PASSAGES,
) -> bool:
    """Whether the hits are about the question: by cosine similarity, or, searching by words
    only, by the share of the question's rarer words its best passage holds; and not when most
    of the question's own words are in no passage of a large library (`off_subject`)."""
    if store.count_chunks() >= unknown_gate_passages and off_subject(
        unknown_share(store, question or query), unknown_gate
    ):
        return False
    if words_only:
        return word_relevance(store, query, hits) >= WORDS_THRESHOLD
    return bool(hits) and similar(max(h.similarity for h in hits), threshold)


def similar(best: float, threshold: float = RELEVANCE_THRESHOLD) -> bool:
    """Whether a best passage this similar to the question (cosine) is about it."""
    return best >= threshold


def off_subject(unknown: float, unknown_gate: float = UNKNOWN_GATE) -> bool:
    """Whether a question with this share of its weight on plain words the library lacks
    (`unknown_share`) is about something else, whatever its cosine."""
    return unknown >= unknown_gate


def question_terms(store: Store, query: str) -> dict[str, tuple[float, int]]:
    """The question's words as the full-text index reads them (stemmed), stop words left out,
    each with its weight, its IDF over the library's passages, and how many passages hold it
    (counted up to a cap)."""
    terms = {t.lower().split("'")[0] for t in fts_terms(query)} - _STOP_WORDS - {""}
    rows = store.count_chunks()
    out = {}
    for term in terms:
        df = store.term_frequency(term, min(rows, DF_CAP))
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
