"""The answer service with the cross-encoder: "your documents don't seem to say" with the closest
passages as sources when no sentence answers, and how sure it was, in the answer's end."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from desktop_rag.cli import ask_json
from desktop_rag.query.prompt import DOCUMENTS_DO_NOT_SAY
from desktop_rag.types import DoneEvent, QuotesEvent, SourcesEvent, TokenEvent
from tests.fakes import FakeLlm, FakeReranker
from tests.helpers.apps import make_app


def _ask(app, question: str):
    events = list(app.answer.ask(question))
    sources = next(e for e in events if isinstance(e, SourcesEvent)).sources
    quotes = next(e for e in events if isinstance(e, QuotesEvent)).quotes
    done = events[-1]
    assert isinstance(done, DoneEvent)
    return sources, quotes, "".join(e.text for e in events if isinstance(e, TokenEvent)), done


def test_a_question_no_sentence_answers_is_refused_with_the_closest_passages(
    tmp_path: Path, animal_pdfs: Path
) -> None:
    app = make_app(tmp_path, FakeLlm(), mode="composed", reranker=FakeReranker(default=0.03))
    app.ingest.index([str(animal_pdfs)])
    sources, quotes, shown, done = _ask(app, "How many hearts does a zebra have?")
    assert shown == done.answer == DOCUMENTS_DO_NOT_SAY
    assert done.refused and done.cited == () and quotes == ()
    assert sources  # the closest passages, shown as sources, not as an answer
    assert done.answerable == 0.03
    assert ask_json(done, sources, quotes)["answerable"] == 0.03


def test_the_answering_sentence_is_the_answer(tmp_path: Path, animal_pdfs: Path) -> None:
    reranker = FakeReranker({"three hearts": 0.9})
    app = make_app(tmp_path, FakeLlm(), mode="composed", reranker=reranker)
    app.ingest.index([str(animal_pdfs)])
    sources, quotes, shown, done = _ask(app, "How many hearts does an octopus have?")
    assert not done.refused and done.mode == "composed"
    assert shown.startswith("An octopus has eight arms and three hearts.")
    assert done.answerable == 0.9
    assert quotes[0].text == "An octopus has eight arms and three hearts."
    # Retrieval read the candidates with the question too: the answering page is first.
    assert (Path(sources[0].path).name, sources[0].page) == ("octopus.pdf", 1)
    json = ask_json(done, sources, quotes)
    assert json["answerable"] == 0.9 and json["mode"] == "composed"


def test_the_services_threshold_is_the_one_applied(tmp_path: Path, animal_pdfs: Path) -> None:
    app = make_app(tmp_path, FakeLlm(), mode="composed", reranker=FakeReranker(default=0.03))
    app.ingest.index([str(animal_pdfs)])
    app.answer.answerable = 0.02
    _, quotes, shown, done = _ask(app, "How many hearts does a zebra have?")
    assert not done.refused and shown != DOCUMENTS_DO_NOT_SAY and quotes
    assert done.answerable == 0.03


def test_a_written_answer_replaced_by_the_composed_one_says_how_sure_that_one_is(
    tmp_path: Path, animal_pdfs: Path
) -> None:
    """A model's answer its sources do not back ("12 hearts" over pages that say three) is
    replaced by the sources' own sentences: the end says how sure those are, as a composed
    answer's does (it was None, so `ask --json` gave no "answerable")."""
    llm = FakeLlm("1], 12 hearts pump octopus blood.")
    app = make_app(tmp_path, llm, reranker=FakeReranker({"three hearts": 0.8}))
    app.ingest.index([str(animal_pdfs)])
    *_, done = app.answer.ask("How many hearts pump octopus blood?")
    assert isinstance(done, DoneEvent)
    assert done.mode == "composed" and done.note and "three hearts" in done.answer
    assert done.answerable == 0.8


def test_a_question_about_a_name_no_passage_mentions_is_refused_naming_it(
    tmp_path: Path, animal_pdfs: Path
) -> None:
    """The octopus pages answer "how many hearts" fairly well (0.5), but not for the Genoa
    Aquarium's octopus: no passage mentions it, so the answer says so instead of the hearts."""
    app = make_app(tmp_path, FakeLlm(), mode="composed", reranker=FakeReranker({"hearts": 0.5}))
    app.ingest.index([str(animal_pdfs)])
    sources, quotes, shown, done = _ask(
        app, "How many hearts does the octopus at the Genoa Aquarium have?"
    )
    assert done.refused and quotes == () and done.cited == ()
    assert shown == done.answer
    assert shown.startswith("Your documents don't seem to mention “Genoa Aquarium”.")
    assert sources and done.answerable == 0.5
    # Below the plain threshold too, the name is what the answer says is missing.
    app.answer.answerable = 0.6
    *_, done = _ask(app, "How many hearts does the octopus at the Genoa Aquarium have?")
    assert done.answer.startswith("Your documents don't seem to mention “Genoa Aquarium”.")
    app.answer.answerable = 0.1
    # The same question without the name is answered from the same sentences.
    _, quotes, shown, done = _ask(app, "How many hearts does an octopus have?")
    assert not done.refused and "three hearts" in shown


