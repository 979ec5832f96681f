"""The readers, one module per format, and which one a file's extension calls for.

`base` holds what they share and imports none of them; `pdf` reads PDFs. The formats beyond
PDF are listed here, chosen by the file's extension, then checked by content; each returns
the Pages a PDF reader returns: for formats without pages, one Page per section, numbered in
order, with the section's heading path. They run where PDFs are read (in the reader
processes, under the same limits), from ingest.extract.extract.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from desktop_rag.ingest.readers.base import ExtractError
from desktop_rag.types import FailKind, Page


class FormatReader(Protocol):
    """What extract() needs of a format's reader."""

    @property
    def name(self) -> str:
        """Recorded with the document: which library read it."""
        ...

    @property
    def format(self) -> str:
        """The format family, as the documents table records it ("docx", "html", ...)."""
        ...

    def check(self, path: str, head: bytes) -> None:
        """Raise ExtractError if the content is not what the name says (head: first bytes)."""
        ...

    def read(self, path: str) -> list[Page]: ...


@dataclass(frozen=True, slots=True)
class LazyReader:
    """A FormatReader whose module is imported on its first file."""

    name: str
    format: str
    reader: Callable[[str], list[Page]]
    checker: Callable[[str, bytes], None] | None = None

    def check(self, path: str, head: bytes) -> None:
        if self.checker is not None:
            self.checker(path, head)

    def read(self, path: str) -> list[Page]:
        return self.reader(path)


def _text_only(path: str, head: bytes) -> None:
    from desktop_rag.ingest.readers.archive import ZIP_MAGIC

    if head.startswith((ZIP_MAGIC, b"%PDF-", b"\x89PNG", b"\xff\xd8\xff", b"GIF8")):
        raise ExtractError(
            FailKind.NOT_FORMAT,
            "is not text but a ZIP, PDF or image file with a text file's name. Rename it to "
            "its real extension to index it.",
        )


def _docx_check(path: str, head: bytes) -> None:
    from desktop_rag.ingest.readers.office import check_office

    check_office(path, head, "Word document", ".docx")


def _odt_check(path: str, head: bytes) -> None:
    from desktop_rag.ingest.readers.office import check_office

    check_office(path, head, "OpenDocument text", ".odt")


def _epub_check(path: str, head: bytes) -> None:
    from desktop_rag.ingest.readers.epub import check_epub

    check_epub(head)


# Imports happen on first use, so a library of PDFs never loads lxml or selectolax.
def _plain(path: str) -> list[Page]:
    from desktop_rag.ingest.readers.text import read_plain

    return read_plain(path)


def _markdown(path: str) -> list[Page]:
    from desktop_rag.ingest.readers.markdown import read_markdown

    return read_markdown(path)


def _rst(path: str) -> list[Page]:
    from desktop_rag.ingest.readers.text import read_rst

    return read_rst(path)


def _html(path: str) -> list[Page]:
    from desktop_rag.ingest.readers.html import read_html

    return read_html(path)


def _docx(path: str) -> list[Page]:
    from desktop_rag.ingest.readers.office import read_docx

    return read_docx(path)


def _odt(path: str) -> list[Page]:
    from desktop_rag.ingest.readers.office import read_odt

    return read_odt(path)


def _epub(path: str) -> list[Page]:
    from desktop_rag.ingest.readers.epub import read_epub

    return read_epub(path)


_TEXT = LazyReader("text", "txt", _plain, _text_only)
_MARKDOWN = LazyReader("markdown-it", "markdown", _markdown, _text_only)
_RST = LazyReader("rst", "rst", _rst, _text_only)
_HTML = LazyReader("selectolax", "html", _html, _text_only)
_DOCX = LazyReader("python-docx", "docx", _docx, _docx_check)
_ODT = LazyReader("opendocument", "odt", _odt, _odt_check)
_EPUB = LazyReader("epub", "epub", _epub, _epub_check)

FORMAT_READERS: dict[str, FormatReader] = {
    ".txt": _TEXT,
    ".text": _TEXT,
    ".md": _MARKDOWN,
    ".markdown": _MARKDOWN,
    ".rst": _RST,
    ".html": _HTML,
    ".htm": _HTML,
    ".xhtml": _HTML,
    ".docx": _DOCX,
    ".odt": _ODT,
    ".epub": _EPUB,
}
SUFFIXES = frozenset(FORMAT_READERS)


def reader_for(path: str) -> FormatReader | None:
    """The reader for a file by its extension; None for PDFs and unknown names."""
    return FORMAT_READERS.get(os.path.splitext(path)[1].lower())
