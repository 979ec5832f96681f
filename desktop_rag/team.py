"""A team library searched beside the personal one: each question searches both, their passages
are merged and each says which library it came from; the team's is read-only here, every wait
on it bounded, and when it cannot be reached the personal library answers with one notice.

The window (through LibraryService) and `ask`/`search --team` use the same `attach`; nothing
here imports Qt. The team library opens on first use, from whichever thread searches (the
window's answer lane), never from the front end's thread.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from desktop_rag.config import Settings, is_remote
from desktop_rag.errors import (
    DesktopRagError,
    EmptyLibraryError,
    ReadOnlyError,
    StoreError,
    UnreachableError,
)
from desktop_rag.query.retrieve import Mode, Retriever, distinct_pages_first
from desktop_rag.query.scope import Scope
from desktop_rag.store.remote import (
    OPEN_DEADLINE_S,
    QUERY_DEADLINE_S,
    Access,
    Location,
    RemoteStore,
    unreachable_message,
)
from desktop_rag.types import AnswerEvent, Hit, SourcesEvent, Turn

if TYPE_CHECKING:
    from desktop_rag.app import App
    from desktop_rag.store.lance import LanceStore
    from desktop_rag.store.schema import IndexMeta

log = logging.getLogger(__name__)

TEAM = "Team"  # Hit.library / Source.library of the team's passages, shown before the name
# A search waits this much longer for the team's passages than its slowest read may take:
# the reads are bounded themselves; this only covers the threads handing the answer back.
SLACK_S = 1.0


class Answerer(Protocol):
    """An answer service as a front end asks it (library_service.Answerer's shape)."""

    def ask(
        self,
        question: str,
        history: Sequence[Turn] = (),
        k: int | None = None,
        cancel: threading.Event | None = None,
        scope: Scope | None = None,
    ) -> Iterator[AnswerEvent]: ...

    def warm_up(self) -> None: ...


def source_name(path: str, library: str = "") -> str:
    """A source's file name as lists and citations show it: "Team: contract.pdf" for the
    team's, "contract.pdf" for this desktop's."""
    name = os.path.basename(path) or path
    return f"{library}: {name}" if library else name


@dataclass(frozen=True, slots=True)
class TeamConfig:
    """Which team library to search and how to reach it (never its keys)."""

    uri: str
    access: Access = field(default_factory=Access)
    read_deadline_s: float = QUERY_DEADLINE_S
    open_deadline_s: float = OPEN_DEADLINE_S

    @classmethod
    def of(cls, settings: Settings, uri: str | None = None) -> TeamConfig | None:
        """The settings' team library, or `uri` instead (the command line's --team); None
        when there is none ("", or "none" to leave the settings' one out)."""
        chosen = (settings.team_library if uri is None else uri).strip()
        if not chosen or chosen.lower() == "none":
            return None
        if not is_remote(chosen):
            raise StoreError(f"{chosen} is not a team library's address (s3://bucket/path).")
        return cls(
            Location.parse(chosen).uri,
            Access(settings.team_endpoint, settings.team_region, settings.team_profile),
            settings.team_read_deadline_s or QUERY_DEADLINE_S,
            settings.team_open_deadline_s or OPEN_DEADLINE_S,
        )

    @property
    def shown(self) -> str:
        return Location.parse(self.uri).shown


class TeamSearch:
    """The team library as this desktop reads it: opened on first use, read-only, and tried
    at most once per question (`begin` starts a question): after one failure, the rest of the
    question skips it instead of waiting for each deadline again."""

    def __init__(self, config: TeamConfig, meta: IndexMeta, personal: Retriever) -> None:
        self.config = config
        self._meta = meta
        self._personal = personal
        self._store: RemoteStore | None = None
        self._retriever: Retriever | None = None
        self._lock = threading.Lock()
        self.failed = ""  # why the team library did not answer in this question ("" if it did)

    def __repr__(self) -> str:
        return f"TeamSearch({self.config.shown!r})"

    def begin(self) -> None:
        """A new question: the team library is tried again, whatever happened before."""
        self.failed = ""

    @property
    def open(self) -> bool:
        return self._store is not None

    def store(self) -> RemoteStore | None:
        """The team's store, opened now if it is not yet; None when it failed in this
        question (the failure is in `failed`)."""
        if self.failed:
            return None
        with self._lock:
            if self._store is None:
                try:
                    self._store = self._opened()
                except DesktopRagError as exc:
                    self.fail(exc)
                    return None
                self._retriever = self._team_retriever(self._store)
            return self._store

    def _opened(self) -> RemoteStore:
        store = RemoteStore(
            self.config.uri,
            self._meta,
            query_deadline_s=self.config.read_deadline_s,
            open_deadline_s=self.config.open_deadline_s,
            access=self.config.access,
            read_only=True,
        )
        return store.open(verify=False)

    def _team_retriever(self, store: RemoteStore) -> Retriever:
        p = self._personal
        team = Retriever(store, *p.settings())
        team.recent = p.recent  # the question and its sentences are embedded once for both
        return team

    def fail(self, exc: BaseException) -> None:
        """Remember why the team library did not answer; the notice the user reads."""
        shown = self.config.shown
        if isinstance(exc, UnreachableError):
            self.failed = unreachable_message(Location.parse(self.config.uri))
        elif isinstance(exc, ReadOnlyError):  # a read refused: these keys may not even read
            self.failed = (
                f"The team library at {shown} refused this desktop's credentials (see its "
                "profile, or the AWS keys); your personal library still answers."
            )
        elif shown in str(exc):  # says which library and what to do (built differently...)
            self.failed = f"{exc} Your personal library still answers."
        else:
            self.failed = (
                f"The team library at {shown} could not be searched ({exc}); your personal "
                "library still answers."
            )
        log.warning("team library %s: %s", self.config.shown, type(exc).__name__)

    def search(self, query: str, k: int, mode: Mode | None, scope: Scope | None) -> list[Hit]:
        """The team's k best passages, marked as the team's; [] when it does not answer."""
        if self.store() is None or self._retriever is None:
            return []
        try:
            hits = self._retriever.search(query, k, mode=mode, scope=scope)
        except DesktopRagError as exc:
            self.fail(exc)
            return []
        return [replace(h, library=TEAM) for h in hits]

    def call(self, name: str, *args: Any) -> Any:
        """A read of the team's store (counts, term frequencies), or None when it did not
        answer; never opens a store that failed in this question."""
        store = self.store()
        if store is None:
            return None
        try:
            return getattr(store, name)(*args)
        except DesktopRagError as exc:
            self.fail(exc)
            return None


def merge(mine: Sequence[Hit], theirs: Sequence[Hit], k: int) -> list[Hit]:
    """Both libraries' passages in one list of k. Each list's scores are its own blend (BM25
    over its best, cosine over its candidates' range), both on [0, 1], so the lists interleave
    by score; a passage both hold (the same chunk id: the same file indexed in both) is shown
    once, as this desktop's, which the viewer can open."""
    seen = {h.chunk_id for h in mine}
    both = [*mine, *(h for h in theirs if h.chunk_id not in seen)]
    both.sort(key=lambda h: (-h.score, -h.similarity, h.library, h.chunk_id))
    return distinct_pages_first(both, k)


class BothRetriever(Retriever):
    """The personal library's Retriever, searching the team's beside it (in a worker thread,
    bounded by the team's read deadline) and merging their passages."""

    def __init__(self, personal: Retriever, team: TeamSearch | None) -> None:
        super().__init__(personal.store, *personal.settings())
        self.personal = personal
        self.recent = personal.recent
        self.text_only = personal.text_only
        self.team = team
        # Set by TeamAnswers while a question is answered: its searches are part of it.
        self.in_question = False
        self._team_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="team-search")

    def search(
        self, query: str, k: int = 5, mode: Mode | None = None, scope: Scope | None = None
    ) -> list[Hit]:
        team = self.team
        if team is None:
            return super().search(query, k, mode, scope)
        if not self.in_question:
            team.begin()  # a search of its own (the command line's) tries the team again
        if team.failed or not query.strip() or k <= 0:
            return super().search(query, k, mode, scope)
        if (mode or self.mode) != Mode.TEXT and not self.text_only:
            self.recent.embed_query(query.strip())  # once, before both searches need it
        future = self._team_pool.submit(team.search, query, k, mode, scope)
        mine = super().search(query, k, mode, scope)
        limit = (0.0 if team.open else team.config.open_deadline_s) + team.config.read_deadline_s
        try:
            theirs = future.result(timeout=limit + SLACK_S)
        except TimeoutError as exc:
            team.fail(UnreachableError(str(exc)))
            theirs = []
        return merge(mine, theirs, k)


