"""query/gate.py: whether what retrieval found is about the question, by cosine, by the
question's words its best passage holds, and by its words the library lacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.app import App
from desktop_rag.query import gate
from desktop_rag.query.gate import unknown_share, word_relevance
from tests.fakes import FakeLlm
from tests.helpers.apps import make_app


@pytest.fixture
def indexed(tmp_path: Path, animal_pdfs: Path) -> tuple[App, FakeLlm]:
    llm = FakeLlm()
    app = make_app(tmp_path, llm)
    app.ingest.index([str(animal_pdfs)])
    return app, llm


def test_a_best_passage_at_the_threshold_is_about_the_question() -> None:
    assert gate.similar(gate.RELEVANCE_THRESHOLD)
    assert not gate.similar(gate.RELEVANCE_THRESHOLD - 0.01)
    assert gate.off_subject(gate.UNKNOWN_GATE) and not gate.off_subject(gate.UNKNOWN_GATE - 0.01)


def test_the_gate_reads_the_cosine_the_words_and_the_words_the_library_lacks(indexed) -> None:
    app, _ = indexed
    question = "How many hearts does an octopus have?"
    hits = app.retriever.search(question, 3)
    best = max(h.similarity for h in hits)
    assert gate.relevant(app.store, hits, question, threshold=best)
    assert not gate.relevant(app.store, hits, question, threshold=best + 0.01)
    assert not gate.relevant(app.store, [], question, threshold=-1.0)
    # Searching by words only, the share of the question's words its best passage holds.
    assert gate.relevant(app.store, hits, question, words_only=True, threshold=2.0)
    guacamole = "What is the main ingredient of guacamole?"
    assert not gate.relevant(app.store, hits, guacamole, words_only=True, threshold=-1.0)
    # A question mostly in words no passage holds, in a library counted as large.
    small = app.store.count_chunks()
    assert gate.relevant(app.store, hits, guacamole, threshold=-1.0)
    assert not gate.relevant(
        app.store, hits, guacamole, threshold=-1.0, unknown_gate_passages=small
    )


def test_words_the_full_text_index_drops_are_not_words_the_library_lacks(indexed) -> None:
    # "were" is one of the index's stop words: no passage holds it as the index reads words,
    # like "guacamole" in this library; counted as missing it weighed most, and cut the share
    # of an on-topic question's words its best passage holds.

    app, _ = indexed
    question = "Why were the zebras striped, and what were the flies deterred by them?"
    hits = app.retriever.search(question, 3)
    assert Path(hits[0].path).name == "zebra.pdf"
    assert unknown_share(app.store, question) == 0.0
    assert word_relevance(app.store, question, hits) == 1.0
    assert unknown_share(app.store, "What is the main ingredient of guacamole?") > 0.5


def test_names_and_codes_the_library_lacks_are_not_words_it_lacks(indexed) -> None:
    # financebench's on-topic questions name fiscal years and metrics the index holds in
    # other spellings ("FY20", "PPNE", "JnJ"): names and codes, not words of another subject.

    app, _ = indexed
    assert unknown_share(app.store, "Did Pfizer's octopus hearts pump PPNE in FY20?") == 0.0
    assert unknown_share(app.store, "How did JnJ's octopus blood change in Q22023?") == 0.0
    # A plain word no passage holds still counts, wherever it stands in the question.
    assert unknown_share(app.store, "Guacamole: what is its main ingredient?") > 0.5
