"""The documents pane alone at N files: how long adding, updating, sorting and filtering take.

No indexing and no models: N file events go straight into the pane's model, as the window
applies them, and each step is timed with the events it causes processed (offscreen). Pass
another checkout's path to measure its code the same way (an older one inserts row by row).

Usage: python bench/documents_pane.py [--files N] [--repo PATH]
Prints one JSON document (milliseconds per step).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[1])
    args = parser.parse_args()
    sys.path.insert(0, str(args.repo))
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if sys.version_info < (3, 12):  # what desktop_rag.gui does since PySide6 6.12 (see there)
        for obj in (None, True, False):
            ctypes.c_ssize_t.from_address(id(obj)).value += 1 << 40
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from desktop_rag.gui.documents import DocumentsPane
    from desktop_rag.gui.models import DocumentsModel
    from desktop_rag.types import FileEvent

    app = QApplication([])
    model = DocumentsModel()
    pane = DocumentsPane(model)
    pane.resize(600, 800)
    pane.show()
    app.processEvents()
    paths = [f"/library/lot {i % 7}/document n° {i:05d}.pdf" for i in range(args.files)]
    random.Random(12).shuffle(paths)
    out: dict[str, Any] = {}

    def timed(label: str, fn: Any) -> None:
        t0 = time.perf_counter()
        fn()
        app.processEvents()
        out[label] = round((time.perf_counter() - t0) * 1000, 1)

    queued = [FileEvent(p, "queued") for p in paths]
    batch = getattr(model, "apply_many", None)
    if batch is not None:
        timed("all queued", lambda: batch(queued))
    else:
        timed("all queued", lambda: [model.apply(e) for e in queued])
    timed("one file indexed", lambda: model.apply(FileEvent(paths[0], "indexed", 2, 5)))
    for col, name in enumerate(DocumentsModel.HEADERS):
        order = Qt.SortOrder.DescendingOrder
        timed(f"sort {name.lower()}", lambda c=col, o=order: pane.table.sortByColumn(c, o))
    pane.table.sortByColumn(DocumentsModel.STATUS, Qt.SortOrder.AscendingOrder)
    app.processEvents()
    timed(
        "one file indexed, sorted by status",
        lambda: model.apply(FileEvent(paths[1], "indexed", 2, 5)),
    )
    timed("filter '0042'", lambda: pane.filter.setText("0042"))
    timed("filter cleared", lambda: pane.filter.setText(""))
    result = {
        "files": args.files,
        "repo": str(args.repo),
        "ms": out,
        "rows": pane.proxy.rowCount(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
