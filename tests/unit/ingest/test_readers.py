"""The readers beyond PDF: text as a reader sees it, headings as sections, clear reasons for
bad files, all through extract() as the pipeline calls it."""

from __future__ import annotations

import zipfile

import pytest

from desktop_rag.ingest.extract import ExtractError, extract
from desktop_rag.ingest.readers import archive
from desktop_rag.ingest.scan import format_for, is_candidate
from desktop_rag.types import FailKind
from tests.docgen import (
    encryption_xml,
    html_of,
    inflate_declared_sizes,
    make_docx,
    make_epub,
    make_odt,
)

MANUAL = [
    (1, "1 Introduction", ["This manual explains how the office printer is installed."]),
    (1, "3 Setup", []),
    (2, "3.4 Choosing a printer", ["Choose a printer that speaks PostScript over USB."]),
    (3, "3.4.1 Cables", ["A shielded cable of at most five metres keeps the signal clean."]),
    (1, "4 Care", ["Dust the paper tray once a month with a dry cloth."]),
]
SECTIONS = [
    "1 Introduction",
    "3 Setup › 3.4 Choosing a printer",
    "3 Setup › 3.4 Choosing a printer › 3.4.1 Cables",
    "4 Care",
]


def _sections(path):
    extracted = extract(str(path))
    return [(p.number, p.section) for p in extracted.pages], extracted


def _fails(path, kind):
    with pytest.raises(ExtractError) as info:
        extract(str(path))
    assert info.value.kind == kind, str(info.value)
    return str(info.value)


# -- text ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("encoding", "prefix"),
    [("utf-8", b""), ("utf-8-sig", b""), ("utf-16", b""), ("utf-16-le", b""), ("cp1252", b"")],
)
def test_text_encodings(tmp_path, encoding, prefix):
    text = "Café prices rose – “sharply” – in 2023; naïve estimates missed it."
    path = tmp_path / "notes.txt"
    path.write_bytes(prefix + text.encode(encoding))
    extracted = extract(str(path))
    assert extracted.pages[0].text == text
    assert extracted.reader == "text" and format_for(str(path)) == "txt"


def test_latin1_fallback_for_bytes_cp1252_lacks(tmp_path):
    path = tmp_path / "old.txt"
    # 0x81 is unassigned in cp1252, so only Latin-1 reads this.
    path.write_bytes("Preis: 5 Mark\x81 für Äpfel".encode("latin-1"))
    assert "für Äpfel" in extract(str(path)).pages[0].text


def test_binary_with_a_text_name_gets_a_reason(tmp_path):
    path = tmp_path / "data.txt"
    path.write_bytes(bytes(range(256)) * 40)
    assert "binary" in _fails(path, FailKind.NOT_FORMAT)


def test_form_feeds_make_pages(tmp_path):
    path = tmp_path / "manual.txt"
    path.write_text("First page text.\fSecond page text.\f\fFourth page.", encoding="utf-8")
    pages = extract(str(path)).pages
    assert [(p.number, p.text) for p in pages] == [
        (1, "First page text."),
        (2, "Second page text."),
        (4, "Fourth page."),
    ]


def test_markdown_headings_are_sections(tmp_path):
    body = []
    for level, title, paragraphs in MANUAL:
        body.append("#" * level + " " + title)
        body.extend(paragraphs)
    body.append("```\nlpadmin -p office -E\n```")
    path = tmp_path / "manual.md"
    path.write_text("\n\n".join(body), encoding="utf-8")
    sections, extracted = _sections(path)
    assert [s for _, s in sections] == SECTIONS
    assert [n for n, _ in sections] == [1, 2, 3, 4]
    assert extracted.pages[1].text.startswith("3.4 Choosing a printer\n\nChoose a printer")
    assert "lpadmin -p office -E" in extracted.pages[-1].text
    assert "#" not in extracted.pages[0].text


