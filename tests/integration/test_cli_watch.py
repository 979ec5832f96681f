"""`desktop-rag watch` with the real embedder: index, pick up a new file, stop on SIGTERM."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.pdfgen import make_pdf

pytestmark = pytest.mark.slow


def _lines(stream, out: queue.Queue[str]) -> None:
    for line in stream:
        out.put(line)


def test_watch_indexes_then_follows_changes_and_stops_cleanly(tmp_path: Path, animal_pdfs):
    env = dict(os.environ, DESKTOP_RAG_DATA_DIR=str(tmp_path / "data"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop_rag", "watch", str(animal_pdfs), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_lines, args=(proc.stdout, lines), daemon=True).start()
    try:
        first = json.loads(lines.get(timeout=180))
        assert first["indexed"] == 3 and first["failed"] == []
        make_pdf(animal_pdfs / "koala.pdf", ["Koalas sleep up to twenty hours a day."])
        second = json.loads(lines.get(timeout=60))
        assert second["indexed"] == 1 and second["unchanged"] == 3
        (animal_pdfs / "penguin.pdf").unlink()
        third = json.loads(lines.get(timeout=60))
        assert third["removed"] == 1
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "Traceback" not in proc.stderr.read()
