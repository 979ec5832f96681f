"""Score blending of the BM25 and vector lists: how strong a match is, not only its rank."""

from __future__ import annotations

from dataclasses import replace
from typing import cast

import numpy as np

from desktop_rag.engines.embed import Embedder, RecentVectors
from desktop_rag.query.quote import pick_quotes
from desktop_rag.query.retrieve import Retriever, blend
from desktop_rag.store.lance import LanceStore
from desktop_rag.types import Hit, Source
from tests.fakes import HashEmbedder


def _hit(cid: str, score: float = 0.0, sim: float = 0.0, nav: bool = False) -> Hit:
    return Hit(cid, "d", "/p.pdf", 1, 0, 1, cid, score, sim, nav=nav)


# The fault of rank fusion on a manual: a passage sharing a question's common words comes
# first in BM25 with no support from the vectors ("x"), while the passage that answers it is
# the nearest by meaning and still a fair BM25 match at rank 15 ("g"). Ranks alone put x
# first (1/11 against 0.5/11 + 1/25); the scores say x is a weak match by meaning.
BM25 = [_hit("x", 10.0, 0.20)] + [_hit(f"f{i}", 9.0 - 0.2 * i, 0.3) for i in range(13)]
BM25 += [_hit("g", 6.0, 0.80)]
VECTOR = [_hit("g", 0.0, 0.80)] + [_hit(f"v{i}", 0.0, 0.6 - 0.01 * i) for i in range(10)]


def test_a_strong_match_by_meaning_beats_a_bm25_first_with_no_meaning():
    ranked = blend(VECTOR, BM25, text_share=0.5)
    assert ranked[0].chunk_id == "g"


def test_scores_are_shares_of_the_best_bm25_and_the_similarity_range():
    ranked = blend([_hit("a", 0, 0.9), _hit("b", 0, 0.5)], [_hit("b", 4.0, 0.5)], 0.5)
    scores = {h.chunk_id: h.score for h in ranked}
    # a: no BM25, top similarity; b: the best BM25, the lowest similarity of the candidates.
    assert scores == {"a": 0.5, "b": 0.5}
    assert [h.chunk_id for h in ranked] == ["a", "b"]  # ties break by similarity


def test_text_share_weighs_the_two_sides():
    vec = [_hit("a", 0, 0.9), _hit("b", 0, 0.5)]
    text = [_hit("b", 4.0, 0.5), _hit("a", 1.0, 0.9)]
    assert blend(vec, text, 0.9)[0].chunk_id == "b"
    assert blend(vec, text, 0.1)[0].chunk_id == "a"


def test_one_side_empty_keeps_the_other_order():
    text = [_hit("a", 3.0, 0.1), _hit("b", 2.0, 0.9)]
    assert [h.chunk_id for h in blend([], text, 0.5)] == ["a", "b"]
    vec = [_hit("a", 0, 0.9), _hit("b", 0, 0.5)]
    assert [h.chunk_id for h in blend(vec, [], 0.5)] == ["a", "b"]
    assert blend([], [], 0.5) == []


def test_keeps_the_similarity_of_each_hit():
    ranked = blend([_hit("a", 0, 0.8)], [_hit("a", 2.0, 0.8), _hit("b", 1.0, 0.3)], 0.5)
    assert {h.chunk_id: h.similarity for h in ranked} == {"a": 0.8, "b": 0.3}


def _unit(similarity: float) -> list[float]:
    """A vector at this cosine from the question's (1, 0)."""
    return [similarity, float(np.sqrt(1 - similarity**2))]


class _Store:
    """The two searches of a store, answering with fixed lists (vectors in two dimensions)."""

    def vector_search(
        self, vector: object, k: int, *, exact: bool = False, where: str | None = None
    ) -> list[Hit]:
        return VECTOR[:k]

    def text_search(self, query: str, k: int, where: str | None = None) -> list[Hit]:
        return BM25[:k]

    def text_search_vectors(
        self, query: str, k: int, where: str | None = None
    ) -> tuple[list[Hit], np.ndarray]:
        hits = [replace(h, similarity=0.0) for h in BM25[:k]]  # the retriever computes it
        return hits, np.asarray([_unit(h.similarity) for h in BM25[:k]], dtype=np.float32)


class _Embedder:
    def embed_query(self, text: str) -> np.ndarray:
        return np.asarray([1.0, 0.0], dtype=np.float32)


def test_hybrid_search_puts_the_answer_first():
    retriever = Retriever(cast(LanceStore, _Store()), cast(Embedder, _Embedder()))
    hits = retriever.search("how do I ship long-form documentation", k=5)
    assert hits[0].chunk_id == "g"
    why = hits[0].why
    assert why is not None and why.text_rank == 15 and why.vector_rank == 1
    assert np.isclose(hits[0].score, why.blended)
    x = next(h for h in retriever.search("q", k=40) if h.chunk_id == "x")
    assert np.isclose(x.similarity, 0.2, atol=1e-6)  # computed from its stored vector


