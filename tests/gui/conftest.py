"""Fixtures for window tests: a session over a real LanceDB and the real answer service, fake
or real models, clean exits."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from desktop_rag.config import Settings
from tests.fakes import FakeLlm
from tests.helpers import processes

if TYPE_CHECKING:
    from desktop_rag.app import App

OPEN_TIMEOUT_MS = 120_000  # the shared two-core machine can take a while to import torch


def fast_app_factory(settings: Settings) -> App:
    """The real store, pipeline, retriever and answer service with a hashing embedder and a
    fake model: seconds, not minutes. Its answers are composed from the sources' sentences, as
    the bundled model's are (the fake model is never asked: `written` makes it write)."""
    from desktop_rag.app import build_app
    from desktop_rag.ingest.chunk import ChunkParams
    from tests.fakes import HashEmbedder, WordTokenizer

    return build_app(
        settings,
        embedder=HashEmbedder(),
        tokenizer=WordTokenizer,
        params=ChunkParams(60, 10),
        isolate=processes.isolate(),
        llm=FakeLlm(),
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
        answer_factory: Callable | None = None,
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
