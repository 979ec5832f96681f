"""The documents table gained `date_ns` (a document's own date, issue 33): an index made before
it opens, its rows read as dated by their files, and its first writer adds the column."""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path

import pyarrow as pa
import pytest

from desktop_rag.query.listing import Fields, by_fields
from desktop_rag.store import lance, schema
from tests.fakes import FakeLlm
from tests.helpers.apps import make_app

CORPUS = Path(__file__).resolve().parents[3] / ".." / "shared" / "corpus"
DATED = CORPUS / "financebench" / "pdfs" / "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf"
_DOCUMENTS_SCHEMA = schema.documents_schema


def _without_dates() -> pa.Schema:
    return pa.schema([f for f in _DOCUMENTS_SCHEMA() if f.name != "date_ns"])


@pytest.mark.skipif(not DATED.is_file(), reason="../shared/corpus is not here")
def test_an_index_made_before_dates_gains_them_from_its_next_run(
    tmp_path, animal_pdfs, monkeypatch
):
    with monkeypatch.context() as m:
        m.setattr(lance, "documents_schema", _without_dates)
        m.setattr(lance, "ADDED_DOCUMENT_COLUMNS", {
            k: v for k, v in schema.ADDED_DOCUMENT_COLUMNS.items() if k != "date_ns"
        })  # fmt: skip
        old = make_app(tmp_path, FakeLlm(), mode=None)
        assert old.index([str(animal_pdfs)]).indexed == 3
        assert "date_ns" not in old.store._docs.schema.names
    app = make_app(tmp_path, FakeLlm(), mode=None)
    assert {d.date_ns for d in app.store.documents()} == {0}  # dated by their files
    this_year = Fields(year=datetime.now().year)
    assert len(by_fields(app.store.documents(), this_year)) == 3
    shutil.copy(DATED, animal_pdfs / "footlocker.pdf")
    assert app.index([str(animal_pdfs)]).indexed == 1
    assert "date_ns" in app.store._docs.schema.names
    (dated,) = by_fields(app.store.documents(), Fields(year=2022))
    assert dated.path.endswith("footlocker.pdf")
