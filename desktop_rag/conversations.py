"""Conversations kept across restarts: one JSON file each, written atomically."""

from __future__ import annotations

import json
import logging
import os
import time
import uuid
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from desktop_rag.query.scope import Scope
from desktop_rag.types import (
    AnswerEvent,
    DoneEvent,
    Explanation,
    Quote,
    QuotesEvent,
    Source,
    SourcesEvent,
    TokenEvent,
    Turn,
)

log = logging.getLogger(__name__)

TITLE_CHARS = 60


@dataclass(frozen=True, slots=True)
class Version:
    """One answer to an exchange, with what is shown beside it: the model's written answer or
    the one composed from the sources' own sentences (query/compose.py). An exchange keeps
    the one not shown, so that the reader can switch between them without computing again."""

    answer: str
    mode: str  # "written" or "composed"
    cited: tuple[int, ...] = ()
    quotes: tuple[Quote, ...] = ()
    note: str = ""
    unsupported: tuple[str, ...] = ()
    recited_from: tuple[int, ...] = ()


@dataclass(slots=True)
class Exchange:
    """One question, the sources shown for it and the answer (partial if it was stopped)."""

    question: str
    answer: str = ""
    sources: list[Source] = field(default_factory=list)
    cited: list[int] = field(default_factory=list)
    asked_at: float = field(default_factory=time.time)
    refused: bool = False  # the answer says the documents do not say
    stopped: bool = False
    error: str = ""
    unsupported: list[str] = field(default_factory=list)  # figures not in the sources
    quotes: list[Quote] = field(default_factory=list)  # the sources' own words, shown first
    # What the model cited when the answer was cited to the source holding its words instead.
    recited_from: list[int] = field(default_factory=list)
    # Who wrote the answer ("composed" from the sources' sentences, or "written" by the
    # model; "" for a refusal or an answer saved before modes), and why a written one was
    # replaced by the sources' sentences.
    mode: str = ""
    note: str = ""
    model: str = ""
    # The kind it was answered as (query/kind.py: passage, document, library; "" if saved
    # before kinds) and what the window says of it ("Listing documents (asks which documents)").
    kind: str = ""
    routed: str = ""
    # The answer not shown, when the reader asked for it: the composed one beside a written
    # one (empty when none of the sources' sentences answers), or the written one while the
    # composed one is shown. None until asked for.
    other: Version | None = None

    @property
    def complete(self) -> bool:
        return bool(self.answer) and not self.stopped and not self.error

    @property
    def version(self) -> Version:
        """The answer shown, with what goes with it."""
        return Version(
            self.answer,
            self.mode,
            tuple(self.cited),
            tuple(self.quotes),
            self.note,
            tuple(self.unsupported),
            tuple(self.recited_from),
        )

    def take_other(self, other: Version) -> bool:
        """Keep the other answer and show it, this one kept in its place; an empty one (no
        sentence answers) is only kept, so that it is not looked for again. True if shown."""
        self.other = other
        return self.swap()

    def swap(self) -> bool:
        """Show the other answer, if there is one with words, keeping this one in its place."""
        other = self.other
        if other is None or not other.answer:
            return False
        self.other = self.version
        self.answer, self.mode, self.note = other.answer, other.mode, other.note
        self.cited, self.quotes = list(other.cited), list(other.quotes)
        self.unsupported, self.recited_from = list(other.unsupported), list(other.recited_from)
        return True

    def apply(self, event: AnswerEvent) -> None:
        """Take in the next event of the answer being written: its sources, their quotes, a
        piece of it, its end (the whole answer, what it cites, whether it was stopped)."""
        if isinstance(event, SourcesEvent):
            self.sources = list(event.sources)
        elif isinstance(event, QuotesEvent):
            self.quotes = list(event.quotes)
        elif isinstance(event, TokenEvent):
            self.answer += event.text
        elif isinstance(event, DoneEvent):
            self.answer = event.answer or self.answer  # a stopped answer keeps what streamed
            self.cited = list(event.cited)
            self.refused = event.refused
            self.stopped = event.cancelled
            self.unsupported = list(event.unsupported)
            self.recited_from = list(event.recited_from)
            self.mode = "" if event.refused else event.mode
            self.note = event.note
            self.model = event.model

    def fail(self, message: str) -> None:
        """The answer could not be finished; what streamed before stays."""
        self.error = message or "The answer could not be written."

    def source(self, n: int) -> Source | None:
        return next((s for s in self.sources if s.n == n), None)


