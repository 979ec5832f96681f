"""The command line's contract (desktop_rag/cli/parser.py): each command's options parse as the
README's generated reference says, and the exit codes stay apart."""

from __future__ import annotations

import pytest

from desktop_rag.cli import parser


def test_the_exit_codes_are_three_and_apart() -> None:
    assert (parser.EXIT_OK, parser.EXIT_FAILED, parser.EXIT_USAGE) == (0, 1, 2)


def test_options_are_taken_before_or_after_the_command() -> None:
    before = parser.build_parser().parse_args(["--json", "status"])
    after = parser.build_parser().parse_args(["status", "--json"])
    assert before.json and after.json and before.command == after.command == "status"


def test_ask_takes_its_kind_scope_team_and_answers() -> None:
    args = parser.build_parser().parse_args(
        [
            *("ask", "Which documents mention boilers?", "--kind", "library"),
            *("--in", "a.pdf", "--team", "none", "--answers", "composed"),
        ]
    )
    assert (args.kind, args.scope, args.team, args.answers) == (
        "library",
        ["a.pdf"],
        "none",
        "composed",
    )


def test_an_unknown_kind_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as raised:
        parser.build_parser().parse_args(["ask", "x", "--kind", "poem"])
    assert raised.value.code == parser.EXIT_USAGE
