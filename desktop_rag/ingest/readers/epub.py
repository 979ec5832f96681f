"""EPUB books: the spine's chapters in reading order, each read by the HTML reader.

Read with zipfile and the HTML reader rather than ebooklib: the archive's sizes are checked
before anything is inflated, only the spine's documents are read (ebooklib loads every image
and font), and DRM is told apart from the font obfuscation many shops apply to every book.
"""

from __future__ import annotations

import posixpath
from urllib.parse import unquote
from xml.etree import ElementTree

from desktop_rag.ingest.readers.archive import open_zip, parse_xml, read_member
from desktop_rag.ingest.readers.base import ExtractError, corrupt_message, decode
from desktop_rag.ingest.readers.html import read_html_text
from desktop_rag.types import FailKind, Page

_CONTAINER = "META-INF/container.xml"
_ENCRYPTION = "META-INF/encryption.xml"
# Font obfuscation (IDPF and Adobe): a font's first bytes are XORed so it cannot be lifted
# from the book. Only fonts; the text stays readable, so it is not DRM.
_FONT_OBFUSCATION = frozenset(
    {"http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"}
)
# Adobe ADEPT and Apple FairPlay leave these beside the encrypted chapters.
_RIGHTS_FILES = frozenset({"META-INF/rights.xml", "META-INF/sinf.xml"})
_HTML_TYPES = frozenset({"application/xhtml+xml", "text/html", "application/x-dtbook+xml"})
_DRM_MESSAGE = (
    "is protected by DRM (its chapters are encrypted), so its text cannot be read. Index a "
    "DRM-free copy: many shops offer one, and books you made yourself have none."
)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def check_epub(head: bytes) -> None:
    if not head.startswith(b"PK\x03\x04"):
        raise ExtractError(
            FailKind.NOT_FORMAT,
            "is not an EPUB book (it is not a ZIP archive, as every EPUB is). Download or "
            "export it again.",
        )


def read_epub(path: str) -> list[Page]:
    with open_zip(path, "EPUB book") as archive:
        names = set(archive.namelist())
        if _CONTAINER not in names:
            raise ExtractError(
                FailKind.NOT_FORMAT,
                "is a ZIP archive but not an EPUB book (it has no META-INF/container.xml).",
            )
        encrypted = _encrypted(read_member(archive, _ENCRYPTION)) if _ENCRYPTION in names else set()
        container = parse_xml(read_member(archive, _CONTAINER), _CONTAINER)
        rootfile = next(
            (e.get("full-path") for e in container.iter() if _local(e.tag) == "rootfile"), None
        )
        if not rootfile or rootfile not in names:
            raise ExtractError(FailKind.CORRUPT, corrupt_message("its package file is missing"))
        chapters = _spine(parse_xml(read_member(archive, rootfile), rootfile), rootfile)
        if any(href in encrypted for href in chapters):
            raise ExtractError(FailKind.DRM, _DRM_MESSAGE)
        drm_hint = bool(names & _RIGHTS_FILES)
        pages: list[Page] = []
        for href in chapters:
            if href not in names:
                continue  # a dangling spine entry; reading systems skip it as well
            try:
                text, _ = decode(read_member(archive, href))
            except ExtractError as exc:
                if drm_hint and exc.kind == FailKind.NOT_FORMAT:
                    raise ExtractError(FailKind.DRM, _DRM_MESSAGE) from exc
                raise
            for page in read_html_text(text):
                pages.append(Page(len(pages) + 1, page.text, page.section))
        return pages


def _encrypted(data: bytes) -> set[str]:
    """The archive paths encrypted by something other than font obfuscation."""
    root = parse_xml(data, _ENCRYPTION)
    out: set[str] = set()
    for item in root.iter():
        if _local(item.tag) != "EncryptedData":
            continue
        method = next((e for e in item.iter() if _local(e.tag) == "EncryptionMethod"), None)
        algorithm = method.get("Algorithm", "") if method is not None else ""
        if algorithm in _FONT_OBFUSCATION:
            continue
        for ref in item.iter():
            if _local(ref.tag) == "CipherReference" and ref.get("URI"):
                out.add(unquote(ref.get("URI", "")).lstrip("/"))
    return out


def _spine(package: ElementTree.Element, rootfile: str) -> list[str]:
    """The archive path of each document of the spine, in reading order."""
    base = posixpath.dirname(rootfile)
    manifest: dict[str, tuple[str, str, str]] = {}
    spine: list[str] = []
    for e in package.iter():
        tag = _local(e.tag)
        if tag == "item" and e.get("id") and e.get("href"):
            href = posixpath.normpath(posixpath.join(base, unquote(e.get("href", ""))))
            manifest[e.get("id", "")] = (href, e.get("media-type", ""), e.get("properties", ""))
        elif tag == "itemref" and e.get("idref"):
            spine.append(e.get("idref", ""))
    out = []
    for idref in spine:
        item = manifest.get(idref)
        if item is None:
            continue
        href, media_type, properties = item
        if media_type not in _HTML_TYPES or "nav" in properties.split():
            continue  # the table of contents is navigation, not the book's text
        out.append(href)
    return out
