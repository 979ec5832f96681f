"""query/verdict.py: when a written answer its sources do not back is withheld, not flagged."""

from __future__ import annotations

from desktop_rag.query.claims import OWN_WORDS, WEAK_MATCH
from desktop_rag.query.verdict import withheld


def _never() -> float:
    raise AssertionError("the words over every source were counted where they decide nothing")


def test_an_answer_the_claims_check_lets_by_is_never_withheld() -> None:
    assert not withheld(False, 0.0, _never)
    assert not withheld(False, 0.0, _never, words_only=True)


def test_from_weak_sources_or_by_words_only_an_unbacked_answer_is_withheld() -> None:
    assert withheld(True, WEAK_MATCH - 0.01, _never)
    assert withheld(True, 0.9, _never, words_only=True)


def test_from_near_sources_it_is_withheld_only_when_its_words_are_in_none_it_read() -> None:
    assert not withheld(True, WEAK_MATCH, lambda: OWN_WORDS - 0.01)
    assert withheld(True, WEAK_MATCH, lambda: OWN_WORDS)
    assert withheld(True, 0.5, lambda: 0.5, weak_match=0.6)
    assert not withheld(True, 0.5, lambda: 0.5, weak_match=0.5, own_limit=0.6)