def test_a_sentence_that_surely_answers_is_given_whatever_the_names(
    tmp_path: Path, animal_pdfs: Path
) -> None:
    app = make_app(tmp_path, FakeLlm(), mode="composed", reranker=FakeReranker({"hearts": 0.95}))
    app.ingest.index([str(animal_pdfs)])
    _, _, shown, done = _ask(app, "How many hearts does the octopus at the Genoa Aquarium have?")
    assert not done.refused and "three hearts" in shown


def test_a_follow_up_about_it_is_answered_about_it_not_the_question_before(
    tmp_path: Path, animal_pdfs: Path
) -> None:
    """ "How many hearts pump it?" after an answer about octopus blood is searched with the
    previous question, but its answer is what says how many hearts pump octopus blood, not
    why it is blue again (the composed answer was chosen for both questions joined)."""
    from desktop_rag.types import Turn

    app = make_app(tmp_path, FakeLlm(), mode="composed", reranker=FakeReranker(default=0.5))
    app.ingest.index([str(animal_pdfs)])
    history = [
        Turn("Why is octopus blood blue?", "Octopus blood is blue because it uses hemocyanin.")
    ]
    events = list(app.answer.ask("How many hearts pump it?", history))
    done = events[-1]
    assert isinstance(done, DoneEvent) and not done.refused
    assert "hearts" in done.answer.split(".")[0], done.answer
    assert "hemocyanin" not in done.answer, done.answer


def test_a_model_that_writes_is_not_asked_what_no_sentence_answers(
    tmp_path: Path, animal_pdfs: Path
) -> None:
    """Issue 43: the cross-encoder's judgement refuses before the model reads a prompt, so a
    written answer is refused as often as a composed one, and as fast."""
    llm = FakeLlm("1], zebras have 12 hearts.", chat=True)
    app = make_app(tmp_path, llm, mode="written", reranker=FakeReranker(default=0.03))
    app.ingest.index([str(animal_pdfs)])
    sources, quotes, shown, done = _ask(app, "How many hearts does a zebra have?")
    assert shown == done.answer == DOCUMENTS_DO_NOT_SAY and done.refused
    assert sources and quotes == ()
    assert llm.prompts == [], "the model was not asked"


def test_the_model_is_shown_the_answering_sentences_marked(
    tmp_path: Path, animal_pdfs: Path
) -> None:
    llm = FakeLlm("An octopus has three hearts [1].", chat=True)
    reranker = FakeReranker({"three hearts": 0.9})
    app = make_app(tmp_path, llm, mode="written", reranker=reranker)
    app.ingest.index([str(animal_pdfs)])
    _, quotes, _, done = _ask(app, "How many hearts does an octopus have?")
    assert done.mode == "written" and not done.refused and "three hearts" in done.answer
    read = "\n".join(text for _, text in llm.prompts[-1].messages)
    assert "<<An octopus has eight arms and three hearts.>>" in read
    # The quotes shown while it reads are those sentences.
    assert quotes[0].text == "An octopus has eight arms and three hearts."


@pytest.mark.parametrize(
    "refusal",
    ["The sources do not say.", "The sources do not provide information on octopus hearts."],
)
def test_a_model_finding_no_answer_where_sentences_answer_shows_them_and_says_why(
    tmp_path: Path, animal_pdfs: Path, refusal: str
) -> None:
    llm = FakeLlm(refusal, chat=True)
    app = make_app(tmp_path, llm, mode="written", reranker=FakeReranker({"three hearts": 0.9}))
    app.ingest.index([str(animal_pdfs)])
    _, _, _, done = _ask(app, "How many hearts does an octopus have?")
    assert not done.refused and done.mode == "composed"
    assert done.answer.startswith("An octopus has eight arms and three hearts.")
    assert done.withheld == refusal
    assert "found no answer in the sources" in done.note


