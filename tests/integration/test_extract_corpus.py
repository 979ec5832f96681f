"""Extraction on real PDFs written by others: no-xref samples, huge arrays, empty-password AES."""

from __future__ import annotations

import pytest

from desktop_rag.ingest.extract import ExtractError, extract
from desktop_rag.types import FailKind

PLAYA = "fixtures/playa-pdf/playa_pdf-1.1.0/samples"


@pytest.mark.parametrize("name", ["simple1.pdf", "rotated.pdf", "type3_fonts.pdf"])
def test_files_without_xref_table_fall_back_to_pdfium(corpus, name):
    path = corpus / PLAYA / name
    with pytest.raises(ExtractError) as info:
        extract(str(path), order=("pypdf",))
    assert info.value.kind == FailKind.CORRUPT
    result = extract(str(path), order=("pypdf", "pdfium"))
    assert result.reader == "pdfium" and any(p.text for p in result.pages)


@pytest.mark.slow  # whole 10-K filings, read twice
def test_filings_beyond_pypdf_array_limits_open(corpus):
    path = corpus / "docugami-10q" / "pdf" / "2023 Q1 MSFT.pdf"
    result = extract(str(path), order=("pypdf",))
    assert len(result.pages) > 30
    assert "microsoft" in " ".join(p.text for p in result.pages[:5]).lower()


@pytest.mark.slow  # whole 10-K filings, read twice
def test_empty_password_aes_filings_open_with_both_readers(corpus):
    import pypdf

    encrypted = []
    for path in sorted((corpus / "financebench" / "pdfs").glob("*.pdf")):
        if pypdf.PdfReader(str(path)).is_encrypted:
            encrypted.append(path)
        if len(encrypted) == 2:
            break
    assert encrypted, "financebench should hold encrypted filings"
    for path in encrypted:
        for order in (("pypdf",), ("pdfium",)):
            pages = extract(str(path), order=order).pages
            assert sum(len(p.text) for p in pages[:5]) > 1000


def test_password_fixture_needs_its_password(corpus):
    path = corpus / "fixtures/pypdf/pypdf-7.1.1/resources/encryption/r6-user-password.pdf"
    with pytest.raises(ExtractError) as info:
        extract(str(path))
    assert info.value.kind == FailKind.PASSWORD
    assert extract(str(path), password="asdfzxcv").pages
