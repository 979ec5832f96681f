"""Small documents of every readable format, written by the tests themselves."""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from pathlib import Path
from xml.sax.saxutils import escape

# (heading level, title, paragraphs): a section of a manual.
Section = tuple[int, str, Sequence[str]]


def make_docx(path: Path, sections: Sequence[Section]) -> Path:
    import docx

    document = docx.Document()
    for level, title, paragraphs in sections:
        document.add_heading(title, level)
        for text in paragraphs:
            document.add_paragraph(text)
    document.save(str(path))
    return path


_ODT_CONTENT = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" office:version="1.2">'
    "<office:body><office:text>{body}</office:text></office:body></office:document-content>"
)


def make_odt(
    path: Path,
    sections: Sequence[Section],
    mimetype: str = "application/vnd.oasis.opendocument.text",
) -> Path:
    body = []
    for level, title, paragraphs in sections:
        body.append(f'<text:h text:outline-level="{level}">{escape(title)}</text:h>')
        for text in paragraphs:
            # Two spaces as ODF writes them: <text:s/> stands for the second.
            body.append(f"<text:p>{escape(text).replace('  ', ' <text:s/>')}</text:p>")
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", mimetype, compress_type=zipfile.ZIP_STORED)
        z.writestr("content.xml", _ODT_CONTENT.format(body="".join(body)))
    return path


def html_of(sections: Sequence[Section], title: str = "Manual") -> str:
    parts = [f"<html><head><title>{escape(title)}</title></head><body>"]
    for level, heading, paragraphs in sections:
        parts.append(f"<h{level}>{escape(heading)}</h{level}>")
        parts.extend(f"<p>{escape(p)}</p>" for p in paragraphs)
    parts.append("</body></html>")
    return "".join(parts)


_CONTAINER = (
    '<?xml version="1.0"?><container version="1.0" '
    'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
    '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
    "</rootfiles></container>"
)


def make_epub(
    path: Path,
    chapters: Sequence[Sequence[Section]],
    *,
    encryption: str | None = None,
    font: bool = False,
) -> Path:
    """An EPUB 3 with a nav document and one XHTML file per chapter; `encryption` is the
    META-INF/encryption.xml to add (font obfuscation or DRM)."""
    xhtml = 'media-type="application/xhtml+xml"'
    items = [f'<item id="nav" href="nav.xhtml" {xhtml} properties="nav"/>']
    spine = ['<itemref idref="nav"/>']
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/container.xml", _CONTAINER)
        nav = ['<html xmlns="http://www.w3.org/1999/xhtml"><body><nav epub:type="toc"><ol>']
        for i, chapter in enumerate(chapters, start=1):
            name = f"ch{i}.xhtml"
            items.append(f'<item id="c{i}" href="{name}" {xhtml}/>')
            spine.append(f'<itemref idref="c{i}"/>')
            z.writestr(f"OEBPS/{name}", html_of(chapter, f"Chapter {i}"))
            nav.append(f'<li><a href="{name}">{escape(chapter[0][1])}</a></li>')
        nav.append("</ol></nav></body></html>")
        z.writestr("OEBPS/nav.xhtml", "".join(nav))
        if font:
            items.append('<item id="f" href="font.otf" media-type="font/otf"/>')
            z.writestr("OEBPS/font.otf", b"\x00\x01obfuscated font bytes" * 50)
        z.writestr(
            "OEBPS/content.opf",
            '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
            f"<manifest>{''.join(items)}</manifest><spine>{''.join(spine)}</spine></package>",
        )
        if encryption is not None:
            z.writestr("META-INF/encryption.xml", encryption)
    return path


def encryption_xml(algorithm: str, uri: str) -> str:
    return (
        '<?xml version="1.0"?><encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container"'
        ' xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>'
        f'<enc:EncryptionMethod Algorithm="{algorithm}"/>'
        f'<enc:CipherData><enc:CipherReference URI="{uri}"/></enc:CipherData>'
        "</enc:EncryptedData></encryption>"
    )


def inflate_declared_sizes(path: Path, size: int = 0xFFFFFFF0) -> Path:
    """Make a ZIP declare `size` unpacked bytes per entry, as a ZIP bomb's directory does."""
    data = bytearray(path.read_bytes())
    at = data.find(b"PK\x01\x02")
    while at >= 0:
        data[at + 24 : at + 28] = size.to_bytes(4, "little")
        at = data.find(b"PK\x01\x02", at + 4)
    path.write_bytes(bytes(data))
    return path
