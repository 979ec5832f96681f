"""Scanned PDFs through the whole index run (fake OCR engine, real LanceDB): boxes stored,
progress told, the setting obeyed, "Read with OCR" remembered and treated as a change."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.ingest import ocr
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.ingest.control import RunControl
from desktop_rag.types import FailKind, Progress
from tests.fakes import FakeOcr, HashEmbedder, WordTokenizer
from tests.pdfgen import make_pdf
from tests.scanned import make_scanned_pdf


@pytest.fixture
def fake_ocr():
    engine = FakeOcr([("Hemocyanin makes octopus blood blue.", 0.96), ("Copper, not iron.", 0.9)])
    ocr.set_engine(engine)
    yield engine
    ocr.set_engine(None)


def _app(tmp_path: Path, **settings: object):
    return build_app(
        Settings(data_dir=str(tmp_path / "data"), **settings),  # type: ignore[arg-type]
        embedder=HashEmbedder(),
        tokenizer=WordTokenizer,
        params=ChunkParams(60, 10),
        isolate=False,
    )


def test_a_scan_is_indexed_with_boxes_and_page_progress(tmp_path: Path, fake_ocr: FakeOcr):
    lib = tmp_path / "lib"
    make_scanned_pdf(lib / "scan.pdf", [["x"], ["y"]])
    app = _app(tmp_path)
    seen: list[Progress] = []
    report = app.ingest.index([str(lib)], RunControl(on_progress=seen.append))
    assert (report.indexed, report.failed, report.pages) == (1, [], 2)
    (doc,) = app.store.documents()
    assert doc.reader == "ocr" and not doc.ocr
    rows = app.store.chunk_rows(doc.doc_id)
    assert {r["page"] for r in rows} == {1, 2}
    for row in rows:
        boxes = json.loads(row["boxes"])
        assert [row["text"][s - row["start"] : e - row["start"]] for s, e, *_ in boxes] == row[
            "text"
        ].split()
    messages = [p.message for p in seen if p.stage == "ocr"]
    assert "Reading scan.pdf (OCR page 1 of 2)" in messages
    assert any(m.startswith("Reading scan.pdf (OCR page 2 of 2), about") for m in messages)
    hits = app.retriever.search("hemocyanin octopus", k=2)
    assert hits and hits[0].path.endswith("scan.pdf")


def test_ocr_turned_off_leaves_a_scan_failed_with_the_reason(tmp_path: Path, fake_ocr: FakeOcr):
    lib = tmp_path / "lib"
    make_scanned_pdf(lib / "scan.pdf", [["x"]])
    report = _app(tmp_path, ocr=False).ingest.index([str(lib)])
    assert fake_ocr.calls == 0
    (failure,) = report.failed
    assert failure.kind == FailKind.NO_TEXT and "no text layer" in failure.reason


def test_read_with_ocr_is_remembered_and_is_a_change(tmp_path: Path, fake_ocr: FakeOcr):
    lib = tmp_path / "lib"
    pdf = make_pdf(lib / "garbage.pdf", ["Ths txt lyr is grbage frm a bad cnvrter."])
    app = _app(tmp_path)
    app.ingest.index([str(lib)])
    assert fake_ocr.calls == 0
    (doc,) = app.store.documents()
    assert doc.reader == "pdfium" and not doc.ocr

    app.ingest.ocr_requested.add(str(pdf))
    report = app.ingest.index([str(lib)])  # the file itself has not changed
    assert (report.indexed, report.unchanged) == (1, 0)
    assert fake_ocr.calls == 1
    (doc,) = app.store.documents()
    assert doc.ocr and doc.reader == "ocr"
    assert "Hemocyanin" in app.store.chunk_rows(doc.doc_id)[0]["text"]

    # A restart: a new app over the same index knows the wish and has nothing left to do.
    again = _app(tmp_path)
    report = again.ingest.index([str(lib)])
    assert (report.indexed, report.unchanged) == (0, 1)
    assert fake_ocr.calls == 1
    # A new version of the file is read with OCR again, as asked.
    make_pdf(pdf, ["A new version with another garbage text layer."])
    os.utime(pdf, ns=(1, 2_000_000_000_000_000_000))
    report = again.ingest.index([str(lib)])
    assert report.indexed == 1 and fake_ocr.calls == 2
    (doc,) = again.store.documents()
    assert doc.ocr and doc.reader == "ocr"


def test_read_with_ocr_of_a_file_not_indexed_yet(tmp_path: Path, fake_ocr: FakeOcr):
    lib = tmp_path / "lib"
    pdf = make_pdf(lib / "garbage.pdf", ["Ths txt lyr is grbage frm a bad cnvrter."])
    app = _app(tmp_path)
    app.ingest.ocr_requested.add(str(pdf))
    assert app.ingest.index([str(lib)]).indexed == 1
    assert fake_ocr.calls == 1
    (doc,) = app.store.documents()
    assert doc.ocr and doc.reader == "ocr"


def test_a_page_ocr_cannot_read_is_named_in_the_files_status(tmp_path: Path) -> None:
    from desktop_rag.engines.ocr import OcrEngineError
    from desktop_rag.types import FileEvent, Status

    class Failing(FakeOcr):
        def read(self, image):  # type: ignore[no-untyped-def]
            lines = super().read(image)
            if self.calls in (2, 3):  # page 2 and its retry with fewer pixels
                raise OcrEngineError(
                    "the OCR engine ran out of memory in its text detection model (std::bad_alloc)",
                    out_of_memory=True,
                )
            return lines

    ocr.set_engine(Failing([("Hemocyanin makes octopus blood blue.", 0.96)]))
    try:
        lib = tmp_path / "lib"
        make_scanned_pdf(lib / "scan.pdf", [["x"], ["y"], ["z"]])
        app = _app(tmp_path)
        events: list[FileEvent] = []
        report = app.ingest.index([str(lib)], RunControl(on_file=events.append))
    finally:
        ocr.set_engine(None)
    assert (report.indexed, report.failed, report.pages) == (1, [], 3)
    (doc,) = app.store.documents()
    assert doc.status == Status.INDEXED
    assert doc.error.startswith("page 2 of 3 could not be read with OCR: the OCR engine ran out")
    assert {r["page"] for r in app.store.chunk_rows(doc.doc_id)} == {1, 3}
    indexed = [e for e in events if e.status == Status.INDEXED]
    assert indexed and indexed[-1].error == doc.error


def test_a_text_file_is_not_held_behind_a_scan_and_the_scan_says_it_is_being_read(
    tmp_path: Path, fake_ocr: FakeOcr
) -> None:
    """Issue 31: a .docx stayed "Queued" behind a scan being read, the scan itself showed
    "Queued", and the bar said "0 of 2 files · 0 pages" throughout."""
    from desktop_rag.types import FileEvent, Status
    from tests.docgen import make_docx

    lib = tmp_path / "lib"
    make_scanned_pdf(lib / "a-scan.pdf", [["x"], ["y"], ["z"]])
    make_docx(lib / "b-notes.docx", [(1, "Notes", ["Squid have three hearts."])])
    app = _app(tmp_path)
    log: list[tuple[str, object]] = []
    report = app.ingest.index(
        [str(lib)],
        RunControl(
            on_progress=lambda p: log.append(("progress", p)),
            on_file=lambda e: log.append(("file", e)),
        ),
    )
    assert (report.indexed, report.failed) == (2, [])
    files = [(Path(e.path).name, e.status) for kind, e in log if isinstance(e, FileEvent)]
    docx_done = files.index(("b-notes.docx", Status.INDEXED))
    scan_reading = files.index(("a-scan.pdf", Status.INDEXING))
    assert docx_done < scan_reading < files.index(("a-scan.pdf", Status.INDEXED))
    progress = [p for kind, p in log if isinstance(p, Progress) and p.stage == "ocr"]
    messages = [p.message for p in progress]
    assert "Reading a-scan.pdf (OCR page 1 of 3)" in messages
    assert any(m.startswith("Reading a-scan.pdf (OCR page 3 of 3), about ") for m in messages)
    # The counts move while the scan is read: the .docx done, the scan's pages so far.
    assert all(p.files_done == 1 for p in progress)
    assert [p.pages_done for p in progress] == [1, 2, 3, 4]


def test_the_estimate_is_smoothed() -> None:
    from desktop_rag.ingest.progress import ETA_SMOOTH_S, Tracker

    tracker = Tracker(None, 2, 100)
    assert tracker._smoothed(1000.0, now=0.0) == 1000.0
    # One second later a guess of 1500 s (a slow page): the estimate moves a share of the way.
    moved = tracker._smoothed(1500.0, now=1.0)
    assert 999.0 < moved < 999.0 + 0.06 * 501
    # A steady guess is followed: after several time constants it is reached.
    for t in range(2, 2 + int(6 * ETA_SMOOTH_S)):
        last = tracker._smoothed(1500.0 - t, now=float(t))
    assert abs(last - (1500.0 - t)) < 10
