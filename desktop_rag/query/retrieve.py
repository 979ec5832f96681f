"""Hybrid retrieval: BM25 and vector search over the chunks, their scores blended."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from enum import StrEnum
from typing import TYPE_CHECKING

import numpy as np

from desktop_rag.engines.embed import Embedder, RecentVectors
from desktop_rag.engines.rerank import Reranker, passage_text
from desktop_rag.errors import StoreError, UnreachableError
from desktop_rag.query.quote import best_sentences
from desktop_rag.query.scope import Scope
from desktop_rag.store.lance import LanceStore
from desktop_rag.types import Explanation, Hit

if TYPE_CHECKING:
    from numpy.typing import NDArray

log = logging.getLogger(__name__)

# A hybrid search blends scores, not ranks: rank fusion gives BM25's first passage full credit
# however weak its match, and on manuals and filings that is often a passage sharing only a
# question's common words, while the passage that answers it is the nearest by meaning. The
# blend is TEXT_SHARE of BM25 (as a share of the best BM25 score) and the rest of the cosine
# similarity (scaled over the candidates' range). Chosen on the tuning halves of the manuals'
# paraphrases, financebench and covid-qa (bench/tune/retrieval_tune.py --blend): a smaller share
# ranked the paraphrases and filings higher but cost covid-qa at rank 1.
TEXT_SHARE = 0.5
# A library read by the multilingual embedder (engines/multilingual.py, Settings' "My documents
# are in several languages") leans on its vectors: they find a passage by its meaning in any of
# the languages, where the words find it only in the question's own. Chosen on the tune half
# of bench.multilingual (debian-reference in seven languages, each language's own questions and
# English ones; python -m bench.multilingual --app-only --embedder e5 for the figures): the sum
# of recall@1 over the thirteen rows was 4.76 at 0.5, 5.26 at 0.3, 5.96 at 0.15, 5.85 at 0.1 and
# 5.41 at 0 (recall@5 9.05, 9.86, 9.95, 10.07, 10.06); 0.15 keeps more of the words for the
# names and commands a question shares with its page.
MULTILINGUAL_TEXT_SHARE = 0.15
# A navigation page (contents, index: ingest/nav.py) repeats the titles of the sections it
# lists, so words alone would rank it above the sections themselves; its blended score is cut
# to this share, which keeps it findable (a question about the index still finds it) but
# behind any passage of similar rank that is not one.
NAV_FACTOR = 0.35
NAV_REASON = "navigation page (contents, list or index)"
# The blend ranks a passage by how well it matches on the whole; the passage that answers is
# often one whose single best sentence matches the question, beside a passage that shares its
# words all over. The first RERANK_TOP sources are re-ordered by blended score +
# SENTENCE_WEIGHT × their best sentence's score, a sentence scored as a quote is (query/
# quote.py: cosine and the question's words). Re-ordering within the first five cannot change
# which five pages are shown. Chosen on the tuning halves (bench/tune/rerank_sweep.py): weights
# 0.2-0.4 over the first three or five all ranked three of the four sets higher at rank 1.
RERANK_TOP = 5
SENTENCE_WEIGHT = 0.3
# With the cross-encoder (engines/rerank.py), the first RERANK_CANDIDATES passages (one per page
# first) are read with the question and ranked by ANSWER_WEIGHT × its probability that the
# passage answers + the rest × their blended score over the best one. Chosen on the tune halves
# (python -m bench.tune.cross_weight): the shipped model alone ranks the gold page first less
# often than the blend (0.54 against 0.64 on the manuals, 0.55 against 0.69 on covid-qa); at
# 0.2 the two together rank as the blend does, a question more on each set at rank 1 or 5.
RERANK_CANDIDATES = 20
ANSWER_WEIGHT = 0.2


class Mode(StrEnum):
    HYBRID = "hybrid"
    VECTOR = "vector"
    TEXT = "text"


def with_similarity(
    hits: Sequence[Hit], vectors: NDArray[np.float32], query: NDArray[np.float32]
) -> list[Hit]:
    """The hits with their cosine similarity to the question (vectors: one row per hit)."""
    if not hits:
        return []
    q = np.asarray(query, dtype=np.float32).reshape(-1)
    norms = np.linalg.norm(vectors, axis=1) * (float(np.linalg.norm(q)) or 1.0)
    sims = (vectors @ q) / np.where(norms > 0, norms, 1.0)
    return [replace(h, similarity=float(s)) for h, s in zip(hits, sims, strict=True)]


def candidates(
    vector: Sequence[Hit], text: Sequence[Hit]
) -> tuple[dict[str, Hit], dict[str, float]]:
    """Every passage either list found, once (its vector hit where both found it), and the
    BM25 score of those the text list found."""
    best: dict[str, Hit] = {}
    bm25: dict[str, float] = {}
    for hit in vector:
        best.setdefault(hit.chunk_id, hit)
    for hit in text:
        bm25.setdefault(hit.chunk_id, hit.score)
        best.setdefault(hit.chunk_id, hit)
    return best, bm25


def blend(vector: Sequence[Hit], text: Sequence[Hit], text_share: float) -> list[Hit]:
    """Each candidate of either list scored text_share × its BM25 score over the best one, plus
    (1 − text_share) × its cosine similarity scaled to [0, 1] over all candidates. A text hit
    carries its similarity (LanceStore.text_search with the question's vector); one the BM25
    list lacks scores 0 there."""
    best, bm25 = candidates(vector, text)
    if not best:
        return []
    top = max(bm25.values(), default=0.0)
    sims = [h.similarity for h in best.values()]
    lo, span = min(sims), max(sims) - min(sims)
    out = []
    for cid, hit in best.items():
        lexical = bm25.get(cid, 0.0) / top if top > 0 else 0.0
        meaning = (hit.similarity - lo) / span if span > 0 else 0.0
        if not vector:  # BM25 alone: its own order
            meaning = 0.0
        out.append(replace(hit, score=text_share * lexical + (1 - text_share) * meaning))
    out.sort(key=lambda h: (-h.score, -h.similarity, h.chunk_id))
    return out


def explain(
    ranked: Sequence[Hit], text: Sequence[Hit], vector: Sequence[Hit], nav_factor: float
) -> list[Hit]:
    """The ranked hits with how each was ranked: its place in the BM25 and vector lists, the
    blended score and the demotion applied (ranked: after demotion)."""
    text_at = {h.chunk_id: (rank, h.score) for rank, h in enumerate(text, start=1)}
    vector_at = {h.chunk_id: (rank, h.similarity) for rank, h in enumerate(vector, start=1)}
    out = []
    for hit in ranked:
        t = text_at.get(hit.chunk_id)
        v = vector_at.get(hit.chunk_id)
        why = Explanation(
            text_rank=t[0] if t else None,
            text_score=t[1] if t else None,
            vector_rank=v[0] if v else None,
            similarity=v[1] if v else None,
            blended=hit.score,
            demoted=f"{NAV_REASON}, score × {nav_factor:g}" if hit.nav and nav_factor < 1 else "",
        )
        out.append(replace(hit, why=why))
    return out


def demote(hits: Sequence[Hit], nav_factor: float = NAV_FACTOR) -> list[Hit]:
    """Navigation pages' scores cut to nav_factor of themselves, then re-ranked."""
    if nav_factor >= 1 or not any(h.nav for h in hits):
        return list(hits)
    out = [replace(h, score=h.score * nav_factor) if h.nav else h for h in hits]
    out.sort(key=lambda h: (-h.score, -h.similarity, h.chunk_id))
    return out


def distinct_pages_first(hits: Sequence[Hit], k: int) -> list[Hit]:
    """The first k of the ranked hits, one passage per page (its best) before any page's
    second: a page's neighbouring chunks say much the same, and five sources from three pages
    show fewer places that might answer than five from five. Fewer than k pages: the other
    passages fill the list in their order."""
    seen: set[tuple[str, int]] = set()
    first: list[Hit] = []
    later: list[Hit] = []
    for hit in hits:
        key = (hit.path, hit.page)
        (later if key in seen else first).append(hit)
        seen.add(key)
        if len(first) >= k:
            break
    return (first + later)[:k]


def rerank_by_sentence(
    hits: Sequence[Hit],
    question: str,
    question_vector: NDArray[np.float32],
    embedder: Embedder,
    top: int = RERANK_TOP,
    weight: float = SENTENCE_WEIGHT,
) -> list[Hit]:
    """The first `top` hits re-ordered by score + weight × their best sentence's score (ties
    keep their order), each one's explanation given that sentence score; the rest as they
    were."""
    if top < 2 or weight <= 0 or len(hits) < 2:
        return list(hits)
    head = list(hits[:top])
    best = best_sentences(question, [h.text for h in head], question_vector, embedder)
    order = sorted(range(len(head)), key=lambda i: (-(head[i].score + weight * best[i]), i))
    out = []
    for i in order:
        hit = head[i]
        why = replace(hit.why or Explanation(blended=hit.score), sentence=best[i])
        out.append(replace(hit, why=why))
    return out + list(hits[top:])


def rerank_by_answer(
    hits: Sequence[Hit], question: str, reranker: Reranker, weight: float = ANSWER_WEIGHT
) -> list[Hit]:
    """The hits re-ordered by weight × the cross-encoder's probability that each answers the
    question + (1 − weight) × its score over the best one; each one's explanation given that
    probability."""
    if not hits:
        return []
    probs = reranker.score(question, [passage_text(h.text, h.section) for h in hits])
    top = max(h.score for h in hits)
    out = []
    for hit, p in zip(hits, probs, strict=True):
        base = hit.score / top if top > 0 else 0.0
        why = replace(hit.why or Explanation(blended=hit.score), answers=p)
        out.append(replace(hit, score=weight * p + (1 - weight) * base, why=why))
    out.sort(key=lambda h: (-h.score, h.chunk_id))
    return out


class Retriever:
    """Find the passages that best answer a question."""

    def __init__(
        self,
        store: LanceStore,
        embedder: Embedder,
        mode: Mode = Mode.HYBRID,
        candidates: int = 40,
        nav_factor: float = NAV_FACTOR,
        text_share: float = TEXT_SHARE,
        rerank_top: int = RERANK_TOP,
        reranker: Reranker | None = None,
        rerank_candidates: int = RERANK_CANDIDATES,
        answer_weight: float = ANSWER_WEIGHT,
    ) -> None:
        self.store = store
        # The cross-encoder; None ranks by the blend and the best sentence, as before it.
        self.reranker = reranker
        self.rerank_candidates = rerank_candidates
        self.answer_weight = answer_weight
        self.embedder = embedder
        # The question and the sentences the re-ranking embedded, for the quotes that follow.
        self.recent = RecentVectors(embedder)
        self.mode = mode
        self.candidates = candidates
        self.nav_factor = nav_factor
        self.text_share = text_share
        self.rerank_top = rerank_top
        # Set while answering from an index whose vectors came from another embedder.
        self.text_only = False
        # BM25 needs no question vector: it runs beside the embedding and the vector search,
        # so a hybrid search costs about the slower of the two, not their sum.
        self._text_pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def settings(
        self,
    ) -> tuple[Embedder, Mode, int, float, float, int, Reranker | None, int, float]:
        """What this retriever searches with besides its store (embedder, mode, candidates,
        nav factor, text share, re-ranked top, the cross-encoder, its candidates and weight):
        another store searched alike takes these."""
        return (
            self.embedder,
            self.mode,
            self.candidates,
            self.nav_factor,
            self.text_share,
            self.rerank_top,
            self.reranker,
            self.rerank_candidates,
            self.answer_weight,
        )

    def search(
        self, query: str, k: int = 5, mode: Mode | None = None, scope: Scope | None = None
    ) -> list[Hit]:
        """The k best passages; with a scope, the k best of its documents (the store filters
        inside both searches, so a small scope in a large library still gets its best)."""
        mode = Mode.TEXT if self.text_only else (mode or self.mode)
        where = scope.where() if scope is not None else None
        query = query.strip()
        if not query or k <= 0:
            return []
        n = max(k, self.candidates, self.rerank_candidates if self.reranker else 0)
        want_vector = mode in (Mode.HYBRID, Mode.VECTOR)
        want_text = mode in (Mode.HYBRID, Mode.TEXT)
        # BM25 runs on the pool beside the embedding (see __init__). Its hits come with their
        # stored vectors: the blend needs the similarity of a passage found by its words that
        # the vector list did not reach.
        text_future = (
            self._pool().submit(self.store.text_search_vectors, query, n, where)
            if want_vector and want_text
            else None
        )
        vector = None
        rankings: list[list[Hit]] = []
        kinds: list[str] = []
        errors: list[Exception] = []
        if want_vector:
            try:
                vector = self.recent.embed_query(query)
                rankings.append(self.store.vector_search(vector, n, where=where))
                kinds.append("vector")
            except Exception as exc:  # one damaged side must not take the other down
                log.warning("vector search failed: %s", exc)
                errors.append(exc)
        if want_text:
            try:
                if text_future is None:
                    bm25 = self.store.text_search(query, n, where)
                else:
                    bm25, vectors = text_future.result()
                    if vector is not None:
                        bm25 = with_similarity(bm25, vectors, vector)
                rankings.append(bm25)
                kinds.append("text")
            except Exception as exc:
                log.warning("full-text search failed: %s", exc)
                errors.append(exc)
        if not rankings and errors:
            if isinstance(errors[0], UnreachableError):
                raise errors[0]  # its message says which library, and that the next try may do
            raise StoreError(
                f"The index could not be searched ({errors[0]}). Restart Desktop RAG to "
                "check and rebuild it; your files are not touched."
            ) from errors[0]
        text_hits = rankings[kinds.index("text")] if "text" in kinds else []
        vector_hits = rankings[kinds.index("vector")] if "vector" in kinds else []
        if len(rankings) == 1:
            ranked = rankings[0]
        else:
            ranked = blend(vector_hits, text_hits, self.text_share)
        reranking = self.reranker is not None and self.rerank_candidates > 0
        first = max(k, self.rerank_candidates) if reranking else k
        ranked = distinct_pages_first(demote(ranked, self.nav_factor), first)
        ranked = explain(ranked, text_hits, vector_hits, self.nav_factor)
        if reranking and self.reranker is not None:
            ranked = rerank_by_answer(ranked, query, self.reranker, self.answer_weight)
            return distinct_pages_first(ranked, k)
        if vector is not None and mode == Mode.HYBRID and len(rankings) == 2:
            ranked = rerank_by_sentence(ranked, query, vector, self.recent, self.rerank_top)
        return ranked

    def _pool(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._text_pool is None:
                self._text_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="bm25")
            return self._text_pool
