"""The command line's contract: its commands, options and exit codes (the README's
reference is generated from build_parser by tools/readme_cli.py)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from desktop_rag import __version__

if TYPE_CHECKING:
    pass


EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


def _common() -> argparse.ArgumentParser:
    """Options accepted before or after the command name."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--data-dir",
        default=argparse.SUPPRESS,
        metavar="DIR",
        help="where the index lives: a folder, or s3://bucket/path for a team library "
        "(docs/team.md); default: $DESKTOP_RAG_DATA_DIR or the user data dir",
    )
    common.add_argument(
        "--json",
        action="store_true",
        default=argparse.SUPPRESS,
        help="print one JSON document on stdout; progress goes to stderr",
    )
    common.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        default=argparse.SUPPRESS,
        help="log details (and the engines' own messages) to stderr",
    )
    return common


def _scope_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--in",
        dest="scope",
        nargs="+",
        default=[],
        metavar="PATH",
        help="look only in these files and folders (a folder covers files added to it later); "
        "put it after the query or question",
    )
    p.add_argument(
        "--collection",
        default="",
        metavar="NAME",
        help="look only in this saved collection (see `desktop-rag collection`)",
    )


def _team_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--team",
        default=None,
        metavar="URI",
        help="also search this team library, s3://… (default Settings'; none: no)",
    )


def build_parser() -> argparse.ArgumentParser:
    common = _common()
    parser = argparse.ArgumentParser(
        prog="desktop-rag",
        description="Private, offline answers from your own documents. With no command, opens the "
        "window.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"desktop-rag {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("index", parents=[common], help="index files and folders, then exit")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument(
        "--rebuild",
        action="store_true",
        help="rebuild the whole index (after a change of embedder, chunking or format); the "
        "old index keeps answering until the new one is complete",
    )
    p.add_argument(
        "--ocr",
        action="store_true",
        help="read the PDFs named (already indexed) with OCR on every page, as their text "
        "layer is garbage; remembered for those files",
    )
    p.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="ray: read and embed on a Ray cluster (team extra; docs/team.md)",
    )
    p.add_argument(
        "--address",
        default=None,
        metavar="ADDR",
        help="the Ray cluster to join (host:port); default: Ray on this machine",
    )

    p = sub.add_parser(
        "watch", parents=[common], help="index, then keep watching for changes (no window)"
    )
    p.add_argument("paths", nargs="+", metavar="PATH")

    p = sub.add_parser("search", parents=[common], help="show the best passages for a query")
    p.add_argument("query", metavar="QUERY", help="the query, or - to read one per line")
    p.add_argument("-k", type=int, default=5, metavar="N", help="passages to show (default 5)")
    p.add_argument(
        "--mode",
        choices=["hybrid", "vector", "text"],
        default="hybrid",
        help="retrieval: hybrid (BM25 and vector scores blended; the default), vectors only, "
        "or BM25 only",
    )
    p.add_argument(
        "--explain",
        action="store_true",
        help="show each passage's BM25 and vector rank and score, its blended score, any "
        "demotion with its reason, and for the first five the score of their best sentence",
    )
    _scope_options(p)
    _team_option(p)

    p = sub.add_parser(
        "ask",
        parents=[common],
        help="stream an answer with numbered sources (file, page or § section)",
    )
    p.add_argument(
        "question",
        metavar="QUESTION",
        help="the question, or - to read one per line from stdin as one conversation",
    )
    p.add_argument(
        "--model",
        metavar="FILE.gguf",
        default=None,
        help="a GGUF model file to answer with (default: the settings' model, else the bundled "
        "Gemma 3 270M)",
    )
    p.add_argument(
        "--answers",
        choices=("auto", "composed", "written"),
        default="auto",
        help="who writes the answer: auto (the model when it is measured able to, else the "
        "sources' own sentences), composed (the sources' own sentences) or written (the model)",
    )
    p.add_argument(
        "-k", type=int, default=None, metavar="N", help="passages to retrieve (default 6)"
    )
    p.add_argument(
        "--kind",
        choices=("auto", "passage", "document", "library"),
        default="auto",
        help="a fact (passage), an outline of the file in --in or named (document), a list "
        "of documents (library); auto: plain rules",
    )
    _scope_options(p)
    _team_option(p)

    p = sub.add_parser(
        "documents",
        parents=[common],
        help="the documents that mention or discuss a subject, best first",
    )
    p.add_argument(
        "query",
        metavar="QUERY",
        nargs="?",
        default="",
        help="what they mention or discuss; none: every document (with the filters below)",
    )
    p.add_argument("-k", type=int, default=10, metavar="N", help="documents to list (default 10)")
    p.add_argument(
        "--from",
        dest="year",
        type=int,
        default=None,
        metavar="YEAR",
        help="only documents of this year (a PDF's own date, else the file's)",
    )
    p.add_argument("--format", default="", metavar="EXT", help="only documents of this format")
    p.add_argument(
        "--count", action="store_true", help="print how many documents match, not the list"
    )
    _scope_options(p)

    p = sub.add_parser(
        "collection", parents=[common], help="named sets of folders and files to ask within"
    )
    p.add_argument("action", choices=("add", "remove", "list"), metavar="add|remove|list")
    p.add_argument("name", nargs="?", default="", metavar="NAME")
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="with add: folders and files to add to it; with remove: to take out of it (none: "
        "remove the collection)",
    )

    sub.add_parser("status", parents=[common], help="documents, chunks and failed files")

    p = sub.add_parser("remove", parents=[common], help="drop files from the index (not disk)")
    p.add_argument("paths", nargs="+", metavar="PATH")

    p = sub.add_parser(
        "outline",
        parents=[common],
        help="a document's headings with their central sentences and pages (no model; "
        "FILE is indexed first if it is not yet)",
    )
    p.add_argument("file", metavar="FILE")
    return parser
