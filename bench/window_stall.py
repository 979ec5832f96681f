"""Does the GUI thread stay free? The longest event-loop stall while the window works.

Usage: python bench/window_stall.py [--pdfs DIR] [--question TEXT]
Opens the window offscreen on a fresh data dir (first start: the embedder loads), indexes
DIR (default: 12 covid-qa articles from ../shared/corpus) with the real embedder, then asks
a question if an answer service exists. A 10 ms timer on the GUI thread records how late
it fires; prints JSON with the worst and 99th-percentile lateness per phase.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus" / "covid-qa" / "pdf"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pdfs", type=Path)
    parser.add_argument("--files", type=int, default=12)
    parser.add_argument("--question", default="What is the incubation period of the virus?")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="desktop-rag-stall-"))
    for name, sub in (
        ("DESKTOP_RAG_CONFIG_DIR", "config"),
        ("DESKTOP_RAG_DATA_DIR", "data"),
        ("DESKTOP_RAG_LOG_DIR", "logs"),
        ("XDG_DOCUMENTS_DIR", "Documents"),
    ):
        os.environ[name] = str(home / sub)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if os.environ.get("STALL_TRACE"):
        import logging

        logging.basicConfig(level=logging.INFO, format="%(relativeCreated)d %(name)s %(message)s")
    folder = home / "pdfs"
    source = args.pdfs or CORPUS
    folder.mkdir()
    for pdf in sorted(source.glob("*.pdf"))[: args.files]:
        shutil.copy(pdf, folder / pdf.name)

    from PySide6.QtCore import QElapsedTimer, QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from desktop_rag.config import Settings
    from desktop_rag.gui.session import Session
    from desktop_rag.gui.window import MainWindow

    _app = QApplication(sys.argv)  # kept alive for the run
    phase = "start"
    late: dict[str, list[float]] = {}
    clock = QElapsedTimer()
    clock.start()
    last = [clock.elapsed()]

    worst: dict[str, tuple[float, float]] = {}

    def tick() -> None:
        now = clock.elapsed()
        lateness = max(0.0, now - last[0] - 10)
        late.setdefault(phase, []).append(lateness)
        if lateness > worst.get(phase, (0.0, 0.0))[0]:
            worst[phase] = (lateness, now / 1000)
        last[0] = now

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    timer.start()

    def wait_until(check, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if check():
                return True
            loop = QEventLoop()
            QTimer.singleShot(20, loop.quit)
            loop.exec()
        return False

    session = Session(Settings.load())
    window = MainWindow(session, quit_on_close=False)
    window.show()
    window.start()
    t0 = time.monotonic()
    wait_until(lambda: session.app is not None and not session.indexing, 300)
    phases = {"start_s": round(time.monotonic() - t0, 2)}
    phase = "index"
    t0 = time.monotonic()
    session.add_folder(str(folder))
    wait_until(lambda: session.indexing, 30)
    wait_until(lambda: not session.indexing, 1800)
    phases["index_s"] = round(time.monotonic() - t0, 2)
    if session.answer is not None:
        phase = "answer"
        t0 = time.monotonic()
        window.ask(args.question)
        wait_until(lambda: window.asking is None, 600)
        phases["answer_s"] = round(time.monotonic() - t0, 2)
    phase = "close"
    window.close()
    wait_until(lambda: window._closed, 30)
    timer.stop()

    def stats(values: list[float]) -> dict[str, float]:
        ordered = sorted(values)
        return {
            "ticks": len(ordered),
            "max_late_ms": round(ordered[-1], 1) if ordered else 0.0,
            "p99_late_ms": round(ordered[int(len(ordered) * 0.99) - 1], 1) if ordered else 0.0,
        }

    print(
        json.dumps(
            {
                "files": args.files,
                "phases": phases,
                "stalls": {
                    name: {**stats(values), "worst_at_s": round(worst.get(name, (0, 0))[1], 2)}
                    for name, values in late.items()
                },
                "documents": len(window.documents_model.paths()),
            },
            indent=1,
        )
    )
    shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
