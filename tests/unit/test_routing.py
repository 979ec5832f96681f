"""`ask` sends a library question to a list of documents and a document question to its
outline (desktop_rag/routing.py), with a fake embedder and model over real LanceDB and PDFs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_rag.app import App
from desktop_rag.routing import fields_of, subject
from tests.fakes import FakeLlm
from tests.helpers.apps import make_app
from tests.helpers.cli import run_in_process
from tests.pdfgen import make_pdf


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> tuple[App, Path]:
    tmp_path = tmp_path_factory.mktemp("routing")
    lib = tmp_path / "lib"
    make_pdf(lib / "boiler.pdf", ["The boiler warranty lasts five years.", "Filters."])
    make_pdf(lib / "roof.pdf", ["The roof warranty lasts ten years, tiles included."])
    make_pdf(lib / "garden.pdf", ["Roses need sun. Water the lawn weekly in summer."])
    app = make_app(tmp_path, FakeLlm(), mode=None)
    app.ingest.index([str(lib)])
    return app, lib


def _ask(app: App, argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[dict, str]:
    code, out, err = run_in_process(app, ["ask", *argv, "--json"], capsys)
    assert code == 0, err
    return json.loads(out), err


def test_a_library_question_lists_the_documents_that_mention_it(library, capsys) -> None:
    app, _ = library
    body, _ = _ask(app, ["Which of my documents mention the warranty?"], capsys)
    assert body["mode"] == "listing"
    listed = [Path(s["path"]).name for s in body["sources"]]
    assert set(listed) == {"boiler.pdf", "roof.pdf"}, body["answer"]
    assert body["answer"].startswith("2 documents mention or discuss “warranty”:")
    assert "boiler.pdf, 1 matching passage [" in body["answer"]


def test_how_many_documents_counts_them_all(library, capsys) -> None:
    app, _ = library
    body, _ = _ask(app, ["How many documents do I have?"], capsys)
    assert body["mode"] == "listing" and body["answer"].startswith("3 documents:")


def test_a_document_question_outlines_the_file_it_names(library, capsys) -> None:
    app, _ = library
    body, _ = _ask(app, ["Summarise roof.pdf please"], capsys)
    assert body["mode"] == "outline"
    assert body["answer"].startswith("Outline of roof.pdf")
    assert {Path(s["path"]).name for s in body["sources"]} == {"roof.pdf"}


def test_a_document_question_without_its_document_is_answered_from_passages(
    library, capsys
) -> None:
    app, _ = library
    args = ["What is this document about?"]
    body, _ = _ask(app, args, capsys)
    assert body["mode"] not in ("outline", "listing")
    # Limited to one file, the same question outlines it.
    body, _ = _ask(app, [*args, "--in", str(library[1] / "garden.pdf")], capsys)
    assert body["mode"] == "outline" and "garden.pdf" in body["answer"]


def test_the_user_overrides_the_kind(library, capsys) -> None:
    app, _ = library
    body, _ = _ask(
        app, ["Which of my documents mention the warranty?", "--kind", "passage"], capsys
    )
    assert body["mode"] not in ("outline", "listing")


def test_what_a_library_question_is_about() -> None:
    assert subject("Which of my documents mention the warranty?") == "warranty"
    assert subject("List my documents") == ""
    assert fields_of("How many PDFs are from 2024?").year == 2024
    assert fields_of("How many PDFs are from 2024?").format == "pdf"


def test_a_listed_document_carries_its_best_passage_and_its_count(library, capsys) -> None:
    # The window's list of documents shows each one's count and opens its best passage.
    app, _ = library
    body, _ = _ask(app, ["Which of my documents mention the warranty?"], capsys)
    by_name = {Path(s["path"]).name: s for s in body["sources"]}
    assert by_name["boiler.pdf"]["matches"] == 1
    assert "boiler warranty lasts five years" in by_name["boiler.pdf"]["text"]
    assert by_name["boiler.pdf"]["score"] > 0


def test_no_match_without_a_scope_is_not_said_of_a_scope(library, capsys) -> None:
    # "PDFs" narrows the search to the PDFs' files, which is no scope the user gave.
    app, lib = library
    body, _ = _ask(app, ["Which of my PDFs mention volcanoes?"], capsys)
    assert body["answer"] == "No document matches “volcanoes”.", body["answer"]
    body, _ = _ask(app, ["Which documents mention volcanoes?", "--in", str(lib)], capsys)
    assert body["answer"] == "No document in lib matches “volcanoes”.", body["answer"]


def test_the_cli_and_a_library_question_narrow_by_fields_alike(library, capsys) -> None:
    app, _ = library
    code, out, err = run_in_process(
        app, ["documents", "warranty", "--format", "pdf", "--json"], capsys
    )
    assert code == 0, err
    listed = {Path(d["path"]).name for d in json.loads(out)["documents"]}
    body, _ = _ask(app, ["Which of my PDFs mention the warranty?"], capsys)
    assert {Path(s["path"]).name for s in body["sources"]} == listed == {"boiler.pdf", "roof.pdf"}
    code, out, _ = run_in_process(
        app, ["documents", "warranty", "--format", "docx", "--json"], capsys
    )
    assert json.loads(out)["documents"] == []


def test_a_routed_outline_prints_no_separate_quotes_when_the_model_writes(library, capsys) -> None:
    # The outline is made of its sentences: printing them again as "the sources' own words"
    # above it says them twice. The mode is the outline's, not the model's.
    app, _ = library
    try:
        code, out, err = run_in_process(
            app, ["ask", "Summarise roof.pdf please", "--answers", "written"], capsys
        )
    finally:
        app.answer.mode = None
    assert code == 0, err
    assert "Outline of roof.pdf" in out
    assert "In the sources' own words" not in out


def test_the_subject_is_said_in_the_questions_own_words() -> None:
    from desktop_rag.routing import in_own_words

    question = "Which reports from 2024 mention Volcanoes and lava?"
    assert in_own_words(question, subject(question)) == "Volcanoes lava"


def test_a_model_that_writes_summarises_a_routed_outline_the_bundled_one_does_not(
    library, capsys
) -> None:
    from tests.fakes import FakeLlm

    app, _ = library
    old = app.answer.use_llm(FakeLlm("The roof warranty lasts ten years [1]."))
    try:
        code, out, err = run_in_process(
            app, ["ask", "Summarise roof.pdf please", "--answers", "written", "--json"], capsys
        )
        assert code == 0, err
        body = json.loads(out)
        assert body["mode"] == "summary", body
        assert body["answer"].startswith("The roof warranty lasts ten years [1].\n\nOutline of")
        code, out, err = run_in_process(
            app, ["ask", "Summarise roof.pdf please", "--answers", "composed", "--json"], capsys
        )
        body = json.loads(out)
        assert body["mode"] == "outline" and body["answer"].startswith("Outline of roof.pdf")
    finally:
        app.answer.use_llm(old)
        app.answer.mode = None


def test_a_withheld_summary_prints_its_note_and_the_outline_once(library, capsys) -> None:
    from tests.fakes import FakeLlm

    app, _ = library
    old = app.answer.use_llm(FakeLlm("Nikola Tesla built this roof in 1890 [1]."))
    try:
        code, out, err = run_in_process(
            app, ["ask", "Summarise roof.pdf please", "--answers", "written"], capsys
        )
    finally:
        app.answer.use_llm(old)
        app.answer.mode = None
    assert code == 0, err
    assert "so only its outline is shown" in out
    assert out.count("Outline of roof.pdf") == 1, out


def test_a_cancelled_document_question_stops_before_its_outline_is_built(tmp_path) -> None:
    """Esc stops a routed summary as it stops a passage answer: `Questions.ask` hands the
    cancel to the outline's build, which ends at once with a cancelled answer."""
    import threading

    from desktop_rag.routing import Questions
    from desktop_rag.types import DoneEvent

    sentences = [
        f"The pump number {n} needs its filter changed every {n} months." for n in range(9)
    ]
    make_pdf(tmp_path / "lib" / "pumps.pdf", sentences)
    app = make_app(tmp_path, FakeLlm(), mode=None)
    app.ingest.index([str(tmp_path / "lib")])
    cancel = threading.Event()
    cancel.set()
    questions = Questions(app)
    routed = questions.decide("Summarise pumps.pdf please")
    assert routed.document.endswith("pumps.pdf")
    events = list(questions.ask("Summarise pumps.pdf please", cancel=cancel, routed=routed))
    assert len(events) == 1 and isinstance(events[0], DoneEvent) and events[0].cancelled
    done = list(questions.ask("Summarise pumps.pdf please", routed=routed))[-1]
    assert isinstance(done, DoneEvent) and not done.cancelled and "pump" in done.answer


def test_every_kind_of_question_is_asked_with_the_team_library_tried_afresh(library) -> None:
    """A library question is asked like a passage question: a team library that failed in
    the question before is tried again, and its failure is said on the sources."""
    from desktop_rag import team
    from desktop_rag.config import Settings
    from desktop_rag.routing import Questions
    from desktop_rag.types import SourcesEvent

    app, _ = library
    searched = team.attach(app, Settings(), "s3://team-bucket/library")
    assert searched is not None
    tried: list[str] = []

    def unreachable(query, k, mode, scope):  # type: ignore[no-untyped-def]
        tried.append(query)
        searched.failed = "The team library at s3://team-bucket/library did not answer."
        return []

    searched.search = unreachable  # type: ignore[method-assign]
    try:
        for question in (
            "Which of my documents mention the warranty?",
            "How long is the roof warranty?",
        ):
            searched.failed = "failed before"
            events = list(Questions(app).ask(question))
            sources = next(e for e in events if isinstance(e, SourcesEvent))
            assert sources.notice.startswith("The team library at s3://team-bucket/library")
        assert tried
    finally:
        team.attach(app, Settings())
    assert app.retriever.team is None
