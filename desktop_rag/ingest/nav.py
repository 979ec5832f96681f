"""Navigation pages (contents, lists of figures and tables, indexes) and running headers/footers.

A contents page repeats every section title beside a page number, so words alone rank it above
the section itself; a running header ("Chapter 2: Installing R 5", a 10-K's "Table of
Contents" link) repeats on page after page. A manual made from HTML carries navigation lines
("Next: 2.5.3 ..., Previous: 2.5.1 ..., Up: 2.5 ... [Contents][Index]") at the edges of every
section, naming its neighbours. All are found here at index time, in every format: navigation
pages are kept but marked (retrieval demotes them), running and navigation lines are left out
of what is matched.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Sequence

# A title that names the page a navigation page ("Table of Contents", "Index", "List of Figures").
_NAV_TITLE = re.compile(
    r"^\s*(?:table\s+of\s+)?contents\b|^\s*(?:[a-z]+\s+)?index\s*$|^\s*list\s+of\s+"
    r"(?:figures|tables|illustrations|exhibits|listings)\b",
    re.IGNORECASE,
)
# Dot leaders: ". . . . ." or "......" or "…" runs between a title and its page.
_LEADER = re.compile(r"(?:\.\s?){4,}|…{2,}|(?:·\s?){4,}")
# A page reference ending a line: "12", "xi", "47, 71", "12–14".
_PAGE_REF = r"(?:[0-9]{1,4}|[ivxlc]{1,7})"
_ENDS_IN_REF = re.compile(rf"(?P<before>\S+)\s+(?P<ref>{_PAGE_REF}(?:\s*[,–-]\s*{_PAGE_REF})*)$")
_TAIL_REF = re.compile(rf"^\s*{_PAGE_REF}(?:\s*[,–-]\s*{_PAGE_REF})*\s*$", re.IGNORECASE)
# An amount, not a page: "1,117,400", "$ 876", "12.5%".
_AMOUNT = re.compile(r"\d,\d{3}(?!\d)|[$€£%]|\d\.\d")
_LETTER = re.compile(r"[A-Za-z]")
_DIGITS = re.compile(r"[0-9]+")
_ROMAN = re.compile(r"^[ivxlc]+$", re.IGNORECASE)

# A navigation line: links to the neighbouring sections ("Next: ...", "Previous: ...",
# "Up: ...") and to the contents or index ("[Contents][Index]"), as Texinfo, Sphinx and other
# HTML manuals print them above and below each section.
_LINK_LABEL = re.compile(r"(?:^|[\s,|])(?:next|previous|prev|up|top|home)\s*:", re.IGNORECASE)
_BRACKET_LINK = re.compile(
    r"\[\s*(?:contents|index|top|up|next|prev(?:ious)?|home)\s*\]", re.IGNORECASE
)
MIN_NAV_LINES = 6  # fewer lines ending in a page number than this is never a navigation page
NAV_SHARE = 0.6  # of the lines with letters, without a navigation title
NAV_SHARE_TITLED = 0.35  # with one ("Contents", "Index", "List of Tables") near the top
ASCENDING_SHARE = 0.8  # of consecutive numbers, for pages without dot leaders: a contents page
RUNNING_EDGE = 2  # running headers and footers are among this many lines at a page's edges
RUNNING_MIN_PAGES = 3  # a line is running once it recurs, position-alike, on this many pages


def nav_line(line: str) -> bool:
    """Whether a line is a section's navigation links ("Next: ..., Up: ... [Contents]")."""
    labels = len(_LINK_LABEL.findall(line))
    brackets = _BRACKET_LINK.findall(line)
    if labels >= 2 or (labels and brackets):
        return True
    return bool(brackets) and not _LETTER.search(_BRACKET_LINK.sub("", line))


def _ref_value(ref: str) -> int | None:
    first = re.split(r"\s*[,–-]\s*", ref)[0]
    if first.isdigit():
        return int(first)
    return None


