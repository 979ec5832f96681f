"""Retrieval with the cross-encoder: the first candidates re-ranked by how well each answers."""

from __future__ import annotations

from desktop_rag.engines.rerank import PASSAGE_TOKENS
from desktop_rag.query.retrieve import rerank_by_answer
from desktop_rag.types import Explanation, Hit
from tests.fakes import FakeReranker


def _hit(i: int, text: str, score: float, section: str = "") -> Hit:
    return Hit(
        chunk_id=f"c{i}",
        doc_id="d",
        path="/docs/m.pdf",
        page=i,
        start=0,
        end=len(text),
        text=text,
        score=score,
        section=section,
        why=Explanation(blended=score),
    )


def test_the_passage_that_answers_comes_first_whatever_its_blended_rank() -> None:
    hits = [
        _hit(1, "Installing packages: an overview of the steps.", 0.9),
        _hit(2, "Other notes on installation and libraries.", 0.8),
        _hit(3, "Run R CMD REMOVE pkg to remove a package.", 0.5, "6.3 Removing packages"),
    ]
    reranker = FakeReranker({"R CMD REMOVE": 0.95})
    ranked = rerank_by_answer(hits, "How do I remove a package from the shell?", reranker, 0.8)
    assert [h.chunk_id for h in ranked] == ["c3", "c1", "c2"]
    assert ranked[0].why is not None and ranked[0].why.answers == 0.95
    assert ranked[0].why.blended == 0.5  # how retrieval ranked it is kept beside
    # The passage is read after its section's heading, at the passage length.
    assert (
        "How do I remove a package from the shell?",
        "6.3 Removing packages: Run R CMD REMOVE pkg to remove a package.",
        PASSAGE_TOKENS,
    ) in reranker.seen


def test_equal_answers_keep_the_blended_order() -> None:
    hits = [_hit(1, "first", 0.9), _hit(2, "second", 0.3)]
    ranked = rerank_by_answer(hits, "q", FakeReranker(default=0.5), 0.8)
    assert [h.chunk_id for h in ranked] == ["c1", "c2"]
    assert rerank_by_answer([], "q", FakeReranker()) == []