class BothStores:
    """What the answer service reads of "the library" (its size, how often a word occurs,
    whether a passage holds a word), summed over both libraries; anything else is the
    personal store's. A question whose words only the team's documents hold is answered."""

    def __init__(self, personal: LanceStore, team: TeamSearch) -> None:
        self.personal = personal
        self.team = team

    def __getattr__(self, name: str) -> Any:
        return getattr(self.personal, name)

    def count_chunks(self, *args: Any) -> int:
        theirs = self.team.call("count_chunks", *args)
        return int(self.personal.count_chunks(*args)) + int(theirs or 0)

    def term_frequency(self, term: str, cap: int) -> int:
        theirs = self.team.call("term_frequency", term, cap)
        return min(cap, int(self.personal.term_frequency(term, cap)) + int(theirs or 0))

    def mentions(self, words: str, fuzziness: int = 0) -> bool:
        return bool(self.personal.mentions(words, fuzziness)) or bool(
            self.team.call("mentions", words, fuzziness)
        )

    def chunks_holding(self, term: str, ids: Any) -> set[str]:
        theirs = self.team.call("chunks_holding", term, ids)
        return set(self.personal.chunks_holding(term, ids)) | set(theirs or ())


class TeamAnswers:
    """An answer service whose questions search the team library too: each question tries it
    afresh, and an answer given without it says so in its sources' notice."""

    def __init__(self, inner: Answerer, retriever: BothRetriever) -> None:
        self.inner = inner
        self.retriever = retriever

    def __getattr__(self, name: str) -> Any:  # llm, use_llm, describe_mode...
        return getattr(self.inner, name)

    @property
    def llm(self) -> Any:
        return getattr(self.inner, "llm", None)

    def warm_up(self) -> None:
        self.inner.warm_up()

    def ask(
        self,
        question: str,
        history: Sequence[Turn] = (),
        k: int | None = None,
        cancel: threading.Event | None = None,
        scope: Scope | None = None,
    ) -> Iterator[AnswerEvent]:
        return asking(self.retriever, lambda: self.inner.ask(question, history, k, cancel, scope))


