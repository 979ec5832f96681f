"""Sections of a PDF: from its outline (bookmarks) where it has one, else from its heading lines.

Each page gets a layout: the section path in force at its top, the sections that start on it
(with their offsets into the page text, so a chunk gets the heading it falls under), whether it
is a navigation page, and the span of its text left once running headers and footers are cut
(ingest/nav.py).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from desktop_rag.ingest import nav
from desktop_rag.locations import SEPARATOR
from desktop_rag.types import Page

log = logging.getLogger(__name__)

MAX_TITLE_CHARS = 120  # longer outline titles are cut: a path is context, not content
MAX_PATH_DEPTH = 4  # "Part › Chapter › Section › Subsection" at most
MAX_OUTLINE_ITEMS = 20_000  # a pathological outline is read this far and no further

# Heading lines of documents without an outline: "4.2 Battery care", "A.1 Options",
# "Item 7. Management's Discussion", "PART II", "Chapter 3: Setup".
_NUMBERED = re.compile(r"^(?P<num>[0-9]{1,2}(?:\.[0-9]{1,2}){0,3}|[A-H](?:\.[0-9]{1,2}){1,3})\.?\s+"
                       r"(?P<title>[A-Z][^\n]{2,78})$")  # fmt: skip
_ITEM = re.compile(r"^(?P<kind>part|item|chapter|appendix|article)\s+(?P<num>[0-9IVX]{1,4}[A-Z]?)"
                   r"\s*[.:\-–—]?\s*(?P<title>[^\n]{0,80})$", re.IGNORECASE)  # fmt: skip
_KIND_LEVEL = {"part": 0, "article": 0, "chapter": 0, "appendix": 0, "item": 1}


@dataclass(frozen=True, slots=True)
class Heading:
    """One section start: its 1-based page, depth (0 = top) and title."""

    page: int
    level: int
    title: str


@dataclass(frozen=True, slots=True)
class PageLayout:
    """What indexing needs to know of one page beyond its text."""

    section: str = ""  # the heading path in force at the top of the page
    starts: tuple[tuple[int, str], ...] = ()  # (offset in the page text, path) of new sections
    nav: str = ""  # why it is a navigation page ("" if it is not)
    body: tuple[int, int] | None = None  # the span matched; None: the whole text

    def section_at(self, offset: int) -> str:
        """The heading path in force at a character offset of the page."""
        section = self.section
        for start, path in self.starts:
            if start > offset:
                break
            section = path
        return section


def read_outline(path: str, password: str | None = None) -> tuple[Heading, ...]:
    """The PDF's outline as headings; () when it has none or it cannot be read (never raises:
    a broken outline only costs the sections, never the document)."""
    try:
        import pypdfium2 as pdfium

        doc = pdfium.PdfDocument(path, password=password or None)
    except Exception:
        return ()
    try:
        return outline_of(doc, path)
    finally:
        doc.close()


def outline_of(doc: Any, path: str = "") -> tuple[Heading, ...]:
    """The outline of a PDF pdfium has open (the reader's own document, so a file is opened
    once); () when it has none or it cannot be read."""
    try:
        out: list[Heading] = []
        for item in doc.get_toc(max_depth=MAX_PATH_DEPTH * 4):
            if len(out) >= MAX_OUTLINE_ITEMS:
                break
            dest = item.get_dest()
            index = dest.get_index() if dest is not None else None
            title = " ".join((item.get_title() or "").split())[:MAX_TITLE_CHARS]
            if index is None or not title:
                continue
            out.append(Heading(int(index) + 1, int(item.level), title))
        return tuple(out)
    except Exception as exc:
        log.debug("cannot read the outline of %s: %s", path, exc)
        return ()


# A number that counts something, not a section: "13 Weeks Ended", "3 Years" (a table's
# columns), "24 Irish counties" is caught by what follows it.
_QUANTITY = re.compile(
    r"^(?:years?|months?|weeks?|days?|hours?|minutes?|seconds?|times|percent|per|patients|"
    r"cases|samples|horses|participants)\b",
    re.I,
)
# Words a title never ends with: a line that does runs on into the next.
_RUNS_ON_TEXT = """a an the of in on at to for from by with and or nor but as than that which who
    was were is are be our their its his her this these those between among into"""
_RUNS_ON = frozenset(_RUNS_ON_TEXT.split())
HEADING_WORDS = 12


def _looks_alone(title: str, after: str) -> bool:
    """A numbered line that reads as a heading: short, whole (no sentence ends inside it, no
    bracket closes that it did not open, it does not end on a word that runs on), and not
    followed by the rest of its sentence (a line starting in lower case)."""
    words = title.split()
    if len(words) > HEADING_WORDS or re.search(r"[a-z0-9][.!?]\s", title):
        return False
    if words and (words[-1].lower() in _RUNS_ON or re.fullmatch(r"[A-Za-z]", words[-1])):
        return False
    if title.count(")") > title.count("("):
        return False
    return not after[:1].islower()


def heading_lines(text: str) -> list[tuple[int, int, str]]:
    """(offset, level, title) of the lines of one page that look like numbered headings: a
    sentence cut at a line's end ("24 Irish counties between 2011 and 2015. A") and a table's
    row ("3 Years Abstentions Broker Non-Votes") are not."""
    out = []
    pos = 0
    lines = text.split("\n")
    for k, raw in enumerate(lines):
        line = raw.strip()
        offset = pos + (len(raw) - len(raw.lstrip()))
        pos += len(raw) + 1
        if not line or len(line) > 90 or line.endswith((".", ",", ";")):
            continue
        if nav._LEADER.search(line) or re.search(r"\s[0-9]{1,4}$", line):
            continue  # a contents line or a title beside its page number
        match = _NUMBERED.match(line)
        if match is not None:
            after = lines[k + 1].strip() if k + 1 < len(lines) else ""
            title = match.group("title")
            if _QUANTITY.match(title) or not _looks_alone(title, after):
                continue
            out.append((offset, match.group("num").count("."), line))
            continue
        match = _ITEM.match(line)
        if match is not None:
            out.append((offset, _KIND_LEVEL[match.group("kind").lower()], line))
    return out


def _norm(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", " ", text.lower()).strip()


def _locate(title: str, text: str) -> int:
    """Where a heading's title begins in its page text (0 if it cannot be found)."""
    wanted = _norm(title)
    if not wanted:
        return 0
    # Compare alphanumerics only: the outline says "2.2 Using `docstrip'", the page
    # "2.2 Using docstrip".
    chars = []
    positions = []
    for i, ch in enumerate(text.lower()):
        if ch.isalnum():
            chars.append(ch)
            positions.append(i)
        elif chars and chars[-1] != " ":
            chars.append(" ")
            positions.append(i)
    flat = "".join(chars)
    found = flat.find(wanted)
    if found < 0:
        # The outline title without its number ("Installing packages" for "6.3 Installing ...").
        words = wanted.split(" ", 1)
        if len(words) == 2 and any(ch.isdigit() for ch in words[0]):
            found = flat.find(words[1])
    return positions[found] if found >= 0 else 0


