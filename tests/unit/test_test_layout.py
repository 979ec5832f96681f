"""The tests' own layout (tests/README.md): no test file imports another, and every module of
desktop_rag has a test file where the README says, but for the listed ones, a list that only
shrinks."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"
PACKAGE = REPO / "desktop_rag"

# Modules without a test file where tests/README.md puts it (some are tested from elsewhere,
# in tests/integration or through another module's tests). Write the test file, then take the
# module off this list: the list may only shrink, and a module added to desktop_rag comes with
# its test file.
UNTESTED = frozenset(
    {
        "__main__.py",
        "cleaning.py",
        "engines/embed.py",
        "engines/rerank.py",
        "ingest/engine.py",  # the Engine Protocol and the Run it is given: no logic of its own
        "errors.py",
        "gui/icons.py",
        "gui/kindbar.py",
        "gui/loader.py",
        "gui/main.py",
        "gui/pageview.py",
        "gui/team_box.py",
        "gui/workers.py",
        "infra/cpu.py",
        "infra/faults.py",
        "infra/single_instance.py",
        "ingest/progress.py",
        "ingest/ray_engine.py",
        "ingest/readers/archive.py",
        "ingest/readers/base.py",
        "ingest/readers/epub.py",
        "ingest/readers/html.py",
        "ingest/readers/markdown.py",
        "ingest/readers/office.py",
        "ingest/readers/pdf.py",
        "ingest/readers/sections.py",
        "ingest/readers/text.py",
        "ingest/rebuild.py",
        "outline_service.py",
        "query/listing.py",
        "store/schema.py",
        "types.py",
    }
)


def imported_test_modules(path: Path) -> list[str]:
    """The test modules (test_*.py) the Python file at `path` imports, anywhere in it."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            # `from tests.gui import test_window` imports a test module by its name.
            names = [module] + [f"{module}.{alias.name}" for alias in node.names]
        else:
            continue
        found += [n for n in names if n.rsplit(".", 1)[-1].startswith("test_")]
    return found


def test_no_test_file_imports_another() -> None:
    """What two test files share is a helper (tests/helpers/) or a fixture (conftest.py): a
    test file imported by another runs its tests' module code twice and ties them together."""
    offenders = {
        path.relative_to(REPO).as_posix(): names
        for path in sorted(TESTS.rglob("*.py"))
        if (names := imported_test_modules(path))
    }
    assert not offenders


def test_the_check_sees_a_test_file_imported(tmp_path: Path) -> None:
    planted = tmp_path / "test_planted.py"
    planted.write_text(
        "import os\n"
        "from tests.helpers.window import ask\n"
        "from tests.gui.test_window import _names\n"
        "def f():\n"
        "    from tests.unit import test_cli_ask\n"
        "    import tests.unit.query.test_outline\n"
    )
    assert imported_test_modules(planted) == [
        "tests.gui.test_window",
        "tests.unit.test_cli_ask",
        "tests.unit.query.test_outline",
    ]


def places_of_tests(module: Path) -> list[str]:
    """Where the test files of a desktop_rag module may be (tests/README.md), as globs."""
    rel = module.relative_to(PACKAGE)
    folder = "tests/gui" if rel.parts[0] == "gui" else "/".join(("tests/unit", *rel.parts[:-1]))
    return [f"{folder}/test_{rel.stem}.py", f"{folder}/test_{rel.stem}_*.py"]


def untested_modules() -> set[str]:
    """The modules of desktop_rag with no test file where tests/README.md puts it."""
    out = set()
    for module in PACKAGE.rglob("*.py"):
        if module.name == "__init__.py":
            continue
        if not any(any(REPO.glob(place)) for place in places_of_tests(module)):
            out.add(module.relative_to(PACKAGE).as_posix())
    return out


def test_every_module_has_a_test_file_but_the_listed_ones() -> None:
    untested = untested_modules()
    assert sorted(untested - UNTESTED) == [], "a module without its test file (tests/README.md)"
    assert sorted(UNTESTED - untested) == [], (
        "has a test file now, or is gone: take it off UNTESTED"
    )


def test_the_check_sees_a_module_without_a_test_file() -> None:
    """The session (gui/session.py) has its test file, tests/gui/test_session.py, a prefix of
    test_session_*.py files too; a module named like no test file has none."""
    assert places_of_tests(PACKAGE / "gui" / "session.py") == [
        "tests/gui/test_session.py",
        "tests/gui/test_session_*.py",
    ]
    assert places_of_tests(PACKAGE / "ingest" / "readers" / "pdf.py")[0] == (
        "tests/unit/ingest/readers/test_pdf.py"
    )
    assert "gui/session.py" not in untested_modules()
    assert "types.py" in untested_modules()
