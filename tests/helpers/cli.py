"""`desktop-rag` run as a user runs it: a subprocess of this Python, on a data dir of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# The keys of `ask --json` (DESIGN.md's contract): always these, and others only when they apply
# (notice, note and withheld, recited_from).
ASK_JSON_KEYS = {
    "answer",
    "sources",
    "quotes",
    "cited",
    "mode",
    "refused",
    "unsupported",
    "check",
    "timings",
}


def cli(*args: str, data_dir: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("DESKTOP_RAG_DATA_DIR", None)
    return subprocess.run(
        [sys.executable, "-m", "desktop_rag", *args, "--data-dir", str(data_dir)],
        capture_output=True,
        text=True,
        input=stdin,
        env=env,
        timeout=600,
    )
