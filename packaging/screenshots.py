"""Drive the window through its main states and save a PNG of each, for review.

Usage (a display is needed; Xvfb will do):
    xvfb-run -s "-screen 0 1440x900x24" python packaging/screenshots.py OUT_DIR [PDF_FOLDER]
        [--dark] [--fake-answers]

States: first start, indexing, an answer with sources, the page viewer, a file that failed,
settings. Runs in a throw-away home; the real embedder, store and (unless --fake-answers)
answer model are used.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("pdfs", nargs="?", type=Path, help="a folder of PDFs to index")
    parser.add_argument("--dark", action="store_true", help="a dark palette (Fusion)")
    parser.add_argument("--fake-answers", action="store_true", help="no language model")
    parser.add_argument("--question", default="How do I add my own documents?")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="desktop-rag-shots-"))
    for name, sub in (
        ("DESKTOP_RAG_CONFIG_DIR", "config"),
        ("DESKTOP_RAG_DATA_DIR", "data"),
        ("DESKTOP_RAG_LOG_DIR", "logs"),
        ("XDG_DOCUMENTS_DIR", "Documents"),
    ):
        os.environ[name] = str(home / sub)
    args.out.mkdir(parents=True, exist_ok=True)

    from PySide6.QtCore import QEventLoop, QTimer, QUrl
    from PySide6.QtGui import QColor, QPalette
    from PySide6.QtWidgets import QApplication, QWidget

    from desktop_rag.config import Settings
    from desktop_rag.gui.session import Session
    from desktop_rag.gui.settings_dialog import SettingsDialog
    from desktop_rag.gui.window import MainWindow
    from desktop_rag.library_service import default_answerer

    app = QApplication(sys.argv)
    if args.dark:
        app.setStyle("Fusion")
        pal = QPalette()
        for role, color in (
            (QPalette.ColorRole.Window, "#2b2b2e"),
            (QPalette.ColorRole.WindowText, "#e6e6e6"),
            (QPalette.ColorRole.Base, "#1e1e20"),
            (QPalette.ColorRole.AlternateBase, "#2f3033"),
            (QPalette.ColorRole.Text, "#e6e6e6"),
            (QPalette.ColorRole.Button, "#353538"),
            (QPalette.ColorRole.ButtonText, "#e6e6e6"),
            (QPalette.ColorRole.Highlight, "#3d6fb4"),
            (QPalette.ColorRole.HighlightedText, "#ffffff"),
            (QPalette.ColorRole.Link, "#8ab4f8"),
            (QPalette.ColorRole.PlaceholderText, "#9a9a9f"),
            (QPalette.ColorRole.ToolTipBase, "#2b2b2e"),
            (QPalette.ColorRole.ToolTipText, "#e6e6e6"),
        ):
            pal.setColor(role, QColor(color))
        pal.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText, QColor("#77777c"))
        pal.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, QColor("#77777c"))
        pal.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, QColor("#77777c"))
        app.setPalette(pal)
    suffix = "-dark" if args.dark else ""

    def wait(seconds: float) -> None:
        loop = QEventLoop()
        QTimer.singleShot(int(seconds * 1000), loop.quit)
        loop.exec()

    def until(check, timeout: float = 300.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if check():
                return True
            wait(0.1)
        return False

    def shot(widget: QWidget, name: str) -> None:
        wait(0.3)
        path = args.out / f"{name}{suffix}.png"
        widget.grab().save(str(path))
        print(path, flush=True)

    answer_factory = default_answerer
    if args.fake_answers:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from tests.helpers.answers import composed

        answer_factory = composed
    session = Session(Settings.load(), answer_factory=answer_factory)
    window = MainWindow(session, quit_on_close=False)
    window.resize(1400, 860)
    window.show()
    window.start()
    shot(window, "1-first-start")

    until(lambda: session.app is not None and not session.indexing)
    until(lambda: session.model_status[0] in ("ready", "failed", "missing"))
    if args.pdfs:
        folder = home / "Reports"
        shutil.copytree(args.pdfs, folder)
        session.add_folder(str(folder))
        until(lambda: session.indexing)
        until(lambda: window.documents.progress.value() >= 2, 120)
        shot(window, "2-indexing")
        until(lambda: not session.indexing, 900)

    window.chat.ask(args.question)
    until(lambda: window.state.exchange is None, 300)
    shot(window, "3-answer")
    conv = window.current
    if conv and conv.exchanges and conv.exchanges[-1].sources:
        exchange = conv.exchanges[-1]
        n = exchange.cited[0] if exchange.cited else exchange.sources[0].n
        window.chat.view.anchorClicked.emit(QUrl(f"cite:{len(conv.exchanges) - 1}:{n}"))
        shot(window, "4-page-viewer")

    failed = [
        p
        for p in window.documents_model.paths()
        if (row := window.documents_model.row_for(p)) and row.status == "failed"
    ]
    if failed:
        proxy = window.documents.proxy
        window.documents.filter.setText(os.path.basename(failed[0]))
        window.documents.table.setCurrentIndex(proxy.index(0, 0))
        shot(window, "5-failed-file")
        window.documents.filter.clear()

    dialog = SettingsDialog(session.settings, window)
    dialog.show()
    shot(dialog, "6-settings")
    dialog.reject()

    window.close()
    until(lambda: window._closed, 15)
    shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
