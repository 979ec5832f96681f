"""Fixtures for window tests: a session over a real LanceDB, fake or real models, clean exits."""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from desktop_rag.config import Settings
from desktop_rag.query import claims
from desktop_rag.query.prompt import NOTHING_RELEVANT
from desktop_rag.query.quote import pick_quotes
from desktop_rag.query.scope import Scope
from desktop_rag.types import (
    AnswerEvent,
    DoneEvent,
    QuotesEvent,
    Source,
    SourcesEvent,
    Timings,
    TokenEvent,
    Turn,
)
from tests.helpers import processes

OPEN_TIMEOUT_MS = 120_000  # the shared two-core machine can take a while to import torch


class FakeAnswerService:
    """The answer contract over the real retriever, with a canned answer streamed word by word.

    `delay_s` between tokens lets tests stop it, or quit, mid-answer.
    """

    def __init__(self, app, delay_s: float = 0.01, answer: str | None = None) -> None:
        self.app = app
        self.delay_s = delay_s
        self.answer = answer
        self.asked: list[tuple[str, tuple[Turn, ...], int | None]] = []
        self.scopes: list[Scope | None] = []
        self.warmed = threading.Event()

    def warm_up(self) -> None:
        self.warmed.set()

    def ask(
        self,
        question: str,
        history: Sequence[Turn] = (),
        k: int | None = None,
        cancel: threading.Event | None = None,
        scope: Scope | None = None,
    ) -> Iterator[AnswerEvent]:
        self.asked.append((question, tuple(history), k))
        self.scopes.append(scope)
        hits = self.app.retriever.search(question, k or 5, scope=scope)
        sources = tuple(
            Source(n, h.path, h.page, h.score, h.text, h.start, h.end, h.section)
            for n, h in enumerate(hits, start=1)
        )
        yield SourcesEvent(sources)
        yield QuotesEvent(pick_quotes(question, sources, self.app.embedder))
        if not sources:
            text = "I could not find this in your documents."
            yield DoneEvent(text, (), Timings(), refused=True)
            return
        text = self.answer or (
            f"According to your documents, {sources[0].text.split('.')[0].strip()} [1]."
        )
        out = []
        for word in text.split(" "):
            if cancel is not None and cancel.is_set():
                yield DoneEvent(" ".join(out), (), Timings(), cancelled=True)
                return
            piece = word if not out else " " + word
            out.append(word)
            yield TokenEvent(piece)
            time.sleep(self.delay_s)
        # The service's claim check, every word as common as any other. With no cosine to tell
        # near sources from weak ones, it withholds as the service does searching by words only.
        found = claims.check(
            text,
            [sources[0].text],
            lambda word: 0.0,
            also_read=[question],
            refuse_below=claims.REFUSE_BELOW_WORDS_ONLY,
        )
        if found.refuse:
            yield DoneEvent(NOTHING_RELEVANT, (), Timings(), refused=True, withheld=text)
            return
        # ... and cites the source holding the answer's words when [1] does not, as it does.
        backed = claims.backing_source(
            text,
            (1,),
            found,
            {s.n: s.text for s in sources},
            lambda word: 0.0,
            also_read=[question],
        )
        if backed is not None:
            n, by = backed
            yield DoneEvent(
                claims.recite(text, n),
                (n,),
                Timings(total_s=0.1),
                unsupported=by.unsupported,
                recited_from=(1,),
            )
            return
        yield DoneEvent(text, (1,), Timings(total_s=0.1), unsupported=found.unsupported)


def fast_app_factory(settings: Settings):
    """The real store, pipeline and retriever with a hashing embedder: seconds, not minutes."""
    from desktop_rag.app import build_app
    from desktop_rag.ingest.chunk import ChunkParams
    from tests.fakes import HashEmbedder, WordTokenizer

    return build_app(
        settings,
        embedder=HashEmbedder(),
        tokenizer=WordTokenizer,
        params=ChunkParams(60, 10),
        isolate=processes.isolate(),
    )


@pytest.fixture(autouse=True)
def _unfreeze_heap() -> Iterator[None]:
    """A window freezes the heap once started (session.settle_heap), as for a whole process;
    many windows in one test process must leave theirs to the collector when they go."""
    gc.unfreeze()
    yield
    gc.unfreeze()


@pytest.fixture
def library_dir(tmp_path: Path) -> Path:
    return tmp_path / "Documents" / "Desktop RAG Library"


@pytest.fixture
def open_window(qtbot, library_dir):
    """Open a window over a fresh data dir; closes it cleanly (and checks that) at the end."""
    from desktop_rag.gui.session import Session
    from desktop_rag.gui.window import MainWindow

    windows = []

    def make(
        app_factory: Callable | None = fast_app_factory,
        answer_factory: Callable | None = FakeAnswerService,
        *,
        wait: bool = True,
        settings: Settings | None = None,
        model_swap: Callable | None = None,
    ):
        session = Session(
            settings or Settings.load(),
            app_factory=app_factory,
            answer_factory=answer_factory,
            model_swap=model_swap,
            library_dir=library_dir,
        )
        window = MainWindow(session, quit_on_close=False)
        qtbot.addWidget(window)
        windows.append(window)
        if wait:
            with qtbot.waitSignal(session.opened, timeout=OPEN_TIMEOUT_MS):
                window.show()
                window.start()
            qtbot.waitUntil(lambda: not session.indexing, timeout=OPEN_TIMEOUT_MS)
        else:
            window.show()
            window.start()
        return window

    yield make
    for window in windows:
        close(qtbot, window)


def close(qtbot, window, timeout_ms: int = 15_000) -> bool:
    """Close as the user would and wait for the session to let go; True if it was clean."""
    if window._closed:
        return window.clean_exit
    with qtbot.waitSignal(window.session.closed, timeout=timeout_ms) as blocker:
        window.close()
    return bool(blocker.args[0])
