"""The `desktop-rag` command line: a stable contract over the same services as the window."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import textwrap
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from desktop_rag import __version__
from desktop_rag.errors import DesktopRagError, UsageError, user_message
from desktop_rag.ingest.control import RunControl
from desktop_rag.locations import place
from desktop_rag.types import (
    AnswerMode,
    DoneEvent,
    Hit,
    IndexReport,
    Progress,
    Quote,
    QuotesEvent,
    Source,
    SourcesEvent,
    TokenEvent,
    Turn,
)

if TYPE_CHECKING:
    from desktop_rag.app import App
    from desktop_rag.query.scope import Scope

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


# -- output helpers ----------------------------------------------------------------------------


class ProgressPrinter:
    """Progress on stderr: a bar on a terminal (tqdm draws, fits and clears it), and plain
    lines, one per file, anywhere else, since a log or a pipe cannot take a redrawn line.
    The time left is the pipeline's estimate (by bytes), not tqdm's rate of files."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self._last_file = ""
        self._bar: Any = None

    def __call__(self, p: Progress) -> None:
        if self.tty:
            self._draw(p)
        elif p.current and p.current != self._last_file:
            self._last_file = p.current
            print(
                f"[{p.files_done + 1}/{p.files_total}] {p.current} "
                f"(pages {p.pages_done}, chunks {p.chunks_done}, ETA {p.eta_text})",
                file=self.stream,
                flush=True,
            )
        elif p.stage == "ocr" and p.message:
            print(f"  {os.path.basename(p.current)}: {p.message}", file=self.stream, flush=True)
        elif p.message and not p.current:
            print(p.message, file=self.stream, flush=True)

    def _draw(self, p: Progress) -> None:
        if self._bar is None:
            from tqdm import tqdm

            # Follow the terminal's size as it is resized; a terminal that reports none (some
            # embedded ones) gets a fixed one, as tqdm would otherwise draw nothing there.
            known = _columns(self.stream) > 0
            self._bar = tqdm(
                file=self.stream,
                bar_format="{desc}",
                leave=False,
                dynamic_ncols=known,
                ncols=None if known else 100,
                nrows=None if known else 20,
                mininterval=0,
            )
        bar = self._bar
        if p.files_total:
            text = f"{p.pages_done} pages · {p.chunks_done} chunks · ETA {p.eta_text}"
            name = os.path.basename(p.current)
            if name:
                text += f" · {name}"
            if p.stage == "ocr" and p.message:
                text += f": {p.message}"
            elif p.stage == "vectors" and p.message:
                text += f" · {p.message}"
            bar.bar_format = "{bar:24} {n_fmt}/{total_fmt} files · {desc}"
            bar.total = p.files_total
            bar.n = min(p.files_done, p.files_total)
        else:
            text = p.message or p.stage
            bar.bar_format = "{desc}"
        bar.set_description_str(text, refresh=False)
        bar.refresh()

    def finish(self) -> None:
        if self._bar is not None:
            self._bar.close()  # leave=False: the line is cleared
            self._bar = None


def _columns(stream: TextIO) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError):
        return 0


def _hit_json(hit: Hit, explain: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "path": hit.path,
        "page": hit.page,
        "section": hit.section,
        "score": round(hit.score, 6),
        "text": hit.text,
        **({"library": hit.library.lower()} if hit.library else {}),  # a team library's
    }
    if explain and hit.why is not None:
        out["explain"] = hit.why.to_json()
    return out


def _print_hits(hits: Sequence[Hit], out: TextIO, explain: bool = False) -> None:
    if not hits:
        print("No passages found.", file=out)
        return
    width = min(shutil.get_terminal_size((100, 20)).columns, 100)
    for n, hit in enumerate(hits, start=1):
        where = place(hit.path, hit.page, hit.section)
        name = f"{hit.library}: {hit.path}" if hit.library else hit.path
        print(f"[{n}] {name}, {where}  (score {hit.score:.4f})", file=out)
        if explain and hit.why is not None:
            print(f"    {hit.why.describe()}", file=out)
        text = " ".join(hit.text.split())
        if len(text) > 400:
            text = text[:400].rsplit(" ", 1)[0] + " …"
        print(textwrap.indent(textwrap.fill(text, width - 4), "    "), file=out)


# -- commands ----------------------------------------------------------------------------------


