"""The commands that change or report the index: index, watch, remove, status; each asks the
library service (desktop_rag/library_service.py), as the window does."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TextIO

from desktop_rag.cli.parser import EXIT_FAILED, EXIT_OK
from desktop_rag.cli.render import ProgressPrinter, print_report
from desktop_rag.errors import UsageError
from desktop_rag.ingest.control import RunControl
from desktop_rag.types import (
    IndexReport,
)

if TYPE_CHECKING:
    from desktop_rag.app import App
    from desktop_rag.library_service import LibraryService


def library_of(app: App) -> LibraryService:
    """The library service over the app, as the window has it: the command line calls its
    steps and decides none of its own."""
    from desktop_rag.library_service import LibraryService

    return LibraryService(app.settings, app=app, save_settings=False)


def cmd_index(app: App, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    library = library_of(app)
    printer = ProgressPrinter(err)
    try:
        if args.rebuild:
            report = library.rebuild(args.paths, on_progress=printer)
        else:
            ingest = _ray_service(app, args) if args.engine == "ray" else None
            control = RunControl(on_progress=printer)
            report = library.index(args.paths, control, ocr=args.ocr, ingest=ingest)
    finally:
        printer.finish()
    print_report(report, args, out)
    return EXIT_FAILED if report.failed else EXIT_OK


def _ray_service(app: App, args: argparse.Namespace) -> Any:
    """The index run on Ray (ingest/ray_engine.py, imported here only: ray is the team
    extra's), with the app's store, models and limits; each embedder actor one thread."""
    import dataclasses
    import functools

    from desktop_rag.app import default_embedder
    from desktop_rag.ingest.ray_engine import EMBED_THREADS, ray_ingest

    settings = dataclasses.replace(app.settings, n_threads=EMBED_THREADS)
    return ray_ingest(
        app.ingest, functools.partial(default_embedder, settings), address=args.address
    )


def cmd_watch(app: App, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Index, then reconcile whatever changes, until Ctrl+C or SIGTERM; `--json` prints one
    index report per line, one line per pass. The window's library service does the work."""
    import contextlib
    import signal
    import threading

    from desktop_rag.infra import processes
    from desktop_rag.infra.paths import normalize

    roots = [normalize(p) for p in args.paths]
    missing = [r for r in roots if not os.path.exists(r)]
    if missing:
        raise UsageError(f"Not found: {', '.join(missing)}. Check the path and try again.")
    library = library_of(app)
    stop = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stop.set()

    def unwatched(root: str, why: str, polled: bool) -> None:
        if polled:
            print(f"desktop-rag: {root} {why}.", file=err)
        else:
            print(f"desktop-rag: {root} {why}; it is indexed but not watched.", file=err)

    def reported(report: IndexReport) -> None:
        print_report(report, args, out)
        if not args.json:
            print("Watching for changes; Ctrl+C stops.", file=err, flush=True)

    @contextlib.contextmanager
    def progress() -> Iterator[ProgressPrinter]:
        printer = ProgressPrinter(err)
        try:
            yield printer
        finally:
            printer.finish()

    previous = {s: signal.signal(s, on_signal) for s in processes.stop_signals()}
    try:
        failed = library.keep_watching(
            roots, stop, reported, on_unwatched=unwatched, progress=progress
        )
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if not args.json:
        print("Stopped watching; everything indexed so far is kept.", file=err)
    return EXIT_FAILED if failed else EXIT_OK


def recover(app: App, err: TextIO) -> None:
    """Tell the user what happened to the index, and fill a reset one again before going on."""
    for notice in app.notices:
        print(f"desktop-rag: {notice}", file=err)
    printer = ProgressPrinter(err)
    try:
        library_of(app).recover(RunControl(on_progress=printer))
    finally:
        printer.finish()


def cmd_status(app: App, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from desktop_rag.library_service import language_notice

    stats = app.store.stats()
    # Beside the other notices (stderr), so `--json` keeps its shape.
    language = library_of(app).language_check()
    if language:
        print(f"desktop-rag: {language_notice(language)}", file=err)
    if args.json:
        json.dump(stats, out)
        out.write("\n")
        return EXIT_OK
    print(
        f"{stats['documents']} documents, {stats['pages']} pages, {stats['chunks']} chunks "
        f"in {app.settings.data_path}",
        file=out,
    )
    if stats.get("pending"):
        print(
            f"{stats['pending']} chunks are found by their words and wait for their vectors: "
            "an indexing run is computing them, or the next one will.",
            file=out,
        )
    failed = stats["failed"]
    if failed:
        print(f"{len(failed)} file(s) could not be indexed:", file=out)
        for f in failed:
            print(f"  {f['path']}: {f['reason']}", file=out)
    excluded = stats["excluded"]
    if excluded:
        print(
            f"{len(excluded)} file(s) removed from the index stay out (index one by its path "
            "to bring it back):",
            file=out,
        )
        for path in excluded:
            print(f"  {path}", file=out)
    return EXIT_OK


def cmd_remove(app: App, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    removed = app.remove(args.paths)
    if args.json:
        json.dump({"removed": removed}, out)
        out.write("\n")
    elif removed:
        print(
            f"Removed {len(removed)} document(s) from the index (files on disk untouched):",
            file=out,
        )
        for path in removed:
            print(f"  {path}", file=out)
    else:
        print("Nothing in the index matches those paths.", file=err)
    return EXIT_OK if removed else EXIT_FAILED
