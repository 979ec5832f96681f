"""Sections from a PDF's outline or its heading lines, and what chunking makes of them."""

from __future__ import annotations

from pathlib import Path

import pypdf

from desktop_rag.ingest.chunk import ChunkParams, chunk_pages, document_title, embedded_text
from desktop_rag.ingest.layout import Heading, heading_lines, layout_pages, read_outline
from desktop_rag.locations import SEPARATOR
from desktop_rag.types import Page
from tests.fakes import WordTokenizer
from tests.pdfgen import make_pdf

PAGES = Path(__file__).parent / "pages"


def with_outline(path: Path, entries: list[tuple[str, int, int]]) -> Path:
    """Add an outline of (title, 0-based page, level) entries to a PDF."""
    reader = pypdf.PdfReader(path)
    writer = pypdf.PdfWriter()
    writer.append(reader)
    parents: dict[int, object] = {}
    for title, page, level in entries:
        parent = parents.get(level - 1) if level > 0 else None
        parents[level] = writer.add_outline_item(title=title, page_number=page, parent=parent)  # type: ignore[arg-type]
    with open(path, "wb") as f:
        writer.write(f)
    return path


def test_the_outline_is_read_with_pages_and_levels(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "m.pdf", ["Title", "2 Battery care\nText.", "2.1 Charging\nMore."])
    with_outline(pdf, [("2 Battery care", 1, 0), ("2.1 Charging", 2, 1)])
    assert read_outline(str(pdf)) == (
        Heading(2, 0, "2 Battery care"),
        Heading(3, 1, "2.1 Charging"),
    )


def test_a_pdf_without_an_outline_or_not_a_pdf_gives_none(tmp_path: Path) -> None:
    assert read_outline(str(make_pdf(tmp_path / "m.pdf", ["Just text"]))) == ()
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(b"not a pdf at all")
    assert read_outline(str(bad)) == ()


def test_each_chunk_gets_the_heading_it_falls_under() -> None:
    first = "Power comes from a pack. " * 8 + "\n4.2 Battery care\n" + "charge the pack often " * 20
    pages = [Page(1, "Front matter"), Page(2, first), Page(3, "more about charging " * 10)]
    outline = [Heading(2, 0, "4 Power"), Heading(2, 1, "4.2 Battery care")]
    layouts = layout_pages(pages, outline)
    assert layouts[0].section == ""
    assert layouts[2].section == f"4 Power{SEPARATOR}4.2 Battery care"
    chunks = chunk_pages("d", "/m.pdf", pages, WordTokenizer(), ChunkParams(20, 5), layouts)
    on_two = [c for c in chunks if c.page == 2]
    assert on_two[0].section == "4 Power"  # before the heading's line
    assert on_two[-1].section == f"4 Power{SEPARATOR}4.2 Battery care"
    assert all(c.section.endswith("4.2 Battery care") for c in chunks if c.page == 3)


def test_an_outline_title_is_found_without_its_punctuation() -> None:
    text = "Some text before.\n2.2 Using docstrip and doc\nBody."
    layout = layout_pages([Page(1, text)], [Heading(1, 1, "2.2 Using `docstrip' and `doc'")])[0]
    assert layout.starts[0][0] == text.index("2.2 Using")


def test_without_an_outline_numbered_heading_lines_are_sections() -> None:
    text = (PAGES / "r-admin-body.txt").read_text(encoding="utf-8")
    titles = [t for _, _, t in heading_lines(text)]
    assert "2.3 Making the manuals" in titles
    assert not any(t.startswith("Chapter 2") for t in titles)  # its running header ends in a page
    contents = (PAGES / "3m-2018-10k-contents.txt").read_text(encoding="utf-8")
    layout = layout_pages([Page(1, contents)])[0]
    assert layout.nav and layout.starts == ()  # a contents page's lines are not headings


def test_ten_k_items_are_headings() -> None:
    text = "PART II\nItem 7. Management's Discussion and Analysis\nRevenue grew."
    assert [(lv, t) for _, lv, t in heading_lines(text)] == [
        (0, "PART II"),
        (1, "Item 7. Management's Discussion and Analysis"),
    ]


def test_navigation_pages_are_marked_and_running_lines_left_out() -> None:
    names = ["r-admin-contents", "r-admin-body", "r-admin-body-2", "r-admin-body-3"]
    pages = [
        Page(i, (PAGES / f"{n}.txt").read_text(encoding="utf-8")) for i, n in enumerate(names, 1)
    ]
    layouts = layout_pages(pages)
    chunks = chunk_pages("d", "/R-admin.pdf", pages, WordTokenizer(), ChunkParams(60, 10), layouts)
    assert {c.page for c in chunks if c.nav} == {1}
    for c in chunks:
        assert c.text == pages[c.page - 1].text[c.start : c.end]
        assert "Chapter 2: Installing R under Unix-alikes" not in c.text


def test_formats_read_by_section_keep_their_sections() -> None:
    pages = [Page(1, "Setup\nPlug it in.", "Setup"), Page(2, "1 Use\nPress go.", "Use")]
    layouts = layout_pages(pages)
    assert [lay.section for lay in layouts] == ["Setup", "Use"]
    assert all(lay.starts == () and lay.body is None for lay in layouts)


