"""The index commands ask the library service, as the window does (desktop_rag/cli/indexing.py):
--ocr is checked before anything is asked of the index, and a reset index is filled again
through the service's own step, with a fake embedder over real LanceDB and PDFs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_rag.ingest import rebuild
from desktop_rag.ingest.scan import OCR_READER
from tests.fakes import FakeLlm
from tests.helpers.apps import make_app
from tests.helpers.cli import run_in_process
from tests.pdfgen import make_pdf


def test_ocr_of_a_file_that_is_no_pdf_is_refused_before_anything_is_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command named the file and asked nothing of the index; before, it recorded the
    request for every path, the text file's too, and only then said no."""
    app = make_app(tmp_path, FakeLlm(), mode=None)
    scan = tmp_path / "scan.pdf"
    make_pdf(scan, ["A scanned page."])
    notes = tmp_path / "notes.txt"
    notes.write_text("Notes, not a PDF.")
    code, _, err = run_in_process(app, ["index", "--ocr", str(scan), str(notes)], capsys)
    assert code == 2
    assert "notes.txt is not a PDF: only PDFs are read with OCR" in err
    assert app.ingest.ocr_requested == set()
    assert app.store.documents() == []


def test_ocr_of_a_pdf_is_remembered_and_the_pdf_indexed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app = make_app(tmp_path, FakeLlm(), mode=None)
    scan = tmp_path / "scan.pdf"
    make_pdf(scan, ["A scanned page about boilers."])
    code, out, _ = run_in_process(app, ["index", "--ocr", str(scan), "--json"], capsys)
    assert code == 0 and json.loads(out)["indexed"] == 1
    (record,) = app.store.documents()
    assert record.ocr and record.reader == OCR_READER  # read with OCR; the wish is kept


def test_a_reset_index_is_filled_again_before_a_command_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A damaged index that was moved aside (needs_reindex) gets its roots back through the
    library service's `recover` before `status` reports it."""
    app = make_app(tmp_path, FakeLlm(), mode=None)
    lib = tmp_path / "lib"
    make_pdf(lib / "boiler.pdf", ["The boiler warranty lasts five years."])
    rebuild.add_roots(app.settings.data_path, [str(lib)])
    app.needs_reindex = True
    app.notices.append("The index was damaged; it was moved aside.")
    code, out, err = run_in_process(app, ["status", "--json"], capsys)
    assert code == 0 and json.loads(out)["documents"] == 1
    assert "The index was damaged" in err and not app.needs_reindex


def test_status_points_a_library_mostly_not_in_english_to_the_multilingual_setting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Said on stderr, as status's other notices are: `status --json` keeps its shape."""
    app = make_app(tmp_path, FakeLlm(), mode=None)
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "netz.txt").write_text(
        "Wenn der Drucker nicht druckt, prüfen Sie zuerst, ob er mit dem Netz verbunden ist.",
        encoding="utf-8",
    )
    code, out, err = run_in_process(app, ["index", str(lib)], capsys)
    assert code == 0
    told = "Most of this library is in German: Settings > “My documents are in several"
    code, out, err = run_in_process(app, ["status"], capsys)
    assert code == 0 and told in err and told not in out
    code, out, err = run_in_process(app, ["status", "--json"], capsys)
    assert code == 0 and told in err
    assert set(json.loads(out)) == {"documents", "chunks", "pages", "pending", "failed", "excluded"}
    app.settings.multilingual = True
    code, out, err = run_in_process(app, ["status"], capsys)
    assert told not in err
