"""The architecture's rules, checked: only gui/ imports Qt, every module says what it is for,
and every package is shipped."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "desktop_rag"


def _modules() -> list[Path]:
    found = sorted(PACKAGE.rglob("*.py"))
    # A wrong REPO (this file moved) would find nothing, and every rule would hold vacuously.
    assert len(found) > 50, f"found {len(found)} modules under {PACKAGE}"
    return found


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module.split(".")[0])
    return out


def test_only_the_gui_imports_qt():
    offenders = [
        str(p.relative_to(REPO))
        for p in _modules()
        if "gui" not in p.relative_to(PACKAGE).parts
        and _imports(p) & {"PySide6", "PyQt5", "PyQt6", "shiboken6"}
    ]
    assert offenders == []


def test_the_gui_uses_only_essentials_and_pdf():
    allowed = {"QtCore", "QtGui", "QtWidgets", "QtPdf", "QtPdfWidgets"}
    used = set()
    for path in (PACKAGE / "gui").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("PySide6."):
                used.add(node.module.split(".")[1])
    assert {"QtCore", "QtWidgets"} <= used, "no gui module found: the rule held vacuously"
    assert used <= allowed


def test_every_module_starts_with_a_docstring():
    missing = [
        str(p.relative_to(REPO))
        for p in [*_modules(), *(REPO / "resources").glob("*.py")]
        if not ast.get_docstring(ast.parse(p.read_text(encoding="utf-8")))
    ]
    assert missing == []


def test_every_package_is_listed_for_the_wheel():
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(REPO).parts) for p in PACKAGE.rglob("__init__.py")} | {
        "desktop_rag.resources"
    }
    assert found == listed
