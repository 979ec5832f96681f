"""Text extraction page by page, with a fallback reader and a clear reason for every failure."""

from __future__ import annotations

import errno
import hashlib
import logging
import os
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from desktop_rag.types import FailKind, Page

if TYPE_CHECKING:
    from desktop_rag.ingest.ocr import OcrRequest
    from desktop_rag.ingest.outline import Heading
    from desktop_rag.ingest.readers import Reader as DocumentReader

log = logging.getLogger(__name__)

# Real filings hold arrays far beyond pypdf's defensive defaults; extraction runs in a
# process with its own memory limit, so raising them is safe.
_PYPDF_LIMITS = {
    "array_maximum_element_count": 10_000_000,
    "dictionary_maximum_element_count": 10_000_000,
    "stream_parsing_work_maximum_count": 200_000_000,
    "page_tree_maximum_entries": 1_000_000,
}

MAX_FILE_BYTES = 1024 * 1024 * 1024  # 1 GiB: beyond this a "PDF" is a video or a disk image
MAX_PAGE_CHARS = 2_000_000  # a page with more text than this is cut, and the cut is logged

_SPACE_RE = re.compile(r"[ \t\f\v\u00a0]+")
_NEWLINES_RE = re.compile(r"\n{3,}")
_WORD_RE = re.compile(r"\S+")


class ExtractError(Exception):
    """A file no reader could read; `kind` is a FailKind, the message is for the user."""

    def __init__(self, kind: FailKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True, slots=True)
class Extracted:
    """The pages of one file, the reader that produced them, the file's content hash, and
    its outline (a PDF's bookmarks, ingest/outline.py; empty for other formats)."""

    pages: list[Page]
    reader: str
    sha256: str
    outline: tuple[Heading, ...] = ()


