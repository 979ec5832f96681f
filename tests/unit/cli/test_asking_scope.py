"""`search --in`, `ask --in`, `--collection`, `collection` and `documents`, with a fake embedder."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

import pytest

from desktop_rag import cli
from desktop_rag.app import App
from desktop_rag.config import Settings
from tests.fakes import FakeLlm
from tests.helpers.apps import make_app
from tests.helpers.cli import run_in_process
from tests.pdfgen import make_pdf


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> tuple[App, Path]:
    tmp_path = tmp_path_factory.mktemp("scope")
    lib = tmp_path / "lib"
    make_pdf(lib / "home" / "boiler.pdf", ["The boiler warranty lasts five years.", "Filters."])
    make_pdf(lib / "home" / "roof.pdf", ["The roof warranty lasts ten years, tiles included."])
    make_pdf(
        lib / "work" / "laptop.pdf",
        ["The laptop warranty lasts one year.", "The battery warranty: six months."],
    )
    june_2024 = datetime(2024, 6, 1, 12).timestamp()
    os.utime(lib / "home" / "roof.pdf", (june_2024, june_2024))
    app = make_app(tmp_path, FakeLlm(), mode=None)
    app.ingest.index([str(lib)])
    return app, lib


def _run(app: App, argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    return run_in_process(app, argv, capsys)


def _paths(out: str, key: str = "hits") -> list[str]:
    return [Path(h["path"]).name for h in json.loads(out)[key]]


def test_search_in_a_file_and_a_folder(library, capsys) -> None:
    app, lib = library
    code, out, _ = _run(app, ["search", "warranty", "--json"], capsys)
    assert code == 0 and set(_paths(out)) == {"boiler.pdf", "roof.pdf", "laptop.pdf"}
    code, out, _ = _run(
        app, ["search", "warranty", "--json", "--in", str(lib / "work" / "laptop.pdf")], capsys
    )
    assert code == 0 and _paths(out) == ["laptop.pdf", "laptop.pdf"]
    code, out, err = _run(app, ["search", "warranty", "--in", str(lib / "home")], capsys)
    assert code == 0 and "looking only in home" in err
    assert "boiler.pdf" in out and "roof.pdf" in out and "laptop.pdf" not in out


def test_a_folder_scope_covers_files_added_later(library, capsys) -> None:
    app, lib = library
    later = lib.parent / "later"  # its word is in no other test's query
    make_pdf(later / "phone.pdf", ["The phone guarantee lasts two years."])
    app.ingest.index([str(later)])
    _, out, _ = _run(app, ["search", "guarantee", "--json", "--in", str(later)], capsys)
    assert _paths(out) == ["phone.pdf"]
    make_pdf(later / "sub" / "tablet.pdf", ["The tablet guarantee lasts two years."])
    app.ingest.index([str(later)])
    _, out, _ = _run(app, ["search", "guarantee", "--json", "--in", str(later)], capsys)
    assert set(_paths(out)) == {"phone.pdf", "tablet.pdf"}


def test_collection_commands_and_search_by_collection(library, capsys) -> None:
    app, lib = library
    assert cli.main(["collection", "add", "House", str(lib / "home" / "roof.pdf")]) == 0
    assert cli.main(["collection", "add", "House", str(lib / "home" / "boiler.pdf")]) == 0
    assert cli.main(["collection", "list", "--json"]) == 0
    saved = json.loads(capsys.readouterr().out.splitlines()[-1])["collections"]
    assert [Path(p).name for p in saved["House"]] == ["roof.pdf", "boiler.pdf"]
    app.settings.collections = Settings.load().collections  # kept with the settings
    _, out, err = _run(app, ["search", "warranty", "--json", "--collection", "House"], capsys)
    assert set(_paths(out)) == {"roof.pdf", "boiler.pdf"}
    code, _, err = _run(app, ["search", "warranty", "--collection", "Car"], capsys)
    assert code == 2 and "no collection named 'Car'" in err
    assert cli.main(["collection", "remove", "House"]) == 0
    assert Settings.load().collections == {}
    assert cli.main(["collection", "remove", "House"]) == 2


def test_a_scope_with_nothing_indexed_says_so(library, capsys, tmp_path) -> None:
    app, _ = library
    code, out, err = _run(app, ["search", "warranty", "--in", str(tmp_path / "none")], capsys)
    assert code == 0 and "nothing indexed is in" in err and "No passages found." in out


def test_ask_in_a_file_takes_its_sources_from_it(library, capsys) -> None:
    app, lib = library
    roof = str(lib / "home" / "roof.pdf")
    code, out, _ = _run(
        app, ["ask", "how long is the warranty", "--json", "--in", roof, "--answers", "composed"],
        capsys,
    )  # fmt: skip
    assert code == 0
    sources = json.loads(out)["sources"]
    assert sources and {s["path"] for s in sources} == {roof}


def test_documents_lists_each_document_once_with_its_count(library, capsys) -> None:
    app, lib = library
    code, out, _ = _run(app, ["documents", "warranty", "--json"], capsys)
    assert code == 0
    docs = json.loads(out)["documents"]
    assert sorted(Path(d["path"]).name for d in docs) == ["boiler.pdf", "laptop.pdf", "roof.pdf"]
    assert all(d["matches"] >= 1 and d["page"] >= 1 for d in docs)
    by_name = {Path(d["path"]).name: d for d in docs}
    assert by_name["laptop.pdf"]["matches"] == 2  # both its pages say it
    assert by_name["roof.pdf"]["matches"] == 1
    _, out, _ = _run(app, ["documents", "warranty", "--json", "--in", str(lib / "home")], capsys)
    assert sorted(_paths(out, "documents")) == ["boiler.pdf", "roof.pdf"]
    _, out, _ = _run(app, ["documents", "warranty"], capsys)
    assert "[1] " in out and "matching passage" in out and "best: page " in out


def test_documents_counts_and_lists_by_their_fields(library, capsys) -> None:
    app, lib = library
    _, out, _ = _run(app, ["documents", "--count", "--json", "--in", str(lib)], capsys)
    assert json.loads(out) == {"count": 3}
    _, out, _ = _run(app, ["documents", "--from", "2024", "--json", "--in", str(lib)], capsys)
    listed = json.loads(out)
    assert listed["count"] == 1 and _paths(out, "documents") == ["roof.pdf"]
    assert listed["documents"][0]["modified"].startswith("2024-06-01")
    _, out, _ = _run(app, ["documents", "--format", "docx", "--count", "--in", str(lib)], capsys)
    assert out.strip() == "0"
    _, out, _ = _run(app, ["documents", "--format", "pdf", "--in", str(lib / "home")], capsys)
    assert [Path(line).name for line in out.splitlines()] == ["boiler.pdf", "roof.pdf"]
    # With a query, the fields narrow the search (as a scope of the files they match).
    _, out, _ = _run(app, ["documents", "warranty", "--from", "2024", "--json"], capsys)
    assert _paths(out, "documents") == ["roof.pdf"]
    _, out, _ = _run(app, ["documents", "warranty", "--count", "--json", "--in", str(lib)], capsys)
    assert json.loads(out) == {"count": 3}
