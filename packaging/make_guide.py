"""Render packaging/guide.html to the bundled user guide PDF (resources/guide/).

Run after editing the guide: python packaging/make_guide.py. The PDF is committed, so
installing the app needs neither this script nor a display.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QMarginsF, QSizeF
from PySide6.QtGui import (
    QFont,
    QGuiApplication,
    QPageLayout,
    QPageSize,
    QPdfWriter,
    QTextDocument,
)

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "packaging" / "guide.html"
TARGET = ROOT / "resources" / "guide" / "Desktop RAG User Guide.pdf"
STYLE = """
body { font-family: 'DejaVu Sans'; font-size: 10.5pt; }
h1 { font-size: 20pt; color: #1f4e79; }
h2 { font-size: 13pt; color: #1f4e79; margin-top: 14px; }
li { margin-bottom: 4px; }
"""


def main() -> int:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv)
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    writer = QPdfWriter(str(TARGET))
    writer.setTitle("Desktop RAG User Guide")
    writer.setCreator("Desktop RAG")
    writer.setResolution(300)
    writer.setPageLayout(
        QPageLayout(
            QPageSize(QPageSize.PageSizeId.A4),
            QPageLayout.Orientation.Portrait,
            QMarginsF(20, 18, 20, 18),
            QPageLayout.Unit.Millimeter,
        )
    )
    doc = QTextDocument()
    doc.documentLayout().setPaintDevice(writer)  # lay out at the writer's resolution
    doc.setDefaultFont(QFont("DejaVu Sans", 10))
    doc.setDefaultStyleSheet(STYLE)
    doc.setHtml(SOURCE.read_text(encoding="utf-8"))
    rect = writer.pageLayout().paintRectPixels(writer.resolution())
    doc.setPageSize(QSizeF(rect.size()))
    doc.print_(writer)
    del app
    print(TARGET)
    return 0


if __name__ == "__main__":
    sys.exit(main())
