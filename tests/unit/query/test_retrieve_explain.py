"""`search --explain` and the heading field of the full-text search."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from desktop_rag import cli
from desktop_rag.app import App, build_app
from desktop_rag.config import Settings
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.store import lance, maintenance, schema
from desktop_rag.types import Chunk
from tests.fakes import HashEmbedder, WordTokenizer
from tests.helpers.manual import BROAD, manual


def _app(data: Path, params: ChunkParams | None = None) -> App:
    return build_app(
        Settings(data_dir=str(data)),
        embedder=HashEmbedder(),
        tokenizer=WordTokenizer,
        params=params,
        isolate=False,
    )


def _search(app: App, argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    args = cli.build_parser().parse_args(argv)
    for name, default in (("data_dir", None), ("json", False), ("verbose", False)):
        if not hasattr(args, name):
            setattr(args, name, default)
    code = cli.run_core(
        args, cli.asking.cmd_search, sys.stdout, sys.stderr, app_factory=lambda: app
    )
    assert code == 0
    return capsys.readouterr().out


def test_search_explain_shows_ranks_scores_and_demotion(tmp_path, capsys) -> None:
    app = _app(tmp_path / "data")
    app.ingest.index([str(manual(tmp_path))])
    out = _search(app, ["search", BROAD, "-k", "10", "--explain"], capsys)
    assert "BM25 #1 (" in out and "vector #" in out and "blended " in out
    assert "demoted: navigation page (contents, list or index)" in out
    assert "page 7, § 3 Cleaning the filter" in _search(
        app, ["search", "Cleaning the filter"], capsys
    )
    doc = json.loads(_search(app, ["search", BROAD, "-k", "10", "--json", "--explain"], capsys))
    explained = [h["explain"] for h in doc["hits"]]
    assert set(explained[0]) == {
        "bm25_rank",
        "bm25_score",
        "vector_rank",
        "similarity",
        "blended",
        "demoted",
        "sentence",
        "answers",
    }
    assert all(e["answers"] is None for e in explained)  # no cross-encoder in this app
    assert any(e["demoted"] for e in explained) and any(e["bm25_rank"] == 1 for e in explained)
    # The first five were re-ranked by their best sentence, the rest were not.
    assert [e["sentence"] is not None for e in explained] == [True] * 5 + [False] * 5
    assert "best sentence 0." in out
    plain = json.loads(_search(app, ["search", BROAD, "--json"], capsys))
    assert "explain" not in plain["hits"][0]  # the contract without --explain is unchanged


def test_words_of_a_heading_alone_find_its_chunks(tmp_path) -> None:
    meta = schema.IndexMeta(schema.SCHEMA_VERSION, "test", 4, {"max_tokens": 1, "overlap": 0})
    store = lance.LanceStore(tmp_path / "index", meta).open()
    chunks = [
        Chunk("d:000000", "d", "/m.pdf", 5, 0, 10, "Keep it cool and dry.", section="Storage"),
        Chunk("d:000001", "d", "/m.pdf", 6, 0, 10, "Rinse it in water.", section="Cleaning"),
    ]
    store.commit([], chunks, np.ones((2, 4), dtype=np.float32))
    maintenance.optimize(store)
    assert store.has_section_index()
    assert [h.chunk_id for h in store.text_search("storage", 5)] == ["d:000000"]
    store.section_boost = 0.0  # the heading field off: text alone knows no "storage"
    assert store.text_search("storage", 5) == []


def test_an_index_without_the_heading_index_gains_it_at_the_next_run(tmp_path, animal_pdfs) -> None:
    app = _app(tmp_path / "data")
    app.ingest.index([str(animal_pdfs)])
    table = app.store.chunks_table
    name = next(i.name for i in table.list_indices() if "section" in i.columns)
    table.drop_index(name)
    again = _app(tmp_path / "data")
    assert not again.store.has_section_index() and again.store.needs_indexes()
    again.ingest.index([str(animal_pdfs)])
    assert again.store.has_section_index()


def test_an_index_made_before_sections_asks_for_a_rebuild(tmp_path, animal_pdfs) -> None:
    data = tmp_path / "data"
    old = _app(data, ChunkParams(sections=0))
    old.ingest.index([str(animal_pdfs)])
    app = _app(data)
    assert app.stale is not None and "section headings" in str(app.stale)
    assert app.retriever.search("hemocyanin copper", k=1)  # it still answers, as built
    app.rebuild()
    assert app.stale is None and _app(data).stale is None
