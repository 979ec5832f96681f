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
