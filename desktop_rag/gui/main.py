"""Open the window: the Qt application, signal handling, and a clean exit within seconds."""

from __future__ import annotations

import logging
import os
import signal
import socket
import sys
import time
from collections.abc import Callable, Sequence
from typing import NoReturn

from PySide6.QtCore import QCoreApplication, QObject, QSocketNotifier, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from desktop_rag import __version__
from desktop_rag.infra import processes, single_instance

log = logging.getLogger(__name__)


def since_start() -> float:
    """Seconds since this process started, imports included (10 ms precision on Linux)."""
    try:  # /proc knows the start in clock ticks since boot; psutil rounds the boot time
        with open("/proc/self/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        with open("/proc/uptime", "rb") as f:
            uptime = float(f.read().split()[0])
        return uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        pass
    try:
        import psutil

        return time.time() - psutil.Process().create_time()
    except Exception:  # psutil cannot tell on this platform
        return float("nan")


class SignalRelay(QObject):
    """Turns SIGTERM / SIGINT into a call on the GUI thread.

    Python runs signal handlers only when the interpreter gets control, which a Qt event loop
    rarely gives it; a socket written by the C-level handler wakes the loop instead.
    """

    def __init__(self, on_signal: Callable[[], object], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._on_signal = on_signal
        self._read, self._write = socket.socketpair()
        self._read.setblocking(False)
        self._write.setblocking(False)
        self._notifier = QSocketNotifier(self._read.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._on_notifier_activated)
        self._previous_fd = signal.set_wakeup_fd(self._write.fileno())
        self._previous = {
            sig: signal.signal(sig, lambda *_: None) for sig in processes.stop_signals()
        }

    def _on_notifier_activated(self) -> None:
        try:
            data = self._read.recv(64)
        except OSError:
            return
        if any(b in self._previous for b in data):
            self._on_signal()

    def restore(self) -> None:
        signal.set_wakeup_fd(self._previous_fd)
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """Run the window until it is closed, then end the process (see the end)."""
    from desktop_rag.infra import display, logs, memory

    logs.setup()
    memory.return_large_blocks()  # freed batches and tables leave the window (issue 45)
    problem = display.check()
    if problem:  # Qt would abort the process with a hint that names the wrong package
        log.info("%s", problem)  # the log file; the user reads it on the terminal
        print(f"desktop-rag: {problem}", file=sys.stderr)
        logging.shutdown()
        sys.exit(1)
    args = list(sys.argv if argv is None else argv)
    QApplication.setApplicationName("Desktop RAG")
    QApplication.setApplicationVersion(__version__)
    QApplication.setOrganizationName("desktop-rag")
    QApplication.setDesktopFileName("desktop-rag")
    app = QApplication.instance() or QApplication(args)
    assert isinstance(app, QApplication)
    app.setQuitOnLastWindowClosed(False)  # the window quits once its jobs have stopped

    from desktop_rag.gui import translation

    translation.install(app)  # before any window or dialog is built: they read it once

    from desktop_rag.config import Settings
    from desktop_rag.gui.session import Session
    from desktop_rag.gui.window import MainWindow

    settings = Settings.load()
    settings.data_dir = ""  # DESKTOP_RAG_DATA_DIR (or --data-dir) decides, as for commands
    lock = single_instance.acquire(settings.data_path)
    if isinstance(lock, str):
        log.warning("%s", lock)
        print(f"desktop-rag: {lock}", file=sys.stderr)
        if app.platformName() not in ("offscreen", "minimal"):  # nobody to click OK there
            title = QCoreApplication.translate("main", "Desktop RAG is already running")
            QMessageBox.information(None, title, lock)
        logging.shutdown()
        os._exit(1)
    session = Session(settings)
    window = MainWindow(session)
    relay = SignalRelay(window.close)
    window.show()
    QTimer.singleShot(0, lambda: log.info("window shown %.2f s after start", since_start()))
    window.start()
    code = app.exec()
    relay.restore()
    if not window.clean_exit:
        log.warning("a job did not stop in time; everything committed is safe on disk")
    log.info("window closed %.2f s after start", since_start())
    # Everything is saved by now (index commits, conversations, settings, layout). Skip the
    # interpreter's teardown: with torch loaded it alone takes seconds, and a job that did not
    # stop in time (a model call that cannot be interrupted) would hold the exit hostage.
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