def test_rst_headings_are_sections(tmp_path):
    rst = """\
================
 1 Introduction
================

This manual explains how the office printer is installed.

3 Setup
=======

3.4 Choosing a printer
----------------------

Choose a printer that speaks PostScript over USB.

3.4.1 Cables
~~~~~~~~~~~~

A shielded cable of at most five metres keeps the signal clean.

4 Care
======

Dust the paper tray once a month with a dry cloth.
"""
    path = tmp_path / "manual.rst"
    path.write_text(rst, encoding="utf-8")
    sections, _ = _sections(path)
    # The overlined title is a style of its own, so "3 Setup" is level 2 under it.
    assert [s for _, s in sections] == [
        "1 Introduction",
        "1 Introduction › 3 Setup › 3.4 Choosing a printer",
        "1 Introduction › 3 Setup › 3.4 Choosing a printer › 3.4.1 Cables",
        "1 Introduction › 4 Care",
    ]


def test_rst_directives_options_and_markup_are_left_out(tmp_path):
    rst = """\
Manual
======

.. container:: book

   .. rubric:: 2.1 Options
      :name: options
      :class: title

   Use ``-9`` for the **best** compression, see `the site <https://example.org>`_
   and :option:`--fast`.

   .. image:: logo.png
      :alt: a logo

.. _target:

.. rubric:: 2.2 Exit codes

Zero means success.
"""
    path = tmp_path / "manual.rst"
    path.write_text(rst, encoding="utf-8")
    pages = extract(str(path)).pages
    assert [p.section for p in pages] == ["Manual › 2.1 Options", "Manual › 2.2 Exit codes"]
    assert pages[0].text == (
        "2.1 Options\n\nUse -9 for the best compression, see the site\nand --fast."
    )
    assert pages[1].text == "2.2 Exit codes\n\nZero means success."


# -- HTML ---------------------------------------------------------------------------------------


def test_html_leaves_out_navigation_scripts_and_styles(tmp_path):
    html = html_of(MANUAL).replace(
        "<body>",
        "<body><nav><a href='/'>Home</a> Products Support</nav>"
        "<div role='navigation'>Sidebar index</div><script>var tracking = 1;</script>"
        "<style>p { color: red }</style><div hidden>hidden text</div>",
    )
    path = tmp_path / "manual.html"
    path.write_text(html, encoding="utf-8")
    sections, extracted = _sections(path)
    assert [s for _, s in sections] == SECTIONS
    text = " ".join(p.text for p in extracted.pages)
    for left_out in ("Home", "Products", "Sidebar", "tracking", "color", "hidden text"):
        assert left_out not in text
    assert "PostScript over USB" in text


def test_html_meta_charset_is_honoured(tmp_path):
    html = '<html><head><meta charset="iso-8859-15"></head><body><p>Prix : 5 €</p></body></html>'
    path = tmp_path / "prix.htm"
    path.write_bytes(html.encode("iso-8859-15"))
    assert extract(str(path)).pages[0].text == "Prix : 5 €"


def test_html_without_headings_is_known_by_its_title(tmp_path):
    path = tmp_path / "page.html"
    path.write_text("<title>Release notes</title><p>Version 2 adds colour.</p>", encoding="utf-8")
    (page,) = extract(str(path)).pages
    assert (page.section, page.text) == ("Release notes", "Version 2 adds colour.")


def test_deeply_nested_html_is_read(tmp_path):
    path = tmp_path / "deep.html"
    path.write_text("<div>" * 5000 + "<p>deep words</p>" + "</div>" * 5000, encoding="utf-8")
    assert "deep words" in extract(str(path)).pages[0].text


# -- Word and OpenDocument ----------------------------------------------------------------------


def test_docx_headings_and_tables(tmp_path):
    import docx

    path = make_docx(tmp_path / "manual.docx", MANUAL)
    document = docx.Document(str(path))
    table = document.add_table(rows=2, cols=2)
    for r, row in enumerate([("Model", "Speed"), ("LaserJet", "20 ppm")]):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    document.save(str(path))
    sections, extracted = _sections(path)
    assert [s for _, s in sections] == SECTIONS
    assert extracted.reader == "python-docx" and format_for(str(path)) == "docx"
    assert extracted.pages[-1].text.endswith("Model | Speed\n\nLaserJet | 20 ppm")


