"""A real Chinese PDF (a receipt from pypdf's test files), read and indexed as the app does,
with the shipped embedder and LanceDB on disk: its words are found by a Chinese question
(issue 46, item 2), which the full-text index missed when it read a whole line as one word."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.query.retrieve import Mode

RECEIPT = "fixtures/pypdf/pypdf-7.1.1/resources/issue-914-xmp-data.pdf"


@pytest.fixture
def library(tmp_path: Path, corpus: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    shutil.copy(corpus / RECEIPT, folder / "receipt.pdf")
    (folder / "notes.md").write_text(
        "# Shopping\n\nBuy mung beans, red beans and yoghurt at the market on Saturday.\n",
        encoding="utf-8",
    )
    return folder


def test_a_chinese_question_finds_the_chinese_page_by_its_words(tmp_path, library) -> None:
    app = build_app(Settings(data_dir=str(tmp_path / "data")), isolate=False)
    report = app.index([str(library)])
    assert report.indexed == 2, report
    hits = app.retriever.search("绿豆多少钱", k=3, mode=Mode.TEXT)
    assert hits and hits[0].path.endswith("receipt.pdf") and hits[0].page == 1
    hits = app.retriever.search("蒙牛酸牛奶", k=3, mode=Mode.TEXT)
    assert hits and hits[0].path.endswith("receipt.pdf")
    # An English question still finds the English note by its words, as before.
    hits = app.retriever.search("mung beans", k=3, mode=Mode.TEXT)
    assert hits and hits[0].path.endswith("notes.md")
