"""PDFs: pdfium's text layer, pypdf as the fallback, OCR for pages without usable text."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from desktop_rag.cleaning import clean_text
from desktop_rag.ingest.dates import date_of, pdf_date
from desktop_rag.ingest.layout import Heading, outline_of, read_outline
from desktop_rag.ingest.ocr import OcrDeferred
from desktop_rag.ingest.readers.base import ExtractError, cap_page, corrupt_message
from desktop_rag.types import FailKind, Page

if TYPE_CHECKING:
    from desktop_rag.ingest.ocr import OcrRequest

log = logging.getLogger(__name__)

# Real filings hold arrays far beyond pypdf's defensive defaults; extraction runs in a
# process with its own memory limit, so raising them is safe.
_PYPDF_LIMITS = {
    "array_maximum_element_count": 10_000_000,
    "dictionary_maximum_element_count": 10_000_000,
    "stream_parsing_work_maximum_count": 200_000_000,
    "page_tree_maximum_entries": 1_000_000,
}

_WORD_RE = re.compile(r"\S+")


class PdfMeta(NamedTuple):
    """What a PDF says of itself beyond its pages: its bookmarks and its own date."""

    outline: tuple[Heading, ...] = ()
    date_ns: int = 0


def glued_ratio(text: str) -> float:
    """Share of letters in implausibly long words: high when a reader lost the spaces."""
    letters = 0
    glued = 0
    for match in _WORD_RE.finditer(text):
        word = match.group()
        # Latin letters only: Chinese and Japanese are written without spaces by design.
        n = sum(ch.isalpha() and ch < "\u0250" for ch in word)
        letters += n
        # URLs, DNA sequences and chemical names are long too; demand mostly lowercase letters
        # and no separators, as in "theprotein wasexpressedin".
        if n >= 24 and n >= 0.9 * len(word) and "/" not in word and not word.isupper():
            glued += n
    return glued / letters if letters else 0.0


def is_glued(pages: Sequence[Page]) -> bool:
    text = "\n".join(p.text for p in pages[:50])
    return len(text) > 200 and glued_ratio(text) > 0.08


def _pypdf_pages(path: str, password: str | None, ocr: OcrRequest | None = None) -> list[Page]:
    # pypdf cannot render: a file only it can open is read from its text layer alone.
    import pypdf
    from pypdf.errors import FileNotDecryptedError, PdfReadError, WrongPasswordError

    with pypdf.apply_configuration(None, **_PYPDF_LIMITS):
        try:
            reader = pypdf.PdfReader(path, strict=False)
            if reader.is_encrypted:
                result = reader.decrypt(password or "")
                if not result:
                    raise ExtractError(FailKind.PASSWORD, _password_message(password))
            pages = []
            for number, page in enumerate(reader.pages, start=1):
                pages.append(Page(number, clean_text(page.extract_text() or "")))
        except (FileNotDecryptedError, WrongPasswordError) as exc:
            raise ExtractError(FailKind.PASSWORD, _password_message(password)) from exc
        except PdfReadError as exc:
            raise ExtractError(FailKind.CORRUPT, corrupt_message(str(exc))) from exc
    return pages


def _pdfium_pages(path: str, password: str | None, ocr: OcrRequest | None = None) -> list[Page]:
    return _pdfium_read(path, password, ocr)[0]


def _pdfium_read(
    path: str, password: str | None, ocr: OcrRequest | None = None
) -> tuple[list[Page], PdfMeta]:
    """The pages, and the outline and date of the document while it is open: a small file
    opened three times spent a fifth of its reading in opening it."""
    import pypdfium2 as pdfium

    try:
        doc = pdfium.PdfDocument(path, password=password or None)
    except pdfium.PdfiumError as exc:
        text = str(exc).lower()
        if "password" in text:
            raise ExtractError(FailKind.PASSWORD, _password_message(password)) from exc
        raise ExtractError(FailKind.CORRUPT, corrupt_message(str(exc))) from exc
    try:
        meta = PdfMeta(outline_of(doc, path), date_of(doc, path))
        pages = []
        for index in range(len(doc)):
            page = doc[index]
            textpage = page.get_textpage()
            try:
                pages.append(Page(index + 1, clean_text(textpage.get_text_range())))
            finally:
                textpage.close()
                page.close()
        if ocr is not None:
            from desktop_rag.ingest import ocr as ocr_reader

            pages = ocr_reader.read_pages(doc, pages, ocr)
        return pages, meta
    finally:
        doc.close()


def _ocr_failed(failed: Sequence[Page], pages: int) -> ExtractError:
    """What to say of a file whose pages OCR could not read (the engine's own reason)."""
    from desktop_rag.ingest.ocr import page_problems

    kind = FailKind.MEMORY if all("out of memory" in p.error for p in failed) else FailKind.ERROR
    return ExtractError(kind, page_problems(failed, pages, none_read=True))


def _password_message(password: str | None) -> str:
    if password:
        return "needs a password, and the one given is wrong. Enter the right one to index it."
    return (
        "is protected by a password. Enter its password in the window (Documents, "
        "right-click the file) or save an unprotected copy from your PDF viewer."
    )


PdfReader = Callable[..., list[Page]]  # (path, password[, ocr request])
PDF_READERS: dict[str, PdfReader] = {"pdfium": _pdfium_pages, "pypdf": _pypdf_pages}
# On the corpus pdfium is several times faster (bench/results/README.md; the benchmark is gone),
# keeps the spaces on TeX-made PDFs where pypdf glues words, and opens files without an xref
# table; pypdf reads a few files pdfium rejects, so it stays as the fallback.
READER_ORDER: tuple[str, ...] = ("pdfium", "pypdf")


def read_pdf(
    path: str,
    password: str | None = None,
    order: Sequence[str] = READER_ORDER,
    ocr: OcrRequest | None = None,
) -> tuple[str, list[Page], PdfMeta]:
    """The pages of a PDF and the reader that read them: the first in `order` that finds text
    with its spaces; failing that, the first that read pages at all, if they hold text. With
    them its outline and date, read by pdfium as it reads the pages (opened apart only when
    pdfium did not open the file). Raises ExtractError with a user-facing reason on failure."""
    name, pages, meta = _read_pages(path, password, order, ocr)
    if meta is None:
        meta = PdfMeta(read_outline(path, password), pdf_date(path, password))
    return name, pages, meta


def _read_pages(
    path: str,
    password: str | None,
    order: Sequence[str],
    ocr: OcrRequest | None,
) -> tuple[str, list[Page], PdfMeta | None]:
    first_error: ExtractError | None = None
    fallback: tuple[str, list[Page]] | None = None
    meta: PdfMeta | None = None
    for name in order:
        try:
            reader = PDF_READERS[name]
            if reader is _pdfium_pages:
                pages, meta = _pdfium_read(path, password, ocr)
            else:
                pages = reader(path, password) if ocr is None else reader(path, password, ocr)
        except ExtractError as exc:
            log.debug("%s could not read %s: %s", name, path, exc)
            first_error = first_error or exc
            if exc.kind == FailKind.PASSWORD:
                break  # another reader will not know the password either
            continue
        except (MemoryError, OcrDeferred):
            raise
        except Exception as exc:  # a reader bug on a strange file must not stop the batch
            log.debug("%s failed on %s", name, path, exc_info=True)
            first_error = first_error or ExtractError(FailKind.CORRUPT, corrupt_message(str(exc)))
            continue
        pages = [cap_page(p) for p in pages]
        if not any(p.text for p in pages):
            fallback = fallback or (name, pages)
            continue
        if is_glued(pages):
            log.debug("%s lost the spaces in %s; trying the next reader", name, path)
            fallback = fallback or (name, pages)
            continue
        return name, pages, meta
    if fallback is not None:
        name, pages = fallback
        if any(p.text for p in pages):
            return name, pages, meta
        if not pages:
            raise ExtractError(FailKind.EMPTY, "has no pages.")
        n = len(pages)
        failed = [p for p in pages if p.error]
        if failed:
            raise _ocr_failed(failed, n)
        if ocr is not None and not any(p.ocr for p in pages):
            raise ExtractError(
                FailKind.NO_TEXT,
                f"shows nothing to read on its {n} page{'s' if n != 1 else ''}: no text, and "
                "nothing drawn on them as the PDF reader sees them. It may be damaged; open "
                "it in a PDF viewer to check.",
            )
        if any(p.ocr for p in pages):
            raise ExtractError(
                FailKind.NO_TEXT,
                f"has no text layer, and OCR found no text it is sure of on its {n} "
                f"page{'s' if n != 1 else ''} (they hold pictures, or print too faint or "
                "small to read). A cleaner scan at 300 dpi may read.",
            )
        raise ExtractError(
            FailKind.NO_TEXT,
            f"has no text layer ({len(pages)} page{'s' if len(pages) != 1 else ''} of images; "
            "probably scanned). Run OCR on it (for example with OCRmyPDF) and add the result.",
        )
    assert first_error is not None
    raise first_error
