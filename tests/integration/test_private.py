"""Private: logs hold no document text beyond short excerpts, and nothing phones home."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.pdfgen import make_pdf

pytestmark = pytest.mark.slow

SECRET = (
    "The merger with Northwind Traders closes on 14 March at a price of 41 dollars per share, "
    "and the board has not told the staff yet."
)


def _run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "desktop_rag", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


def test_logs_rotate_in_the_log_dir_and_hold_no_document_text(tmp_path):
    lib = tmp_path / "lib"
    make_pdf(lib / "board minutes.pdf", [SECRET * 3, "Other business: the car park."])
    logs = tmp_path / "logs"
    env = dict(os.environ, DESKTOP_RAG_LOG_DIR=str(logs), DESKTOP_RAG_DATA_DIR=str(tmp_path / "d"))
    assert _run("index", str(lib), "--verbose", env=env).returncode == 0
    assert _run("search", "when does the merger close", "--verbose", env=env).returncode == 0
    log_file = logs / "desktop-rag.log"
    text = log_file.read_text(encoding="utf-8")
    assert "board minutes.pdf" in text  # the log is useful...
    for start in range(0, len(SECRET) - 60, 20):  # ...but never holds the text
        assert SECRET[start : start + 60] not in text
    import logging.handlers

    handlers = [
        h
        for h in logging.getLogger().handlers
        if isinstance(h, logging.handlers.RotatingFileHandler)
    ]
    assert handlers == []  # the test process itself did not configure logging


def test_no_telemetry_switches_are_left_on():
    """In a process that starts without them (the tests' own environment sets them), the
    switches are on by the time a Hugging Face library reads them at import."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("HF_", "TRANSFORMERS_")) and k != "DO_NOT_TRACK"
    }
    code = (
        "import desktop_rag.engines.embed\n"
        "import huggingface_hub.constants as c\n"
        "print(c.HF_HUB_OFFLINE, c.HF_HUB_DISABLE_TELEMETRY)"
    )
    probe = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert probe.returncode == 0, probe.stderr[-2000:]
    assert probe.stdout.split() == ["True", "True"], probe.stdout