def test_the_embedded_text_carries_title_and_section() -> None:
    pages = [Page(1, "Charge the pack.")]
    layouts = layout_pages(pages, [Heading(1, 0, "4.2 Battery care")])
    chunk = chunk_pages("d", "/x/Handy_Vac-3000.pdf", pages, WordTokenizer(), None, layouts)[0]
    assert document_title(chunk.path) == "Handy Vac-3000"
    assert (
        embedded_text(chunk, ChunkParams()) == "Handy Vac-3000 › 4.2 Battery care\nCharge the pack."
    )
    assert embedded_text(chunk, ChunkParams(sections=0)) == "Charge the pack."


def test_a_navigation_page_is_embedded_by_its_title_and_heading_alone() -> None:
    contents = "Contents\n" + "\n".join(
        f"{n} {title} . . . . . . . . . . {n * 7}"
        for n, title in enumerate(
            ["Setup", "Battery care", "Charging", "Cleaning", "Storage", "Faults", "Spares"], 1
        )
    )
    pages = [Page(1, contents), Page(2, "Charge the pack before the first use.")]
    layouts = layout_pages(pages)
    assert [bool(lay.nav) for lay in layouts] == [True, False]
    chunks = chunk_pages("d", "/x/Handy_Vac-3000.pdf", pages, WordTokenizer(), None, layouts)
    nav = [c for c in chunks if c.nav]
    text = [c for c in chunks if not c.nav]
    assert nav and text
    context = "Handy Vac-3000"
    assert all(embedded_text(c, ChunkParams()) == context for c in nav)
    assert all(embedded_text(c, ChunkParams()).endswith(c.text) for c in text)
    # As indexes made before it embedded them: with their text.
    old = ChunkParams(nav_headings=0)
    assert all(embedded_text(c, old) == f"{context}\n{c.text}" for c in nav)
    assert ChunkParams().to_json()["nav_headings"] == 1 and "nav_headings" not in old.to_json()


def test_section_aware_chunking_is_part_of_the_index_metadata() -> None:
    # An index made before it has {"max_tokens", "overlap"} only: it must read as a mismatch.
    assert ChunkParams(sections=0).to_json() == {"max_tokens": 128, "overlap": 24}
    assert ChunkParams().to_json() != ChunkParams(sections=0).to_json()


def test_bounded_chunks_never_span_two_sections() -> None:
    # Three sections on one page, each shorter than a chunk: unbounded, a chunk would hold the
    # end of one and the start of the next under one heading.
    text = (
        "Intro words about the device. " * 3
        + "\n4.1 Battery care\n"
        + "charge the pack often and keep it cool " * 4
        + "\n4.2 Cleaning\n"
        + "wipe the case with a dry cloth " * 12
    )
    pages = [Page(1, text)]
    outline = [Heading(1, 0, "4.1 Battery care"), Heading(1, 0, "4.2 Cleaning")]
    layouts = layout_pages(pages, outline)
    starts = [o for o, _ in layouts[0].starts]
    loose = chunk_pages("d", "/m.pdf", pages, WordTokenizer(), ChunkParams(40, 8), layouts)
    assert any(c.start < s < c.end for c in loose for s in starts), "the case needs a crossing"
    params = ChunkParams(40, 8, bounded=1)
    chunks = chunk_pages("d", "/m.pdf", pages, WordTokenizer(), params, layouts)
    assert not any(c.start < s < c.end for c in chunks for s in starts)
    assert next(c.section for c in chunks if "cloth" in c.text) == "4.2 Cleaning"
    assert all("pack" not in c.text for c in chunks if c.section == "4.2 Cleaning")
    # Every word is still in some chunk, and the long section is cut by size as before.
    covered = {i for c in chunks for i in range(c.start, c.end)}
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())
    assert sum(c.section == "4.2 Cleaning" for c in chunks) >= 2
    assert params.to_json() == {
        "max_tokens": 40,
        "overlap": 8,
        "sections": 1,
        "bounded": 1,
        "nav_headings": 1,
    }


def test_a_table_row_or_a_sentence_fragment_is_not_a_heading() -> None:
    # Issue 41: sources read "§ 24 Irish counties between 2011 and 2015. A" and "§ 3 Years
    # Abstentions Broker Non-Votes": a sentence cut at a line's end and a table row, each
    # starting with a number, were taken for numbered headings. Real PDFs.
    from desktop_rag.ingest.extract import extract
    from tests.conftest import CORPUS

    if not CORPUS.is_dir():
        import pytest

        pytest.skip("../shared/corpus is not here")
    files = [
        CORPUS / "covid-qa" / "pdf" / name for name in ("1545.pdf", "1548.pdf", "1556.pdf")
    ] + [
        CORPUS / "financebench" / "pdfs" / name
        for name in ("FOOTLOCKER_2022_8K_dated-2022-05-20.pdf", "ULTABEAUTY_2023Q4_EARNINGS.pdf")
    ]
    taken = [
        (path.name, title)
        for path in files
        for page in extract(str(path)).pages
        for _, _, title in heading_lines(page.text)
    ]
    assert taken == [], taken
    # A numbered heading standing alone is still one.
    text = "The first part ends here.\n2.3 Making the manuals\nThe manuals are made with make."
    assert [t for _, _, t in heading_lines(text)] == ["2.3 Making the manuals"]
