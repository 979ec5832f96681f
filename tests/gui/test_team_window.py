"""The window with a team library beside the personal one (offscreen, pytest-qt, moto on
loopback): Settings edit it, both are searched, each source says its library, and a team
library that hangs leaves the window responsive and the personal library answering."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QTimer

from desktop_rag.config import Settings
from desktop_rag.gui.chat import ChatPane
from desktop_rag.gui.models import SourcesModel
from desktop_rag.gui.settings_dialog import SettingsDialog
from desktop_rag.types import SourcesEvent
from tests.helpers.s3 import Moto, moto, moto_server, proxy  # noqa: F401
from tests.helpers.team import NOTICE, OCTOPUS, URI, team_app
from tests.helpers.window import ask
from tests.pdfgen import make_pdf

UNREACHABLE = "The team library at s3://team/library cannot be reached"


def personal_factory(settings: Settings):  # type: ignore[no-untyped-def]
    """The real store and answer service over a hashing embedder and a fake model."""
    from desktop_rag.app import build_app
    from desktop_rag.ingest.chunk import ChunkParams
    from tests.fakes import FakeLlm, HashEmbedder, WordTokenizer

    app = build_app(
        settings,
        embedder=HashEmbedder(),
        tokenizer=WordTokenizer,
        params=ChunkParams(sections=0),
        isolate=False,
        llm=FakeLlm(),
    )
    app.answer.mode = "composed"
    return app


@pytest.fixture
def team_window(open_window, moto: Moto, animal_pdfs: Path, tmp_path: Path):  # noqa: F811
    """A window whose own library holds a tenancy contract, with the team's animal PDFs on
    the bucket named in its settings."""
    assert team_app().index([str(animal_pdfs)]).indexed == 3
    mine = tmp_path / "mine"
    make_pdf(
        mine / "contract.pdf",
        [
            "Tenancy agreement between the landlord and the tenant of the flat.",
            "The notice period of the tenancy is three months, given in writing.",
        ],
    )
    settings = Settings(folders=[str(mine)], first_run_done=True, team_library=URI)

    def make(endpoint: str | None = None):  # type: ignore[no-untyped-def]
        if endpoint:
            moto.use(endpoint=endpoint)
        window = open_window(personal_factory, None, settings=settings)
        return window

    return make


def test_settings_edit_the_team_library_and_never_take_a_key(qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = SettingsDialog(Settings(), find=lambda: [])
    qtbot.addWidget(dialog)
    dialog.team.uri.setText("s3://team/library/")
    dialog.team.profile.setText("team-reader")
    dialog.team.endpoint.setText("http://nas.office:9000")
    assert dialog.validate() == ""
    chosen = dialog.result_settings()
    assert (chosen.team_library, chosen.team_profile, chosen.team_endpoint) == (
        "s3://team/library",
        "team-reader",
        "http://nas.office:9000",
    )
    assert not [f for f in vars(type(chosen)).get("__slots__", ()) if "secret" in f]
    dialog.team.uri.setText("/srv/shared/library")
    assert "must start with s3://" in dialog.validate()
    dialog.team.uri.setText("s3:///no-bucket")
    assert "is not an object-storage library" in dialog.validate()
    # What Settings shows comes back when the dialog opens again.
    again = SettingsDialog(chosen, find=lambda: [])
    qtbot.addWidget(again)
    assert again.team.uri.text() == "s3://team/library"


def test_sources_and_citations_name_the_team_library(qtbot) -> None:  # type: ignore[no-untyped-def]
    from desktop_rag.conversations import Exchange
    from desktop_rag.types import Source

    sources = (
        Source(1, "/srv/team/octopus.pdf", 1, 0.9, "An octopus has three hearts.", library="Team"),
        Source(2, "/home/me/contract.pdf", 2, 0.5, "The notice period is three months."),
    )
    model = SourcesModel()
    model.set_sources(sources)
    assert model.data(model.index(0)).startswith("[1] Team: octopus.pdf, p")
    assert model.data(model.index(1)).startswith("[2] contract.pdf, p")
    chat = ChatPane()
    qtbot.addWidget(chat)
    exchange = Exchange(question=OCTOPUS)
    exchange.apply(SourcesEvent(sources))
    html = chat._sources_html(0, exchange)
    assert "Team: octopus.pdf: <a" in html
    assert "contract.pdf: <a" in html and "Team: contract.pdf" not in html


def test_the_window_answers_from_both_libraries(team_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = team_window()
    events = ask(window, qtbot, OCTOPUS)
    sources = next(e for e in events if isinstance(e, SourcesEvent))
    assert sources.sources[0].library == "Team" and not sources.notice
    assert window.sources_model.data(window.sources_model.index(0)).startswith(
        "[1] Team: octopus.pdf"
    )
    events = ask(window, qtbot, NOTICE)
    sources = next(e for e in events if isinstance(e, SourcesEvent))
    assert sources.sources[0].path.endswith("contract.pdf") and sources.sources[0].library == ""


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["hang", "down"])
def test_a_team_library_that_hangs_never_freezes_the_window(
    team_window,
    qtbot,
    moto: Moto,  # noqa: F811
    kind: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # type: ignore[no-untyped-def]
    from desktop_rag.store import remote

    monkeypatch.setattr(remote, "FRESHNESS_S", 0.0)  # every read asks the store
    with proxy(moto.endpoint) as p:
        window = team_window(p.endpoint)
        first = ask(window, qtbot, OCTOPUS)  # the team library open and answering
        assert next(e for e in first if isinstance(e, SourcesEvent)).sources[0].library
        if kind == "down":
            p.down()
        else:
            p.mode = "hang"

        # Each turn of the GUI thread's event loop while the answer waits for its sources, the
        # team search waiting on the store meanwhile. A GUI thread blocked by that wait turns
        # once at most before the sources come (a timer's missed ticks are not queued).
        turns: list[int] = []  # the requests the store had seen at each turn
        sourced: list[SourcesEvent] = []

        def turned() -> None:
            if window.session.answering and not sourced:
                turns.append(p.requests)

        timer = QTimer()
        timer.timeout.connect(turned)
        window.session.answer_event.connect(
            lambda e: sourced.append(e) if isinstance(e, SourcesEvent) else None
        )
        before = p.requests
        timer.start(20)
        events = ask(window, qtbot, NOTICE, timeout=15_000)  # answered: the wait is bounded
        timer.stop()
        assert len(turns) >= 3, "the GUI thread kept turning while the team search waited"
        if kind == "hang":
            assert max(turns) > before, "... on a request the hung store held"
        sources = next(e for e in events if isinstance(e, SourcesEvent))
        assert UNREACHABLE in sources.notice
        assert sources.sources[0].path.endswith("contract.pdf")
        assert UNREACHABLE in window.statusBar().currentMessage()
        if kind == "down":
            p.up()
        else:
            p.mode = "pass"
        again = ask(window, qtbot, OCTOPUS)
        sources = next(e for e in again if isinstance(e, SourcesEvent))
        assert sources.sources[0].library == "Team" and not sources.notice
