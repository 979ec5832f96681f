"""bench/answer_facts.py's replay features: a fragment (a heading, a few words) and a
sentence read with its neighbours."""

from __future__ import annotations

import pytest

from bench import answer_facts


def test_fragment_is_a_heading_or_a_few_words() -> None:
    assert answer_facts.fragment("3.10 Interrupting a display")
    assert answer_facts.fragment("SET DATAFILE MISSING SYNTAX AND MORE WORDS HERE")
    assert not answer_facts.fragment("The mathtools package provides a command for it.")


def test_context_cosines_read_the_sentence_with_its_neighbour() -> None:
    """A sentence that names nothing of the question ("It takes ten seconds.") comes near it
    when read with the sentence before it."""
    from desktop_rag.query.compose import candidates
    from desktop_rag.types import Source
    from tests.fakes import HashEmbedder

    text = "Hold the power button to reset the device. It takes ten seconds. Colours are nice."
    sources = [Source(1, "a.pdf", 1, 0.0, text)]
    found = candidates(sources)
    question = "how do I reset the device with the power button"
    own, near = answer_facts.context_cosines(question, found, sources, HashEmbedder(), "prev")
    assert near[1] > own[1]
    assert near[0] == pytest.approx(own[0])  # the first has no sentence before it