class _PagesStore:
    """A store whose best passages are three chunks of one page, then one each of others."""

    def __init__(self) -> None:
        same = [
            Hit(f"a{i}", "d", "/m.pdf", 4, i, i + 1, "a", 0.0, 0.9 - 0.01 * i) for i in range(3)
        ]
        rest = [Hit(f"p{p}", "d", "/m.pdf", p, 0, 1, "b", 0.0, 0.7 - 0.01 * p) for p in range(5, 9)]
        self.hits = same + rest

    def vector_search(
        self, vector: object, k: int, *, exact: bool = False, where: str | None = None
    ) -> list[Hit]:
        return self.hits[:k]

    def text_search_vectors(
        self, query: str, k: int, where: str | None = None
    ) -> tuple[list[Hit], np.ndarray]:
        return [], np.zeros((0, 2), dtype=np.float32)


def test_the_first_k_passages_come_from_distinct_pages_where_there_are_k():
    retriever = Retriever(cast(LanceStore, _PagesStore()), cast(Embedder, _Embedder()))
    hits = retriever.search("anything", k=5)
    assert [(h.page, h.chunk_id) for h in hits] == [
        (4, "a0"),  # the best passage first, as before
        (5, "p5"),
        (6, "p6"),
        (7, "p7"),
        (8, "p8"),
    ]
    # Fewer pages than k: the other passages of a page fill the list, best first.
    many = retriever.search("anything", k=7)
    assert [h.chunk_id for h in many] == ["a0", "p5", "p6", "p7", "p8", "a1", "a2"]


class _SentencesStore:
    """Two passages: the first matches the question's words all over without answering it; the
    second is a little behind on the whole and holds the one sentence that answers it."""

    def __init__(self) -> None:
        broad = (
            "Battery packs and battery chargers are sold apart. A battery charger has a cable. "
            "Keep the battery charger dry. The battery pack fits every charger model."
        )
        answer = (
            "Most of this page is about storage rooms and shelves for tools. "
            "A full charge of the battery takes about four hours on the charger."
        )
        self.hits = [
            Hit("broad", "d", "/m.pdf", 3, 0, 1, broad, 0.0, 0.70),
            Hit("answer", "d", "/m.pdf", 9, 0, 1, answer, 0.0, 0.66),
            Hit("far", "d", "/m.pdf", 20, 0, 1, "Index of terms and pages.", 0.0, 0.30),
        ]

    def vector_search(
        self, vector: object, k: int, *, exact: bool = False, where: str | None = None
    ) -> list[Hit]:
        return self.hits[:k]

    def text_search_vectors(
        self, query: str, k: int, where: str | None = None
    ) -> tuple[list[Hit], np.ndarray]:
        return [], np.zeros((0, 64), dtype=np.float32)


def test_a_passage_whose_best_sentence_answers_comes_first():
    store = cast(LanceStore, _SentencesStore())
    question = "How long does a full charge of the battery take?"
    # The blend alone ranks the broad passage first: its similarity on the whole is higher.
    assert Retriever(store, HashEmbedder(), rerank_top=0).search(question, k=2)[0].page == 3
    hits = Retriever(store, HashEmbedder()).search(question, k=2)
    assert [h.chunk_id for h in hits] == ["answer", "broad"]
    first = hits[0].why
    assert first is not None and first.sentence is not None and first.sentence > 0
    assert "best sentence" in first.describe()


def test_the_quotes_reuse_the_vectors_the_search_made():
    embedder = HashEmbedder()
    retriever = Retriever(cast(LanceStore, _SentencesStore()), embedder)
    question = "How long does a full charge of the battery take?"
    hits = retriever.search(question, k=2)
    embedded = embedder.texts_embedded
    sources = [Source(n, h.path, h.page, h.score, h.text) for n, h in enumerate(hits, 1)]
    quotes = pick_quotes(question, sources, retriever.recent)
    assert quotes and "four hours" in quotes[0].text
    assert embedder.texts_embedded == embedded  # the question and every sentence remembered


def test_recent_vectors_embed_each_text_once_and_forget_the_oldest():
    inner = HashEmbedder()
    memo = RecentVectors(inner, size=2)
    first = memo.embed(["one two three", "four five six", "one two three"])
    assert inner.texts_embedded == 2 and np.allclose(first[0], first[2])
    assert np.allclose(memo.embed(["four five six"])[0], inner.embed(["four five six"])[0])
    memo.embed(["seven eight nine"])  # the oldest, "one two three", is forgotten
    before = inner.texts_embedded
    memo.embed(["one two three", "seven eight nine"])
    assert inner.texts_embedded == before + 1
    memo.embed_query("a question")
    memo.embed_query("a question")
    assert inner.calls == 5  # the question once
    assert memo.embed([]).shape == (0, inner.dim)
