"""The team library searched beside the personal one (desktop_rag/team.py), for real against
moto on loopback: both searched, their passages merged and marked, the team's never written
from a desktop, and an unreachable team library costing one bounded wait and one notice."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from desktop_rag import team
from desktop_rag.app import App, build_app
from desktop_rag.config import Settings
from desktop_rag.errors import ReadOnlyError
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.query.kind import PASSAGE
from desktop_rag.routing import Questions
from desktop_rag.types import DoneEvent, SourcesEvent
from tests.fakes import FakeLlm, HashEmbedder, WordTokenizer
from tests.helpers.cli import run_in_process
from tests.helpers.s3 import Moto, proxy
from tests.helpers.team import NOTICE, OCTOPUS, URI, keys_in, personal_app, team_app

UNREACHABLE = (
    "The team library at s3://team/library cannot be reached; your personal library still answers"
)
BOUND_S = 10.0


@pytest.fixture
def team_library(moto: Moto, animal_pdfs: Path) -> Moto:
    """The team's library on the bucket: the animal PDFs, indexed by the team's writer."""
    assert team_app().index([str(animal_pdfs)]).indexed == 3
    return moto


def ask(app: App, question: str) -> tuple[SourcesEvent, DoneEvent]:
    events = list(Questions(app).ask(question, kind=PASSAGE))
    sources = next(e for e in events if isinstance(e, SourcesEvent))
    done = events[-1]
    assert isinstance(done, DoneEvent)
    return sources, done


def test_both_libraries_are_searched_and_each_passage_says_which(
    team_library: Moto, tmp_path: Path
) -> None:
    app = personal_app(tmp_path)
    assert app.retriever.search(OCTOPUS, 3)[0].path.endswith("contract.pdf")  # alone: its own
    team.attach(app, app.settings, URI)

    hits = app.retriever.search(OCTOPUS, 3)
    assert hits[0].path.endswith("octopus.pdf") and hits[0].library == team.TEAM
    mine = app.retriever.search(NOTICE, 3)
    assert mine[0].path.endswith("contract.pdf") and mine[0].library == ""
    assert {h.library for h in app.retriever.search("three", 6)} == {"", team.TEAM}

    sources, done = ask(app, OCTOPUS)
    assert not done.refused and not sources.notice
    first = sources.sources[0]
    assert first.library == team.TEAM and first.path.endswith("octopus.pdf")
    assert team.source_name(first.path, first.library) == "Team: octopus.pdf"


def test_a_desktop_with_only_the_team_library_is_answered_from_it(
    team_library: Moto, tmp_path: Path
) -> None:
    app = personal_app(tmp_path, with_contract=False)
    team.attach(app, app.settings, URI)
    sources, done = ask(app, OCTOPUS)
    assert not done.refused
    assert sources.sources and all(s.library == team.TEAM for s in sources.sources)


def test_the_desktop_never_writes_the_team_library(team_library: Moto, tmp_path: Path) -> None:
    before = sorted(keys_in(team_library, ""))
    app = personal_app(tmp_path)
    searched = team.attach(app, app.settings, URI)
    assert searched is not None
    ask(app, OCTOPUS)
    app.index([str(tmp_path / "mine")])  # indexing goes to the personal library only
    store = searched.store()
    assert store is not None and store.read_only
    with pytest.raises(ReadOnlyError, match="read-only"):
        store.commit([], [], None, remove_doc_ids=["x"])
    assert sorted(keys_in(team_library, "")) == before  # not even a probe object


def test_a_team_library_not_there_yet_is_not_created_by_a_desktop(
    moto: Moto, tmp_path: Path
) -> None:
    app = personal_app(tmp_path)
    team.attach(app, app.settings, "s3://team/nothing-yet")
    sources, done = ask(app, NOTICE)
    assert "no team library at s3://team/nothing-yet yet" in sources.notice
    assert sources.sources[0].path.endswith("contract.pdf") and not done.refused
    assert keys_in(moto, "") == []


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["down", "hang"])
def test_an_unreachable_team_library_leaves_the_personal_one_answering(
    team_library: Moto, tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop_rag.store import remote

    monkeypatch.setattr(remote, "FRESHNESS_S", 0.0)  # every read asks the store
    app = personal_app(tmp_path)
    with proxy(team_library.endpoint) as p:
        team_library.use(endpoint=p.endpoint)
        searched = team.attach(app, app.settings, URI)
        assert searched is not None
        assert ask(app, OCTOPUS)[0].sources[0].library == team.TEAM  # open and answering

        if kind == "down":
            p.down()
        else:
            p.mode = "hang"
        t0 = time.monotonic()
        sources, done = ask(app, NOTICE)
        took = time.monotonic() - t0
        print(f"ask with the team library {kind}: {took:.2f} s")
        assert took < BOUND_S
        assert sources.notice.count(UNREACHABLE) == 1
        assert sources.sources[0].path.endswith("contract.pdf") and not done.refused
        t0 = time.monotonic()
        hits = app.retriever.search(NOTICE, 3)  # a search of its own: tried, bounded again
        assert time.monotonic() - t0 < BOUND_S
        assert hits[0].path.endswith("contract.pdf")

        if kind == "down":
            p.up()
        else:
            p.mode = "pass"
        sources, _ = ask(app, OCTOPUS)  # the next question after the store returns
        assert not sources.notice and sources.sources[0].library == team.TEAM


def test_search_and_ask_take_the_team_on_the_command_line(
    team_library: Moto, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app = personal_app(tmp_path)
    code, out, err = run_in_process(app, ["search", OCTOPUS, "--team", URI, "--json"], capsys)
    assert code == 0, err
    hits = json.loads(out)["hits"]
    assert hits[0]["library"] == "team" and hits[0]["path"].endswith("octopus.pdf")
    assert any("library" not in h for h in hits)  # this desktop's passages as before

    code, out, err = run_in_process(app, ["ask", OCTOPUS, "--team", URI], capsys)
    assert code == 0, err
    assert "Team: " in out and "octopus.pdf" in out

    # The settings' team library is the default; `--team none` leaves it out.
    app.settings.team_library = URI
    code, out, _ = run_in_process(app, ["search", OCTOPUS, "--json"], capsys)
    assert json.loads(out)["hits"][0].get("library") == "team"
    code, out, _ = run_in_process(app, ["search", OCTOPUS, "--team", "none", "--json"], capsys)
    assert all("library" not in h for h in json.loads(out)["hits"])


@pytest.mark.slow
def test_the_read_deadline_is_a_setting(
    team_library: Moto, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store slower than the default deadline allows can be given longer (or a quicker
    notice shorter): with 1 s, a hung team library costs a question about 1 s, not 4."""
    from desktop_rag.store import remote

    monkeypatch.setattr(remote, "FRESHNESS_S", 0.0)  # every read asks the store
    app = personal_app(tmp_path)
    app.settings.team_read_deadline_s = 1.0
    app.settings.team_open_deadline_s = 2.0
    with proxy(team_library.endpoint) as p:
        team_library.use(endpoint=p.endpoint)
        searched = team.attach(app, app.settings, URI)
        assert searched is not None
        ask(app, OCTOPUS)
        store = searched.store()
        assert store is not None
        assert (store.query_deadline_s, store.open_deadline_s) == (1.0, 2.0)
        p.mode = "hang"
        t0 = time.monotonic()
        sources, _ = ask(app, NOTICE)
        took = time.monotonic() - t0
        print(f"ask, team hung, read deadline 1 s: {took:.2f} s")
        assert UNREACHABLE in sources.notice
        assert took < remote.QUERY_DEADLINE_S
        p.mode = "pass"

    # The same settings reach a library opened with --data-dir s3://…
    team_library.use()
    opened = build_app(
        Settings(data_dir=URI, team_read_deadline_s=1.5, team_open_deadline_s=2.5),
        embedder=HashEmbedder(),
        tokenizer=WordTokenizer,
        params=ChunkParams(sections=0),
        isolate=False,
        llm=FakeLlm(),
    )
    assert (opened.store.query_deadline_s, opened.store.open_deadline_s) == (1.5, 2.5)  # type: ignore[attr-defined]