@dataclass(slots=True)
class Conversation:
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:16])
    title: str = ""
    created: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)
    exchanges: list[Exchange] = field(default_factory=list)
    # What its questions are answered from (chosen documents, folders, a collection); the
    # whole library when empty. Changing it applies from the next question on.
    scope: Scope = field(default_factory=Scope)

    def snapshot(self) -> Conversation:
        """A copy to save from another thread while this one goes on changing. Sources are
        frozen and strings immutable, so only the lists are copied (deepcopy of a long
        conversation is slow enough to stall the window)."""
        return replace(
            self,
            exchanges=[
                replace(
                    e,
                    sources=list(e.sources),
                    cited=list(e.cited),
                    unsupported=list(e.unsupported),
                    recited_from=list(e.recited_from),
                )
                for e in self.exchanges
            ],
        )

    def history(self) -> list[Turn]:
        """The finished exchanges, for follow-up questions."""
        return [Turn(e.question, e.answer) for e in self.exchanges if e.complete]

    def add(self, question: str) -> Exchange:
        exchange = Exchange(question)
        self.exchanges.append(exchange)
        if not self.title:
            self.title = title_for(question)
        self.updated = time.time()
        return exchange


@dataclass(slots=True)
class AnswerInProgress:
    """The answer being written: its exchange, in its conversation."""

    conversation: Conversation
    exchange: Exchange


class ChatState:
    """The window's conversations as decisions, without Qt: which one is shown, which answer
    is being written and in which conversation, and which conversations were deleted.

    A deleted conversation is never saved again, not even by its answer finishing after the
    delete, nor by the window closing mid-answer.
    """

    def __init__(self) -> None:
        self.current: Conversation | None = None  # shown; None: a new one, not yet asked in
        self.in_progress: AnswerInProgress | None = None
        self._deleted: set[str] = set()
        self.pending_scope = Scope()  # the scope of the new conversation, before its question

    @property
    def scope(self) -> Scope:
        """The scope of the conversation shown (or of the new one about to start)."""
        return self.current.scope if self.current is not None else self.pending_scope

    def set_scope(self, scope: Scope) -> Conversation | None:
        """Limit the conversation shown to a scope from its next question on; the
        conversation to save, if it is one already asked in."""
        if self.current is None:
            self.pending_scope = scope
            return None
        self.current.scope = scope
        return self.keep(self.current)

    @property
    def exchange(self) -> Exchange | None:
        """The exchange whose answer is being written, if any."""
        return self.in_progress.exchange if self.in_progress is not None else None

    @property
    def shown(self) -> bool:
        """The answer being written is in the conversation shown."""
        return self.in_progress is not None and self.in_progress.conversation is self.current

    def ask(self, question: str) -> list[Turn] | None:
        """Start an exchange in the conversation shown (a new one if none is), and return the
        history it follows; None while another answer is being written."""
        if self.in_progress is not None:
            return None
        conv = self.current or Conversation(scope=self.pending_scope)
        self.current = conv
        history = conv.history()
        self.in_progress = AnswerInProgress(conv, conv.add(question))
        return history

    def finish(self) -> Conversation | None:
        """The answer ended (finished, stopped or failed): the conversation to save, if any."""
        done, self.in_progress = self.in_progress, None
        return self.keep(done.conversation) if done is not None else None

    def at_close(self) -> Conversation | None:
        """The window closes: the conversation of an answer still being written, to save its
        partial answer, if it was not deleted."""
        return self.keep(self.in_progress.conversation) if self.in_progress is not None else None

    def keep(self, conv: Conversation) -> Conversation | None:
        return None if conv.id in self._deleted else conv

    def delete(self, conv_id: str) -> bool:
        """Forget a conversation; True if the answer being written is in it (stop it)."""
        self._deleted.add(conv_id)
        return self.in_progress is not None and self.in_progress.conversation.id == conv_id