def asking(
    retriever: Retriever, events: Callable[[], Iterator[AnswerEvent]]
) -> Iterator[AnswerEvent]:
    """The events of one question (`events()`, an answer service's or routing's), with the
    team library tried afresh for it and, when it did not answer, the sources' notice saying
    so. Without a team library attached, `events()` as they are."""
    team = retriever.team if isinstance(retriever, BothRetriever) else None
    if team is None:
        yield from events()
        return
    assert isinstance(retriever, BothRetriever)
    team.begin()
    retriever.in_question = True
    try:
        for event in events():
            if isinstance(event, SourcesEvent) and team.failed:
                notice = " ".join(n for n in (team.failed, event.notice) if n)
                event = replace(event, notice=notice)
            yield event
    except EmptyLibraryError as exc:
        # Nothing to answer from but the team's, and it did not answer: say that.
        if team.failed:
            raise UnreachableError(team.failed) from exc
        raise
    finally:
        retriever.in_question = False


def team_settings(settings: Settings) -> tuple[object, ...]:
    """The settings that say which team library to search and how (a change re-attaches)."""
    return (
        settings.team_library,
        settings.team_profile,
        settings.team_endpoint,
        settings.team_region,
        settings.team_read_deadline_s,
        settings.team_open_deadline_s,
    )


def attach(app: App, settings: Settings, uri: str | None = None) -> TeamSearch | None:
    """Search the team library of the settings (or `uri`) beside the app's own from now on:
    the app's retriever and answer service read both. Without one, the app searches its own
    library alone again. Cheap: nothing is opened until a question needs it."""
    config = TeamConfig.of(settings, uri)
    current = getattr(app, "retriever", None)
    if config is None:
        if isinstance(current, BothRetriever):
            current.team = None
            app.answer.store = app.store
        return None
    assert current is not None
    personal = current.personal if isinstance(current, BothRetriever) else current
    team = TeamSearch(config, app.meta, personal)
    if isinstance(current, BothRetriever):
        current.team = team
    else:
        both = BothRetriever(current, team)
        app.retriever = both
        app.answer.retriever = both
    app.answer.store = BothStores(app.store, team)  # type: ignore[assignment]
    return team


def answers(inner: Answerer | None, app: App) -> Answerer | None:
    """The answer service a front end asks: `inner`, searching the team library too when one
    is attached to the app."""
    if inner is None or not isinstance(app.retriever, BothRetriever):
        return inner
    return TeamAnswers(inner, app.retriever)