def test_a_model_reads_the_first_pages_and_every_page_found_is_shown(
    tmp_path: Path, animal_pdfs: Path
) -> None:
    llm = FakeLlm("An octopus has three hearts [1].", chat=True)
    app = make_app(tmp_path, llm, mode="written", reranker=FakeReranker({"three hearts": 0.9}))
    app.ingest.index([str(animal_pdfs)])
    app.answer.written_sources = 2
    app.answer.written_floor = 0.0  # pages that answer nothing are read too (the test below)
    sources, _, _, done = _ask(app, "How many hearts does an octopus have?")
    read = "\n".join(text for _, text in llm.prompts[-1].messages)
    assert "[2]" in read and "[3]" not in read
    assert len(sources) > 2, "the sources shown are all those found"
    assert done.mode == "written"


def test_pages_after_the_last_that_answers_are_not_read_by_the_model(
    tmp_path: Path, animal_pdfs: Path
) -> None:
    """Issue 43, item 5: a page none of whose sentences answers (and the composed answer does
    not cite) is left out of the prompt when every page read after it is such a page too: the
    model reads fewer tokens before its first word. Every page found is still shown."""
    llm = FakeLlm("An octopus has three hearts [1].", chat=True)
    reranker = FakeReranker({"three hearts": 0.9}, default=0.01)
    app = make_app(tmp_path, llm, mode="written", reranker=reranker)
    app.ingest.index([str(animal_pdfs)])
    sources, _, _, done = _ask(app, "How many hearts does an octopus have?")
    read = "\n".join(text for _, text in llm.prompts[-1].messages)
    assert "[1]" in read and "[2]" not in read, read
    assert len(sources) > 1, "the sources shown are all those found"
    assert done.mode == "written" and "three hearts" in done.answer
    # With the floor at 0 the model reads the first pages, as before.
    app.answer.written_floor = 0.0
    _ask(app, "How many hearts does an octopus have?")
    assert "[2]" in "\n".join(text for _, text in llm.prompts[-1].messages)


def test_an_answer_from_what_the_model_knows_gives_way_to_the_answering_sentences(
    tmp_path: Path, animal_pdfs: Path
) -> None:
    """Sources the cross-encoder found answering are not refused because the model wrote from
    what it knows: their sentences are shown, and why."""
    llm = FakeLlm("1], the capital of France is Paris.", chat=True)
    app = make_app(tmp_path, llm, mode="written", reranker=FakeReranker({"three hearts": 0.9}))
    app.ingest.index([str(animal_pdfs)])
    app.answer.weak_match = 1.01  # every source counts as a weak match here
    _, _, _, done = _ask(app, "How many hearts does an octopus have?")
    assert not done.refused and done.mode == "composed" and "three hearts" in done.answer
    assert "Paris" in done.withheld and "their own sentences are shown instead" in done.note


def _read_lines(llm: FakeLlm) -> dict[str, str]:
    """The source lines of the model's last prompt, by their file and page."""
    read = "\n".join(text for _, text in llm.prompts[-1].messages)
    lines = re.findall(r"^\[\d+\] (\S+\.pdf, page \d+): (.*)$", read, re.MULTILINE)
    return dict(lines)


def test_a_page_read_between_those_that_answer_is_given_by_its_best_sentence(
    tmp_path: Path, animal_pdfs: Path
) -> None:
    """Issue 43, item 5: a page the model reads that answers nothing (not cited, its best
    sentence below `written_brief`) is given by that sentence alone, so the model reads fewer
    tokens before its first word; its number stays the one the user sees."""
    llm = FakeLlm("An octopus has three hearts [1].", chat=True)
    reranker = FakeReranker({"three hearts": 0.9, "Zebras are": 0.05}, default=0.01)
    app = make_app(tmp_path, llm, mode="written", reranker=reranker)
    app.ingest.index([str(animal_pdfs)])
    app.answer.written_floor = 0.0  # every page found is read (up to the first four)
    _ask(app, "How many hearts does an octopus have?")
    briefed = _read_lines(llm)
    app.answer.written_brief = 0.0  # each page read whole, as before
    _ask(app, "How many hearts does an octopus have?")
    whole = _read_lines(llm)
    assert briefed.keys() == whole.keys() and len(whole) > 1
    weak = {k for k in whole if not k.startswith("octopus.pdf, page 1")}
    assert weak, whole
    for k in weak:
        sentences = [s for s in re.split(r"(?<=\.) ", whole[k]) if s]
        if len(sentences) > 1:
            assert briefed[k] in {f"{s} …" for s in sentences}, (k, briefed[k])
    zebra = whole.get("zebra.pdf, page 1")
    if zebra is not None:  # its best sentence, by the cross-encoder, is the one given
        assert briefed["zebra.pdf, page 1"].startswith("Zebras are African equines")
    assert briefed["octopus.pdf, page 1"] == whole["octopus.pdf, page 1"]
