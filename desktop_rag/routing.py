"""A question sent where its kind is answered (query/kind.py): passages to the answer service,
a document question to that document's outline, a library question to a list of documents.

All three come back as an answer's events, so a front end shows them alike; the DoneEvent's
`mode` says which ("listing", "outline", or the answer service's own). A document question
needs its document: the one file in scope, or a file of the library named in the question;
without one it is answered from passages, and `Routed.notice` says how to name it.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from desktop_rag.query.kind import DOCUMENT, KINDS, LIBRARY, PASSAGE, Route, route
from desktop_rag.query.listing import Fields, by_fields, find_documents
from desktop_rag.query.quote import content_words
from desktop_rag.query.scope import Scope
from desktop_rag.types import (
    AnswerEvent,
    AnswerMode,
    DoneEvent,
    QuotesEvent,
    Source,
    SourcesEvent,
    Timings,
    TokenEvent,
    Turn,
)

if TYPE_CHECKING:
    from desktop_rag.app import App

LISTED = 10  # documents a library question lists
AUTO = "auto"
# Words of a library question that ask for the list, not what the documents are about.
_ASKING_TEXT = """
    which what documents document docs doc files file pdfs pdf papers paper reports report
    articles article manuals manual mention mentions mentioned discuss discusses talk talks
    about list show find search count number total many do does did have has any anything
    there library folder collection mine cover covers contain contains refer refers relate
    relates cite cites appear appears anywhere word"""
_ASKING = frozenset(_ASKING_TEXT.split())
_YEAR = re.compile(r"\b(?:from|in|of|during|dated) ((?:19|20)\d\d)\b", re.I)
_FORMATS = {
    "pdf": "pdf", "pdfs": "pdf", "word": "docx", "docx": "docx", "epub": "epub",
    "epubs": "epub", "html": "html", "markdown": "md", "spreadsheets": "xlsx",
}  # fmt: skip
_FORMAT = re.compile(r"\b(" + "|".join(_FORMATS) + r")\b", re.I)
_COUNTS = re.compile(r"\bhow many\b|^(?:count|number of|total number of)\b", re.I)


@dataclass(frozen=True)
class Routed:
    """Where a question went and why; `notice` when it could not go where its kind says."""

    route: Route
    document: str = ""
    notice: str = ""

    @property
    def label(self) -> str:
        """What the answer says it is: "Listing documents", "Outline of report.pdf"."""
        if self.route.kind == LIBRARY:
            return "Listing documents"
        if self.route.kind == DOCUMENT and self.document:
            return f"Outline of {os.path.basename(self.document)}"
        return ""

    @property
    def line(self) -> str:
        """What the window says of the kind and why: "Listing documents (asks which
        documents)", "Answering from passages (as you chose)"."""
        why = "as you chose" if self.route.rule == CHOSEN else self.route.rule
        if self.notice:  # a document question with no document to outline
            why = "it asks about one document but names none"
        said = self.label or "Answering from passages"
        return f"{said} ({why})" if why else said


CHOSEN = "asked for"  # the rule of a kind the user chose (ask --kind, the window's Answer as)


def decide(app: App, question: str, scope: Scope | None, kind: str = AUTO) -> Routed:
    """The kind (the user's `kind` if given, else the rules), and a document question's file."""
    if kind not in (AUTO, *KINDS):
        raise ValueError(f"unknown kind of question: {kind}")
    chosen = route(question) if kind == AUTO else Route(kind, CHOSEN)
    if chosen.kind != DOCUMENT:
        return Routed(chosen)
    path = target_document(app, question, scope)
    if path:
        return Routed(chosen, path)
    return Routed(
        Route(PASSAGE),
        notice=(
            "This asks about one document: name its file in the question or limit the "
            "question to it (--in FILE, or 'Ask about these' in the window); "
            "answering from passages meanwhile."
        ),
    )


def mode_of(app: App, routed: Routed) -> str:
    """The mode the answer to a routed question will say it has (its DoneEvent's): known
    before it streams, so a front end knows whether its quotes are the answer itself."""
    if routed.route.kind == LIBRARY:
        return AnswerMode.LISTING
    written = app.answer.answer_mode()
    if routed.route.kind == DOCUMENT and routed.document:
        return AnswerMode.SUMMARY if written == AnswerMode.WRITTEN else AnswerMode.OUTLINE
    return written


def target_document(app: App, question: str, scope: Scope | None) -> str:
    """The one indexed file in scope, or the one whose name the question holds; "" if none."""
    indexed = by_fields(app.store.documents(), Fields(), scope)
    if scope is not None and not scope.whole_library and len(indexed) == 1:
        return indexed[0].path
    lowered = question.lower()
    named = [r.path for r in indexed if os.path.basename(r.path).lower() in lowered]
    if len(named) == 1:
        return named[0]
    return ""


def subject(question: str) -> str:
    """What a library question asks the documents to be about ("" for "list my documents")."""
    text = _YEAR.sub(" ", question)
    return " ".join(w for w in content_words(text) if w.lower() not in _ASKING)


def in_own_words(question: str, about: str) -> str:
    """The subject as the question says it ("volcanoes", not the search's "volcanoe")."""
    wanted = set(about.split())
    words = re.findall(r"[\w'-]+", _YEAR.sub(" ", question))
    said = [w for w in words if any(c in wanted for c in content_words(w))]
    return " ".join(said) or about


