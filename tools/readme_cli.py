"""The README's command-line block, generated from the `desktop-rag` argument parser.

python tools/readme_cli.py           rewrite the block between the markers in README.md
python tools/readme_cli.py --check   exit 1 if the block differs from the parser (make test)
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
BEGIN = "<!-- cli: generated from desktop_rag/cli/parser.py by tools/readme_cli.py; do not edit -->"
END = "<!-- cli: end -->"
WIDTH = 100
INDENT = 4  # a command's description and options, under its usage line
COLUMN = 28  # where an option's help starts


def _option(action: argparse.Action) -> str:
    """`--mode {hybrid,vector,text}`, `-k N`, `--rebuild`: an option as it is typed."""
    flag = max(action.option_strings, key=len)
    if action.nargs == 0:
        return flag
    if action.metavar is not None:
        return f"{flag} {action.metavar}"
    if action.choices is not None:
        return f"{flag} {{{','.join(map(str, action.choices))}}}"
    return f"{flag} {action.dest.upper()}"


def _positional(action: argparse.Action) -> str:
    name = str(action.metavar or action.dest)
    return f"{name}..." if action.nargs in ("+", "*") else name


def _own(parser: argparse.ArgumentParser, common: set[str]) -> list[argparse.Action]:
    """A command's own arguments: not help, not the options every command takes."""
    return [
        a
        for a in parser._actions
        if not isinstance(a, argparse._HelpAction) and a.dest not in common
    ]


def _described(term: str, text: str | None) -> list[str]:
    """The term, then its help wrapped in a column beside it (below it, if the term is long)."""
    pad = " " * INDENT
    body = textwrap.wrap(text or "", WIDTH - INDENT - COLUMN)
    if len(term) < COLUMN - 1 and body:
        first = f"{pad}{term.ljust(COLUMN)}{body[0]}"
        return [first, *(pad + " " * COLUMN + line for line in body[1:])]
    return [pad + term, *(pad + " " * COLUMN + line for line in body)]


def render(parser: argparse.ArgumentParser | None = None) -> str:
    """The block: each command's usage, what it does, its own arguments; then the options
    every command takes."""
    if parser is None:
        from desktop_rag.cli import build_parser

        parser = build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    common = {
        a.dest
        for a in parser._actions
        if a.option_strings and not isinstance(a, (argparse._HelpAction, argparse._VersionAction))
    }
    helps = {c.dest: c.help for c in subs._choices_actions}
    lines = [f"{parser.prog}", f"{' ' * INDENT}{parser.description}", ""]
    for name, sub in subs.choices.items():
        own = _own(sub, common)
        usage = [parser.prog, name]
        usage += [f"[{_option(a)}]" for a in own if a.option_strings]
        usage += [_positional(a) for a in own if not a.option_strings]
        lines.append(" ".join(usage))
        # "the query, or - to read one per line": the stdin form gets its own usage line.
        for a in own:
            if not a.option_strings and ", or - to" in (a.help or ""):
                lines.append(" ".join(u if u != _positional(a) else "-" for u in usage))
        lines.append(f"{' ' * INDENT}{helps.get(name, '')}")
        for a in own:
            term = _option(a) if a.option_strings else _positional(a)
            if a.help:
                lines += _described(term, a.help)
        lines.append("")
    lines.append("Every command takes:")
    for a in parser._actions:
        if a.dest in common:
            lines += _described(", ".join(a.option_strings) + _metavar(a), a.help)
    return "\n".join(lines).rstrip() + "\n"


def _metavar(action: argparse.Action) -> str:
    return "" if action.nargs == 0 else f" {action.metavar or action.dest.upper()}"


def _block(text: str) -> str:
    return f"{BEGIN}\n```\n{text}```\n{END}"


def updated(readme: str, text: str) -> str:
    """The README with the block between the markers replaced by `text`."""
    start, end = readme.index(BEGIN), readme.index(END) + len(END)
    return readme[:start] + _block(text) + readme[end:]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if README.md's block is stale")
    args = ap.parse_args(argv)
    readme = README.read_text(encoding="utf-8")
    new = updated(readme, render())
    if new == readme:
        return 0
    if args.check:
        print(
            "README.md's command-line block differs from desktop_rag/cli/parser.py's parser: "
            "run `python tools/readme_cli.py` and commit the result",
            file=sys.stderr,
        )
        return 1
    README.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
