"""Markdown: rendered by markdown-it-py, then read as HTML (headings made sections)."""

from __future__ import annotations

from desktop_rag.ingest.readers.base import decode, read_bytes
from desktop_rag.ingest.readers.html import read_html_text
from desktop_rag.types import Page


def read_markdown(path: str) -> list[Page]:
    """Markdown rendered by markdown-it-py (CommonMark, with tables), then read as HTML."""
    from markdown_it import MarkdownIt

    text, _ = decode(read_bytes(path))
    html = MarkdownIt("commonmark").enable("table").render(text)
    return read_html_text(html)
