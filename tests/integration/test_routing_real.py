"""Questions routed by their kind (desktop_rag/routing.py) with the real embedder, real LanceDB
and real covid-qa PDFs, through the CLI as a user runs it: a library question lists the
documents, a document question outlines the file it names, a fact question gets passages."""

from __future__ import annotations

import json
import os

import pytest

from tests.helpers.cli import cli

pytestmark = pytest.mark.slow

ARTICLES = ("630.pdf", "650.pdf", "1545.pdf", "1546.pdf")
IFITM = "What inhibits S-palmitoylation?"  # 650.pdf, page 1


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    from tests.conftest import CORPUS

    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not here")
    root = tmp_path_factory.mktemp("routing")
    paths = [str(CORPUS / "covid-qa" / "pdf" / name) for name in ARTICLES]
    result = cli("index", *paths, "--json", data_dir=root / "data")
    assert result.returncode == 0, result.stderr
    return root / "data"


def _ask(data, *argv: str) -> dict:
    result = cli("ask", *argv, "--answers", "composed", "--json", data_dir=data)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_library_question_lists_the_documents_as_documents_query_does(data) -> None:
    listed = _ask(data, "Which of my documents mention S-palmitoylation?")
    assert listed["mode"] == "listing", listed["answer"]
    first = listed["sources"][0]
    assert os.path.basename(first["path"]) == "650.pdf" and first["matches"] >= 1
    assert "palmitoylation" in first["text"].lower()
    found = cli("documents", "S-palmitoylation", "--json", data_dir=data)
    documents = json.loads(found.stdout)["documents"]
    assert [(d["path"], d["page"], d["matches"]) for d in documents] == [
        (s["path"], s["page"], s["matches"]) for s in listed["sources"]
    ]
    counted = _ask(data, "How many documents do I have?")
    assert counted["mode"] == "listing" and counted["answer"].startswith("4 documents:")


def test_a_document_question_outlines_the_file_it_names(data) -> None:
    body = _ask(data, "Summarise 630.pdf")
    assert body["mode"] == "outline", body["answer"]
    assert body["answer"].startswith("Outline of 630.pdf")
    assert {os.path.basename(s["path"]) for s in body["sources"]} == {"630.pdf"}


def test_a_fact_question_gets_passages_and_the_kind_can_be_overridden(data) -> None:
    body = _ask(data, IFITM)
    assert body["mode"] == "composed"
    assert os.path.basename(body["sources"][0]["path"]) == "650.pdf"
    forced = _ask(data, IFITM, "--kind", "library")
    assert forced["mode"] == "listing"
    assert os.path.basename(forced["sources"][0]["path"]) == "650.pdf"
