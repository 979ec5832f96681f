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
    "answerable",
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


def run_in_process(app, argv: list[str], capsys) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    """A command run on an app already built (a fake embedder's, say): exit code, out, err."""
    from desktop_rag import cli as commands

    args = commands.build_parser().parse_args(argv)
    for name, default in (("data_dir", None), ("json", False), ("verbose", False)):
        if not hasattr(args, name):
            setattr(args, name, default)
    command = commands.COMMANDS[args.command]
    code = commands.run_core(args, command, sys.stdout, sys.stderr, app_factory=lambda: app)
    captured = capsys.readouterr()
    return code, captured.out, captured.err
