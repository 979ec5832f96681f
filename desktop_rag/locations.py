"""How a passage's place in its document is written: "p. 26" in a PDF, "§ 3.4 Setup" elsewhere."""

from __future__ import annotations

import os
import re

SEPARATOR = " › "  # between the headings of a section's path
# The formats read one section at a time (ingest/readers, whose table a test holds to this).
SECTIONED_SUFFIXES = frozenset(
    {".txt", ".text", ".md", ".markdown", ".rst", ".html", ".htm", ".xhtml", ".docx", ".odt",
     ".epub"}
)  # fmt: skip

# "3.4 Choosing a printer", "A.2 Glossary", "IV. Results": the heading's own number.
_NUMBER = re.compile(r"^((?:\d+|[A-Z]|[IVXLC]+)(?:\.\d+)*)\.?\s+\S")
MAX_TITLE_CHARS = 40
MAX_HEADING_CHARS = 60  # of a PDF page's heading shown beside its page number


def paginated(path: str) -> bool:
    """Whether the document has pages (PDFs; a file of another format has sections)."""
    return os.path.splitext(path)[1].lower() not in SECTIONED_SUFFIXES


def section_mark(section: str, page: int) -> str:
    """ "§ 3.4 Choosing a printer": the last heading of a path, its number and title, cut if
    long (as a PDF's page shows its heading); "§ 2", the section's ordinal, without one."""
    last = section.rsplit(SEPARATOR, 1)[-1].strip()
    if not last:
        return f"§ {page}"
    if len(last) > MAX_TITLE_CHARS:
        match = _NUMBER.match(last)
        # A numbered title is cut after its number's share, so "§ 2.5.2" stays whole.
        room = MAX_TITLE_CHARS + (len(match.group(1)) + 1 if match else 0)
        last = last[:room].rsplit(" ", 1)[0] + " …"
    return f"§ {last}"


def heading(section: str) -> str:
    """ "§ 4.2 Battery care": the last heading of a path, number and title, cut if long."""
    last = section.rsplit(SEPARATOR, 1)[-1].strip()
    if len(last) > MAX_HEADING_CHARS:
        last = last[:MAX_HEADING_CHARS].rsplit(" ", 1)[0] + " …"
    return f"§ {last}" if last else ""


def place(
    path: str, page: int, section: str = "", *, short: bool = False, page_words: str = ""
) -> str:
    """Where in its document a passage is: "page 26, § 4.2 Battery care" ("p. 26, ..." if
    short; the heading only when the page is in a section) or "§ 3.4". `page_words` replaces
    "page 26" where the window says it in its own language ("Seite 26")."""
    if paginated(path):
        where = page_words or (f"p. {page}" if short else f"page {page}")
        return f"{where}, {heading(section)}" if section.strip() else where
    return section_mark(section, page)


def cite(path: str, page: int, section: str = "", *, short: bool = False) -> str:
    """The file and the place: "manual.docx, § 3.4", "report.pdf, page 26"."""
    return f"{os.path.basename(path)}, {place(path, page, section, short=short)}"