def title_for(question: str) -> str:
    text = " ".join(question.split())
    if len(text) <= TITLE_CHARS:
        return text
    return text[:TITLE_CHARS].rsplit(" ", 1)[0] + "…"


def _to_json(conv: Conversation) -> dict[str, Any]:
    raw = asdict(conv)
    raw["scope"] = conv.scope.to_json()
    return raw


def _source(raw: dict[str, Any]) -> Source:
    """A saved source; how retrieval ranked it comes back as an Explanation (None if not saved)."""
    why = raw.get("why")
    fields = {k: v for k, v in raw.items() if k != "why"}
    if isinstance(why, dict) and "fused" in why:  # saved before the score was named blended
        why = {("blended" if k == "fused" else k): v for k, v in why.items()}
    return Source(**fields, why=Explanation(**why) if isinstance(why, dict) else None)


def _from_json(raw: dict[str, Any]) -> Conversation:
    exchanges = []
    for e in raw.get("exchanges", []):
        sources = [_source(s) for s in e.get("sources", [])]
        exchanges.append(
            Exchange(
                question=str(e["question"]),
                answer=str(e.get("answer", "")),
                sources=sources,
                cited=[int(n) for n in e.get("cited", [])],
                asked_at=float(e.get("asked_at", 0.0)),
                refused=_refused(e),
                stopped=bool(e.get("stopped", False)),
                error=str(e.get("error", "")),
                unsupported=[str(n) for n in e.get("unsupported", [])],
                quotes=[Quote(**q) for q in e.get("quotes", [])],
                recited_from=[int(n) for n in e.get("recited_from", [])],
                mode=str(e.get("mode", "")),
                note=str(e.get("note", "")),
                model=str(e.get("model", "")),
                kind=str(e.get("kind", "")),
                routed=str(e.get("routed", "")),
                other=_version(e.get("other")),
            )
        )
    return Conversation(
        id=str(raw["id"]),
        title=str(raw.get("title", "")),
        created=float(raw.get("created", 0.0)),
        updated=float(raw.get("updated", 0.0)),
        exchanges=exchanges,
        scope=Scope.from_json(raw.get("scope")),
    )


def _version(raw: object) -> Version | None:
    """The other answer kept with an exchange (None in files saved before it was kept)."""
    if not isinstance(raw, dict):
        return None
    return Version(
        answer=str(raw.get("answer", "")),
        mode=str(raw.get("mode", "")),
        cited=tuple(int(n) for n in raw.get("cited", [])),
        quotes=tuple(Quote(**q) for q in raw.get("quotes", [])),
        note=str(raw.get("note", "")),
        unsupported=tuple(str(w) for w in raw.get("unsupported", [])),
        recited_from=tuple(int(n) for n in raw.get("recited_from", [])),
    )


def _refused(raw: dict[str, Any]) -> bool:
    """Saved before the rename, an exchange said `grounded` (False for a refusal)."""
    if "refused" in raw:
        return bool(raw["refused"])
    return not bool(raw.get("grounded", True))


class ConversationStore:
    """A folder of `<id>.json` files; a damaged file is skipped and left for the user."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)

    def _path(self, conv_id: str) -> Path:
        return self.folder / f"{conv_id}.json"

    def load_all(self) -> list[Conversation]:
        """Every conversation, the most recently used first."""
        out = []
        try:
            files = sorted(self.folder.glob("*.json"))
        except OSError:
            return []
        for path in files:
            try:
                out.append(_from_json(json.loads(path.read_text(encoding="utf-8"))))
            except (OSError, ValueError, KeyError, TypeError) as exc:
                log.warning("skipping damaged conversation %s: %s", path, exc)
        out.sort(key=lambda c: c.updated, reverse=True)
        return out

    def save(self, conv: Conversation) -> None:
        """Write atomically: a crash leaves the old file or the new one, never half of one."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self._path(conv.id)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(_to_json(conv), ensure_ascii=False, indent=1), encoding="utf-8")
        os.replace(tmp, path)

    def delete(self, conv_id: str) -> None:
        self._path(conv_id).unlink(missing_ok=True)
