"""Reciprocal rank fusion."""

from __future__ import annotations

from desktop_rag.query.retrieve import RRF_K, fuse
from desktop_rag.types import Hit


def _hit(cid: str, sim: float = 0.0) -> Hit:
    return Hit(cid, "d", "/p.pdf", 1, 0, 1, cid, 0.0, sim)


def test_items_in_both_lists_win():
    vec = [_hit("a"), _hit("b"), _hit("c")]
    bm25 = [_hit("c"), _hit("d"), _hit("b")]
    fused = fuse([vec, bm25])
    assert [h.chunk_id for h in fused[:2]] == ["c", "b"]
    assert {h.chunk_id for h in fused} == {"a", "b", "c", "d"}


def test_scores_are_reciprocal_ranks():
    fused = fuse([[_hit("a"), _hit("b")], [_hit("b")]])
    scores = {h.chunk_id: h.score for h in fused}
    assert scores["a"] == 1 / (RRF_K + 1)
    assert scores["b"] == 1 / (RRF_K + 2) + 1 / (RRF_K + 1)


def test_weights_scale_each_ranking():
    fused = fuse([[_hit("a")], [_hit("b")]], weights=[0.5, 1.0])
    assert [h.chunk_id for h in fused] == ["b", "a"]
    assert fused[1].score == 0.5 / (RRF_K + 1)


def test_keeps_the_vector_similarity_of_a_hit():
    fused = fuse([[_hit("a", 0.8)], [_hit("a", 0.0)]])
    assert fused[0].similarity == 0.8


def test_empty():
    assert fuse([[], []]) == []