def test_a_rebuilt_personal_index_is_still_searched_beside_the_team(
    team_library: Moto, tmp_path: Path
) -> None:
    from desktop_rag.library_service import LibraryService

    app = personal_app(tmp_path)
    app.settings.team_library = URI
    service = LibraryService(app.settings, app=app, save_settings=False)
    service.rebuild([str(tmp_path / "mine")])
    assert isinstance(app.answer.store, team.BothStores)
    assert app.answer.store.personal is app.store  # the rebuilt index, not the old one
    assert service.questions is not None
    asked = service.questions.ask(NOTICE, kind=PASSAGE)
    sources = next(e for e in asked if isinstance(e, SourcesEvent))
    assert sources.sources[0].path.endswith("contract.pdf") and not sources.notice


def test_a_name_only_the_team_library_mentions_is_mentioned(
    team_library: Moto, tmp_path: Path
) -> None:
    """The answer's check for names no passage mentions (query/unmentioned.py) asks both
    libraries: "hemocyanin" is only in the team's octopus pages, "tenancy" only in mine."""
    app = personal_app(tmp_path)
    assert not app.answer.store.mentions("hemocyanin")
    team.attach(app, app.settings, URI)
    store = app.answer.store
    assert isinstance(store, team.BothStores)
    assert store.mentions("hemocyanin") and store.mentions("tenancy")
    assert not store.mentions("snowflake", 1)