def test_odt_headings_and_spaces(tmp_path):
    path = make_odt(tmp_path / "manual.odt", MANUAL)
    sections, extracted = _sections(path)
    assert [s for _, s in sections] == SECTIONS
    assert format_for(str(path)) == "odt" and extracted.reader == "opendocument"


def test_odt_of_another_kind_gets_a_reason(tmp_path):
    sheet = "application/vnd.oasis.opendocument.spreadsheet"
    path = make_odt(tmp_path / "sheet.odt", MANUAL, sheet)
    assert "spreadsheet" in _fails(path, FailKind.NOT_FORMAT)


def test_docx_that_is_not_a_zip_gets_a_reason(tmp_path):
    path = tmp_path / "report.docx"
    path.write_text("Just some text saved with the wrong name.", encoding="utf-8")
    assert "not a ZIP archive" in _fails(path, FailKind.NOT_FORMAT)


def test_password_protected_docx_says_so(tmp_path):
    path = tmp_path / "secret.docx"
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
    path.write_bytes(ole + b"\x00" * 1000 + "EncryptedPackage".encode("utf-16-le"))
    assert "password" in _fails(path, FailKind.PASSWORD)


def test_old_word_file_with_a_docx_name(tmp_path):
    path = tmp_path / "old.docx"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 2000)
    assert "older binary document" in _fails(path, FailKind.NOT_FORMAT)


def test_zip_that_is_not_a_word_document(tmp_path):
    path = tmp_path / "photos.docx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("holiday.jpg", b"\xff\xd8\xff" + b"0" * 100)
    assert "word/document.xml" in _fails(path, FailKind.NOT_FORMAT)


@pytest.mark.parametrize("name", ["manual.docx", "manual.odt", "book.epub"])
def test_truncated_archive_is_corrupt(tmp_path, name):
    whole = tmp_path / ("whole-" + name)
    if name.endswith(".docx"):
        make_docx(whole, MANUAL * 20)
    elif name.endswith(".odt"):
        make_odt(whole, MANUAL * 20)
    else:
        make_epub(whole, [MANUAL] * 5)
    path = tmp_path / name
    path.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    assert "damaged" in _fails(path, FailKind.CORRUPT)


@pytest.mark.parametrize("name", ["bomb.docx", "bomb.odt", "bomb.epub"])
def test_zip_bomb_is_refused_before_inflating(tmp_path, name):
    path = tmp_path / name
    if name.endswith(".docx"):
        make_docx(path, MANUAL)
    elif name.endswith(".odt"):
        make_odt(path, MANUAL)
    else:
        make_epub(path, [MANUAL])
    inflate_declared_sizes(path)
    assert "ZIP bomb" in _fails(path, FailKind.TOO_LARGE)


def test_entry_inflating_past_its_declared_size_is_corrupt(tmp_path, monkeypatch):
    path = make_odt(tmp_path / "liar.odt", MANUAL * 50)
    # Declare each entry 10 bytes unpacked: within every limit, but a lie.
    inflate_declared_sizes(path, 10)
    assert "damaged" in _fails(path, FailKind.CORRUPT)


def test_real_zip_of_zeros_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(archive, "MAX_UNPACKED_BYTES", 8 * 1024 * 1024)
    path = make_odt(tmp_path / "zeros.odt", MANUAL)
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as z:
        z.writestr("Pictures/blank.bmp", b"\x00" * (16 * 1024 * 1024))
    assert path.stat().st_size < 100_000
    assert "unpacks to" in _fails(path, FailKind.TOO_LARGE)


# -- EPUB ---------------------------------------------------------------------------------------


def test_epub_chapters_in_spine_order_without_the_contents(tmp_path):
    chapters = [MANUAL[:1], MANUAL[1:4], MANUAL[4:]]
    path = make_epub(tmp_path / "book.epub", chapters)
    sections, extracted = _sections(path)
    assert [s for _, s in sections] == SECTIONS
    assert [n for n, _ in sections] == [1, 2, 3, 4]
    assert extracted.reader == "epub" and format_for(str(path)) == "epub"


