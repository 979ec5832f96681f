"""The prompt: fixed prefix first, numbered sources fitted to the context, turns, citations."""

from __future__ import annotations

from desktop_rag.query.prompt import (
    COMPLETION_ANSWER_PREFIX,
    COMPLETION_STOP,
    INSTRUCTIONS,
    build_prompt,
    clean_lines,
    clean_source,
    merge_hits,
    number_sources,
    parse_citations,
)
from desktop_rag.types import Hit, Turn
from tests.fakes import FakeLlm


def hit(text: str, page: int = 1, path: str = "/docs/a.pdf", start: int = 0, **kw) -> Hit:
    return Hit(
        chunk_id=f"{path}:{page}:{start}",
        doc_id=path,
        path=path,
        page=page,
        start=start,
        end=start + len(text),
        text=text,
        score=kw.get("score", 0.5),
        similarity=kw.get("similarity", 0.5),
    )


def test_fixed_prefix_then_numbered_sources_then_question() -> None:
    tok = FakeLlm()
    hits = [hit("Octopus blood is blue.", page=2), hit("Zebras have stripes.", 1, "/x/z.pdf")]
    fitted = build_prompt(
        "Why is octopus blood blue?", hits, tok, context_size=2048, answer_tokens=100
    )
    text = fitted.prompt.text
    assert text.startswith(INSTRUCTIONS)
    one = text.index("[1] a.pdf, page 2: Octopus blood is blue.")
    two = text.index("[2] z.pdf, page 1: Zebras have stripes.")
    question = text.rindex("Question: Why is octopus blood blue?")
    assert one < two < question
    assert text.endswith("Answer: " + COMPLETION_ANSWER_PREFIX)
    assert fitted.prompt.answer_prefix == COMPLETION_ANSWER_PREFIX
    assert fitted.prompt.stop == COMPLETION_STOP
    assert [(s.n, s.path, s.page) for s in fitted.sources] == [
        (1, "/docs/a.pdf", 2),
        (2, "/x/z.pdf", 1),
    ]


def test_prefix_is_identical_across_questions_so_llama_cpp_can_reuse_it() -> None:
    tok = FakeLlm()
    a = build_prompt("first?", [hit("alpha text")], tok, context_size=2048, answer_tokens=64)
    b = build_prompt("second?", [hit("beta text")], tok, context_size=2048, answer_tokens=64)
    cut = a.prompt.text.rindex("Sources:\n[1]")
    assert a.prompt.text[:cut] == b.prompt.text[:cut]
    assert cut > 200  # instructions and worked examples, not just a line


def test_sources_are_fitted_to_the_context_with_room_for_the_answer() -> None:
    tok = FakeLlm()
    long_text = " ".join(f"word{i}" for i in range(400))
    hits = [hit(long_text, page=p) for p in range(1, 9)]
    # Room for two whole sources (about 405 tokens each) and the start of a third.
    empty = tok.count_tokens(
        build_prompt("What?", [], tok, context_size=4000, answer_tokens=200).prompt.text
    )
    context = empty + 200 + 48 + 1000  # 48: TEMPLATE_SLACK
    fitted = build_prompt("What?", hits, tok, context_size=context, answer_tokens=200)
    used = tok.count_tokens(fitted.prompt.text)
    assert used + 200 <= context
    assert len(fitted.sources) == 3
    assert 1 <= len(fitted.sources) < 8
    assert fitted.dropped == 8 - len(fitted.sources)
    assert fitted.truncated == 1
    assert fitted.sources[-1].text.endswith("…")
    # Everything before the cut source is whole.
    assert all(s.text == long_text for s in fitted.sources[:-1])


def test_a_source_that_would_be_cut_to_a_sliver_is_dropped_instead() -> None:
    tok = FakeLlm()
    base = build_prompt("What?", [], tok, context_size=4000, answer_tokens=100)
    room = 4000 - 100 - tok.count_tokens(base.prompt.text) - 48  # TEMPLATE_SLACK
    first = " ".join(["w"] * (room - 30))
    fitted = build_prompt(
        "What?", [hit(first), hit("x " * 300, page=2)], tok, context_size=4000, answer_tokens=100
    )
    assert len(fitted.sources) == 1
    assert fitted.dropped == 1


def test_passages_of_a_page_become_one_source_and_other_pages_stay_apart() -> None:
    page = "Alpha beta gamma. Delta epsilon zeta. Eta theta iota."
    a = hit(page[0:30], start=0)
    b = hit(page[20:], start=20)
    far = hit("Elsewhere on the page.", start=500)
    inside = hit(page[5:15], start=5)  # wholly inside a: adds nothing
    other_page = hit(page[20:], page=2, start=20)
    merged = merge_hits([b, far, other_page, a, inside])
    assert len(merged) == 2
    # Overlapping chunks are spliced; a passage further down the page follows after " … ".
    assert merged[0].text == page + " … Elsewhere on the page."
    assert (merged[0].start, merged[0].end) == (0, 500 + len("Elsewhere on the page."))
    assert merged[0].chunk_id == b.chunk_id  # the page keeps its best passage's rank
    assert merged[1].page == 2
    assert merged[1].text == page[20:]