def sha256_file(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def clean_text(text: str) -> str:
    """Normalise what readers return: NFKC (ligatures), one kind of newline, no stray controls."""
    text = unicodedata.normalize("NFKC", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    # pdfium marks a hyphen at a line break with U+0002; rejoin the word.
    text = re.sub(r"[\u0002\u00ad]\n?", "", text)
    text = "".join(ch for ch in text if ch in "\n\t" or unicodedata.category(ch)[0] != "C")
    text = _SPACE_RE.sub(" ", text)
    text = _NEWLINES_RE.sub("\n\n", text)
    return text.strip()


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


_LOCKED_MESSAGE = "is locked by another program that has it open; it will be tried again."
# Windows refuses to open a file another program holds with a sharing or lock violation.
_WIN_LOCK_ERRORS = frozenset({32, 33})


def _locked(exc: OSError) -> bool:
    return getattr(exc, "winerror", None) in _WIN_LOCK_ERRORS or exc.errno in (
        errno.EBUSY,
        errno.EAGAIN,
    )


def sniff(path: str, pdf: bool = True) -> None:
    """Reject what is plainly not a PDF (or, with pdf=False, empty, huge or unreadable)
    before a reader spends time on it."""
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            head = f.read(1024)
    except OSError as exc:
        if _locked(exc):
            raise ExtractError(FailKind.LOCKED, _LOCKED_MESSAGE) from exc
        if isinstance(exc, PermissionError):
            raise ExtractError(
                FailKind.UNREADABLE,
                "cannot be read: permission denied. Give your user read access to the file.",
            ) from exc
        raise ExtractError(FailKind.UNREADABLE, f"cannot be read ({exc.strerror or exc}).") from exc
    if size == 0:
        raise ExtractError(
            FailKind.EMPTY, "is empty (0 bytes). If it is still being copied, it will be retried."
        )
    if size > MAX_FILE_BYTES:
        raise ExtractError(
            FailKind.TOO_LARGE,
            f"is too large ({size / 2**30:.1f} GiB; the limit is "
            f"{MAX_FILE_BYTES / 2**30:.0f} GiB). Split it into smaller PDFs.",
        )
    if pdf and b"%PDF-" not in head:
        lowered = head.lstrip().lower()
        if lowered.startswith((b"<!doctype html", b"<html")) or b"<html" in lowered[:512]:
            what = "a web page (HTML) saved with a .pdf name"
        elif head.startswith(b"PK"):
            what = "a ZIP or Office document with a .pdf name"
        elif head.startswith((b"\x89PNG", b"\xff\xd8\xff", b"GIF8")):
            what = "an image with a .pdf name"
        else:
            what = "not a PDF (no PDF header)"
        raise ExtractError(
            FailKind.NOT_PDF,
            f"is {what}. Open it in the program that made it and export it as PDF.",
        )


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
    import pypdfium2 as pdfium

    try:
        doc = pdfium.PdfDocument(path, password=password or None)
    except pdfium.PdfiumError as exc:
        text = str(exc).lower()
        if "password" in text:
            raise ExtractError(FailKind.PASSWORD, _password_message(password)) from exc
        raise ExtractError(FailKind.CORRUPT, corrupt_message(str(exc))) from exc
    try:
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
        return pages
    finally:
        doc.close()


def _password_message(password: str | None) -> str:
    if password:
        return "needs a password, and the one given is wrong. Enter the right one to index it."
    return (
        "is protected by a password. Enter its password in the window (Documents, "
        "right-click the file) or save an unprotected copy from your PDF viewer."
    )


def corrupt_message(detail: str) -> str:
    """'is damaged or incomplete (detail)...': what to say of a file no reader can parse."""
    detail = detail.strip().rstrip(".")
    detail = f" ({detail[:160]})" if detail else ""
    return (
        f"is damaged or incomplete{detail}. If it is still being copied it will be retried; "
        "otherwise download or export it again."
    )


Reader = Callable[..., list[Page]]  # (path, password[, ocr request])
READERS: dict[str, Reader] = {"pdfium": _pdfium_pages, "pypdf": _pypdf_pages}
# On the corpus (bench/readers.py) pdfium is several times faster, keeps the spaces on
# TeX-made PDFs where pypdf glues words, and opens files without an xref table; pypdf reads a
# few files pdfium rejects, so it stays as the fallback.
READER_ORDER: tuple[str, ...] = ("pdfium", "pypdf")


def extract(
    path: str,
    password: str | None = None,
    order: Sequence[str] = READER_ORDER,
    ocr: OcrRequest | None = None,
) -> Extracted:
    """Read every page's text (a section's, for formats without pages). Raises ExtractError
    with a user-facing reason on failure. With `ocr`, PDF pages without a usable text layer
    are read with OCR (ingest/ocr.py)."""
    from desktop_rag.ingest import outline, readers
    from desktop_rag.ingest.ocr import OcrDeferred

    other = readers.reader_for(path)
    if other is not None:
        return _extract_other(path, other)
    sniff(path)
    try:
        digest = sha256_file(path)
    except OSError as exc:
        raise ExtractError(FailKind.UNREADABLE, f"cannot be read ({exc}).") from exc
    first_error: ExtractError | None = None
    fallback: tuple[str, list[Page]] | None = None
    for name in order:
        try:
            reader = READERS[name]
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
        pages = [_cap(p) for p in pages]
        if not any(p.text for p in pages):
            fallback = fallback or (name, pages)
            continue
        if is_glued(pages):
            log.debug("%s lost the spaces in %s; trying the next reader", name, path)
            fallback = fallback or (name, pages)
            continue
        return Extracted(pages, name, digest, outline.read_outline(path, password))
    if fallback is not None:
        name, pages = fallback
        if any(p.text for p in pages):
            return Extracted(pages, name, digest, outline.read_outline(path, password))
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


def _ocr_failed(failed: Sequence[Page], pages: int) -> ExtractError:
    """What to say of a file whose pages OCR could not read (the engine's own reason)."""
    from desktop_rag.ingest.ocr import page_problems

    kind = FailKind.MEMORY if all("out of memory" in p.error for p in failed) else FailKind.ERROR
    return ExtractError(kind, page_problems(failed, pages, none_read=True))


def _cap(page: Page) -> Page:
    if len(page.text) <= MAX_PAGE_CHARS:
        return page
    log.info(
        "page %d holds %d characters; keeping the first %d",
        page.number,
        len(page.text),
        MAX_PAGE_CHARS,
    )
    return replace(page, text=page.text[:MAX_PAGE_CHARS])


def _extract_other(path: str, reader: DocumentReader) -> Extracted:
    sniff(path, pdf=False)
    try:
        with open(path, "rb") as f:
            head = f.read(1024)
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
    pages = [_cap(p) for p in pages if p.text]
    if not pages:
        raise ExtractError(
            FailKind.NO_TEXT, "holds no text to index (it is empty, or holds only pictures)."
        )
    return Extracted(pages, reader.name, digest)
