"""The figure check: numbers of an answer that none of its sources contains."""

from __future__ import annotations

from desktop_rag.query.figures import numbers, unsupported_note, unsupported_numbers


def test_numbers_as_written_without_citations_or_digits_inside_words() -> None:
    text = "According to [1], 20,847 nt in 2019 (H1N1, CCR5, 32uC), up 4.5% [2, 3]; 2-4 days."
    assert numbers(text) == ["20,847", "2019", "4.5", "2", "4"]


def test_a_figure_missing_from_the_sources_is_reported_once() -> None:
    sources = ["The genome holds 30,847 nucleotides and 10 open reading frames [12]."]
    answer = "According to [1], it holds 20,847 nucleotides; yes, 20,847, in 10 frames."
    assert unsupported_numbers(answer, sources) == ("20,847",)


def test_figures_match_by_value_and_single_digits_are_not_checked() -> None:
    sources = ["Net sales were $4200 million, 8.50% more than in 2021."]
    answer = "According to [1], net sales were $4,200 million, up 8.5%, 3 years running."
    assert unsupported_numbers(answer, sources) == ()


def test_a_citation_number_is_not_a_figure() -> None:
    assert unsupported_numbers("As [12] and [13] say.", ["No numbers here."]) == ()


def test_the_note_names_the_figures() -> None:
    assert unsupported_note(("20,847",)) == (
        "Check this answer: 20,847 does not appear in its sources."
    )
    many = unsupported_note(tuple(str(n) for n in range(10, 17)))
    assert many == "Check this answer: 10, 11, 12, 13, 14 … do not appear in its sources."