def test_reference_marks_in_documents_do_not_look_like_our_citations() -> None:
    tok = FakeLlm()
    fitted = build_prompt(
        "q?",
        [hit("Shown before [12], and in [3, 4] too.")],
        tok,
        context_size=2048,
        answer_tokens=64,
    )
    assert fitted.sources[0].text == "Shown before, and in too."


def test_a_reference_mark_before_a_stop_leaves_no_space_before_it() -> None:
    # Issue 41: a paper's "in 3 cases [5] ." read "in 3 cases ." once its mark was dropped.
    text = "Seen in 3 cases [5] . Then in foals [6, 7] , and adults [8]."
    expected = "Seen in 3 cases. Then in foals, and adults."
    assert clean_source(text) == expected
    assert clean_lines(text) == expected
    assert number_sources([hit(text)])[0].text == expected


def test_recent_turns_come_after_sources_without_their_old_citations() -> None:
    tok = FakeLlm()
    history = [Turn(f"question {i}?", f"According to [1], answer {i} [2].") for i in range(5)]
    fitted = build_prompt(
        "and in 2022?",
        [hit("Revenue in 2022 was 5.")],
        tok,
        context_size=2048,
        answer_tokens=64,
        history=history,
    )
    text = fitted.prompt.text
    assert fitted.turns == 3
    assert "question 1?" not in text
    for i in (2, 3, 4):
        assert f"Question: question {i}?\nAnswer: answer {i}.\n" in text
    assert text.index("[1] a.pdf") < text.index("question 2?") < text.index("and in 2022?")


def test_turns_give_way_to_sources_in_a_small_context() -> None:
    tok = FakeLlm()
    history = [Turn("q?", " ".join(["long"] * 150)) for _ in range(3)]
    fitted = build_prompt(
        "and then?",
        [hit("fact " * 100)],
        tok,
        context_size=1000,
        answer_tokens=100,
        history=history,
    )
    assert fitted.turns < 3
    assert tok.count_tokens(fitted.prompt.text) + 100 <= 1000


def test_chat_models_get_messages_with_the_instructions_first() -> None:
    tok = FakeLlm(chat=True)
    history = [Turn("Earlier?", "Earlier answer [1].")]
    fitted = build_prompt(
        "Now?",
        [hit("Some fact.")],
        tok,
        context_size=2048,
        answer_tokens=64,
        history=history,
        chat=True,
    )
    roles = [role for role, _ in fitted.prompt.messages]
    assert roles == ["system", "user", "assistant", "user"]
    assert "[1] a.pdf, page 1: Some fact." in fitted.prompt.messages[-1][1]
    assert fitted.prompt.messages[-1][1].endswith("Question: Now?")
    assert fitted.prompt.answer_prefix == ""
    assert fitted.prompt.text == ""


def test_parse_citations_keeps_existing_sources_in_order() -> None:
    assert parse_citations("A [2], B [1][2], C [7].", 3) == (2, 1)
    assert parse_citations("See [1, 3] and [2-3].", 3) == (1, 3, 2)
    assert parse_citations("No citation here.", 3) == ()
    assert parse_citations("[0] and [4]", 3) == ()


def test_the_marks_a_model_copies_are_not_shown() -> None:
    from desktop_rag.query.prompt import unmarked

    pieces = ["<", "<Hold the", " button>", ">", " for 15 s [1]. If x <", " 3, stop."]
    assert "".join(unmarked(iter(pieces))) == "Hold the button for 15 s [1]. If x < 3, stop."

    class Stream:
        closed = False

        def __iter__(self):  # type: ignore[no-untyped-def]
            yield "<<One"
            yield " more>>"

        def close(self) -> None:
            Stream.closed = True

    stream = unmarked(Stream())
    assert next(stream) == "One"
    stream.close()
    assert Stream.closed, "closing the shown stream ends the model's"


def test_a_source_lines_head_a_model_copies_is_not_its_claim() -> None:
    from desktop_rag.query.prompt import unechoed

    assert unechoed("R-admin.pdf, page 30: Some possible reasons [1].") == (
        "Some possible reasons [1]."
    )
    assert unechoed("It is 2504.pdf, page 2: IL-25 [1]") == "It is IL-25 [1]"
    assert unechoed("See page 2: the table.") == "See page 2: the table."
