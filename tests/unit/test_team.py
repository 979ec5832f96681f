"""The team library beside the personal one (team.py), its own logic: which library the
settings name, how the two lists of passages merge, the team tried once per question and the
notice when it did not answer, and attaching and detaching it on a real personal app (the team
store on moto's S3 on loopback, tests/helpers/s3.py; searched for real in
tests/integration/team/test_team_both.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag import team
from desktop_rag.config import Settings
from desktop_rag.errors import (
    EmptyLibraryError,
    IndexMismatchError,
    ReadOnlyError,
    StoreError,
    UnreachableError,
)
from desktop_rag.query.kind import PASSAGE
from desktop_rag.routing import Questions
from desktop_rag.store.remote import RemoteStore
from desktop_rag.team import TEAM, TeamConfig, TeamSearch, merge, source_name
from desktop_rag.types import DoneEvent, Hit, SourcesEvent, Timings
from tests.helpers.s3 import Moto, moto, moto_server  # noqa: F401
from tests.helpers.team import NOTICE, URI, personal_app


def _hit(chunk_id: str, score: float, page: int = 1, library: str = "") -> Hit:
    path = f"/docs/{chunk_id.split('-')[0]}.pdf"
    return Hit(chunk_id, chunk_id, path, page, 0, 4, "text", score, library=library)


# -- which team library ---------------------------------------------------------------------------


def test_a_source_says_which_library_it_is_from() -> None:
    assert source_name("/home/me/contract.pdf") == "contract.pdf"
    assert source_name("/team/docs/contract.pdf", TEAM) == "Team: contract.pdf"


def test_the_settings_name_the_team_library_and_how_to_reach_it() -> None:
    settings = Settings(
        team_library="s3://team/library/",
        team_profile="reader",
        team_endpoint="http://minio:9000",
        team_region="eu-west-1",
        team_read_deadline_s=2.0,
    )
    config = TeamConfig.of(settings)
    assert config is not None
    assert config.uri == "s3://team/library" and config.shown == "s3://team/library"
    assert config.access == team.Access("http://minio:9000", "eu-west-1", "reader")
    assert config.read_deadline_s == 2.0
    assert config.open_deadline_s == team.OPEN_DEADLINE_S, "unset: the store's own"


def test_none_or_another_library_instead_of_the_settings_one() -> None:
    settings = Settings(team_library="s3://team/library")
    assert TeamConfig.of(Settings()) is None
    assert TeamConfig.of(settings, "none") is None, "--team none leaves it out"
    other = TeamConfig.of(settings, "s3+ddb://other/lib?ddbTableName=t")
    assert other is not None and other.shown == "s3+ddb://other/lib"
    with pytest.raises(StoreError, match="is not a team library's address"):
        TeamConfig.of(settings, "/home/me/library")


# -- the two lists in one ------------------------------------------------------------------------


def test_the_lists_interleave_by_score_and_a_passage_both_hold_is_this_desktops() -> None:
    mine = [_hit("a-1", 0.9), _hit("shared-1", 0.5, page=2)]
    theirs = [
        _hit("t-1", 0.8, library=TEAM),
        _hit("shared-1", 0.7, page=2, library=TEAM),
        _hit("t-2", 0.1, page=3, library=TEAM),
    ]
    merged = merge(mine, theirs, 3)
    assert [(h.chunk_id, h.library) for h in merged] == [
        ("a-1", ""),
        ("t-1", TEAM),
        ("shared-1", ""),
    ]


def test_each_page_once_before_any_page_twice() -> None:
    mine = [_hit("a-1", 0.9), _hit("a-2", 0.8)]  # the same page of a.pdf
    theirs = [_hit("t-1", 0.3, library=TEAM)]
    assert [h.chunk_id for h in merge(mine, theirs, 2)] == ["a-1", "t-1"]


# -- tried once per question --------------------------------------------------------------------


class Failing(TeamSearch):
    """A team library whose opening fails with `error`, each attempt counted."""

    def __init__(self, error: Exception, config: TeamConfig | None = None) -> None:
        super().__init__(config or TeamConfig(URI), None, None)  # type: ignore[arg-type]
        self.error = error
        self.attempts = 0

    def _opened(self) -> RemoteStore:
        self.attempts += 1
        raise self.error


def test_a_team_library_that_fails_is_tried_once_per_question() -> None:
    search = Failing(UnreachableError("no answer within 4 s"))
    assert search.search("octopus", 5, None, None) == []
    assert search.call("count_chunks") is None
    assert search.search("octopus hearts", 5, None, None) == []
    assert search.attempts == 1, "the rest of the question skips it"
    assert search.failed.startswith("The team library at s3://team/library cannot be reached")
    search.begin()  # the next question
    assert not search.failed
    search.store()
    assert search.attempts == 2


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (ReadOnlyError("403"), "refused this desktop's credentials"),
        (
            IndexMismatchError("The team library at s3://team/library was built differently."),
            "was built differently. Your personal library still answers.",
        ),
        (StoreError("bucket policy"), "could not be searched (bucket policy); your personal"),
    ],
)
def test_the_notice_says_why_the_team_did_not_answer(error: Exception, said: str) -> None:
    search = Failing(error)
    assert search.store() is None
    assert said in search.failed


def test_a_search_that_fails_midway_is_noticed_and_returns_nothing() -> None:
    class Broken:
        def search(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            raise UnreachableError("the team library at s3://team/library cannot be reached")

    search = Failing(RuntimeError("never opened"))
    search._store, search._retriever = object(), Broken()  # type: ignore[assignment]
    assert search.search("octopus", 5, None, None) == []
    assert "cannot be reached" in search.failed


# -- a question's events with the team library ---------------------------------------------------


def test_without_a_team_library_a_questions_events_are_as_they_are(tmp_path: Path) -> None:
    app = personal_app(tmp_path, with_contract=False)
    events = [SourcesEvent((), "a notice"), DoneEvent("x", (), Timings())]
    assert list(team.asking(app.retriever, lambda: iter(events))) == events


def test_the_notice_is_added_to_the_sources_and_an_empty_library_says_why(
    tmp_path: Path,
) -> None:
    app = personal_app(tmp_path, with_contract=False)
    failing = Failing(UnreachableError("no answer"))
    both = app.retriever
    both.team = failing
    events = [SourcesEvent((), "Searching by words only."), DoneEvent("x", (), Timings())]

    def answered():  # type: ignore[no-untyped-def]
        both.search("octopus", 3)  # the question's search: the team fails in it
        yield from events

    out = list(team.asking(both, answered))
    assert isinstance(out[0], SourcesEvent)
    assert out[0].notice.startswith("The team library at s3://team/library cannot be reached")
    assert out[0].notice.endswith("Searching by words only.")
    assert out[1] == events[1] and not both.in_question

    def empty():  # type: ignore[no-untyped-def]
        both.search("octopus", 3)
        raise EmptyLibraryError("Your library is empty")
        yield

    with pytest.raises(UnreachableError, match="cannot be reached"):
        list(team.asking(both, empty))


# -- attached to a real personal app -------------------------------------------------------------


def test_attached_the_personal_library_answers_with_one_notice_and_detached_alone(
    tmp_path: Path,
    moto: Moto,  # noqa: F811
) -> None:
    app = personal_app(tmp_path)  # its contract answers NOTICE; the bucket holds no library
    retriever, store = app.retriever, app.answer.store
    searched = team.attach(app, app.settings, URI)
    assert searched is not None and app.retriever.team is searched
    assert app.retriever is retriever and app.answer.retriever is retriever  # nothing replaced
    assert app.answer.store is store and isinstance(store, team.BothStores)
    events = list(Questions(app).ask(NOTICE, kind=PASSAGE))
    sources = next(e for e in events if isinstance(e, SourcesEvent))
    assert sources.notice.count("no team library at s3://team/library yet") == 1
    assert "Your personal library still answers." in sources.notice
    assert sources.sources[0].path.endswith("contract.pdf") and not sources.sources[0].library

    assert team.attach(app, Settings(), None) is None
    assert app.retriever.team is None and app.retriever is retriever
    sources = next(e for e in app.answer.ask(NOTICE) if isinstance(e, SourcesEvent))
    assert not sources.notice, "alone again: nothing to say of a team library"
