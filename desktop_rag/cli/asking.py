"""The commands that ask the library: search, ask, documents, outline, and the collections a
question may be limited to; questions go through routing.Questions, as the window's do."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from desktop_rag.cli.indexing import library_of
from desktop_rag.cli.parser import EXIT_FAILED, EXIT_OK
from desktop_rag.cli.render import ProgressPrinter, ask_json, hit_json, print_hits
from desktop_rag.errors import UsageError
from desktop_rag.ingest.control import RunControl
from desktop_rag.locations import place
from desktop_rag.types import (
    AnswerMode,
    DoneEvent,
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


def scope_of(app: App, args: argparse.Namespace, err: TextIO) -> Scope | None:
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


def cmd_search(app: App, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from desktop_rag.query.retrieve import Mode

    if args.k <= 0:
        raise UsageError("-k must be a positive number.")
    scope = scope_of(app, args, err)
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
                rows = [hit_json(h, args.explain) for h in hits]
                out.write(json.dumps({"hits": rows}) + "\n")
                out.flush()
            else:
                print(f"» {query}", file=out)
                print_hits(hits, out, args.explain)
        return EXIT_OK
    hits = app.retriever.search(args.query, args.k, mode, scope)
    _team_notice(app, err)
    if args.json:
        json.dump({"hits": [hit_json(h, args.explain) for h in hits]}, out)
        out.write("\n")
    else:
        print_hits(hits, out, args.explain)
    return EXIT_OK


def cmd_ask(app: App, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """One question, or with `-` one per line from stdin as one conversation: each line is a
    follow-up of the ones before, as in the window."""
    if args.k is not None and args.k <= 0:
        raise UsageError("-k must be a positive number.")
    args.scope = scope_of(app, args, err)
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
    library_of(app).use_team(uri=getattr(args, "team", None))


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


def cmd_documents(app: App, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from desktop_rag.query.listing import (
        Fields,
        by_fields,
        find_documents,
        rank_documents,
        record_json,
    )

    if args.k <= 0:
        raise UsageError("-k must be a positive number.")
    scope = scope_of(app, args, err)
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


def cmd_collection(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
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


def cmd_outline(app: App, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from desktop_rag.outline_service import outline_service

    service = outline_service(app)
    path = os.path.abspath(os.path.expanduser(args.file))
    if not os.path.isfile(path):
        raise UsageError(f"{args.file} is not a file.")
    try:
        service.document(path)
    except UsageError:
        printer = ProgressPrinter(err)
        try:
            report = library_of(app).index([path], RunControl(on_progress=printer))
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
