"""The composed answer with the cross-encoder: the sentence that answers, not the one that restates
the question; and "your documents don't seem to say" when no sentence answers."""

from __future__ import annotations

from desktop_rag.engines.rerank import SENTENCE_TOKENS
from desktop_rag.query import compose
from desktop_rag.types import Source
from tests.fakes import FakeReranker, HashEmbedder

FAQ = (
    "Suppose you have C code compiled with other flags but you want to use them in your "
    "package. Set PKG_CFLAGS in the file src/Makevars to the flags you need. The file is "
    "read by R CMD INSTALL."
)


def _sources(*texts: str) -> tuple[Source, ...]:
    return tuple(
        Source(n=i, path=f"/docs/m{i}.pdf", page=i, score=1.0 - i / 10, text=t)
        for i, t in enumerate(texts, 1)
    )


def test_weighed_in_the_answer_is_the_sentence_that_answers_not_the_one_restating_it() -> None:
    question = "I have C code compiled with other flags; how do I use them in my package?"
    sources = _sources(FAQ, "Packages are installed with R CMD INSTALL from a shell.")
    reranker = FakeReranker({"Set PKG_CFLAGS": 0.93, "Suppose you have": 0.02})
    made = compose.compose(question, sources, HashEmbedder(), reranker, cross_weight=2.0)
    assert made.text.startswith("Set PKG_CFLAGS in the file src/Makevars")
    assert "Suppose you have" not in made.text
    assert made.cited == (1,)
    assert made.answerable == 0.93
    # Each sentence was read with its neighbours, at the sentence length.
    read = [t for _, t, n in reranker.seen if t.startswith("Set PKG_CFLAGS")]
    assert read and "Suppose you have" in read[0] and "R CMD INSTALL" in read[0]
    assert all(n == SENTENCE_TOKENS for _, _, n in reranker.seen)


def test_no_sentence_that_answers_gives_no_answer_and_says_how_close_it_came() -> None:
    sources = _sources(FAQ, "Packages are installed with R CMD INSTALL from a shell.")
    made = compose.compose(
        "How do I install an oh-my-bash theme?", sources, HashEmbedder(), FakeReranker(default=0.02)
    )
    assert made.text == "" and made.quotes == () and made.cited == ()
    assert made.answerable == 0.02


def test_the_threshold_decides_between_the_two() -> None:
    sources = _sources(FAQ)
    reranker = FakeReranker({"Set PKG_CFLAGS": 0.45})
    q = "How do I pass compiler flags to my package?"
    assert compose.compose(q, sources, HashEmbedder(), reranker, answerable=0.5).text == ""
    assert compose.compose(q, sources, HashEmbedder(), reranker, answerable=0.4).text


def test_by_default_the_cross_encoder_decides_whether_to_answer_not_which_sentences() -> None:
    """The shipped model chose sentences worse than the composed answer's own scores on the
    tune halves: by default it only decides whether any sentence answers."""
    sources = _sources("The battery lasts about two days. Keep the device away from water.")
    question = "How long does the battery last?"
    plain = compose.compose(question, sources, HashEmbedder())
    sure = compose.compose(question, sources, HashEmbedder(), FakeReranker({"Keep the": 0.9}))
    assert sure.text == plain.text and sure.answerable == 0.9


def test_without_the_cross_encoder_the_answer_is_composed_as_before() -> None:
    sources = _sources("The battery lasts about two days. Keep it dry.")
    made = compose.compose("How long does the battery last?", sources, HashEmbedder())
    assert "two days" in made.text and made.answerable is None
