"""Does the GUI thread stay free while a 300-page PDF's outline is built? (issue 33)

    QT_QPA_PLATFORM=offscreen python -m bench.outline_stall [--pdf FILE]

Opens the window offscreen on a fresh data dir with the real embedder, indexes FILE (default:
bench/window_stall.py's 306-page filing, else a generated 300-page PDF), waits for the answer
model to settle, then asks for its outline from the window (as the row's menu does) twice: built,
then read from the cache. A 10 ms timer on the GUI thread records how late it fires, as in
bench/window_stall.py; each stall over 50 ms is listed with how long the GUI thread ran and how
long it waited ready for a CPU in it (a busy machine, not work on the GUI thread). Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

from bench.window_stall import TARGET_MS, _schedstat, big_pdf, throwaway_home


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pdf", type=Path, default=None)
    args = parser.parse_args()
    home = throwaway_home("desktop-rag-outline-stall-")
    pdf = args.pdf or big_pdf(home)
    folder = home / "pdfs"
    folder.mkdir()
    target = folder / pdf.name
    shutil.copy(pdf, target)

    from PySide6.QtCore import QElapsedTimer, QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from bench.perfutil import machine
    from desktop_rag.config import Settings
    from desktop_rag.gui.session import ModelState, Session
    from desktop_rag.gui.window import MainWindow

    _app = QApplication(sys.argv)
    result: dict[str, object] = {"machine": machine(), "pdf": pdf.name}
    phase = "start"
    late: dict[str, list[float]] = {}
    stalls: list[dict[str, object]] = []
    clock = QElapsedTimer()
    clock.start()
    last = [clock.elapsed()]
    sched = [_schedstat()]

    def tick() -> None:
        now = clock.elapsed()
        lateness = max(0.0, now - last[0] - 10)
        late.setdefault(phase, []).append(lateness)
        stat = _schedstat()
        if lateness > TARGET_MS and phase.startswith("outline"):
            stalls.append(
                {
                    "phase": phase,
                    "late_ms": round(lateness),
                    "gui_ran_ms": round(stat[0] - sched[0][0]),
                    "gui_waited_for_cpu_ms": round(stat[1] - sched[0][1]),
                }
            )
        sched[0] = stat
        last[0] = now

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    timer.start()

    def wait_until(check, timeout_s: float) -> bool:  # type: ignore[no-untyped-def]
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
    wait_until(lambda: session.app is not None and not session.indexing, 600)
    phase = "index"
    t0 = time.monotonic()
    session.add_folder(str(folder))
    wait_until(lambda: session.indexing, 30)
    wait_until(lambda: not session.indexing, 3600)
    result["index_s"] = round(time.monotonic() - t0, 1)
    wait_until(lambda: session.model_status[0] in (ModelState.READY, ModelState.FAILED), 600)
    phase = "idle"
    wait_until(lambda: False, 2)
    progress: list[str] = []
    session.outline_progress.connect(lambda p: progress.append(p.message))
    for name in ("outline", "outline_cached"):
        phase = name
        t0 = time.monotonic()
        window.outline(str(target))
        wait_until(lambda: window.state.exchange is None, 1800)
        result[f"{name}_s"] = round(time.monotonic() - t0, 2)
    exchange = window.current.exchanges[-1] if window.current else None
    result["sections"] = len(progress) - 2 if progress else 0
    result["sources_cited"] = len(exchange.sources) if exchange else 0
    result["error"] = exchange.error if exchange else "no exchange"

    def stats(values: list[float]) -> dict[str, float]:
        ordered = sorted(values)
        return {
            "ticks": len(ordered),
            "max_late_ms": round(ordered[-1], 1) if ordered else 0.0,
            "p99_late_ms": round(ordered[int(len(ordered) * 0.99) - 1], 1) if ordered else 0.0,
        }

    result["stalls"] = {name: stats(values) for name, values in late.items()}
    result["stalls_over_50_ms"] = stalls
    result["under_target"] = result["stalls"]["outline"]["max_late_ms"] < TARGET_MS  # type: ignore[index]
    result["load_average"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(result, indent=1))
    window.close()
    shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