def nav_reason(text: str) -> str:
    """Why a page is a navigation page ("" if it is not): contents, lists, indexes.

    Tables of figures are not navigation: their rows end in several numbers ("Net income 5,363
    4,869 5,058"), with thousands separators, currency or brackets, never in one bare page number
    after a word.
    """
    lines = [ln.strip() for ln in text.splitlines() if _LETTER.search(ln)]
    if lines and all(nav_line(ln) for ln in lines):
        return f"navigation links: {len(lines)} line{'s' if len(lines) != 1 else ''}"
    if len(lines) < MIN_NAV_LINES:
        return ""
    leaders = 0
    refs: list[int] = []
    nav_lines = 0
    for line in lines:
        leaders_in_line = list(_LEADER.finditer(line))
        if leaders_in_line:
            tail = line[leaders_in_line[-1].end() :]
            if _TAIL_REF.match(tail) and not _AMOUNT.search(tail):
                leaders += 1
                nav_lines += 1
            continue
        match = _ENDS_IN_REF.search(line)
        if match is None:
            continue
        before = match.group("before")
        if _AMOUNT.search(match.group("ref")):
            continue
        # A word (or a heading's closing bracket) before the number: "Business 4", not "24 148".
        if not _LETTER.search(before) or before.endswith(("$", "%")):
            continue
        nav_lines += 1
        value = _ref_value(match.group("ref"))
        if value is not None:
            refs.append(value)
    if nav_lines < MIN_NAV_LINES:
        return ""
    titled = any(_NAV_TITLE.search(line) for line in lines[:6])
    share = nav_lines / len(lines)
    if share < (NAV_SHARE_TITLED if titled else NAV_SHARE):
        return ""
    if leaders < nav_lines / 2 and not titled:
        # Title-and-number lines without leaders: only a run of ascending numbers (a contents
        # page) counts, so that a one-column table of amounts never does.
        pairs = list(itertools.pairwise(refs))
        ascending = sum(b >= a for a, b in pairs)
        if not pairs or ascending / len(pairs) < ASCENDING_SHARE:
            return ""
    what = "contents, list or index page" if not titled else _kind(lines[:6])
    return f"{what}: {nav_lines} of {len(lines)} lines end in a page number"


def _kind(head: Sequence[str]) -> str:
    for line in head:
        match = _NAV_TITLE.search(line)
        if match:
            word = match.group(0).strip().lower()
            if "index" in word:
                return "index page"
            if word.startswith("list"):
                return "list of figures or tables"
            return "contents page"
    return "contents, list or index page"


def _shape(line: str) -> str:
    """A line as it recurs from page to page: page numbers and case do not matter."""
    line = _DIGITS.sub("#", line.strip().lower())
    words = [("#" if _ROMAN.match(w) and len(w) <= 5 else w) for w in line.split()]
    return " ".join(words)


def _edges(text: str) -> list[tuple[str, int, int, str]]:
    """The first and last RUNNING_EDGE non-blank lines: (shape, start, end, which edge)."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for raw in text.split("\n"):
        start, end = pos, pos + len(raw)
        pos = end + 1
        if raw.strip():
            spans.append((start, end))
    out = []
    for i, (s, e) in enumerate(spans):
        if i < RUNNING_EDGE:
            out.append((_shape(text[s:e]), s, e, "top"))
        elif i >= len(spans) - RUNNING_EDGE:
            out.append((_shape(text[s:e]), s, e, "bottom"))
    return out


def body_spans(texts: Sequence[str], *, repeated: bool = True) -> list[tuple[int, int]]:
    """For each page, the span of its text without its running headers and footers.

    A line at a page's top or bottom edge is running when a line of the same shape (digits
    aside) sits at the same edge of at least RUNNING_MIN_PAGES pages of the document; a bare
    page number and a navigation line (nav_line) always are. Only whole lines at the edges are
    cut, so every span is one slice of the page's text and offsets into it stay offsets into
    the page. `repeated` False cuts navigation lines only: a document read by sections (each
    starting with its own heading) has no running headers, and its headings may repeat in
    shape ("Step 1", "Step 2", ...).
    """
    edges = [_edges(t) for t in texts]
    seen: Counter[tuple[str, str]] = Counter()
    for page in edges:
        for key in {(shape, edge) for shape, _, _, edge in page}:
            seen[key] += 1
    spans = []
    for text, page in zip(texts, edges, strict=True):
        start, end = 0, len(text)
        running = [
            (s, e, edge)
            for shape, s, e, edge in page
            if nav_line(text[s:e])
            or (repeated and (shape.strip("# ") == "" or seen[(shape, edge)] >= RUNNING_MIN_PAGES))
        ]
        for s, e, edge in running:
            if edge == "top" and text[start:s].strip() == "":
                start = e
        for s, e, edge in reversed(running):
            if edge == "bottom" and text[e:end].strip() == "":
                end = s
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start >= end:  # a page of nothing but running lines keeps its text
            start, end = 0, len(text)
        spans.append((start, end))
    return spans
