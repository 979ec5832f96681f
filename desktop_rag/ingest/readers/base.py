"""What every reader shares: the failure it raises, the checks before reading, and how bytes
become text. It imports no reader; every reader imports it (one module per format beside it).
"""

from __future__ import annotations

import codecs
import errno
import logging
import os
import unicodedata
from dataclasses import replace

from desktop_rag.errors import DesktopRagError
from desktop_rag.types import FailKind, Page

log = logging.getLogger(__name__)

MAX_FILE_BYTES = 1024 * 1024 * 1024  # 1 GiB: beyond this a "PDF" is a video or a disk image
MAX_PAGE_CHARS = 2_000_000  # a page with more text than this is cut, and the cut is logged


class ExtractError(DesktopRagError):
    """A file no reader could read; `kind` is a FailKind, the message is for the user."""

    def __init__(self, kind: FailKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def corrupt_message(detail: str) -> str:
    """'is damaged or incomplete (detail)...': what to say of a file no reader can parse."""
    detail = detail.strip().rstrip(".")
    detail = f" ({detail[:160]})" if detail else ""
    return (
        f"is damaged or incomplete{detail}. If it is still being copied it will be retried; "
        "otherwise download or export it again."
    )


_LOCKED_MESSAGE = "is locked by another program that has it open; it will be tried again."
# Windows refuses to open a file another program holds with a sharing or lock violation.
_WIN_LOCK_ERRORS = frozenset({32, 33})


def _locked(exc: OSError) -> bool:
    return getattr(exc, "winerror", None) in _WIN_LOCK_ERRORS or exc.errno in (
        errno.EBUSY,
        errno.EAGAIN,
    )


def check_file(path: str, what: str = "files") -> bytes:
    """The file's first bytes, once it is known to be readable, not empty and not huge: an
    ExtractError before a reader spends time on it. `what`: what to split it into if huge."""
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
            f"{MAX_FILE_BYTES / 2**30:.0f} GiB). Split it into smaller {what}.",
        )
    return head


def check_pdf_header(head: bytes) -> None:
    """Reject what is plainly not a PDF, by its first bytes (what it is instead, if known)."""
    if b"%PDF-" not in head:
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


def cap_page(page: Page) -> Page:
    """The page, its text cut at MAX_PAGE_CHARS."""
    if len(page.text) <= MAX_PAGE_CHARS:
        return page
    log.info(
        "page %d holds %d characters; keeping the first %d",
        page.number,
        len(page.text),
        MAX_PAGE_CHARS,
    )
    return replace(page, text=page.text[:MAX_PAGE_CHARS])


MAX_TEXT_BYTES = 256 * 1024 * 1024  # a text file beyond this is a log or a data dump
_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),  # before UTF-16: its BOM starts with UTF-16 LE's
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def read_bytes(path: str, limit: int = MAX_TEXT_BYTES) -> bytes:
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ExtractError(
            FailKind.TOO_LARGE,
            f"is larger than {limit // 2**20} MB of text; split it into smaller files.",
        )
    return data


def decode(data: bytes, declared: str | None = None) -> tuple[str, str]:
    """The text and the encoding it was read with.

    A byte-order mark decides; then a declared encoding (an HTML meta charset), then UTF-8,
    then Windows-1252 (what "ANSI" text from Windows is), then Latin-1, which decodes any
    byte. Text that still reads as control characters and NULs is not text: an ExtractError.
    """
    text: str | None = None
    encoding = ""
    for bom, name in _BOMS:
        if data.startswith(bom):
            text, encoding = _try(data, name), name
            break
    if text is None and _looks_utf16(data):
        for name in ("utf-16-le", "utf-16-be"):
            text = _try(data, name)
            if text is not None and not _is_binary(text):
                encoding = name
                break
            text = None
    candidates = [declared] if declared and _known(declared) else []
    for name in [*candidates, "utf-8", "cp1252", "latin-1"]:
        if text is not None:
            break
        text, encoding = _try(data, name), name
    if text is None or _is_binary(text):
        raise ExtractError(
            FailKind.NOT_FORMAT,
            "does not hold readable text (it looks like binary data with a text file's name). "
            "Open it in the program that made it and save it as text, PDF or Word.",
        )
    return text.lstrip("\ufeff"), encoding


def _try(data: bytes, encoding: str) -> str | None:
    try:
        return data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return None


def _known(name: str) -> bool:
    try:
        codecs.lookup(name)
    except LookupError:
        return False
    return True


def _looks_utf16(data: bytes) -> bool:
    """UTF-16 without a mark: every other byte is NUL in Latin text."""
    sample = data[:4096]
    if len(sample) < 16:
        return False
    return max(sample[0::2].count(0), sample[1::2].count(0)) > 0.4 * len(sample) / 2


_NOT_TEXT = frozenset({"Cc", "Cn", "Co"})  # controls, unassigned and private-use characters


def _is_binary(text: str) -> bool:
    sample = text[:65536]
    if not sample:
        return False
    bad = sum(
        1
        for ch in sample
        if unicodedata.category(ch) in ("Cc", "Cn", "Co") and ch not in "\n\r\t\f"
    )
    return "\x00" in sample or bad > 0.05 * len(sample)
