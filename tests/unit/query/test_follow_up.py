"""Follow-ups join the previous question only when they refer back, and keep matching hits."""

from __future__ import annotations

import pytest

from desktop_rag.query import follow_up
from desktop_rag.query.follow_up import matching, refers_back, retrieval_query
from desktop_rag.types import Hit, Turn


@pytest.mark.parametrize(
    "question",
    [
        "And for children?",
        "and in 2022?",
        "What about the side effects?",
        "How many hearts does it have?",
        "What is their incubation period?",
        "Is this drug safe in pregnancy?",
        "Why?",
        "In 2022?",
        "But how?",
        "Side effects?",
        "Capital of France?",
    ],
)
def test_questions_that_refer_back(question: str) -> None:
    assert refers_back(question)


@pytest.mark.parametrize(
    "question",
    [
        "What is the capital of France?",
        "Who won the football world cup?",
        "How do I install an extension?",
        "What was Apple's revenue in 2022?",
        "Which drug treats the infection that follows surgery?",
        "Is the vaccine safe?",
        "Explain the reset procedure",
    ],
)
def test_questions_that_stand_alone(question: str) -> None:
    assert not refers_back(question)


def test_only_a_question_that_refers_back_is_joined() -> None:
    history = [Turn("How do I install an extension?", "According to [1], open Tools.")]
    assert retrieval_query("What is the capital of France?", history) == (
        "What is the capital of France?"
    )
    assert retrieval_query("And how do I remove it?", history) == (
        "How do I install an extension? And how do I remove it?"
    )
    assert retrieval_query("And how do I remove it?", []) == "And how do I remove it?"


def _hit(text: str) -> Hit:
    return Hit("c", "d", "/m.pdf", 1, 0, len(text), text, 1.0, 0.5)


def test_joined_hits_must_hold_a_word_of_the_new_question() -> None:
    hits = [_hit("Open the Tools menu to install extensions."), _hit("Remove an extension here.")]
    assert matching(hits, "And for France?") == []
    assert matching(hits, "And how do I remove it?") == [hits[1]]
    assert matching(hits, "Why?") == hits  # nothing of its own to check


# Issue 41, item 9: a follow-up that points at an item of the previous answer.
VIRUSES = Turn(
    "Which viruses were the samples tested for?",
    "The samples were tested for equine coronavirus and equine rotavirus [1].",
)


@pytest.mark.parametrize(
    ("question", "item"),
    [
        ("and what about the second one?", "equine rotavirus"),
        ("What about the first one?", "equine coronavirus"),
        ("and the latter?", "equine rotavirus"),
        ("Tell me more about the last one", "equine rotavirus"),
    ],
)
def test_a_follow_up_pointing_at_an_item_is_asked_about_that_item(question, item) -> None:
    from desktop_rag.query.follow_up import pointed_item

    assert pointed_item(question, VIRUSES.answer) == item
    query = follow_up.retrieval_query(question, [VIRUSES])
    assert item in query, query
    assert "coronavirus" not in query or item == "equine coronavirus", query
    # The passages kept need not hold "second" or "one".
    hits = [_hit("Equine rotavirus was found in two foals.")]
    assert follow_up.matching(hits, question) == hits


def test_an_answer_listing_items_one_a_line() -> None:
    from desktop_rag.query.follow_up import pointed_item

    answer = "Two viruses were found:\n- Human coronavirus OC43 [1]\n- Influenza A virus [2]"
    assert pointed_item("and the second one?", answer) == "Influenza A virus"
    assert pointed_item("Why?", answer) is None


# Issue 41, item 9: "that one" and "it" stand for the previous answer's one clear subject, and
# for nothing when it named several things (or none): the question is then left as it was.
FOUND = Turn(
    "Which virus was detected in the foals?",
    "Equine coronavirus was detected in faeces samples from both foals and adult horses [1].",
)
BARE = Turn("Which virus was found in the foals?", "Equine coronavirus [1].")


@pytest.mark.parametrize(
    ("question", "resolved"),
    [
        ("How is it transmitted?", "How is equine coronavirus transmitted?"),
        ("What are its symptoms?", "What are equine coronavirus symptoms?"),
        ("Tell me more about that one", "Tell me more about equine coronavirus"),
        ("and is this one found in adults too?", "and is equine coronavirus found in adults too?"),
        ("What is it?", "What is equine coronavirus?"),
    ],
)
def test_it_and_that_one_stand_for_the_previous_answers_subject(question, resolved) -> None:
    from desktop_rag.query.follow_up import resolve_pointer

    labelled = Turn(
        "What is equine coronavirus?",
        "Text: Equine coronavirus is a positive-stranded RNA virus [1].",  # a page's label
    )
    for turn in (FOUND, BARE, labelled):
        assert resolve_pointer(question, turn.answer) == resolved, turn.answer
        query = retrieval_query(question, [turn])
        assert query == f"{turn.question} {resolved}", query


@pytest.mark.parametrize(
    "answer",
    [
        # Several things named: which one "it" is cannot be told.
        VIRUSES.answer,
        "Horses were tested for equine coronavirus and equine rotavirus [1].",
        "Equine coronavirus and equine rotavirus [1].",
        "Two viruses were found:\n- Human coronavirus OC43 [1]\n- Influenza A virus [2]",
        # No clear subject: a pronoun, a "there is", a refusal, a long sentence of its own.
        "It was detected in faeces samples [1].",
        "There was a significant horse industry in Ireland [1].",
        "The documents do not seem to say.",
        "Samples collected from horses in a riding school in the West of Ireland were "
        "positive for the virus [1].",
    ],
)
def test_it_is_left_alone_when_the_previous_answer_names_no_one_subject(answer) -> None:
    from desktop_rag.query.follow_up import resolve_pointer

    turn = Turn("Which viruses were the samples tested for?", answer)
    assert resolve_pointer("How is it transmitted?", answer) is None
    assert retrieval_query("How is it transmitted?", [turn]) == (
        f"{turn.question} How is it transmitted?"
    )


@pytest.mark.parametrize(
    "question",
    [
        "Is it possible to vaccinate foals?",
        "Is it true that adults are infected?",
        "How long does it take to recover?",
        "What do they have in common with it?",  # "they" points elsewhere too
    ],
)
def test_it_that_points_at_nothing_is_left_alone(question) -> None:
    from desktop_rag.query.follow_up import resolve_pointer

    assert resolve_pointer(question, FOUND.answer) is None
