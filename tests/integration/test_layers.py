"""The layers of ARCHITECTURE.md, checked: each part of desktop_rag imports only what its
layer may, and a module that belongs to no layer fails until it is given one."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "desktop_rag"

FOUNDATION = {"config", "errors", "types", "locations"}
# What each layer may import from desktop_rag (besides itself), bottom to top. The services
# at the top use any core layer; only the window, and the CLI to open it, use gui.
CORE = FOUNDATION | {"infra", "engines", "store", "ingest", "query"}
SERVICES = {"app", "library", "library_service", "conversations"}
MAY_IMPORT: dict[str, set[str]] = {
    "foundation": FOUNDATION,
    "infra": FOUNDATION,
    "engines": FOUNDATION | {"infra"},
    "store": FOUNDATION | {"infra"},
    "ingest": FOUNDATION | {"infra", "engines", "store"},
    "query": FOUNDATION | {"infra", "engines", "store"},
    "services": CORE | SERVICES,
    "cli": CORE | SERVICES,
    "gui": CORE | SERVICES | {"gui"},
}
# The one way up: `desktop-rag` with no command opens the window.
EXCEPTIONS = {("cli", "desktop_rag.gui.main")}
QT = {"PySide6", "shiboken6", "PyQt5", "PyQt6"}


def part_of(module: str) -> str:
    """desktop_rag.ingest.scan -> ingest; desktop_rag.app -> app; the package itself -> ""."""
    parts = module.split(".")
    return "" if len(parts) < 2 or parts[1].startswith("__") else parts[1]


def layer_of(part: str) -> str | None:
    if part in FOUNDATION:
        return "foundation"
    if part in SERVICES:
        return "services"
    if part in {"cli", "__main__"}:
        return "cli"
    if part in MAY_IMPORT:
        return part
    return None


def imports(source: str) -> set[str]:
    """Every module named in an import, at any depth (TYPE_CHECKING and function bodies too:
    a type is a dependency as well)."""
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "desktop_rag":  # from desktop_rag import app, __version__
                out.update(f"desktop_rag.{alias.name}" for alias in node.names)
            else:
                out.add(node.module)
    return out


def violations(modules: dict[str, str]) -> list[str]:
    """`module imports target` for each import its layer may not make; {module: source}."""
    found = []
    for module, source in sorted(modules.items()):
        part = part_of(module)
        if part in ("", "resources"):
            continue  # the package's __init__ and the shipped resources import nothing of ours
        layer = layer_of(part)
        if layer is None:
            found.append(f"{module} is in no layer: add it to ARCHITECTURE.md and this test")
            continue
        names = imports(source)
        if layer != "gui" and any(n.split(".")[0] in QT for n in names):
            found.append(f"{module} imports Qt")
        for name in sorted(n for n in names if n.startswith("desktop_rag.")):
            target = part_of(name)
            if target in ("", part) or target in MAY_IMPORT[layer]:
                continue
            if (layer, name) not in EXCEPTIONS:
                found.append(f"{module} imports {name} ({layer} may not import {target})")
    return found


def package_modules() -> dict[str, str]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(REPO).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path.read_text(encoding="utf-8")
    # A wrong REPO (this file moved) would find nothing, and every rule would hold vacuously.
    assert len(out) > 50, f"found {len(out)} modules under {PACKAGE}"
    return out


def test_every_module_imports_only_what_its_layer_may() -> None:
    modules = package_modules()
    assert "desktop_rag.engines.embed" in modules and "desktop_rag.gui.session" in modules
    assert violations(modules) == []


def test_the_check_catches_each_kind_of_crossing() -> None:
    bad = {
        "desktop_rag.engines.embed": "from desktop_rag.ingest.chunk import ChunkParams",
        "desktop_rag.store.lance": "import desktop_rag.query.retrieve",
        "desktop_rag.query.answer": (
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n"
            "    from desktop_rag.ingest.pipeline import IngestService\n"
        ),
        "desktop_rag.infra.locks": "def f():\n    from desktop_rag.engines import llm\n",
        "desktop_rag.ingest.scan": "from desktop_rag.gui.models import DocumentsModel",
        "desktop_rag.library_service": "from desktop_rag.gui.session import Session",
        "desktop_rag.cli": "from desktop_rag.gui.window import MainWindow",
        "desktop_rag.types": "from desktop_rag.app import App",
        "desktop_rag.conversations": "from PySide6.QtCore import QObject",
        "desktop_rag.helpers": "import os",
    }
    found = violations(bad)
    for module in bad:
        assert any(line.startswith(module + " ") for line in found), module
    allowed = {
        "desktop_rag.cli": "def main():\n    from desktop_rag.gui.main import main\n",
        "desktop_rag.query.retrieve": "from desktop_rag.engines.embed import Embedder",
        "desktop_rag.ingest.pipeline": "from desktop_rag.store.lance import LanceStore",
        "desktop_rag.gui.session": "from PySide6.QtCore import QObject\nimport desktop_rag.app",
        "desktop_rag.app": "from desktop_rag.ingest import rebuild",
    }
    assert violations(allowed) == []
