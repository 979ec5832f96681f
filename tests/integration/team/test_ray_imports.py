"""The desktop never imports Ray: only `index --engine ray` does (ingest/ray_engine.py)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO

PROBE = """
import sys
from desktop_rag import app, cli
from desktop_rag.gui import window
cli.build_parser().parse_args(["index", "--engine", "ray", "x"])
loaded = sorted(m for m in ("ray", "lance_ray", "lance") if m in sys.modules)
print(",".join(loaded))
"""


def test_the_desktop_and_the_command_line_never_import_ray() -> None:
    run = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={"PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen", "HF_HUB_OFFLINE": "1"},
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == ""
