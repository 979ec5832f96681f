"""Extraction: page numbers, lost-space detection, and a clear reason for each bad file."""

from __future__ import annotations

import os

import pytest

from desktop_rag.cleaning import clean_text
from desktop_rag.ingest.extract import ExtractError, extract
from desktop_rag.ingest.readers.pdf import glued_ratio, is_glued
from desktop_rag.types import FailKind, Page
from tests.pdfgen import encrypt_pdf, make_pdf


@pytest.mark.parametrize("order", [("pdfium",), ("pypdf",)])
def test_pages_keep_their_numbers(tmp_path, order):
    path = make_pdf(tmp_path / "a.pdf", ["alpha page", "", "gamma page"])
    result = extract(str(path), order=order)
    assert [p.number for p in result.pages] == [1, 2, 3]
    assert "alpha" in result.pages[0].text and result.pages[1].text == ""
    assert "gamma" in result.pages[2].text
    assert len(result.sha256) == 64


def test_glued_text_is_detected_and_normal_text_is_not():
    normal = "The protein was expressed in the liver and the kidney of adult mice. " * 20
    glued = "Theproteinwasexpressedintheliverandthekidneyofadultmice. " * 20
    assert glued_ratio(normal) == 0.0
    assert is_glued([Page(1, glued)])
    assert not is_glued([Page(1, normal)])
    # Scripts written without spaces are not "glued".
    assert not is_glued([Page(1, "みんなのおのおののなかのすべてですから" * 30)])


def test_falls_back_when_the_first_reader_glues_words(tmp_path, monkeypatch):
    from desktop_rag.ingest.readers import pdf

    path = make_pdf(tmp_path / "a.pdf", ["the quick brown fox jumps over the lazy dog " * 20])
    calls = []

    def glued_reader(p, password):
        calls.append("glued")
        return [Page(1, "thequickbrownfoxjumpsoverthelazydog " * 20)]

    monkeypatch.setitem(pdf.PDF_READERS, "glued", glued_reader)
    result = extract(str(path), order=("glued", "pypdf"))
    assert calls == ["glued"]
    assert result.reader == "pypdf"
    assert "quick brown fox" in result.pages[0].text


def test_clean_text_joins_hyphenation_and_ligatures():
    assert clean_text("inter\u0002\nnational ﬁsh\r\nnext") == "international fish\nnext"


def _kind(path) -> FailKind:
    with pytest.raises(ExtractError) as info:
        extract(str(path))
    return info.value.kind


def test_bad_files_get_specific_reasons(tmp_path):
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    html = tmp_path / "page.pdf"
    html.write_text("<!DOCTYPE html><html><body>Not a PDF</body></html>")
    good = make_pdf(tmp_path / "good.pdf", ["some words on a page " * 50] * 3)
    truncated = tmp_path / "truncated.pdf"
    truncated.write_bytes(good.read_bytes()[:60])
    blank = make_pdf(tmp_path / "blank.pdf", ["", ""])
    assert _kind(empty) == FailKind.EMPTY
    assert _kind(html) == FailKind.NOT_PDF
    assert _kind(truncated) == FailKind.CORRUPT
    assert _kind(blank) == FailKind.NO_TEXT


def test_password_protected_and_empty_password(tmp_path):
    src = make_pdf(tmp_path / "src.pdf", ["secret words about otters"])
    locked = encrypt_pdf(src, tmp_path / "locked.pdf", "hunter2")
    open_aes = encrypt_pdf(src, tmp_path / "open.pdf", "")
    assert _kind(locked) == FailKind.PASSWORD
    assert "otters" in extract(str(locked), password="hunter2").pages[0].text
    assert "otters" in extract(str(open_aes)).pages[0].text


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file(tmp_path):
    path = make_pdf(tmp_path / "locked.pdf", ["x"])
    path.chmod(0)
    assert _kind(path) == FailKind.UNREADABLE


def test_a_readers_failure_is_one_of_ours():
    from desktop_rag.errors import DesktopRagError, user_message

    error = ExtractError(FailKind.CORRUPT, "is damaged.")
    assert isinstance(error, DesktopRagError) and user_message(error) == "is damaged."


@pytest.mark.parametrize(("name", "split_into"), [("huge.pdf", "PDFs"), ("huge.docx", "files")])
def test_a_huge_file_is_refused_before_reading_in_words_for_its_format(tmp_path, name, split_into):
    from desktop_rag.ingest.readers.base import MAX_FILE_BYTES

    path = tmp_path / name
    with open(path, "wb") as f:  # sparse: takes no disk
        f.write(b"%PDF-1.4\n" if name.endswith(".pdf") else b"PK\x03\x04")
        f.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(ExtractError) as raised:
        extract(str(path))
    assert raised.value.kind == FailKind.TOO_LARGE
    assert str(raised.value).endswith(f"Split it into smaller {split_into}.")
