"""Where a passage is: "page 26" in a PDF, "§ 3.4 Choosing a printer" in a document without
pages."""

from __future__ import annotations

from desktop_rag.locations import cite, paginated, place, section_mark
from desktop_rag.query.prompt import source_line


def test_pdfs_have_pages_other_formats_sections():
    assert paginated("/lib/report.pdf") and paginated("/lib/REPORT.PDF")
    assert not any(paginated(f"/lib/manual.{ext}") for ext in ("docx", "odt", "epub", "md"))
    assert place("/lib/report.pdf", 26) == "page 26"
    assert place("/lib/report.pdf", 26, short=True) == "p. 26"
    assert (
        cite("/lib/manual.docx", 7, "3 Setup › 3.4 Choosing a printer")
        == "manual.docx, § 3.4 Choosing a printer"
    )


def test_section_marks():
    # Issue 31: "§ 2", "§ 2.5.2" told nothing; a PDF's page shows its heading's title.
    assert section_mark("3 Setup › 3.4 Choosing a printer", 7) == "§ 3.4 Choosing a printer"
    assert section_mark("Appendix › A.2 Glossary", 9) == "§ A.2 Glossary"
    assert section_mark("IV. Results", 4) == "§ IV. Results"
    assert section_mark("2 R Basics", 3) == "§ 2 R Basics"
    numbered = section_mark("2 R Basics › 2.5.2 How can R be obtained on every system?", 9)
    assert numbered.startswith("§ 2.5.2 How can R be obtained") and numbered.endswith(" …")
    assert section_mark("Guide › Choosing a printer", 3) == "§ Choosing a printer"
    assert section_mark("", 5) == "§ 5"
    long = section_mark("What to do when the printer does not answer at all any more", 1)
    assert long.startswith("§ What to do") and long.endswith(" …") and len(long) < 50


def test_prompt_names_a_section_by_its_title():
    line = source_line(2, "/lib/manual.docx", 7, "Choose PostScript.", "3 Setup › 3.4 Choosing")
    assert line == "[2] manual.docx, 3.4 Choosing: Choose PostScript."
    assert source_line(1, "/lib/a.pdf", 3, "Text.") == "[1] a.pdf, page 3: Text."


def test_the_sectioned_formats_are_the_readers():
    from desktop_rag.ingest.readers import SUFFIXES
    from desktop_rag.locations import SECTIONED_SUFFIXES

    assert SUFFIXES == SECTIONED_SUFFIXES


def test_a_page_in_other_words_keeps_its_heading_and_sections_their_mark():
    """The window names the page in its own language (gui/words.py); the rest is the core's."""
    assert place("r.pdf", 26, "Care › 4.2 Battery", page_words="Seite 26") == (
        "Seite 26, § 4.2 Battery"
    )
    assert place("r.pdf", 26, short=True, page_words="S. 26") == "S. 26"
    assert place("m.md", 3, "Guide › 3.4 Setup", page_words="Seite 3") == "§ 3.4 Setup"
    assert place("r.pdf", 26) == "page 26"
