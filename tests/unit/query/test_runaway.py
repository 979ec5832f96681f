"""Answers run over several lines and lists, and stop where the base model runs on."""

from __future__ import annotations

from pathlib import Path

from desktop_rag.query.prompt import COMPLETION_STOP
from desktop_rag.query.runaway import Runaway
from desktop_rag.types import DoneEvent, TokenEvent
from tests.fakes import FakeLlm
from tests.helpers.apps import make_app

LIST = (
    "1], there are three hearts:\n- two pump blood through the gills;\n- one pumps it to the body."
)


def _feed(text: str, size: int = 3) -> Runaway:
    guard = Runaway()
    shown = ""
    for i in range(0, len(text), size):
        shown += guard.feed(text[i : i + size])
        if guard.stopped:
            break
    assert shown.rstrip().startswith(guard.answer()), "what was shown is the answer, then less"
    return guard


def test_a_line_break_does_not_end_the_answer() -> None:
    assert "\n" not in COMPLETION_STOP
    guard = _feed(LIST)
    assert not guard.stopped and guard.answer() == LIST


def test_a_new_question_or_an_invented_source_line_ends_it() -> None:
    for tail in (
        " Question: What is the next one?\nAnswer: more",
        "\n[2] octopus.pdf, page 5: The third heart …",
        " [3] 630.pdf, page 4: A comparison between genotypes.",
        "\n- 1565.pdf, page 2: and the presence of a proteinase inhibitor",
    ):
        guard = _feed(LIST + tail)
        assert guard.stopped and guard.answer() == LIST, tail


def test_citing_a_source_by_its_line_is_not_running_on() -> None:
    text = "According to [1] manual.pdf, page 7: press the button for ten seconds."
    assert not _feed(text).stopped


def test_a_repeated_line_ends_it() -> None:
    line = "The orf1ab gene contains 30,847 nucleotides [1]."
    guard = _feed(f"{line}\nIt is the largest gene.\n{line}\n{line}\n")
    assert guard.stopped
    assert guard.answer() == f"{line}\nIt is the largest gene."


def test_short_lines_may_repeat() -> None:
    text = "Doses:\n- Yes.\n- No.\n- Yes.\n- two for adults"
    assert not _feed(text).stopped


def test_an_answer_cut_by_the_token_limit_drops_its_unfinished_sentence() -> None:
    guard = _feed("It has three hearts [1]. Two of them pump blood through the")
    assert guard.answer(hit_limit=True) == "It has three hearts [1]."
    assert guard.answer() == "It has three hearts [1]. Two of them pump blood through the"
    listing = _feed("Three kinds:\n- plains zebra\n- mountain zebra\n- Grevy's")
    assert listing.answer(hit_limit=True) == "Three kinds:\n- plains zebra\n- mountain zebra"
    alone = _feed("It has three hearts and")
    assert alone.answer(hit_limit=True) == "It has three hearts and"  # nothing to cut back to


def test_the_service_streams_a_list_and_stops_at_a_runaway(
    tmp_path: Path, animal_pdfs: Path
) -> None:
    llm = FakeLlm(LIST + "\nQuestion: And the octopus? Answer: eight arms")
    app = make_app(tmp_path, llm)
    app.ingest.index([str(animal_pdfs)])
    events = list(app.answer.ask("How many hearts does an octopus have?"))
    done = events[-1]
    assert isinstance(done, DoneEvent)
    # What the model wrote, as the guard cut it (shown, or replaced by the sources' sentences
    # when they do not back every word of it: test_answer.py tests that).
    assert (done.withheld or done.answer) == "According to [" + LIST
    streamed = "".join(e.text for e in events if isinstance(e, TokenEvent))
    assert "Question" not in streamed and "eight" not in streamed


def test_the_service_trims_an_answer_cut_by_the_token_limit(
    tmp_path: Path, animal_pdfs: Path
) -> None:
    llm = FakeLlm("1], an octopus has three hearts. Two of them pump blood through the gills")
    app = make_app(tmp_path, llm)
    app.ingest.index([str(animal_pdfs)])
    app.answer.answer_tokens = 10
    done = list(app.answer.ask("How many hearts does an octopus have?"))[-1]
    assert isinstance(done, DoneEvent)
    assert done.answer == "According to [1], an octopus has three hearts."


class ScriptedLlm(FakeLlm):
    """A fake model that answers each generation with the next of its scripted texts."""

    def __init__(self, *answers: str) -> None:
        super().__init__(answers[0])
        self.script = list(answers)

    def stream(self, prompt, max_tokens, cancel=None):  # type: ignore[no-untyped-def]
        self.answer = self.script.pop(0) if self.script else ""
        return super().stream(prompt, max_tokens, cancel)


def test_a_list_cut_before_its_first_item_ends_the_answer_there(
    tmp_path: Path, animal_pdfs: Path
) -> None:
    llm = ScriptedLlm("1], the hearts are:", "never asked")
    app = make_app(tmp_path, llm)
    app.ingest.index([str(animal_pdfs)])
    done = list(app.answer.ask("How many hearts does an octopus have?"))[-1]
    assert isinstance(done, DoneEvent) and done.answer == "According to [1], the hearts are:"
    assert len(llm.prompts) == 1
