"""`documents --from YEAR` and "from 2022" questions go by the date in the PDF's metadata when it
has one, else by the file's own date: real PDFs from the corpus in a real LanceDB."""

from __future__ import annotations

import json
import os
import shutil
from datetime import datetime
from pathlib import Path

import pytest

from tests.fakes import FakeLlm
from tests.helpers.apps import make_app
from tests.helpers.cli import run_in_process

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"
DATED = CORPUS / "financebench" / "pdfs" / "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf"
UNDATED = CORPUS / "fixtures/py-pdf-sample-files/011-google-doc-document/google-doc-document.pdf"

pytestmark = pytest.mark.skipif(not DATED.is_file(), reason="../shared/corpus is not here")


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dates")
    lib = tmp / "lib"
    lib.mkdir()
    shutil.copy(DATED, lib / "footlocker.pdf")  # copied today: its file's date is this year
    shutil.copy(UNDATED, lib / "google.pdf")
    old = datetime(2019, 6, 1).timestamp()
    os.utime(lib / "google.pdf", (old, old))  # no date inside: the file's date stands in
    app = make_app(tmp, FakeLlm(), mode=None)
    app.ingest.index([str(lib)])
    return app


def _documents(app, capsys, *argv: str) -> set[str]:
    code, out, err = run_in_process(app, ["documents", *argv, "--json"], capsys)
    assert code == 0, err
    return {Path(d["path"]).name for d in json.loads(out)["documents"]}


def test_from_year_uses_the_pdfs_own_date_else_the_files(library, capsys) -> None:
    assert _documents(library, capsys, "--from", "2022") == {"footlocker.pdf"}
    assert _documents(library, capsys, "--from", "2019") == {"google.pdf"}
    assert _documents(library, capsys, "--from", str(datetime.now().year)) == set()
    record = {Path(r.path).name: r for r in library.store.documents()}
    assert datetime.fromtimestamp(record["footlocker.pdf"].date_ns / 1e9).year == 2022
    assert record["google.pdf"].date_ns == 0


def test_a_question_from_a_year_counts_by_the_same_dates(library, capsys) -> None:
    code, out, err = run_in_process(
        library, ["ask", "How many documents are from 2022?", "--json"], capsys
    )
    assert code == 0, err
    body = json.loads(out)
    assert body["mode"] == "listing"
    assert body["answer"].startswith("1 document (from 2022):"), body["answer"]
    assert [Path(s["path"]).name for s in body["sources"]] == ["footlocker.pdf"]
