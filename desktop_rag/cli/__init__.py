"""The `desktop-rag` command line: a stable contract over the same services as the window.

`parser` holds the contract (commands, options, exit codes), `render` what is printed, and the
commands call the services: `indexing` (index, watch, remove, status) and `asking` (search,
ask, documents, outline, collection). `main` runs one.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO

from desktop_rag.cli.asking import (
    cmd_ask,
    cmd_collection,
    cmd_documents,
    cmd_outline,
    cmd_search,
)
from desktop_rag.cli.indexing import cmd_index, cmd_remove, cmd_status, cmd_watch, recover
from desktop_rag.cli.parser import EXIT_FAILED, EXIT_OK, EXIT_USAGE, build_parser
from desktop_rag.cli.render import ProgressPrinter, ask_json
from desktop_rag.errors import DesktopRagError, UsageError, user_message

if TYPE_CHECKING:
    from desktop_rag.app import App

__all__ = [
    "COMMANDS",
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_USAGE",
    "ProgressPrinter",
    "ask_json",
    "build_parser",
    "main",
    "run_core",
]

COMMANDS: dict[str, Callable[[App, argparse.Namespace, TextIO, TextIO], int]] = {
    "index": cmd_index,
    "watch": cmd_watch,
    "search": cmd_search,
    "ask": cmd_ask,
    "status": cmd_status,
    "remove": cmd_remove,
    "outline": cmd_outline,
    "documents": cmd_documents,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    for name, default in (("data_dir", None), ("json", False), ("verbose", False)):
        if not hasattr(args, name):
            setattr(args, name, default)
    if args.data_dir:
        from desktop_rag.config import is_remote

        os.environ["DESKTOP_RAG_DATA_DIR"] = (
            args.data_dir  # a team library's URI, kept as given
            if is_remote(args.data_dir)
            else os.path.abspath(os.path.expanduser(args.data_dir))
        )

    from desktop_rag.infra import logs, memory

    logs.setup(verbose=args.verbose)
    memory.return_large_blocks()  # freed batches and tables leave the indexer (issue 45)
    if args.command is None:
        from desktop_rag.gui.main import main as open_window

        return open_window()
    if args.command == "collection":
        try:
            return cmd_collection(args, sys.stdout, sys.stderr)
        except UsageError as exc:
            print(f"desktop-rag: {user_message(exc)}", file=sys.stderr)
            return EXIT_USAGE
    return run_core(args, COMMANDS[args.command], sys.stdout, sys.stderr)


def run_core(
    args: argparse.Namespace,
    command: Callable[[App, argparse.Namespace, TextIO, TextIO], int],
    out: TextIO,
    err: TextIO,
    app_factory: Callable[[], App] | None = None,
) -> int:
    """Build the app, run one command, and turn any error into a message and an exit code."""
    from desktop_rag.app import build_app
    from desktop_rag.config import Settings

    try:
        settings = Settings.load()
        settings.data_dir = ""  # the environment (set from --data-dir) decides
        model = getattr(args, "model", None)
        if model:
            from desktop_rag.engines.llm import check_model_file

            # A bad file is reported before anything else is loaded.
            settings.model_path = str(check_model_file(os.path.abspath(model)))
        app = (
            app_factory()
            if app_factory
            else build_app(settings, verbose=bool(getattr(args, "verbose", False)))
        )
        if command is not cmd_index:
            recover(app, err)
        else:
            for notice in app.notices:
                if app.stale is None:
                    print(f"desktop-rag: {notice}", file=err)
        return command(app, args, out, err)
    except UsageError as exc:
        print(f"desktop-rag: {user_message(exc)}", file=err)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("desktop-rag: interrupted; what was finished is kept.", file=err)
        return 130
    except DesktopRagError as exc:
        print(f"desktop-rag: {user_message(exc)}", file=err)
        return EXIT_FAILED
    except Exception as exc:  # the last line of defence: a message, not a traceback
        import logging

        logging.getLogger(__name__).debug("unexpected error", exc_info=True)
        print(f"desktop-rag: {user_message(exc)}", file=err)
        return EXIT_FAILED
