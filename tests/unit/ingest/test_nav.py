"""Navigation pages and running headers/footers, on pages copied from the manuals and 10-Ks."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.ingest import nav

PAGES = Path(__file__).parent / "pages"


def page(name: str) -> str:
    return (PAGES / f"{name}.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "name",
    [
        "r-admin-contents",  # texinfo: dot leaders
        "r-admin-concept-index",  # an index: leaders and lists of pages
        "beamer-contents",  # LaTeX: leaders, chapter lines without them
        "gnuplot-contents",
        "3m-2018-10k-contents",  # a 10-K: "ITEM 1A Risk Factors 10", no leaders
        "pepsico-2021-10k-exhibit-contents",  # an exhibit's "TABLE OF CONTENTS"
    ],
)
def test_contents_lists_and_indexes_are_navigation(name: str) -> None:
    assert nav.nav_reason(page(name))


@pytest.mark.parametrize(
    "name",
    [
        "3m-2018-10k-cash-flows",  # a table: rows end in amounts, not page numbers
        "adobe-2015-10k-balance-sheet",  # a table with dot leaders before amounts
        "3m-2018-10k-notes",
        "3m-2018-10k-risk-factors",
        "r-admin-body",
        "beamer-body",
    ],
)
def test_tables_and_text_are_not_navigation(name: str) -> None:
    assert nav.nav_reason(page(name)) == ""


def test_the_reason_names_the_kind_of_page() -> None:
    assert nav.nav_reason(page("r-admin-concept-index")).startswith("index page")
    assert nav.nav_reason(page("3m-2018-10k-contents")).startswith("contents page")


def test_running_headers_are_cut_from_the_body() -> None:
    texts = [page("r-admin-body"), page("r-admin-body-2"), page("r-admin-body-3")]
    spans = nav.body_spans(texts)
    for text, (start, end) in zip(texts, spans, strict=True):
        assert text.startswith("Chapter 2: Installing R under Unix-alikes")
        body = text[start:end]
        assert "Chapter 2: Installing R" not in body.splitlines()[0]
        assert body == body.strip() and len(body) > 0.9 * len(text)


def test_a_10k_header_link_and_page_numbers_are_cut() -> None:
    texts = [
        page("3m-2018-10k-risk-factors"),
        page("3m-2018-10k-cash-flows"),
        page("3m-2018-10k-notes"),
    ]
    for text, (start, end) in zip(texts, nav.body_spans(texts), strict=True):
        assert text.startswith("Table of Contents\n")
        body = text[start:end]
        assert not body.startswith("Table of Contents")
        assert not body.splitlines()[-1].strip().isdigit()  # the page number at the foot


def test_a_line_on_two_pages_only_is_kept() -> None:
    texts = ["Battery care\nCharge it.", "Battery care\nCharge it again.", "Other\nThings."]
    assert nav.body_spans(texts) == [(0, len(t)) for t in texts]


def test_a_page_of_nothing_but_running_lines_keeps_its_text() -> None:
    texts = ["Manual\n1", "Manual\n2", "Manual\n3"]
    assert nav.body_spans(texts) == [(0, len(t)) for t in texts]


# Navigation lines of HTML manuals, as a Word or HTML copy of a Texinfo manual keeps them.
TEXINFO_NAV = (
    "Next: 2.5.3 What is the current version of R?, Previous: 2.5.1 What machines does R "
    "run on?, Up: 2.5 R Basics   [Contents][Index]"
)


@pytest.mark.parametrize(
    "line",
    [
        TEXINFO_NAV,
        "Next: Obtaining R, Up: Top",
        "Previous: Introduction, Up: Top [Contents]",
        "[Contents][Index]",
        "[ Top ] [ Contents ] [ Index ]",
    ],
)
def test_navigation_lines(line: str) -> None:
    assert nav.nav_line(line)


@pytest.mark.parametrize(
    "line",
    [
        "R can be obtained from CRAN: next, choose a mirror near you.",
        "Up: the pressure rises when the valve closes.",
        "See the Index for more.",
        "2.5.2 How can R be obtained?",
    ],
)
def test_text_is_not_a_navigation_line(line: str) -> None:
    assert not nav.nav_line(line)


def test_navigation_lines_are_cut_from_sections_of_every_format() -> None:
    from desktop_rag.ingest.layout import layout_pages
    from desktop_rag.types import Page

    sections = [
        Page(1, f"2.5.1 What machines does R run on?\n\nR runs on Unix.\n\n{TEXINFO_NAV}", "x"),
        Page(
            2,
            "2.5.2 How can R be obtained?\n\nSources, binaries and documentation can be "
            "obtained via CRAN.\n\nNext: 2.5.4 Citing R, Previous: 2.5.2, Up: 2.5 [Contents]",
            "x",
        ),
        Page(3, "Step 1\n\nUnpack it.", "y"),
        Page(4, "Step 2\n\nBuild it.", "y"),
        Page(5, "Step 3\n\nInstall it.", "y"),
        Page(6, TEXINFO_NAV, ""),
    ]
    layouts = layout_pages(sections)
    for page, layout in zip(sections[:2], layouts[:2], strict=True):
        assert layout.body is not None
        body = page.text[layout.body[0] : layout.body[1]]
        assert "Next:" not in body and "[Contents]" not in body
        assert body.startswith("2.5.") and not layout.nav
    # Headings alike in shape are not running headers in a document read by sections.
    assert all(layout.body is None for layout in layouts[2:5])
    # A section of nothing but navigation links is a navigation page.
    assert layouts[5].nav.startswith("navigation links")
