"""The layers of ARCHITECTURE.md, checked: each part of desktop_rag imports only what its
layer may, no module imports itself through others (no import cycle), and every module is
named in ARCHITECTURE.md's table, in its layer's row."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "desktop_rag"

FOUNDATION = {"config", "errors", "types", "locations", "cleaning", "languages"}
# What each layer may import from desktop_rag (besides itself), bottom to top. The services
# at the top use any core layer; only the window, and the CLI to open it, use gui.
CORE = FOUNDATION | {"infra", "engines", "store", "ingest", "query"}
SERVICES = {
    "app", "library", "library_service", "conversations", "outline_service", "routing", "team",
}  # fmt: skip
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


def edges(module: str, source: str, modules: set[str]) -> set[str]:
    """The modules of `modules` that `module` imports by name, at any depth (as imports()).
    `from desktop_rag.ingest import sandbox` imports desktop_rag.ingest.sandbox; a package's
    own __init__ is not counted as imported by its submodules (Python loads it first, but it
    is the package's table of contents, not a dependency of what it lists)."""
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                out.add(sub if sub in modules else node.module)
    return {name for name in out if name in modules and name != module}


def cycles(modules: dict[str, str]) -> list[list[str]]:
    """Each set of modules that import one another, directly or through others (Tarjan's
    strongly connected components of more than one module), sorted."""
    names = set(modules)
    graph = {m: sorted(edges(m, src, names)) for m, src in modules.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:
        # Iterative, so a deep chain of imports cannot reach Python's recursion limit.
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(graph[target])))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


ARCHITECTURE = REPO / "ARCHITECTURE.md"
# The table's first column names each layer as layer_of() does.
_ROW = re.compile(r"^\| (\w+) \| (.+?) \| (.+?) \| (.+?) \|$")


def table_rows(text: str) -> dict[str, str]:
    """ARCHITECTURE.md's table of layers: {layer: its modules and what-it-is cells}."""
    rows = {}
    for line in text.splitlines():
        match = _ROW.match(line.strip())
        if match and match.group(1) in MAY_IMPORT:
            rows[match.group(1)] = match.group(2) + " " + match.group(3)
    return rows


def unlisted(modules: dict[str, str], rows: dict[str, str]) -> list[str]:
    """Modules not named in their layer's row: `config.py` or `infra/` for a part, and a
    module inside a part by its own name (`lance`, `readers`, `pdf`)."""
    found = []
    for module in sorted(modules):
        part = part_of(module)
        if part in ("", "resources"):
            continue
        layer = layer_of(part)
        row = rows.get(layer or "", "")
        named = set(re.findall(r"`([^`]+)`", row))
        parts = module.split(".")
        package = any(m.startswith(module + ".") for m in modules)
        if len(parts) == 2:
            wanted = {f"{part}/" if package else f"{part}.py"}
        else:  # a subpackage may be named as a folder too: `readers/`
            wanted = {parts[-1], f"{parts[-1]}/"} if package else {parts[-1]}
        if layer is None or not wanted & named or (len(parts) > 2 and f"{part}/" not in named):
            found.append(f"{module} is not named in the {layer} row of ARCHITECTURE.md")
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


def test_no_module_imports_itself_through_others() -> None:
    modules = package_modules()
    assert edges(
        "desktop_rag.ingest.pipeline", modules["desktop_rag.ingest.pipeline"], set(modules)
    )
    assert cycles(modules) == []


def test_the_cycle_check_finds_cycles_at_any_depth() -> None:
    modules = {
        "desktop_rag.a": "from desktop_rag import b",
        "desktop_rag.b": "def f():\n    import desktop_rag.c.d\n",
        "desktop_rag.c": "",
        "desktop_rag.c.d": "from desktop_rag.a import thing",
        "desktop_rag.e": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import desktop_rag.f\n"
        ),
        "desktop_rag.f": "from desktop_rag.e import x",
        "desktop_rag.g": "from desktop_rag.a import y\nimport os",
    }
    assert cycles(modules) == [
        ["desktop_rag.a", "desktop_rag.b", "desktop_rag.c.d"],
        ["desktop_rag.e", "desktop_rag.f"],
    ]
    del modules["desktop_rag.f"]
    assert cycles(modules) == [["desktop_rag.a", "desktop_rag.b", "desktop_rag.c.d"]]


def test_every_module_is_named_in_its_layers_row_of_the_architecture_table() -> None:
    rows = table_rows(ARCHITECTURE.read_text(encoding="utf-8"))
    assert set(rows) == set(MAY_IMPORT), "a layer's row is missing from ARCHITECTURE.md"
    assert unlisted(package_modules(), rows) == []


def test_the_table_check_finds_a_module_missing_from_its_row() -> None:
    rows = {
        "foundation": "`config.py`, `errors.py` settings",
        "ingest": "`ingest/` scan (`scan`), readers (`readers`: `pdf`)",
    }
    modules = dict.fromkeys(
        [
            "desktop_rag.config",
            "desktop_rag.types",
            "desktop_rag.ingest.scan",
            "desktop_rag.ingest.chunk",
            "desktop_rag.ingest.readers",
            "desktop_rag.ingest.readers.pdf",
            "desktop_rag.ingest.readers.html",
            "desktop_rag.store.lance",
        ],
        "",
    )
    assert unlisted(modules, rows) == [
        "desktop_rag.ingest.chunk is not named in the ingest row of ARCHITECTURE.md",
        "desktop_rag.ingest.readers.html is not named in the ingest row of ARCHITECTURE.md",
        "desktop_rag.store.lance is not named in the store row of ARCHITECTURE.md",
        "desktop_rag.types is not named in the foundation row of ARCHITECTURE.md",
    ]


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
