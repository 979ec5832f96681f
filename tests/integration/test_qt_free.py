"""The core never imports Qt: only desktop_rag/gui may."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import desktop_rag


def test_core_modules_do_not_import_pyside6():
    names = [
        m.name
        for m in pkgutil.walk_packages(desktop_rag.__path__, "desktop_rag.")
        if not m.name.startswith("desktop_rag.gui")
    ]
    assert "desktop_rag.ingest.pipeline" in names and "desktop_rag.cli" in names
    code = (
        "import importlib, sys\n"
        f"for n in {names!r}:\n"
        "    if n != 'desktop_rag.__main__':\n"
        "        importlib.import_module(n)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6'))\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"core imported Qt: {result.stdout}"


def test_core_imports_stay_light():
    """Importing the CLI must not load torch or llama.cpp (the window and `status` start fast)."""
    code = (
        "import sys, desktop_rag.cli, desktop_rag.app\n"
        "print(','.join(m for m in ('torch', 'llama_cpp', 'sentence_transformers') "
        "if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""
