"""Word (.docx) and OpenDocument text (.odt): paragraphs and tables in order, headings as
sections.

python-docx is the maintained reader of WordprocessingML (styles, tables, hyperlinks, no
conversion step; mammoth renders to HTML first and drops what it cannot style).
OpenDocument needs only content.xml, read with ElementTree: odfpy 1.4.1 loads every part, fails
on the styles.xml pandoc writes (a namespace declared twice) and then prints the whole file
to stdout. Both read an archive only after archive.open_zip checked its sizes.
"""

from __future__ import annotations

import re
from typing import Any
from xml.etree import ElementTree

from desktop_rag.ingest.readers.archive import open_zip, parse_xml, read_member
from desktop_rag.ingest.readers.base import ExtractError, corrupt_message
from desktop_rag.ingest.readers.sections import Outline
from desktop_rag.types import FailKind, Page

_HEADING_STYLE = re.compile(r"^(?:heading|überschrift|titre|título|titolo|kop)\s*(\d)$", re.I)
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # Word 97-2003 files, and encrypted OOXML
_ENCRYPTED_PACKAGE = "EncryptedPackage".encode("utf-16-le")


def check_office(path: str, head: bytes, what: str, new_format: str) -> None:
    """A .docx/.odt must be a ZIP; an OLE file is an encrypted or an old-format document."""
    if head.startswith(b"PK\x03\x04"):
        return
    if head.startswith(OLE_MAGIC):
        with open(path, "rb") as f:
            encrypted = _ENCRYPTED_PACKAGE in f.read(4 * 1024 * 1024)
        if encrypted:
            raise ExtractError(
                FailKind.PASSWORD,
                "is protected by a password. Save an unprotected copy from your word "
                "processor and add that.",
            )
        raise ExtractError(
            FailKind.NOT_FORMAT,
            f"is an older binary document with a {new_format} name, not a {what}. Open it "
            f"and save it as {new_format} or PDF.",
        )
    raise ExtractError(
        FailKind.NOT_FORMAT,
        f"is not a {what} (it is not a ZIP archive, as every {new_format} file is). Open it in "
        "the program that made it and save it again.",
    )


def read_docx(path: str) -> list[Page]:
    import docx
    from docx.oxml.ns import qn
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    with open_zip(path, "Word document") as archive:
        if "word/document.xml" not in archive.namelist():
            raise ExtractError(
                FailKind.NOT_FORMAT,
                "is a ZIP archive but not a Word document (it has no word/document.xml).",
            )
    try:
        document = docx.Document(path)
    except ExtractError:
        raise
    except Exception as exc:  # python-docx raises KeyError, ValueError, lxml errors...
        raise ExtractError(FailKind.CORRUPT, corrupt_message(str(exc))) from exc
    outline = Outline()
    body = document.element.body
    for child in body.iterchildren():
        if child.tag == qn("w:p"):
            _docx_paragraph(Paragraph(child, document), outline)
        elif child.tag == qn("w:tbl"):
            for row in Table(child, document).rows:
                cells: list[str] = []
                for cell in row.cells:
                    text = " ".join(cell.text.split())
                    if text and (not cells or cells[-1] != text):  # merged cells repeat
                        cells.append(text)
                outline.text(" | ".join(cells))
    return outline.pages()


def _docx_paragraph(paragraph: Any, outline: Outline) -> None:
    text = paragraph.text
    level = _docx_level(paragraph)
    if level:
        outline.heading(level, text)
    else:
        outline.text(text)


