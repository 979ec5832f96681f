"""ZIP containers (Word, OpenDocument, EPUB): opened only after their sizes are checked."""

from __future__ import annotations

import zipfile
from xml.etree import ElementTree

from desktop_rag.ingest.readers.base import ExtractError, corrupt_message
from desktop_rag.types import FailKind

# What a document may unpack to. A long book or manual is tens of megabytes unpacked, with its
# images; a ZIP bomb is gigabytes from a few kilobytes. Checked from the archive's directory
# before a byte is inflated; an entry that inflates past its declared size fails its CRC check.
MAX_UNPACKED_BYTES = 1024 * 1024 * 1024
MAX_ENTRIES = 100_000
ZIP_MAGIC = b"PK\x03\x04"


def open_zip(path: str, what: str) -> zipfile.ZipFile:
    """The archive, checked: a clear ExtractError if it is not a ZIP, damaged, or a bomb."""
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile as exc:
        raise ExtractError(
            FailKind.CORRUPT, corrupt_message(f"not a readable {what}: {exc}")
        ) from exc
    except OSError as exc:
        raise ExtractError(FailKind.UNREADABLE, f"cannot be read ({exc.strerror or exc}).") from exc
    try:
        infos = archive.infolist()
        unpacked = sum(i.file_size for i in infos)
        if len(infos) > MAX_ENTRIES or unpacked > MAX_UNPACKED_BYTES:
            raise ExtractError(
                FailKind.TOO_LARGE,
                f"unpacks to {unpacked / 2**30:.1f} GiB in {len(infos)} parts (the limit is "
                f"{MAX_UNPACKED_BYTES / 2**30:.0f} GiB), so it was not opened: it is probably "
                "a ZIP bomb rather than a document.",
            )
    except BaseException:
        archive.close()
        raise
    return archive


def read_member(archive: zipfile.ZipFile, name: str) -> bytes:
    try:
        return archive.read(name)
    except KeyError as exc:
        raise ExtractError(FailKind.CORRUPT, corrupt_message(f"{name} is missing")) from exc
    except (zipfile.BadZipFile, EOFError, ValueError, NotImplementedError) as exc:
        raise ExtractError(FailKind.CORRUPT, corrupt_message(f"{name}: {exc}")) from exc


def parse_xml(data: bytes, name: str) -> ElementTree.Element:
    """A part of the archive as XML. ElementTree never fetches external entities, and a
    document part has no business declaring its own (the "billion laughs" bomb does)."""
    if b"<!ENTITY" in data[:65536]:
        raise ExtractError(FailKind.CORRUPT, corrupt_message(f"{name} declares XML entities"))
    try:
        return ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        raise ExtractError(FailKind.CORRUPT, corrupt_message(f"{name}: {exc}")) from exc