def fields_of(question: str) -> Fields:
    year = _YEAR.search(question)
    fmt = _FORMAT.search(question)
    return Fields(
        year=int(year.group(1)) if year else None,
        format=_FORMATS[fmt.group(1).lower()] if fmt else "",
    )


def listing_events(app: App, question: str, scope: Scope | None) -> list[AnswerEvent]:
    """A library question answered from the documents: those matching its subject ranked by
    their best passages (each a numbered source at its best passage, with its count of
    matching passages), or, with no subject, the documents whose fields match; "how many"
    leads with the count."""
    about = subject(question)
    fields = fields_of(question)
    records = by_fields(app.store.documents(), fields, scope)
    sources: list[Source] = []
    lines: list[str] = []
    if about and records:
        found = find_documents(
            app.retriever, records, about, max(LISTED, len(records)), fields, scope
        )
        total = len(found)
        for n, d in enumerate(found[:LISTED], 1):
            passages = "passage" if d.matches == 1 else "passages"
            lines.append(f"{n}. {os.path.basename(d.path)}, {d.matches} matching {passages} [{n}]")
            sources.append(
                Source(
                    n=n,
                    path=d.path,
                    page=d.page,
                    score=d.score,
                    text=d.text,
                    start=d.start,
                    end=d.end,
                    section=d.section,
                    matches=d.matches,
                )
            )
        verbs = "mentions or discusses" if total == 1 else "mention or discuss"
        head = f"{total} {_documents(total)} {verbs} “{in_own_words(question, about)}”"
    else:
        total = len(records)
        for n, r in enumerate(records[:LISTED], 1):
            pages = "page" if r.pages == 1 else "pages"
            lines.append(f"{n}. {os.path.basename(r.path)}, {r.pages} {pages} [{n}]")
            sources.append(Source(n=n, path=r.path, page=1, score=0.0, text=""))
        head = f"{total} {_documents(total)}"
        if fields.any:
            what = " ".join(x for x in (fields.format.upper(), _year(fields.year)) if x)
            head += f" ({what})"
    lines.insert(0, head + ("." if not sources else ":"))
    if total > len(sources):
        lines.append(f"…and {total - len(sources)} more (desktop-rag documents -k N lists them).")
    if _COUNTS.search(question) is None and not sources:
        where = "" if scope is None or scope.whole_library else f" in {scope.label()}"
        what = f" “{in_own_words(question, about)}”" if about else ""
        lines = [f"No document{where} matches{what}."]
    answer = "\n".join(lines)
    return [
        SourcesEvent(tuple(sources)),
        QuotesEvent(()),
        TokenEvent(answer),
        DoneEvent(
            answer=answer,
            cited=tuple(s.n for s in sources),
            timings=Timings(),
            mode=AnswerMode.LISTING,
            refused=total == 0,
        ),
    ]


def _documents(n: int) -> str:
    return "document" if n == 1 else "documents"


def _year(year: int | None) -> str:
    return f"from {year}" if year is not None else ""


class Answerer(Protocol):
    """What answers a passage question (query/answer.py's AnswerService; the events are in
    desktop_rag.types)."""

    def ask(
        self,
        question: str,
        history: Sequence[Turn] = (),
        k: int | None = None,
        cancel: threading.Event | None = None,
        scope: Scope | None = None,
    ) -> Iterator[AnswerEvent]: ...

    def warm_up(self) -> None: ...


class Questions:
    """Every question a front end asks, asked one way: `decide` its kind, then `ask` sends it
    where that kind is answered (a list of documents, a document's outline, or the answer
    service), with the team library searched beside this desktop's when one is attached
    (desktop_rag/team.py), and `cancel` stopping any of the three.

    The window (LibraryService.questions) and the CLI each make one over build_app's app; the
    window's passage questions go to another answer service only when a test gives one.
    """

    def __init__(self, app: App, answers: Answerer | None = None) -> None:
        self.app = app
        self.answers: Answerer = app.answer if answers is None else answers

    def decide(self, question: str, scope: Scope | None = None, kind: str = AUTO) -> Routed:
        """Where the question goes: its kind (`kind` if the user chose one, else the rules'),
        and a document question's file."""
        return decide(self.app, question, scope, kind)

    def mode_of(self, routed: Routed) -> str:
        """The mode its answer will say it has (mode_of)."""
        return mode_of(self.app, routed)

    def ask(
        self,
        question: str,
        history: Sequence[Turn] = (),
        scope: Scope | None = None,
        kind: str = AUTO,
        cancel: threading.Event | None = None,
        *,
        routed: Routed | None = None,
        k: int | None = None,
    ) -> Iterator[AnswerEvent]:
        """The answer's events (`routed`: as `decide` already said; else decided now)."""
        from desktop_rag.team import asking

        where = self.decide(question, scope, kind) if routed is None else routed
        return asking(
            self.app.retriever,
            lambda: self._events(question, tuple(history), where, scope, cancel, k),
        )

    def _events(
        self,
        question: str,
        history: tuple[Turn, ...],
        routed: Routed,
        scope: Scope | None,
        cancel: threading.Event | None,
        k: int | None,
    ) -> Iterator[AnswerEvent]:
        app = self.app
        if routed.route.kind == LIBRARY:
            yield from listing_events(app, question, scope)
            return
        if routed.route.kind == DOCUMENT and routed.document:
            from desktop_rag.outline_service import document_answer

            yield from document_answer(app, routed.document, cancel)
            return
        yield from self.answers.ask(question, history, k=k, cancel=cancel, scope=scope)