def _docx_level(paragraph: Any) -> int:
    """Heading level from the style ("Heading 2", "Title") or its outline level; 0 if body."""
    try:
        style = paragraph.style
    except (KeyError, ValueError):
        style = None
    name = (style.name or "") if style is not None else ""
    if name.lower() == "title":
        return 1
    match = _HEADING_STYLE.match(name.strip())
    if match:
        return int(match.group(1))
    # A custom style based on a heading, or a direct outline level (0-based in the XML).
    ppr = paragraph._p.pPr
    if ppr is not None:
        lvl = ppr.find("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}outlineLvl")
        if lvl is not None:
            value = lvl.get("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}val")
            if value is not None and value.isdigit() and int(value) < 9:
                return int(value) + 1
    base = getattr(style, "base_style", None)
    while base is not None:
        match = _HEADING_STYLE.match((base.name or "").strip())
        if match:
            return int(match.group(1))
        base = base.base_style
    return 0


_ODT_MIMETYPES = (b"application/vnd.oasis.opendocument.text",)
_TEXT_NS = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_TABLE_NS = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_OFFICE_NS = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
# Not running text: change-tracking history, field declarations, a note's citation mark.
_ODT_SKIP = frozenset(
    f"{_TEXT_NS}{name}"
    for name in (
        "tracked-changes", "sequence-decls", "variable-decls", "user-field-decls", "note-citation",
        "table-of-content-source", "alphabetical-index-source", "bookmark-ref",
    )
)  # fmt: skip


def read_odt(path: str) -> list[Page]:
    with open_zip(path, "OpenDocument file") as archive:
        names = set(archive.namelist())
        if "content.xml" not in names:
            raise ExtractError(
                FailKind.NOT_FORMAT,
                "is a ZIP archive but not an OpenDocument text (it has no content.xml).",
            )
        if "mimetype" in names:
            mimetype = read_member(archive, "mimetype").strip()
            if not mimetype.startswith(_ODT_MIMETYPES):
                raise ExtractError(
                    FailKind.NOT_FORMAT,
                    f"is an OpenDocument file of another kind ({mimetype.decode(errors='replace')})"
                    ", not a text document. Export it as PDF to index it.",
                )
        content = parse_xml(read_member(archive, "content.xml"), "content.xml")
    outline = Outline()
    body = content.find(f"{_OFFICE_NS}body/{_OFFICE_NS}text")
    if body is not None:
        _odt_walk(body, outline)
    return outline.pages()


def _odt_walk(root: ElementTree.Element, outline: Outline) -> None:
    """Headings, paragraphs and table rows in document order (lists and sections hold them)."""
    stack = [iter(root)]
    while stack:
        node = next(stack[-1], None)
        if node is None:
            stack.pop()
        elif node.tag == f"{_TEXT_NS}h":
            level = node.get(f"{_TEXT_NS}outline-level", "1")
            outline.heading(int(level) if level.isdigit() else 1, _odt_text(node))
        elif node.tag == f"{_TEXT_NS}p":
            outline.text(_odt_text(node))
        elif node.tag == f"{_TABLE_NS}table-row":
            cells = [" ".join(_odt_text(cell).split()) for cell in node]
            outline.text(" | ".join(c for c in cells if c))
        elif node.tag not in _ODT_SKIP:
            stack.append(iter(node))


def _odt_text(node: ElementTree.Element) -> str:
    """A paragraph's text: <text:s/> is spaces, <text:tab/> a tab, <text:line-break/> a line."""
    parts: list[str] = []

    def visit(element: ElementTree.Element) -> None:
        tag = element.tag
        if tag in _ODT_SKIP:
            return
        if tag == f"{_TEXT_NS}s":
            parts.append(" " * int(element.get(f"{_TEXT_NS}c", "1") or 1))
        elif tag == f"{_TEXT_NS}tab":
            parts.append("\t")
        elif tag == f"{_TEXT_NS}line-break":
            parts.append("\n")
        elif element.text:
            parts.append(element.text)
        if tag == f"{_TEXT_NS}p" and parts and element is not node:
            parts.append("\n")  # a paragraph inside a cell or a note
        for child in element:
            visit(child)
            if child.tail:
                parts.append(child.tail)

    visit(node)
    return "".join(parts)
