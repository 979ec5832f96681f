"""Document outlines for the front ends: the outline service wired to an app's index, its
embedder, a folder of kept outlines in its data folder, and ingest's reader of PDF bookmarks
(query/outline.py may not import ingest, so they meet here)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

from desktop_rag.errors import Cancelled
from desktop_rag.query.outline import Outline, OutlineService, outline_events
from desktop_rag.types import AnswerEvent, DoneEvent, Timings

if TYPE_CHECKING:
    from desktop_rag.app import App
    from desktop_rag.ingest.progress import ProgressFn

OUTLINES_DIR = "outlines"  # under the data folder: derived data, rebuilt when missing


def bookmarks(path: str) -> list[tuple[int, str, int]]:
    """A PDF's bookmarks as the outline wants them, (level, title, page); [] for other files."""
    from desktop_rag.ingest.layout import read_outline

    if not path.lower().endswith(".pdf"):
        return []
    return [(h.level, h.title, h.page) for h in read_outline(path)]


def document_answer(
    app: App,
    path: str,
    cancel: threading.Event | None = None,
    on_progress: ProgressFn | None = None,
) -> Iterator[AnswerEvent]:
    """A document's outline as an answer's events (document_events), built now or read from
    the cache; a cancel while it is built ends it with a cancelled answer ("Stopped.")."""
    try:
        built = outline_service(app).outline(path, on_progress=on_progress, cancel=cancel)
    except Cancelled:
        yield DoneEvent("", (), Timings(), cancelled=True)
        return
    yield from document_events(app, built, cancel)


def document_events(
    app: App, outline: Outline, cancel: threading.Event | None = None
) -> Iterator[AnswerEvent]:
    """A document question's answer: its outline, with the model's summary over it first when
    the model answering now writes its answers (the ability rule, query/ability.py)."""
    from desktop_rag.query.answer import WRITTEN

    service = app.answer
    if service.answer_mode() != WRITTEN:
        yield from outline_events(outline)
        return
    from desktop_rag.query.summary import summary_events

    yield from summary_events(outline, service.llm, service.rarity, cancel)


def outline_service(app: App) -> OutlineService:
    """The outline service over an app's current index (a rebuild swaps the index: ask again)."""
    return OutlineService(app.store, app.embedder, app.settings.data_path / OUTLINES_DIR, bookmarks)