def _cmd_index(app: App, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    printer = ProgressPrinter(err)
    try:
        if args.rebuild or app.stale is not None:
            if not args.rebuild:
                assert app.stale is not None
                minutes = app.rebuild_estimate_s() / 60
                raise UsageError(
                    f"{app.stale} A rebuild should take about {max(1, round(minutes))} minute(s)."
                )
            report = app.rebuild(args.paths, on_progress=printer)
        else:
            if args.ocr:
                app.ingest.ocr_requested.update(args.paths)
                if any(os.path.isfile(p) and not p.lower().endswith(".pdf") for p in args.paths):
                    raise UsageError("--ocr reads PDFs only; name the PDF files to read.")
            paths = [*args.paths, *_pending_roots(app)]
            if args.engine == "ray":
                report = _ray_service(app, args).index(paths, RunControl(on_progress=printer))
            else:
                report = app.index(paths, RunControl(on_progress=printer))
    finally:
        printer.finish()
    _print_report(report, args, out)
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


def _print_report(report: IndexReport, args: argparse.Namespace, out: TextIO) -> None:
    if args.json:
        json.dump(report.to_json(), out)
        out.write("\n")
        out.flush()
        return
    parts = [f"{report.indexed} indexed", f"{report.unchanged} unchanged"]
    if report.renamed:
        parts.append(f"{report.renamed} renamed")
    parts.append(f"{report.removed} removed")
    parts.append(f"{len(report.failed)} failed")
    print(
        f"{', '.join(parts)}; {report.pages} pages, {report.chunks} chunks "
        f"in {report.seconds:.1f} s",
        file=out,
        flush=True,
    )
    for f in report.failed:
        print(f"  failed: {f.path}: {f.reason}", file=out, flush=True)


def _cmd_watch(app: App, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Index, then reconcile whatever changes, until Ctrl+C or SIGTERM; `--json` prints one
    index report per line, one line per pass. The window's library service does the work."""
    import contextlib
    import signal
    import threading

    from desktop_rag.infra import processes
    from desktop_rag.infra.paths import normalize
    from desktop_rag.library_service import LibraryService

    roots = [normalize(p) for p in args.paths]
    missing = [r for r in roots if not os.path.exists(r)]
    if missing:
        raise UsageError(f"Not found: {', '.join(missing)}. Check the path and try again.")
    library = LibraryService(app.settings, app=app, save_settings=False)
    stop = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stop.set()

    def unwatched(root: str, why: str, polled: bool) -> None:
        if polled:
            print(f"desktop-rag: {root} {why}.", file=err)
        else:
            print(f"desktop-rag: {root} {why}; it is indexed but not watched.", file=err)

    def reported(report: IndexReport) -> None:
        _print_report(report, args, out)
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


def _pending_roots(app: App) -> list[str]:
    """After the index was reset (it was damaged), everything indexed before comes back."""
    return app.roots() if app.needs_reindex else []


def _recover(app: App, err: TextIO) -> None:
    """Tell the user what happened to the index, and rebuild a reset one before going on."""
    for notice in app.notices:
        print(f"desktop-rag: {notice}", file=err)
    if app.needs_reindex and app.roots():
        printer = ProgressPrinter(err)
        try:
            app.index(app.roots(), RunControl(on_progress=printer))
        finally:
            printer.finish()


def _scope(app: App, args: argparse.Namespace, err: TextIO) -> Scope | None:
    """The scope of `--in` and `--collection`, said on stderr; None for the whole library."""
    from desktop_rag.query.scope import resolve

    scope = resolve(args.scope, args.collection, app.settings.collections)
    if scope.whole_library:
        if args.collection:
            raise UsageError(f"The collection {args.collection!r} holds no folders or files.")
        return None
    where = scope.where()
    if app.store.count_chunks(where) == 0:
        print(
            f"desktop-rag: nothing indexed is in {', '.join(scope.paths)}; index it first "
            "(`desktop-rag index PATH`).",
            file=err,
            flush=True,
        )
    elif not args.json:
        print(f"desktop-rag: looking only in {scope.label()}.", file=err, flush=True)
    return scope


def _cmd_search(app: App, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from desktop_rag.query.retrieve import Mode

    if args.k <= 0:
        raise UsageError("-k must be a positive number.")
    scope = _scope(app, args, err)
    _attach_team(app, args)
    mode = Mode(args.mode)
    if app.retriever.text_only:
        from desktop_rag.query.prompt import WORDS_ONLY

        print(f"desktop-rag: {WORDS_ONLY}", file=err, flush=True)
    if args.query == "-":
        for line in sys.stdin:
            query = line.strip()
            hits = app.retriever.search(query, args.k, mode, scope) if query else []
            _team_notice(app, err)
            if args.json:
                rows = [_hit_json(h, args.explain) for h in hits]
                out.write(json.dumps({"hits": rows}) + "\n")
                out.flush()
            else:
                print(f"» {query}", file=out)
                _print_hits(hits, out, args.explain)
        return EXIT_OK
    hits = app.retriever.search(args.query, args.k, mode, scope)
    _team_notice(app, err)
    if args.json:
        json.dump({"hits": [_hit_json(h, args.explain) for h in hits]}, out)
        out.write("\n")
    else:
        _print_hits(hits, out, args.explain)
    return EXIT_OK


def _cmd_ask(app: App, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """One question, or with `-` one per line from stdin as one conversation: each line is a
    follow-up of the ones before, as in the window."""
    if args.k is not None and args.k <= 0:
        raise UsageError("-k must be a positive number.")
    args.scope = _scope(app, args, err)
    _attach_team(app, args)
    _choose_mode(app, args, err)
    if args.question != "-":
        _ask_one(app, args.question, (), args, out, err)
        return EXIT_OK
    history: list[Turn] = []
    for line in sys.stdin:
        question = line.strip()
        if not question:
            continue
        if not args.json:
            print(f"» {question}", file=out, flush=True)
        done = _ask_one(app, question, history, args, out, err)
        if done.answer and not done.cancelled:
            history.append(Turn(question, done.answer))
        if not args.json:
            print(file=out, flush=True)
    return EXIT_OK


def _attach_team(app: App, args: argparse.Namespace) -> None:
    """Search the team library of --team (or of the settings) beside this one (docs/team.md)."""
    from desktop_rag import team

    team.attach(app, app.settings, getattr(args, "team", None))


def _team_notice(app: App, err: TextIO) -> None:
    """Why the last search has no passage of the team library, if it has none for that."""
    team = getattr(app.retriever, "team", None)
    if team is not None and team.failed:
        print(f"desktop-rag: {team.failed}", file=err, flush=True)


def _choose_mode(app: App, args: argparse.Namespace, err: TextIO) -> None:
    """The answer mode asked for, or the model's measured one (measured now, once per model,
    when the user brought a model not measured yet)."""
    service = app.answer
    if args.answers != "auto":
        service.mode = args.answers
        return
    if service.verdict() is None and getattr(service.llm, "chosen_file", None) is not None:
        print(
            f"desktop-rag: measuring whether {service.llm.name} writes answers true to their "
            "sources (once per model)…",
            file=err,
            flush=True,
        )

        def progress(done: int, total: int) -> None:
            print(f"desktop-rag: question {done} of {total}", file=err, flush=True)

        service.decide(on_progress=progress)
    if not args.json:
        from desktop_rag.query.ability import figures

        found = service.verdict()
        tried = f" (tried: {figures(found)})" if found is not None else ""
        print(f"desktop-rag: {service.describe_mode()}{tried}.", file=err, flush=True)


def ask_json(
    done: DoneEvent, sources: Sequence[Source], quotes: Sequence[Quote], notice: str = ""
) -> dict[str, Any]:
    """The object `ask --json` prints for one answer (the contract in DESIGN.md's command
    line): the answer, its sources and quotes, what it cites and how it was checked."""
    from desktop_rag.query.figures import unsupported_note

    t = done.timings
    return {
        "answer": done.answer,
        "sources": [
            {
                "n": s.n,
                "path": s.path,
                "page": s.page,
                "section": s.section,
                "score": round(s.score, 6),
                "text": s.text,
                # a listed document's passages that match (a library question's list)
                **({"matches": s.matches} if s.matches else {}),
                **({"library": s.library.lower()} if s.library else {}),  # a team library's
            }
            for s in sources
        ],
        "quotes": [
            {
                "n": q.n,
                "path": q.path,
                "page": q.page,
                "text": q.text,
                "score": round(q.score, 4),
            }
            for q in quotes
        ],
        "cited": list(done.cited),
        "mode": done.mode,
        "answerable": None if done.answerable is None else round(done.answerable, 4),
        "refused": done.refused,
        "unsupported": list(done.unsupported),
        "check": unsupported_note(done.unsupported) if done.unsupported and not done.note else "",
        **({"notice": notice} if notice else {}),
        # a written answer replaced by the sources' sentences: why, and what it said
        **({"note": done.note, "withheld": done.withheld} if done.note else {}),
        # cited to the source holding its words: what the model had cited
        **({"recited_from": list(done.recited_from)} if done.recited_from else {}),
        "timings": {
            "retrieval_ms": round(t.retrieval_ms, 1),
            "ttft_s": round(t.ttft_s, 3),
            "tokens_per_s": round(t.tokens_per_s, 2),
            "total_s": round(t.total_s, 3),
        },
    }


def _ask_one(
    app: App,
    question: str,
    history: Sequence[Turn],
    args: argparse.Namespace,
    out: TextIO,
    err: TextIO,
) -> DoneEvent:
    """Sources and quotes first, then the answer as it streams; or one JSON line at the end."""
    from desktop_rag.query.claims import recited_note
    from desktop_rag.query.figures import unsupported_note

    sources: tuple[Source, ...] = ()
    quotes: tuple[Quote, ...] = ()
    done: DoneEvent | None = None
    notice = ""
    answering = False
    from desktop_rag import routing

    questions = routing.Questions(app)
    scope = getattr(args, "scope", None)
    routed = questions.decide(question, scope, getattr(args, "kind", routing.AUTO))
    if routed.notice and not args.json:
        print(f"desktop-rag: {routed.notice}", file=err, flush=True)
    if routed.label and not args.json:
        print(f"desktop-rag: {routed.label} ({routed.route.rule}).", file=err, flush=True)
    events = questions.ask(question, history, scope, routed=routed, k=args.k)
    for event in events:
        if isinstance(event, SourcesEvent):
            sources, notice = event.sources, event.notice
            if notice and not args.json:
                print(f"desktop-rag: {notice}", file=err, flush=True)
            if sources and not args.json:
                print("Sources:", file=out)
                for s in sources:
                    name = f"{s.library}: {s.path}" if s.library else s.path
                    print(f"[{s.n}] {name}, {place(s.path, s.page, s.section)}", file=out)
                out.flush()
        elif isinstance(event, QuotesEvent):
            if answering:  # a written answer replaced by these: printed with the note
                quotes = event.quotes
                continue
            quotes = event.quotes
            # A composed answer, an outline or a list is made of these sentences: they are
            # shown apart only above an answer the model writes.
            if quotes and not args.json and questions.mode_of(routed) == AnswerMode.WRITTEN:
                print("\nIn the sources' own words:", file=out)
                by_n = {s.n: s for s in sources}
                for q in quotes:
                    section = by_n[q.n].section if q.n in by_n else ""
                    print(f"[{q.n}] {place(q.path, q.page, section)}: “{q.text}”", file=out)
                out.flush()
            if sources and not args.json:
                print("\nAnswer:", file=out, flush=True)
        elif isinstance(event, TokenEvent):
            answering = True
            if not args.json:
                out.write(event.text)
                out.flush()
        elif isinstance(event, DoneEvent):
            done = event
    assert done is not None  # ask always ends with a DoneEvent
    if args.json:
        json.dump(ask_json(done, sources, quotes, notice), out)
        out.write("\n")
        out.flush()
        return done
    out.write("\n")
    if done.note:
        print(f"\n{done.note}\n{done.answer}", file=out)
    elif done.withheld:
        # What streamed was the model's; none of it is in its sources, so it is taken back.
        print(f"\n(That answer is not in its sources.) {done.answer}", file=out)
    if done.recited_from and done.cited:
        print(f"\n{recited_note(done.cited[0], done.recited_from)}", file=out)
    if done.unsupported and not done.note:
        print(f"\n{unsupported_note(done.unsupported)}", file=out)
    out.flush()
    return done


def _cmd_status(app: App, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    stats = app.store.stats()
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


def _cmd_documents(app: App, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from desktop_rag.query.listing import (
        Fields,
        by_fields,
        find_documents,
        rank_documents,
        record_json,
    )

    if args.k <= 0:
        raise UsageError("-k must be a positive number.")
    scope = _scope(app, args, err)
    fields = Fields(args.year, args.format)
    if not args.query.strip() or args.count:
        # Listing and counting read the documents table: no search, no model.
        records = by_fields(app.store.documents(), fields, scope)
        if args.query.strip():
            ranked = rank_documents(app.retriever, args.query, len(records) or 1, scope)
            keep = {d.path for d in ranked}
            records = [r for r in records if r.path in keep]
        if args.json:
            body: dict[str, Any] = {"count": len(records)}
            if not args.count:
                body["documents"] = [record_json(r) for r in records]
            json.dump(body, out)
            out.write("\n")
        elif args.count:
            print(len(records), file=out)
        else:
            for r in records:
                print(r.path, file=out)
        return EXIT_OK
    found = find_documents(app.retriever, app.store.documents(), args.query, args.k, fields, scope)
    if args.json:
        json.dump({"documents": [d.to_json() for d in found]}, out)
        out.write("\n")
        return EXIT_OK
    if not found:
        print("No documents found.", file=out)
    for n, d in enumerate(found, start=1):
        passages = f"{d.matches} matching passage{'s' * (d.matches != 1)}"
        print(
            f"[{n}] {d.path}  ({passages}; best: {place(d.path, d.page, d.section)}, "
            f"score {d.score:.4f})",
            file=out,
        )
    return EXIT_OK


def _cmd_collection(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Collections live in the settings file: no index or model is opened to change them."""
    from desktop_rag.config import Settings
    from desktop_rag.infra.paths import normalize

    settings = Settings.load()
    collections = settings.collections
    if args.action == "list":
        if args.json:
            json.dump({"collections": collections}, out)
            out.write("\n")
        elif not collections:
            print("No collections yet: `desktop-rag collection add NAME PATH...`.", file=out)
        else:
            for name, paths in sorted(collections.items()):
                print(f"{name}: {', '.join(paths) or '(empty)'}", file=out)
        return EXIT_OK
    if not args.name:
        raise UsageError(f"`collection {args.action}` needs a NAME.")
    paths = [normalize(p) for p in args.paths]
    if args.action == "add":
        if not paths:
            raise UsageError("`collection add NAME PATH...` needs at least one PATH.")
        have = collections.setdefault(args.name, [])
        have.extend(p for p in paths if p not in have)
    elif args.name not in collections:
        raise UsageError(f"There is no collection named {args.name!r}.")
    elif paths:
        collections[args.name] = [p for p in collections[args.name] if p not in paths]
    else:
        del collections[args.name]
    settings.save()
    if args.json:
        json.dump({"collections": collections}, out)
        out.write("\n")
    elif args.name in collections:
        print(f"{args.name}: {', '.join(collections[args.name]) or '(empty)'}", file=out)
    else:
        print(f"Removed the collection {args.name!r} (no file touched).", file=out)
    return EXIT_OK


def _cmd_remove(app: App, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
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


def _cmd_outline(app: App, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from desktop_rag.outlines import outline_service

    service = outline_service(app)
    path = os.path.abspath(os.path.expanduser(args.file))
    if not os.path.isfile(path):
        raise UsageError(f"{args.file} is not a file.")
    try:
        service.document(path)
    except UsageError:
        printer = ProgressPrinter(err)
        try:
            report = app.index([path], RunControl(on_progress=printer))
        finally:
            printer.finish()
        for failed in report.failed:
            print(f"desktop-rag: {failed.path}: {failed.reason}", file=err)
        if report.failed:
            return EXIT_FAILED
        service.store = app.store
    shown = -1

    def show(p: Progress) -> None:  # a line per tenth: an outline has up to hundreds of steps
        nonlocal shown
        tenth = p.files_done * 10 // max(p.files_total, 1)
        if tenth != shown:
            shown = tenth
            print(
                f"outline: {p.files_done}/{p.files_total} sections, ETA {p.eta_text}",
                file=err,
                flush=True,
            )

    outline = service.outline(path, on_progress=show)
    if args.json:
        json.dump(outline.to_json(), out)
        out.write("\n")
    else:
        out.write(outline.text())
    return EXIT_OK


_COMMANDS: dict[str, Callable[[App, argparse.Namespace, TextIO, TextIO], int]] = {
    "index": _cmd_index,
    "watch": _cmd_watch,
    "search": _cmd_search,
    "ask": _cmd_ask,
    "status": _cmd_status,
    "remove": _cmd_remove,
    "outline": _cmd_outline,
    "documents": _cmd_documents,
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
            return _cmd_collection(args, sys.stdout, sys.stderr)
        except UsageError as exc:
            print(f"desktop-rag: {user_message(exc)}", file=sys.stderr)
            return EXIT_USAGE
    return run_core(args, _COMMANDS[args.command], sys.stdout, sys.stderr)


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
        if command is not _cmd_index:
            _recover(app, err)
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