def layout_pages(pages: Sequence[Page], outline: Sequence[Heading] = ()) -> list[PageLayout]:
    """Each page's layout: sections from the outline (else from heading lines), navigation
    pages, and the body left once running headers and footers are cut."""
    texts = [p.text for p in pages]
    # Formats read by section (ingest/readers) already have their headings and no running
    # headers; only their navigation lines are cut.
    sectioned = any(p.section for p in pages)
    bodies = nav.body_spans(texts, repeated=not sectioned)
    navs = [nav.nav_reason(t) for t in texts]
    by_number = {p.number: i for i, p in enumerate(pages)}
    starts: list[list[tuple[int, int, str]]] = [[] for _ in pages]  # (offset, level, title)
    if outline:
        for heading in outline:
            i = by_number.get(heading.page)
            if i is not None:
                starts[i].append((_locate(heading.title, texts[i]), heading.level, heading.title))
    elif not sectioned:
        for i, text in enumerate(texts):
            if navs[i]:
                continue
            lo, hi = bodies[i]
            starts[i] = [(o, lv, t) for o, lv, t in heading_lines(text) if lo <= o < hi]
    out: list[PageLayout] = []
    stack: list[tuple[int, str]] = []
    for i, page in enumerate(pages):
        at_top = SEPARATOR.join(t for _, t in stack[-MAX_PATH_DEPTH:])
        page_starts: list[tuple[int, str]] = []
        # Outline entries are in reading order; offsets found by search may not be.
        last = 0
        for offset, level, title in starts[i]:
            last = max(last, offset)
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
            page_starts.append((last, SEPARATOR.join(t for _, t in stack[-MAX_PATH_DEPTH:])))
        body = bodies[i] if bodies[i] != (0, len(page.text)) else None
        out.append(
            PageLayout(
                section=page.section or at_top,
                starts=tuple(page_starts),
                nav=navs[i],
                body=body,
            )
        )
    return out
