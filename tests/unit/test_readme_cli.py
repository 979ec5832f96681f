"""The README's command-line block is the parser's: generated, complete, and checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools import readme_cli


def test_readme_block_is_the_parsers() -> None:
    assert readme_cli.main(["--check"]) == 0


def test_block_lists_every_command_and_option() -> None:
    block = readme_cli.render()
    for line in (
        "desktop-rag index [--rebuild] [--ocr] [--engine {local,ray}] [--address ADDR] PATH...",
        "desktop-rag search [-k N] [--mode {hybrid,vector,text}] [--explain] [--in PATH] "
        "[--collection NAME] [--team URI] QUERY",
        "desktop-rag search [-k N] [--mode {hybrid,vector,text}] [--explain] [--in PATH] "
        "[--collection NAME] [--team URI] -",
        "desktop-rag ask [--model FILE.gguf] [--answers {auto,composed,written}] [-k N] "
        "[--kind {auto,passage,document,library}] [--in PATH] [--collection NAME] [--team URI] -",
        "desktop-rag documents [-k N] [--from YEAR] [--format EXT] [--count] [--in PATH] "
        "[--collection NAME] QUERY",
        "desktop-rag collection add|remove|list NAME PATH...",
        "desktop-rag watch PATH...",
        "desktop-rag status",
        "desktop-rag remove PATH...",
        "    --data-dir DIR ",
    ):
        assert line in block, line
    readme = readme_cli.README.read_text(encoding="utf-8")
    assert block in readme


def test_check_fails_on_a_stale_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    readme = readme_cli.README.read_text(encoding="utf-8")
    stale = tmp_path / "README.md"
    stale.write_text(readme.replace(" [--explain]", ""), encoding="utf-8")
    monkeypatch.setattr(readme_cli, "README", stale)
    assert readme_cli.main(["--check"]) == 1
    assert readme_cli.main([]) == 0  # rewrites it
    assert stale.read_text(encoding="utf-8") == readme
