"""Render the app icon (resources/icons/app.svg) to PNG, .ico (Windows) and .icns (macOS).

Usage: python packaging/make_icons.py OUT_DIR

Both icon containers hold PNG images (Windows Vista and later, macOS 10.7 and later read
them), so Qt's SVG renderer is the only tool needed, on any platform.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QSize
from PySide6.QtGui import QGuiApplication, QImageReader

REPO = Path(__file__).resolve().parents[1]
SOURCE = REPO / "resources" / "icons" / "app.svg"
NAME = "desktop-rag"
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# The icns element types that hold PNG data, by pixel size.
ICNS_TYPES = {16: b"icp4", 32: b"icp5", 64: b"icp6", 128: b"ic07", 256: b"ic08", 512: b"ic09"}


def render_png(svg: bytes, size: int) -> bytes:
    """The SVG drawn at size x size pixels, as PNG bytes."""
    source = QBuffer()
    source.setData(QByteArray(svg))
    source.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(source, QByteArray(b"svg"))
    reader.setScaledSize(QSize(size, size))
    image = reader.read()
    if image.isNull():
        raise RuntimeError(f"Qt could not render the icon: {reader.errorString()}")
    out = QBuffer()
    out.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(out, "PNG")  # type: ignore[call-overload]  # the stubs say bytes; str works
    return bytes(out.data().data())


def ico(pngs: dict[int, bytes]) -> bytes:
    """An .ico file of PNG images (a width or height of 256 is written as 0)."""
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    entries, blobs = b"", b""
    for size in sizes:
        data = pngs[size]
        edge = 0 if size >= 256 else size
        entries += struct.pack("<BBBBHHII", edge, edge, 0, 0, 1, 32, len(data), offset)
        blobs += data
        offset += len(data)
    return header + entries + blobs


def icns(pngs: dict[int, bytes]) -> bytes:
    """An .icns file of PNG images, one element per size macOS knows."""
    body = b"".join(
        ICNS_TYPES[size] + struct.pack(">I", len(pngs[size]) + 8) + pngs[size]
        for size in sorted(pngs)
        if size in ICNS_TYPES
    )
    return b"icns" + struct.pack(">I", len(body) + 8) + body


def make_icons(out: Path, svg: Path = SOURCE) -> dict[str, Path]:
    """Write NAME.png (256 px), NAME.ico and NAME.icns into out; return their paths."""
    _app = QGuiApplication.instance() or QGuiApplication([])
    data = svg.read_bytes()
    pngs = {size: render_png(data, size) for size in sorted({*ICO_SIZES, *ICNS_TYPES})}
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "png": (out / f"{NAME}.png", pngs[256]),
        "ico": (out / f"{NAME}.ico", ico({s: pngs[s] for s in ICO_SIZES})),
        "icns": (out / f"{NAME}.icns", icns(pngs)),
    }
    for path, blob in files.values():
        path.write_bytes(blob)
    return {kind: path for kind, (path, _) in files.items()}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    for path in make_icons(Path(argv[0])).values():
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
