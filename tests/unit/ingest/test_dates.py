"""A document's own date: the PDF's CreationDate (else its ModDate), read by ingest/dates.py."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from desktop_rag.ingest.dates import parse_pdf_date, pdf_date

CORPUS = Path(__file__).resolve().parents[3] / ".." / "shared" / "corpus"
DATED = CORPUS / "financebench" / "pdfs" / "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf"
UNDATED = CORPUS / "fixtures/py-pdf-sample-files/011-google-doc-document/google-doc-document.pdf"


def _utc(ns: int) -> datetime:
    return datetime.fromtimestamp(ns / 1e9, tz=UTC)


def test_pdf_dates_are_read_with_their_offsets() -> None:
    assert _utc(parse_pdf_date("D:20220520200605+00'00'")) == datetime(
        2022, 5, 20, 20, 6, 5, tzinfo=UTC
    )
    assert _utc(parse_pdf_date("D:20220729060321-04'00'")).hour == 10
    assert _utc(parse_pdf_date("D:20150206134713")).year == 2015  # no offset: taken as UTC
    assert _utc(parse_pdf_date("D:2019")) == datetime(2019, 1, 1, tzinfo=UTC)
    assert _utc(parse_pdf_date("20180530133107Z")).year == 2018  # no "D:" prefix
    for bad in ("", "yesterday", "D:20221340", "D:0000"):
        assert parse_pdf_date(bad) == 0, bad


@pytest.mark.skipif(not DATED.is_file(), reason="../shared/corpus is not here")
def test_a_real_pdf_with_a_creation_date_and_one_without() -> None:
    assert _utc(pdf_date(str(DATED))).date().isoformat() == "2022-05-20"
    assert pdf_date(str(UNDATED)) == 0
    assert pdf_date("/no/such/file.pdf") == 0  # never raises: a date is not worth a failure


@pytest.mark.skipif(not DATED.is_file(), reason="../shared/corpus is not here")
def test_the_date_comes_back_from_the_reader_process() -> None:
    from desktop_rag.ingest import sandbox
    from desktop_rag.ingest.extract import Extracted

    box = sandbox.Sandbox(timeout_s=60, memory_mb=0)
    try:
        ((_, outcome),) = list(box.run([sandbox.Job(str(DATED))]))
    finally:
        box.close()
    assert isinstance(outcome, Extracted)
    assert _utc(outcome.date_ns).date().isoformat() == "2022-05-20"


def test_a_pdf_is_opened_once_for_its_pages_outline_and_date(monkeypatch) -> None:
    """Issue 32: the reader, the outline and the date each opened the file; a small file
    spent a fifth of its reading in opening it three times."""
    import pypdfium2 as pdfium

    from desktop_rag.ingest.extract import extract

    opened: list[str] = []
    real = pdfium.PdfDocument

    def counting(source, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(str(source))
        return real(source, *args, **kwargs)

    monkeypatch.setattr(pdfium, "PdfDocument", counting)
    got = extract(str(DATED))
    assert opened == [str(DATED)]
    assert _utc(got.date_ns).date().isoformat() == "2022-05-20"
    assert got.reader == "pdfium" and got.pages
