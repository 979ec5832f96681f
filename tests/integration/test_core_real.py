"""The core with the real embedder, real LanceDB on disk and real PDFs, through the CLI too."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from desktop_rag.app import build_app
from desktop_rag.config import Settings
from tests.helpers.cli import cli
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """A library of generated PDFs plus a bad file, indexed once through the CLI."""
    root = tmp_path_factory.mktemp("cli")
    lib = root / "My Library ü"
    make_pdf(
        lib / "volcanoes.pdf",
        [
            "Volcanoes form where magma reaches the surface of the Earth.",
            "Mount Etna in Sicily is one of the most active volcanoes in the world. Its "
            "eruptions have been recorded since 1500 BC.",
        ],
    )
    make_pdf(
        lib / "bread.pdf",
        [
            "Sourdough bread rises because of wild yeast and lactic acid bacteria.",
            "Bake the loaf at 230 degrees Celsius for forty minutes with steam.",
            "Rye flour ferments faster than wheat flour.",
        ],
    )
    (lib / "fake.pdf").write_text("<!doctype html><html>not a pdf</html>")
    data = root / "data"
    result = cli("index", str(lib), "--json", data_dir=data)
    return lib, data, result


def test_index_json_contract_and_exit_code(indexed):
    _, _, result = indexed
    assert result.returncode == 1, result.stderr  # one file failed
    report = json.loads(result.stdout)
    for key in ("indexed", "unchanged", "removed", "failed", "pages", "chunks", "seconds"):
        assert key in report
    assert report["indexed"] == 2 and report["pages"] == 5 and report["chunks"] >= 5
    assert report["failed"][0]["path"].endswith("fake.pdf")
    assert "web page" in report["failed"][0]["reason"]


def test_search_finds_the_right_page(indexed):
    _, data, _ = indexed
    result = cli(
        "search", "which volcano in Sicily erupts often", "-k", "3", "--json", data_dir=data
    )
    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)["hits"]
    assert {"path", "page", "score", "text"} <= set(hits[0])
    assert hits[0]["path"].endswith("volcanoes.pdf") and hits[0]["page"] == 2
    assert "Etna" in hits[0]["text"]


def test_search_stdin_one_json_per_line(indexed):
    _, data, _ = indexed
    queries = "how long to bake the loaf, and how hot\n\nwhich flour ferments faster\n"
    result = cli("search", "-", "-k", "1", "--json", data_dir=data, stdin=queries)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == 3 and lines[1] == {"hits": []}
    assert lines[0]["hits"][0]["page"] == 2 and lines[2]["hits"][0]["page"] == 3


def test_status_and_reindex_noop_and_plain_output(indexed):
    lib, data, _ = indexed
    status = json.loads(cli("status", "--json", data_dir=data).stdout)
    assert status["documents"] == 2 and status["pages"] == 5 and status["chunks"] >= 5
    assert status["failed"][0]["path"].endswith("fake.pdf")
    again = cli("index", str(lib), "--json", data_dir=data)
    report = json.loads(again.stdout)
    assert report["indexed"] == 0 and report["unchanged"] == 3
    assert report["failed"] == [] and again.returncode == 0
    plain = cli("search", "Etna", data_dir=data)
    assert "volcanoes.pdf, page 2" in plain.stdout


def test_remove_and_usage_errors(indexed, tmp_path):
    lib, data, _ = indexed
    # On a copy, so the other tests keep their library.
    import shutil

    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    result = cli("remove", str(lib / "bread.pdf"), "--json", data_dir=copy)
    assert result.returncode == 0 and len(json.loads(result.stdout)["removed"]) == 1
    assert (lib / "bread.pdf").exists()
    assert json.loads(cli("status", "--json", data_dir=copy).stdout)["documents"] == 1
    missing = cli("index", str(tmp_path / "nowhere"), data_dir=copy)
    assert missing.returncode == 2 and "Not found" in missing.stderr
    assert "Traceback" not in missing.stderr
    bad_k = cli("search", "x", "-k", "0", data_dir=copy)
    assert bad_k.returncode == 2


def test_covid_qa_known_questions_find_their_page(corpus, tmp_path):
    """Real articles written by others: the gold page is in the top 5 for most questions."""
    pdf_dir = corpus / "covid-qa" / "pdf"
    questions = [json.loads(line) for line in (corpus / "covid-qa" / "questions.jsonl").open()]
    docs = sorted({q["pdf"] for q in questions})[:8]
    lib = tmp_path / "covid"
    lib.mkdir()
    for doc in docs:
        os.symlink(corpus / "covid-qa" / doc, lib / Path(doc).name)
    app = build_app(Settings(data_dir=str(tmp_path / "data")))
    report = app.ingest.index([str(lib)])
    assert report.indexed == len(docs) and not report.failed
    mine = [q for q in questions if q["pdf"] in docs and not q.get("is_impossible")]
    hits5 = 0
    for q in mine:
        ranked = app.retriever.search(q["question"], k=5)
        gold = Path(q["pdf"]).name
        hits5 += any(Path(h.path).name == gold and h.page == q["answer_page"] for h in ranked)
    recall5 = hits5 / len(mine)
    # Measured 2026-11-30 on these 8 articles: see the closing note of issue 2.
    assert recall5 >= 0.6, f"recall@5 {recall5:.2f} over {len(mine)} questions"
    assert pdf_dir.is_dir()
