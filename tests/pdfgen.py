"""A tiny PDF writer for tests: real, valid PDFs with a text layer, no extra dependency."""

from __future__ import annotations

import textwrap
import zlib
from collections.abc import Sequence
from pathlib import Path


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _content(text: str, font_size: int = 11) -> bytes:
    lines: list[str] = []
    for para in text.split("\n"):
        lines.extend(textwrap.wrap(para, 90) or [""])
    ops = [f"BT /F1 {font_size} Tf {font_size + 3} TL 56 790 Td"]
    for line in lines:
        # Latin-1 is what the standard Helvetica encoding can show.
        safe = line.encode("latin-1", "replace").decode("latin-1")
        ops.append(f"({_escape(safe)}) Tj T*")
    ops.append("ET")
    return "\n".join(ops).encode("latin-1")


def make_pdf(path: str | Path, pages: Sequence[str], *, compress: bool = True) -> Path:
    """Write a PDF whose page i shows pages[i] (wrapped; long pages simply run off the page)."""
    path = Path(path)
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled in below
    pages_obj = add(b"")
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    kids = []
    for text in pages:
        data = _content(text)
        if compress:
            data = zlib.compress(data)
            stream = (
                b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data)
                + data
                + b"\nendstream"
            )
        else:
            stream = b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"
        content = add(stream)
        page = add(
            b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] "
            b"/Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>"
            % (pages_obj, font, content)
        )
        kids.append(page)
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_obj
    objects[pages_obj - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % k for k in kids),
        len(kids),
    )
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        catalog,
        xref,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(out))
    return path


def encrypt_pdf(src: str | Path, dst: str | Path, user_password: str, algorithm: str = "AES-256"):
    """A copy of src protected with a user password (empty: opens without asking)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(str(src)))
    writer.encrypt(user_password=user_password, owner_password="owner", algorithm=algorithm)
    with open(dst, "wb") as f:
        writer.write(f)
    return Path(dst)
