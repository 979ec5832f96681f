"""A team library searched beside the personal one: each question searches both, their passages
are merged and each says which library it came from; the team's is read-only here, every wait
on it bounded, and when it cannot be reached the personal library answers with one notice.

build_app attaches the settings' team library; `ask`/`search --team` attach another, the
window's settings re-attach when they change: one `attach` for all; nothing here imports Qt.
The team library opens on first use, from whichever thread searches (the window's answer
lane), never from the front end's thread.
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
from desktop_rag.types import AnswerEvent, Chunk, DocumentRecord, Hit, SourcesEvent

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from desktop_rag.engines.embed import Embedder
    from desktop_rag.engines.rerank import Reranker
    from desktop_rag.store.lance import LanceStore
    from desktop_rag.store.schema import IndexMeta

log = logging.getLogger(__name__)

TEAM = "Team"  # Hit.library / Source.library of the team's passages, shown before the name
# A search waits this much longer for the team's passages than its slowest read may take:
# the reads are bounded themselves; this only covers the threads handing the answer back.
SLACK_S = 1.0


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
    """This desktop's Retriever, searching the team library beside it when one is attached
    (`team`; in a worker thread, bounded by the team's read deadline) and merging their
    passages. build_app makes the app's retriever one of these; `attach` sets its team."""

    def __init__(
        self, store: LanceStore, embedder: Embedder, reranker: Reranker | None = None
    ) -> None:
        super().__init__(store, embedder, reranker=reranker)
        self.team: TeamSearch | None = None
        # Set by `asking` while a question is answered: its searches are part of it.
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
    """The Store (store/base.py) of the libraries a BothRetriever searches: what the answer
    service reads of "the library" (its size, how often a word occurs, whether a passage
    holds a word) is summed over this desktop's and the team's, when one is attached, so a
    question whose words only the team's documents hold is answered; the other reads are of
    this desktop's store. It follows the retriever: a rebuilt index or another team library
    is read at once, with nothing to re-attach."""

    def __init__(self, retriever: BothRetriever) -> None:
        self.retriever = retriever

    @property
    def personal(self) -> LanceStore:
        return self.retriever.store

    def _team(self, name: str, *args: Any) -> Any:
        team = self.retriever.team
        return None if team is None else team.call(name, *args)

    def count_chunks(self, where: str | None = None) -> int:
        theirs = self._team("count_chunks", where)
        return int(self.personal.count_chunks(where)) + int(theirs or 0)

    def term_frequency(self, term: str, cap: int) -> int:
        theirs = self._team("term_frequency", term, cap)
        return min(cap, int(self.personal.term_frequency(term, cap)) + int(theirs or 0))

    def mentions(self, words: str, fuzziness: int = 0) -> bool:
        return bool(self.personal.mentions(words, fuzziness)) or bool(
            self._team("mentions", words, fuzziness)
        )

    def chunks_holding(self, term: str, chunk_ids: Sequence[str]) -> set[str]:
        theirs = self._team("chunks_holding", term, chunk_ids)
        return set(self.personal.chunks_holding(term, chunk_ids)) | set(theirs or ())

    # This desktop's alone: its documents, pages and searches (the retriever searches both).

    def documents(self) -> list[DocumentRecord]:
        return self.personal.documents()

    def chunk_rows(self, doc_id: str) -> list[dict[str, Any]]:
        return self.personal.chunk_rows(doc_id)

    def vector_search(
        self,
        vector: NDArray[np.float32],
        k: int,
        *,
        exact: bool = False,
        where: str | None = None,
    ) -> list[Hit]:
        return self.personal.vector_search(vector, k, exact=exact, where=where)

    def text_search(self, query: str, k: int, where: str | None = None) -> list[Hit]:
        return self.personal.text_search(query, k, where)

    def text_search_vectors(
        self, query: str, k: int, where: str | None = None
    ) -> tuple[list[Hit], NDArray[np.float32]]:
        return self.personal.text_search_vectors(query, k, where)

    def page_text(self, path: str, page: int) -> str:
        return self.personal.page_text(path, page)

    def page_boxes(self, path: str, page: int) -> list[str]:
        return self.personal.page_boxes(path, page)

    def sections(self) -> list[tuple[str, str]]:
        return self.personal.sections()

    def count_pending(self) -> int:
        return self.personal.count_pending()

    def pending_chunks(self, limit: int) -> list[Chunk]:
        return self.personal.pending_chunks(limit)

    def chunk_counts(self) -> dict[str, int]:
        return self.personal.chunk_counts()

    def has_fts_index(self) -> bool:
        return self.personal.has_fts_index()

    def has_section_index(self) -> bool:
        return self.personal.has_section_index()

    def stats(self) -> dict[str, Any]:
        return self.personal.stats()


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


class Searching(Protocol):
    """What `attach` works on: an app's retriever, and its index's metadata, which a team
    library must match (desktop_rag.app.App has both)."""

    @property
    def retriever(self) -> BothRetriever: ...

    @property
    def meta(self) -> IndexMeta: ...


def attach(app: Searching, settings: Settings, uri: str | None = None) -> TeamSearch | None:
    """Search the team library of the settings (or `uri`) beside the app's own from now on,
    or, without one, the app's own library alone again: the app's retriever (a BothRetriever,
    which the answer service reads through) gets the team. Cheap: nothing is opened until a
    question needs it. Raises StoreError for an address that is no team library's."""
    config = TeamConfig.of(settings, uri)
    retriever = app.retriever
    retriever.team = None if config is None else TeamSearch(config, app.meta, retriever)
    return retriever.team