def test_epub_font_obfuscation_is_not_drm(tmp_path):
    enc = encryption_xml("http://www.idpf.org/2008/embedding", "OEBPS/font.otf")
    path = make_epub(tmp_path / "shop.epub", [MANUAL], encryption=enc, font=True)
    sections, _ = _sections(path)
    assert [s for _, s in sections] == SECTIONS


def test_epub_with_drm_gets_a_reason(tmp_path):
    enc = encryption_xml("http://www.w3.org/2001/04/xmlenc#aes128-cbc", "OEBPS/ch1.xhtml")
    path = make_epub(tmp_path / "locked.epub", [MANUAL], encryption=enc)
    assert "DRM" in _fails(path, FailKind.DRM)


def test_epub_that_is_not_a_zip(tmp_path):
    path = tmp_path / "book.epub"
    path.write_text("<html>not a book</html>", encoding="utf-8")
    assert "not a ZIP" in _fails(path, FailKind.NOT_FORMAT)


# -- choosing files -----------------------------------------------------------------------------


def test_files_are_chosen_by_extension():
    for name in ["a.pdf", "a.PDF", "b.docx", "c.odt", "d.epub", "e.html", "f.htm", "g.md"]:
        assert is_candidate(name), name
    for name in ["h.rst", "i.txt"]:
        assert is_candidate(name), name
    for name in ["~$b.docx", ".~lock.c.odt#", ".hidden.md", "photo.jpg", "archive.zip", "x.doc"]:
        assert not is_candidate(name), name


def test_empty_document_says_so(tmp_path):
    path = make_docx(tmp_path / "blank.docx", [])
    assert "no text" in _fails(path, FailKind.NO_TEXT)
    empty = tmp_path / "zero.md"
    empty.write_bytes(b"")
    assert "empty" in _fails(empty, FailKind.EMPTY)


# -- through the pipeline -----------------------------------------------------------------------


@pytest.mark.parametrize("isolate", [False, True], ids=["inline", "reader-process"])
def test_mixed_folder_is_indexed_with_sections_and_reasons(tmp_path, isolate):
    from desktop_rag.app import build_app
    from desktop_rag.config import Settings
    from tests.fakes import HashEmbedder, WordTokenizer

    folder = tmp_path / "library"
    folder.mkdir()
    make_docx(folder / "manual.docx", MANUAL)
    make_odt(folder / "manual.odt", MANUAL)
    make_epub(folder / "manual.epub", [MANUAL])
    (folder / "manual.html").write_text(html_of(MANUAL), encoding="utf-8")
    (folder / "notes.txt").write_text("The spare toner is in cupboard B.", encoding="utf-8")
    (folder / "broken.docx").write_text("not a zip", encoding="utf-8")
    app = build_app(
        Settings(data_dir=str(tmp_path / "data")),
        embedder=HashEmbedder(),
        tokenizer=WordTokenizer,
        isolate=isolate,
    )
    report = app.ingest.index([str(folder)])
    assert report.indexed == 5
    assert [(f.path.rsplit("/", 1)[1], f.kind) for f in report.failed] == [
        ("broken.docx", "not_format")
    ]
    docs = {d.path.rsplit("/", 1)[1]: d for d in app.store.documents()}
    assert {n: (d.format, d.reader) for n, d in docs.items() if d.status == "indexed"} == {
        "manual.docx": ("docx", "python-docx"),
        "manual.odt": ("odt", "opendocument"),
        "manual.epub": ("epub", "epub"),
        "manual.html": ("html", "selectolax"),
        "notes.txt": ("txt", "text"),
    }
    assert docs["manual.docx"].pages == 4  # sections, for a format without pages
    hits = app.retriever.search("shielded cable five metres", k=4)
    assert {h.path.rsplit("/", 1)[1] for h in hits} == {
        "manual.docx",
        "manual.odt",
        "manual.epub",
        "manual.html",
    }
    assert {(h.page, h.section) for h in hits} == {(3, SECTIONS[2])}
