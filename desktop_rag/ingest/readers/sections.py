"""A document's headings and paragraphs as one Page per section, each with its heading path."""

from __future__ import annotations

from desktop_rag.cleaning import clean_text
from desktop_rag.locations import SEPARATOR
from desktop_rag.types import Page

__all__ = ["SEPARATOR", "Outline"]
MAX_HEADING_CHARS = 200  # a "heading" longer than this is a paragraph styled as one


class Outline:
    """Collects headings and blocks of text in reading order.

    Each heading starts a section whose path holds the titles of the headings above it
    ("3 Setup › 3.4 Choosing a printer"); the section's text starts with its own title, as a
    page of a PDF shows it. A heading with no text of its own (one followed at once by a
    sub-heading) gives no page: its title lives on in the paths of its subsections.
    """

    def __init__(self) -> None:
        self._stack: list[tuple[int, str]] = []
        self._section = ""
        self._blocks: list[str] = []
        self._has_body = False
        self._pages: list[Page] = []

    def heading(self, level: int, title: str) -> None:
        title = " ".join(title.split())
        if not title:
            return
        if len(title) > MAX_HEADING_CHARS:
            self.text(title)
            return
        self._flush()
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        self._stack.append((level, title))
        self._section = SEPARATOR.join(t for _, t in self._stack)
        self._blocks.append(title)

    def text(self, block: str) -> None:
        """One block (a paragraph, a list item, a table row); blank ones are skipped."""
        if block.strip():
            self._blocks.append(block)
            self._has_body = True

    def pages(self) -> list[Page]:
        self._flush()
        return self._pages

    def _flush(self) -> None:
        if self._has_body:
            text = clean_text("\n\n".join(self._blocks))
            if text:
                self._pages.append(Page(len(self._pages) + 1, text, self._section))
        self._blocks = []
        self._has_body = False
