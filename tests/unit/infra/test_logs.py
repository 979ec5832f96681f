"""Logging set-up: the Rust loggers of LanceDB kept to errors on the terminal (issue 31: the
window's stderr carried dozens of LanceDB deprecation warnings)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def test_both_lance_loggers_are_kept_to_errors_unless_asked() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("LANCE_LOG", "LANCEDB_LOG")}
    env["PYTHONPATH"] = str(REPO)
    code = (
        "import os; from desktop_rag.infra import logs; logs.setup(to_file=False); "
        "print(os.environ['LANCE_LOG'], os.environ.get('LANCEDB_LOG'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    # lancedb 0.40's logger reads LANCEDB_LOG (env_logger), not lance's LANCE_LOG.
    assert done.stdout.split() == ["error", "error"]
    env["LANCEDB_LOG"] = "info"  # asked for: left alone
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["error", "info"]
