"""The window's link to the core (gui/session.py) without a window: the library opened off the
GUI thread, the models loaded one after the other, one answer at a time with its kind first,
stopped on request, composed on demand, failures as signals, file events in batches, and a
shutdown that says whether every job stopped in time. The core is real: the store, pipeline
and answer service of tests/gui/conftest.fast_app_factory."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_rag.config import Settings
from desktop_rag.errors import EmptyLibraryError
from desktop_rag.gui.session import FileEvents, ModelState, Session
from desktop_rag.library_service import NO_MODEL
from desktop_rag.types import DoneEvent, FileEvent, SourcesEvent, Status, TokenEvent
from tests.gui.conftest import OPEN_TIMEOUT_MS, fast_app_factory
from tests.helpers.answers import written
from tests.helpers.window import WAIT_MS


@pytest.fixture
def sessions(qtbot, library_dir: Path) -> Iterator:
    """Make sessions over a fresh library (not watched); each is shut down at the end."""
    made: list[Session] = []
    closed: set[int] = set()

    def make(answer_factory=None, app_factory=fast_app_factory, start: bool = True) -> Session:  # type: ignore[no-untyped-def]
        session = Session(
            Settings.load(),
            app_factory=app_factory,
            answer_factory=answer_factory,
            library_dir=library_dir,
            watch=False,
        )
        made.append(session)
        session.closed.connect(lambda _clean: closed.add(id(session)))
        if start:
            with qtbot.waitSignal(session.opened, timeout=OPEN_TIMEOUT_MS):
                session.start()
            qtbot.waitUntil(lambda: not session.indexing, timeout=OPEN_TIMEOUT_MS)
        return session

    yield make
    for session in made:
        if id(session) not in closed:
            with qtbot.waitSignal(session.closed, timeout=15_000):
                session.shutdown()


def _answer(qtbot, session: Session, question: str) -> list[object]:
    events: list[object] = []
    session.answer_event.connect(events.append)
    with qtbot.waitSignal(session.answer_finished, timeout=WAIT_MS):
        assert session.ask(question)
    session.answer_event.disconnect(events.append)
    return events


def test_the_library_opens_off_the_gui_thread_and_the_models_load_one_after_the_other(
    qtbot, sessions, library_dir: Path
) -> None:
    session = sessions(start=False)
    states: list[tuple[str, str]] = []
    session.embedder_state.connect(lambda state, _: states.append(("embedder", state)))
    session.model_state.connect(lambda state, _: states.append(("model", state)))
    first: list[bool] = []
    session.first_start.connect(lambda: first.append(True))
    with qtbot.waitSignal(session.opened, timeout=OPEN_TIMEOUT_MS) as opened:
        session.start()
        assert session.app is None, "opened on a worker, not before start returns"
    assert session.app is not None and first == [True]
    assert session.folders == [str(library_dir)]
    qtbot.waitUntil(lambda: session.model_status[0] == ModelState.READY, timeout=WAIT_MS)
    assert states.index(("embedder", "ready")) < states.index(("model", "loading"))
    qtbot.waitUntil(lambda: not session.indexing, timeout=WAIT_MS)
    assert opened.args[0] == [], "the guide is indexed after opening, not before"
    assert [d.status for d in session.library.documents()] == [Status.INDEXED]


def test_a_library_that_cannot_open_says_why(qtbot, sessions) -> None:
    def broken(settings: Settings):  # type: ignore[no-untyped-def]
        raise EmptyLibraryError("The disk holding the index is gone.")

    session = sessions(app_factory=broken, start=False)
    with qtbot.waitSignal(session.open_failed, timeout=WAIT_MS) as failed:
        session.start()
    assert "The disk holding the index is gone." in failed.args[0]
    assert not session.ask("Anything?")


def test_a_question_before_the_library_is_open_is_refused_with_why(qtbot, sessions) -> None:
    session = sessions(start=False)
    with qtbot.waitSignal(session.answer_failed) as failed:
        assert not session.ask("Why is octopus blood blue?")
    assert failed.args[0] == "The library is still opening."


def test_an_answer_says_its_kind_first_and_comes_as_events(qtbot, sessions) -> None:
    session = sessions()
    order: list[str] = []
    session.routed.connect(lambda routed: order.append("routed"))
    session.answer_event.connect(lambda event: order.append(type(event).__name__))
    events = _answer(qtbot, session, "How do I add my own documents?")
    assert order[0] == "routed" and order[1] == "SourcesEvent"
    assert isinstance(events[-1], DoneEvent) and events[-1].answer
    assert not session.answering


def test_one_answer_at_a_time_and_stop_ends_it_with_what_was_said(qtbot, sessions) -> None:
    session = sessions(answer_factory=written("word " * 200, delay_s=0.05))
    tokens: list[TokenEvent] = []
    ends: list[DoneEvent] = []
    session.answer_event.connect(lambda e: tokens.append(e) if isinstance(e, TokenEvent) else None)
    session.answer_event.connect(lambda e: ends.append(e) if isinstance(e, DoneEvent) else None)
    assert session.ask("How do I add my own documents?")
    assert session.answering and not session.ask("A second question meanwhile?")
    qtbot.waitUntil(lambda: len(tokens) >= 3, timeout=WAIT_MS)
    with qtbot.waitSignal(session.answer_finished, timeout=WAIT_MS):
        session.stop_answer()
    assert ends and ends[-1].cancelled and ends[-1].answer.startswith("word word word")
    assert len(ends[-1].answer.split()) < 200
    assert session.ask("And now?"), "the next question starts once it has ended"
    qtbot.waitUntil(lambda: not session.answering, timeout=WAIT_MS)


def test_an_answer_that_fails_is_a_message_and_the_session_answers_again(qtbot, sessions) -> None:
    class Refusing:  # an answer service that fails as the real one does on an empty library
        def warm_up(self) -> None:
            pass

        def ask(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            raise EmptyLibraryError("Your library is empty: there is nothing to answer from.")

    session = sessions(answer_factory=lambda app: Refusing())
    with qtbot.waitSignal(session.answer_failed, timeout=WAIT_MS) as failed:
        assert session.ask("Anything?")
    assert "nothing to answer from" in failed.args[0]
    qtbot.waitUntil(lambda: not session.answering, timeout=WAIT_MS)
    assert session.ask("Again?")
    qtbot.waitUntil(lambda: not session.answering, timeout=WAIT_MS)


def test_without_an_answer_service_the_model_is_missing_and_questions_say_so(
    qtbot, sessions
) -> None:
    session = sessions(answer_factory=lambda app: None)
    assert session.model_status == (ModelState.MISSING, NO_MODEL)
    with qtbot.waitSignal(session.answer_failed) as failed:
        assert not session.ask("Anything?")
    assert failed.args[0] == NO_MODEL
    assert session.compose("key", "Anything?", ()) == NO_MODEL, "why it cannot start"


def test_the_sources_sentences_are_composed_on_demand_for_the_callers_key(qtbot, sessions) -> None:
    session = sessions(answer_factory=written())
    events = _answer(qtbot, session, "How do I add my own documents?")
    sources = next(e for e in events if isinstance(e, SourcesEvent)).sources
    key = object()
    with qtbot.waitSignal(session.composed, timeout=WAIT_MS) as composed:
        assert session.compose(key, "How do I add my own documents?", sources) == ""
    assert composed.args[0] is key
    assert composed.args[1].text and composed.args[1].cited


def test_shutdown_says_whether_every_job_stopped_in_time(qtbot, sessions) -> None:
    session = sessions()
    release = threading.Event()
    session.lanes.run("load", lambda job: release.wait(30), name="a job that ignores cancel")
    try:
        with qtbot.waitSignal(session.closed, timeout=WAIT_MS) as closed:
            session.shutdown(timeout_s=0.2)
        assert closed.args[0] is False
    finally:
        release.set()
        qtbot.waitUntil(lambda: not session.lanes.busy(), timeout=WAIT_MS)

    clean = sessions()
    with qtbot.waitSignal(clean.closed, timeout=WAIT_MS) as closed:
        clean.shutdown()
    assert closed.args[0] is True


# -- file events from the indexing thread --------------------------------------------------------


def test_the_first_event_of_a_batch_wakes_the_gui_thread_once() -> None:
    wakes: list[object] = []
    events = FileEvents(wakes.append)
    first, second, third = (FileEvent(f"/d/{n}.pdf", Status.QUEUED) for n in "abc")
    events.add(first)
    events.add(second)
    assert wakes == [events], "one wake-up for the batch"
    assert events.take() == [first, second] and events.take() == []
    events.add(third)
    assert len(wakes) == 2 and events.take() == [third]


def test_events_from_another_thread_arrive_in_order_and_in_batches() -> None:
    wakes: list[object] = []
    taken: list[FileEvent] = []
    events = FileEvents(wakes.append)
    sent = [FileEvent(f"/library/doc{i:05d}.pdf", Status.QUEUED) for i in range(5000)]
    done = threading.Event()

    def produce() -> None:
        for event in sent:
            events.add(event)
        done.set()

    thread = threading.Thread(target=produce)
    thread.start()
    while not done.is_set() or wakes:
        if wakes:  # what the GUI thread does on each wake-up
            wakes.pop()
            taken.extend(events.take())
    thread.join()
    taken.extend(events.take())
    assert taken == sent
