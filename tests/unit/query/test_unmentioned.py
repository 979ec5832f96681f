"""The names a question asks about, and which of them no passage mentions."""

from __future__ import annotations

import pytest

from desktop_rag.query.unmentioned import fuzziness, names, quoted, unmentioned


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How do I connect R to a Snowflake data warehouse?", ["Snowflake"]),
        ("How do I call R from a Node.js web server?", ["Node.js"]),
        ("How do I use R with Visual Studio Code?", ["Visual Studio Code"]),
        ("Is there an R package for sending WhatsApp messages?", ["WhatsApp"]),
        ("Does Pfizer's vaccine work against COVID-19?", ["Pfizer"]),
        ("How do I use CUDA from Octave?", ["CUDA", "Octave"]),
        # Codes with figures and short abbreviations are spelt otherwise by the documents that
        # answer them: a filing says "fiscal 2023" and "Johnson & Johnson".
        ("Are JnJ's FY2022 financials those of a high growth company?", []),
        ("What was AMCOR's EBITDA for FY 2023 in the US?", ["AMCOR EBITDA"]),
        ("What are the symptoms of the XBB subvariant?", []),
        # The first word of a sentence is capitalised anyway; "I" is nobody's name.
        ("Snowflakes fall. Can I stop them?", []),
        ("My Debian machine misbehaved. How do I read the log?", ["Debian"]),
        # Words of code are not names: "Hello" is an argument, "Array" a template.
        ("I typed \\mathsf{Hello} in a paragraph; why can't I?", []),
        ("Is it expensive to copy an Array<T> in liboctave?", []),
        # Plain words, however rare, are left to the other checks.
        ("Does monkeypox spread the same way as measles?", []),
    ],
)
def test_the_names_of_a_question(question: str, expected: list[str]) -> None:
    assert names(question) == expected


class Library:
    """A library that holds these words: mentions() asks it for whole words only."""

    def __init__(self, *passages: str) -> None:
        self.passages = [set(p.lower().split()) for p in passages]
        self.asked: list[tuple[str, int]] = []

    def mentions(self, words: str, fuzziness: int = 0) -> bool:
        self.asked.append((words, fuzziness))
        return any(set(words.split()) <= p for p in self.passages)


def test_a_name_is_mentioned_when_one_passage_holds_all_its_words() -> None:
    library = Library("install r on windows", "the task scheduler runs jobs", "visual output")
    question = "How do I schedule R with the Windows Task Scheduler from Visual Studio Code?"
    assert unmentioned(library, question) == ["Windows Task Scheduler", "Visual Studio Code"]
    assert unmentioned(Library("windows task scheduler", "visual studio code"), question) == []


def test_a_long_name_may_be_misspelt_a_short_one_may_not() -> None:
    library = Library("zanamivir")
    unmentioned(library, "Does Zanamavir help? Is Fira good?")
    assert library.asked == [("zanamavir", 1), ("fira", 0)]
    assert (fuzziness("fira"), fuzziness("zanamivir"), fuzziness("hydroxychloroquine")) == (0, 1, 2)


def test_the_missing_names_as_the_answer_names_them() -> None:
    assert quoted(["Snowflake"]) == "“Snowflake”"
    assert quoted(["A", "B", "C", "D"]) == "“A”, “B” or “C”"


def test_a_question_not_in_english_is_not_checked() -> None:
    """In German every noun is capitalised: "Drucker" is a printer, not a name. The check is
    for English questions until the app knows a library's language (issue 46)."""
    library = Library("the printer manual")
    assert unmentioned(library, "Wie verbinde ich den Drucker mit dem Telefon?") == []
    assert unmentioned(library, "Comment connecter l'Imprimante au Téléphone ?") == []
    assert unmentioned(library, "How do I connect the printer to my Telephone?") == ["Telephone"]
