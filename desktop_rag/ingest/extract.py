"""Reading a file: the reader its name calls for (ingest/readers/), its content hash, and a
clear reason for every failure."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from desktop_rag.infra import paths
from desktop_rag.ingest import readers
from desktop_rag.ingest.readers.base import (
    ExtractError,
    cap_page,
    check_file,
    check_pdf_header,
    corrupt_message,
)
from desktop_rag.ingest.readers.pdf import READER_ORDER, read_pdf
from desktop_rag.types import FailKind, Page

if TYPE_CHECKING:
    from desktop_rag.ingest.layout import Heading
    from desktop_rag.ingest.ocr import OcrRequest
    from desktop_rag.ingest.readers import FormatReader

__all__ = ["ExtractError", "Extracted", "extract", "sha256_file"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Extracted:
    """The pages of one file, the reader that produced them, the file's content hash, its
    outline (a PDF's bookmarks, ingest/layout.py; empty for other formats) and its own date
    (a PDF's metadata, ingest/dates.py; 0 when it says none)."""

    pages: list[Page]
    reader: str
    sha256: str
    outline: tuple[Heading, ...] = ()
    date_ns: int = 0


def sha256_file(path: str) -> str:
    digest = hashlib.sha256()
    with open(paths.long_path(path), "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def extract(
    path: str,
    password: str | None = None,
    order: Sequence[str] = READER_ORDER,
    ocr: OcrRequest | None = None,
) -> Extracted:
    """Read every page's text (a section's, for formats without pages). Raises ExtractError
    with a user-facing reason on failure. With `ocr`, PDF pages without a usable text layer
    are read with OCR (ingest/ocr.py)."""
    path = paths.long_path(path)  # Windows: past 260 characters; the caller keeps its own
    other = readers.reader_for(path)
    if other is not None:
        return _extract_other(path, other)
    check_pdf_header(check_file(path, "PDFs"))
    try:
        digest = sha256_file(path)
    except OSError as exc:
        raise ExtractError(FailKind.UNREADABLE, f"cannot be read ({exc}).") from exc
    name, pages, meta = read_pdf(path, password, order, ocr)
    return Extracted(pages, name, digest, meta.outline, meta.date_ns)


def _extract_other(path: str, reader: FormatReader) -> Extracted:
    head = check_file(path)
    try:
        digest = sha256_file(path)
    except OSError as exc:
        raise ExtractError(FailKind.UNREADABLE, f"cannot be read ({exc}).") from exc
    reader.check(path, head)
    try:
        pages = reader.read(path)
    except (ExtractError, MemoryError):
        raise
    except Exception as exc:  # a reader bug on a strange file must not stop the batch
        log.debug("%s failed on %s", reader.name, path, exc_info=True)
        raise ExtractError(FailKind.CORRUPT, corrupt_message(str(exc))) from exc
    pages = [cap_page(p) for p in pages if p.text]
    if not pages:
        raise ExtractError(
            FailKind.NO_TEXT, "holds no text to index (it is empty, or holds only pictures)."
        )
    return Extracted(pages, reader.name, digest)
