"""How fast the window appears: runs `desktop-rag` (no command) offscreen and prints JSON.

Usage: python -m bench.window_start [--runs 3]
Each run starts a fresh process on a fresh data dir (a first start), reads the app's own
log for "window shown" (measured from the process's creation) and "library open", then
sends SIGTERM. Prints {"runs": [...], "shown_s": {...}, "library_open_s": {...}}.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHOWN = re.compile(r"window shown ([0-9.]+) s after start")
OPEN = re.compile(r"^(\S+ \S+) INFO desktop_rag.gui.session: library open", re.M)


def one_run(timeout_s: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="desktop-rag-bench-") as tmp:
        home = Path(tmp)
        env = dict(
            os.environ,
            QT_QPA_PLATFORM="offscreen",
            DESKTOP_RAG_CONFIG_DIR=str(home / "config"),
            DESKTOP_RAG_DATA_DIR=str(home / "data"),
            DESKTOP_RAG_LOG_DIR=str(home / "logs"),
            XDG_DOCUMENTS_DIR=str(home / "Documents"),
        )
        log = home / "logs" / "desktop-rag.log"
        t0 = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "desktop_rag"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        out: dict[str, float] = {}
        try:
            while time.monotonic() - t0 < timeout_s and proc.poll() is None:
                text = log.read_text(errors="replace") if log.exists() else ""
                shown = SHOWN.search(text)
                if shown and "shown_s" not in out:
                    out["shown_s"] = float(shown.group(1))
                    out["shown_wall_s"] = round(time.monotonic() - t0, 3)
                if OPEN.search(text):
                    out["library_open_wall_s"] = round(time.monotonic() - t0, 3)
                    break
                time.sleep(0.02)
            stop = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
            out["exit_after_sigterm_s"] = round(time.monotonic() - stop, 3)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        return out


def summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    return {
        "median": round(statistics.median(values), 3),
        "min": round(min(values), 3),
        "max": round(max(values), 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    runs = [one_run(args.timeout) for _ in range(args.runs)]
    result = {
        "runs": runs,
        "shown_s": summary([r["shown_s"] for r in runs if "shown_s" in r]),
        "shown_wall_s": summary([r["shown_wall_s"] for r in runs if "shown_wall_s" in r]),
        "library_open_wall_s": summary(
            [r["library_open_wall_s"] for r in runs if "library_open_wall_s" in r]
        ),
        "exit_after_sigterm_s": summary([r["exit_after_sigterm_s"] for r in runs]),
        "cpus": os.cpu_count(),
    }
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
