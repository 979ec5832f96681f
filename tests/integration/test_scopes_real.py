"""Scopes and document lists with the real embedder, real LanceDB and real covid-qa PDFs,
through the CLI as a user runs it."""

from __future__ import annotations

import json
import os

import pytest

from tests.helpers.cli import cli

pytestmark = pytest.mark.slow

ARTICLES = ("630.pdf", "650.pdf", "1545.pdf", "1546.pdf")
HIV = "What is the main cause of HIV-1 infection in children?"  # 630.pdf, page 1
IFITM = "What inhibits S-palmitoylation?"  # 650.pdf, page 1


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, corpus_dir):
    root = tmp_path_factory.mktemp("scopes")
    paths = {name: str(corpus_dir / "covid-qa" / "pdf" / name) for name in ARTICLES}
    data = root / "data"
    result = cli("index", *paths.values(), "--json", data_dir=data)
    assert result.returncode == 0, result.stderr
    return paths, data


@pytest.fixture(scope="module")
def corpus_dir():
    from tests.conftest import CORPUS

    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not here")
    return CORPUS


def _hits(result) -> list[tuple[str, int]]:
    assert result.returncode == 0, result.stderr
    return [(os.path.basename(h["path"]), h["page"]) for h in json.loads(result.stdout)["hits"]]


def test_search_in_one_article_returns_only_its_passages(indexed) -> None:
    paths, data = indexed
    whole = _hits(cli("search", IFITM, "--json", data_dir=data))
    assert whole[0] == ("650.pdf", 1)
    own = _hits(cli("search", HIV, "--json", "--in", paths["630.pdf"], data_dir=data))
    assert own and {n for n, _ in own} == {"630.pdf"} and own[0] == ("630.pdf", 1)
    # A question another article answers, limited to this one: this one's passages only.
    other = _hits(cli("search", IFITM, "--json", "--in", paths["630.pdf"], data_dir=data))
    assert other and {n for n, _ in other} == {"630.pdf"}
    two = _hits(
        cli("search", IFITM, "-k", "8", "--json", "--in", paths["1545.pdf"], paths["1546.pdf"],
            data_dir=data)
    )  # fmt: skip
    assert {n for n, _ in two} == {"1545.pdf", "1546.pdf"}


def test_a_collection_and_ask_within_it(indexed) -> None:
    paths, data = indexed
    added = cli("collection", "add", "HIV", paths["630.pdf"], data_dir=data)
    assert added.returncode == 0, added.stderr
    assert "HIV: " in added.stdout
    try:
        found = _hits(cli("search", HIV, "--json", "--collection", "HIV", data_dir=data))
        assert {n for n, _ in found} == {"630.pdf"}
        asked = cli(
            "ask", IFITM, "--json", "--answers", "composed", "--collection", "HIV", data_dir=data
        )
        assert asked.returncode == 0, asked.stderr
        sources = json.loads(asked.stdout)["sources"]
        assert all(os.path.basename(s["path"]) == "630.pdf" for s in sources)
        asked = cli("ask", HIV, "--json", "--answers", "composed", "--in", paths["630.pdf"],
                    data_dir=data)  # fmt: skip
        answer = json.loads(asked.stdout)
        assert answer["sources"] and not answer["refused"]
        assert {os.path.basename(s["path"]) for s in answer["sources"]} == {"630.pdf"}
    finally:
        cli("collection", "remove", "HIV", data_dir=data)


def test_documents_lists_the_article_that_discusses_it_first(indexed) -> None:
    _, data = indexed
    result = cli("documents", "IFITM3 palmitoylation", "--json", data_dir=data)
    assert result.returncode == 0, result.stderr
    docs = json.loads(result.stdout)["documents"]
    assert os.path.basename(docs[0]["path"]) == "650.pdf"
    assert docs[0]["matches"] >= 2 and docs[0]["page"] >= 1
    assert len({d["path"] for d in docs}) == len(docs)  # each document once
    text = cli("documents", "IFITM3 palmitoylation", data_dir=data)
    assert text.stdout.startswith("[1] ") and "650.pdf" in text.stdout.splitlines()[0]
