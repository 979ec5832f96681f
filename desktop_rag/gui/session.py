"""The window's link to the core: which service call runs on which lane, reported as signals.

No decisions about documents are made here: the core's services do the work (indexing,
watching, answering, first start); this class only moves their calls off the GUI thread,
queues index runs (one writer at a time) and turns callbacks into Qt signals.
"""

from __future__ import annotations

import copy
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, fields
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QObject, QTimer, Signal

from desktop_rag.config import Settings, default_library_dir
from desktop_rag.conversations import Conversation, ConversationStore
from desktop_rag.errors import user_message
from desktop_rag.gui.workers import Job, Lanes
from desktop_rag.types import AnswerEvent, FileEvent, IndexReport, Progress, Turn

if TYPE_CHECKING:
    from desktop_rag.app import App
    from desktop_rag.ingest.watch import Change, Watcher

log = logging.getLogger(__name__)

LOAD, INDEX, ANSWER, WATCH, SAVE = "load", "index", "answer", "watch", "save"
LANES = (LOAD, INDEX, ANSWER, WATCH, SAVE)


class AnswerService(Protocol):
    """What the window needs from the answer service (desktop_rag.types has the events)."""

    def ask(
        self,
        question: str,
        history: Sequence[Turn] = (),
        k: int | None = None,
        cancel: threading.Event | None = None,
    ) -> Iterator[AnswerEvent]: ...

    def warm_up(self) -> None: ...


AppFactory = Callable[[Settings], "App"]
AnswerFactory = Callable[["App"], AnswerService | None]
ModelSwap = Callable[["App", Settings], None]


class ModelState(StrEnum):
    WAITING = "waiting"
    LOADING = "loading"
    READY = "ready"
    FAILED = "failed"
    MISSING = "missing"


def default_app_factory(settings: Settings) -> App:
    from desktop_rag.app import build_app

    return build_app(settings)


def default_answer_factory(app: App) -> AnswerService | None:
    return getattr(app, "answer", None)


def default_model_swap(app: App, settings: Settings) -> None:
    """Give the app's answer service a model built for the settings; free the old one.
    Runs on a worker: closing a model and opening the next are not instant."""
    from desktop_rag import app as core

    answer = getattr(app, "answer", None)
    make = getattr(core, "default_llm", None)
    if answer is None or make is None or not hasattr(answer, "llm"):
        return
    old, answer.llm = answer.llm, make(settings)
    close = getattr(old, "close", None)
    if close is not None:
        close()


@dataclass(frozen=True, slots=True)
class Opened:
    """What opening the library found, gathered off the GUI thread."""

    first: bool
    app: App
    records: list[Any]
    roots: list[str]  # to index again after a damaged index was reset
    estimate_s: float  # how long a rebuild would take, when one is needed


class Session(QObject):
    """Owns the core services for one window and runs their work on background lanes."""

    opened = Signal(object)  # list[DocumentRecord]: the index is open
    open_failed = Signal(str)
    needs_rebuild = Signal(str)  # the index was built differently: ask before rebuilding
    first_start = Signal()  # the library folder and the guide were just created
    folders_changed = Signal(object)  # list[str]
    documents_loaded = Signal(object)  # list[DocumentRecord]
    file_changed = Signal(object)  # FileEvent
    index_started = Signal()
    index_progress = Signal(object)  # Progress
    index_finished = Signal(object)  # IndexReport
    index_failed = Signal(str)
    paused_changed = Signal(bool)
    embedder_state = Signal(str, str)  # ModelState, detail
    model_state = Signal(str, str)  # ModelState, detail
    answer_event = Signal(object)  # AnswerEvent
    answer_failed = Signal(str)
    answer_finished = Signal()
    conversations_loaded = Signal(object)  # list[Conversation], newest first
    notice = Signal(str)  # a short message for the status bar
    watch_problems = Signal(object)  # {folder: why it is not watched}
    closed = Signal(bool)  # shutdown finished; True if every job stopped in time
    _watched = Signal(object)  # Change, emitted from the watcher's thread

    def __init__(
        self,
        settings: Settings,
        *,
        app_factory: AppFactory | None = None,
        answer_factory: AnswerFactory | None = None,
        model_swap: ModelSwap | None = None,
        library_dir: Path | None = None,
        watch: bool = True,
        save_settings: bool = True,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.settings = settings
        self.app: App | None = None
        self.answer: AnswerService | None = None
        self.library_dir = library_dir or default_library_dir()
        self.lanes = Lanes(LANES, self)
        self.conversations = ConversationStore(settings.conversations_path)
        self.embedder_status = (ModelState.WAITING, "")
        self.model_status = (ModelState.WAITING, "")
        self._app_factory = app_factory or default_app_factory
        self._answer_factory = answer_factory or default_answer_factory
        self._model_swap = model_swap or default_model_swap
        self._reload_pending = False
        self._watch = watch
        self._save = save_settings
        self._watcher: Watcher | None = None
        self._index_job: Job | None = None
        self._last_report: IndexReport | None = None
        self._answer_job: Job | None = None
        self._pending_roots: set[str] = set()
        self.watch_errors: dict[str, str] = {}
        self._paused = False
        self._closing = False
        self._close_reported = False
        self._close_started = 0.0
        self._watched.connect(self._on_watcher_changed)

    # -- start ----------------------------------------------------------------------------------

    @property
    def folders(self) -> list[str]:
        return list(self.settings.folders)

    @property
    def indexing(self) -> bool:
        return self._index_job is not None

    @property
    def answering(self) -> bool:
        return self._answer_job is not None

    @property
    def paused(self) -> bool:
        return self._paused

    def start(self) -> None:
        """Open the library in the background: first-start set-up, the index, the models."""
        settings, library, factory = self.settings, self.library_dir, self._app_factory

        def open_library(job: Job) -> Opened:
            from desktop_rag.library import first_start

            first = first_start(settings, library)
            if first and self._save:
                settings.save()
            app = factory(settings)
            # A damaged index was reset: what was indexed before comes back.
            roots = app.roots() if app.needs_reindex else []
            estimate = app.rebuild_estimate_s() if app.stale is not None else 0.0
            return Opened(first, app, app.store.documents(), roots, estimate)

        self.lanes.run(
            LOAD,
            open_library,
            on_returned=self._on_open_returned,
            on_errored=self._on_open_errored,
            name="open library",
        )

    def _on_open_returned(self, opened: Opened) -> None:
        app = opened.app
        log.info("library open with %d documents", len(opened.records))
        self.app = app
        self.answer = self._answer_factory(app)
        self.opened.emit(opened.records)
        self.folders_changed.emit(self.folders)
        for text in app.notices:
            if app.stale is None:  # a stale index gets its own question below
                self.notice.emit(text)
        if self._watch:
            self._start_watcher()
        if app.stale is not None:
            minutes = max(1, round(opened.estimate_s / 60))
            self.needs_rebuild.emit(
                f"{app.stale}\n\nA rebuild should take about {minutes} minute"
                f"{'s' if minutes != 1 else ''}; the current index keeps answering meanwhile."
            )
        else:
            self.reindex([*self.folders, *opened.roots])
        self._warm_up()
        if opened.first:
            self.first_start.emit()

    def _on_open_errored(self, exc: BaseException) -> None:
        log.error("cannot open the library: %s", exc)
        self.open_failed.emit(user_message(exc))

    @property
    def needs_rebuilding(self) -> bool:
        return self.app is not None and self.app.stale is not None

    def rebuild(self) -> None:
        """Build a new index beside the old one (which keeps answering), then swap it in."""
        app, folders = self.app, self.folders
        if app is None or self._index_job is not None:
            self.notice.emit("Wait for the current indexing to finish, then rebuild.")
            return

        def run(job: Job) -> tuple[IndexReport, list[Any]]:
            report = app.rebuild(folders, job.report, job.cancel)
            return report, app.store.documents()

        self.notice.emit("Rebuilding the index from your documents…")
        self._start_index_job(run, "rebuild")

    def _warm_up(self) -> None:
        app, answer = self.app, self.answer
        if app is None:
            return
        self._set_embedder(ModelState.LOADING, "")
        if answer is None:
            self._set_model(ModelState.MISSING, "No answer model is available in this build.")
        else:
            self._set_model(ModelState.WAITING, "")

        def load_embedder(job: Job) -> None:
            # The fast embedder exports itself once (seconds, offline) and loads; the
            # PyTorch one just loads. Either way the first question does not wait for it.
            prepare = getattr(app.embedder, "prepare", None)
            load = prepare or getattr(app.embedder, "load", None)
            if load is not None:
                load()
            app.embedder.embed_query("warm up")

        self.lanes.run(
            LOAD,
            load_embedder,
            on_returned=lambda _r: self._set_embedder(ModelState.READY, ""),
            on_errored=lambda e: self._set_embedder(ModelState.FAILED, user_message(e)),
            name="load embedder",
        )
        if answer is not None:
            self._load_model(answer)

    def _load_model(self, answer: AnswerService) -> None:
        job = Job(lambda job: answer.warm_up(), "load model")
        # "Loading" when the job starts, not while it waits behind the embedder.
        job.signals.started.connect(lambda: self._set_model(ModelState.LOADING, ""))
        job.signals.returned.connect(lambda _r: self._set_model(ModelState.READY, ""))
        job.signals.errored.connect(lambda e: self._set_model(ModelState.FAILED, user_message(e)))
        self.lanes.start(LOAD, job)

    def _set_embedder(self, state: ModelState, detail: str) -> None:
        self.embedder_status = (state, detail)
        self.embedder_state.emit(state.value, detail)

    def _set_model(self, state: ModelState, detail: str) -> None:
        self.model_status = (state, detail)
        self.model_state.emit(state.value, detail)

    @property
    def model_name(self) -> str:
        llm = getattr(self.answer, "llm", None)
        name = getattr(llm, "name", "")
        if isinstance(name, str) and name:
            return name
        if self.settings.model_path:
            return os.path.basename(self.settings.model_path)
        return "Gemma 3 270M (built in)"

    # -- watching -------------------------------------------------------------------------------

    def _start_watcher(self) -> None:
        from desktop_rag.ingest.watch import Watcher

        self._watcher = Watcher(self._watched.emit).start()
        self._update_watcher()

    def _update_watcher(self) -> None:
        """Watching a big tree walks every sub-folder (one inotify watch each): off the GUI."""
        watcher, folders = self._watcher, self.folders
        if watcher is None:
            return

        def update(job: Job) -> dict[str, str]:
            watcher.set_roots([f for f in folders if os.path.isdir(f)])
            missing = {
                f: "is missing (moved, deleted or on a drive not connected)"
                for f in folders
                if not os.path.isdir(f)
            }
            return {**watcher.errors, **missing}

        self.lanes.run(WATCH, update, on_returned=self._on_watch_update_returned, name="watch")

    def _on_watch_update_returned(self, errors: Any) -> None:
        self.watch_errors = dict(errors)
        self.watch_problems.emit(self.watch_errors)

    def _on_watcher_changed(self, change: Change) -> None:
        if not self._closing:
            self.reindex(change.roots)

    # -- indexing -------------------------------------------------------------------------------

    def reindex(self, roots: Iterable[str] | None = None) -> None:
        """Reconcile these roots (default: every watched folder) after any run in progress."""
        roots = self.folders if roots is None else list(roots)
        self._pending_roots.update(roots)
        if self._index_job is None:
            self._start_index()

    def _start_index(self) -> None:
        app = self.app
        if app is None or not self._pending_roots or self._closing:
            return
        if app.stale is not None:
            # Kept queued, not dropped: the rebuild's end starts them.
            self.notice.emit(
                "The index must be rebuilt before changes can be indexed; they are indexed "
                "once it is."
            )
            return
        roots = sorted(self._pending_roots)
        self._pending_roots.clear()
        from desktop_rag.ingest.watch import reindex

        def run(job: Job) -> tuple[IndexReport, list[Any]]:
            report = reindex(
                app, roots, job.report, job.cancel, pause=job.pause, on_file=job.report
            )
            return report, app.store.documents()

        self._start_index_job(run, "index")

    def _start_index_job(self, run: Callable[[Job], object], name: str) -> None:
        job = Job(run, name)
        if self._paused:
            job.pause.set()
        job.signals.progress.connect(self._on_index_job_progress)
        job.signals.returned.connect(self._on_index_job_returned)
        job.signals.errored.connect(self._on_index_job_errored)
        job.signals.finished.connect(self._on_index_job_finished)
        self._index_job = job
        self.lanes.start(INDEX, job)
        self.index_started.emit()

    def _on_index_job_progress(self, value: object) -> None:
        if isinstance(value, FileEvent):
            self.file_changed.emit(value)
        elif isinstance(value, Progress):
            self.index_progress.emit(value)

    def _on_index_job_returned(self, result: Any) -> None:
        report, records = result
        self._last_report = report
        self.documents_loaded.emit(records)

    def _on_index_job_errored(self, exc: BaseException) -> None:
        self._last_report = None
        self.index_failed.emit(user_message(exc))

    def _on_index_job_finished(self) -> None:
        """`index_finished` comes after the job is gone, so `indexing` says what is next."""
        self._index_job = None
        report, self._last_report = self._last_report, None
        if self._pending_roots and not self._closing:
            self._start_index()
        if report is not None:
            self.index_finished.emit(report)

    def set_paused(self, paused: bool) -> None:
        self._paused = paused
        if self._index_job is not None:
            if paused:
                self._index_job.pause.set()
            else:
                self._index_job.pause.clear()
        self.paused_changed.emit(paused)

    def cancel_indexing(self) -> None:
        """Stop the run in progress; what is already indexed stays. Queued runs are dropped."""
        self._pending_roots.clear()
        if self._index_job is not None:
            self._index_job.stop()
        if self._paused:
            self.set_paused(False)

    # -- folders, files and settings ----------------------------------------------------------

    def add_folder(self, folder: str) -> bool:
        from desktop_rag.ingest.scan import is_under, normalize

        folder = normalize(folder)
        if any(is_under(folder, normalize(f)) for f in self.folders):
            self.notice.emit(f"{folder} is already in your library.")
            return False
        self.settings.folders.append(folder)
        self._folders_edited()
        self.reindex([folder])
        return True

    def remove_folder(self, folder: str, drop_documents: bool = True) -> None:
        """Stop watching a folder; drop its documents from the index (never from the disk)."""
        if folder not in self.settings.folders:
            return
        self.settings.folders.remove(folder)
        self._pending_roots.discard(folder)
        self._folders_edited()
        if drop_documents:
            self._drop(folder)

    def remove_file(self, path: str) -> None:
        """Take one file out of the index (never off the disk); it stays out when its folder
        is reconciled, until it is indexed again by name (Include again, or dropped again)."""
        app = self.app
        if app is None:
            return
        self._pending_roots.discard(path)

        def remove(job: Job) -> list[Any]:
            app.remove([path])
            return app.store.documents()

        self.lanes.run(
            INDEX,
            remove,
            on_returned=self.documents_loaded.emit,
            on_errored=lambda e: self.index_failed.emit(user_message(e)),
            name="remove file",
        )

    def _drop(self, folder: str) -> None:
        app = self.app
        if app is None:
            return

        def drop(job: Job) -> list[Any]:
            app.remove([folder])
            return app.store.documents()

        self.lanes.run(
            INDEX,
            drop,
            on_returned=self.documents_loaded.emit,
            on_errored=lambda e: self.index_failed.emit(user_message(e)),
            name="remove folder",
        )

    def _folders_edited(self) -> None:
        self._save_settings()
        self._update_watcher()
        self.folders_changed.emit(self.folders)

    def _save_settings(self) -> None:
        if not self._save:
            return
        try:
            self.settings.save()
        except OSError as exc:
            self.notice.emit(f"Settings could not be saved: {user_message(exc)}")

    def set_password(self, path: str, password: str) -> None:
        """Use this password for one file (kept in memory only, never saved), and retry it."""
        app = self.app
        if app is None:
            return
        app.ingest.passwords = {**app.ingest.passwords, path: password}
        self.reindex([path])

    def import_files(self, paths: Sequence[str]) -> None:
        """Copy PDFs into the library folder (the originals are only read), then index them."""
        library = self.library_dir
        if self.app is None:
            self.notice.emit("The library is still opening; drop the files again in a moment.")
            return
        from desktop_rag.ingest.scan import is_under, normalize

        if not any(is_under(normalize(str(library)), normalize(f)) for f in self.folders):
            self.settings.folders.append(normalize(str(library)))
            self._folders_edited()

        def copy(job: Job) -> Any:
            from desktop_rag.library import copy_into

            return copy_into(paths, library)

        self.lanes.run(
            INDEX,
            copy,
            on_returned=self._on_copy_returned,
            on_errored=lambda e: self.index_failed.emit(user_message(e)),
            name="copy files",
        )

    def _on_copy_returned(self, copied: Any) -> None:
        new = [c for c in copied if not c.already_there]
        if new:
            self.notice.emit(f"Copied {len(new)} file(s) into {self.library_dir}.")
        elif copied:
            self.notice.emit("Those files are already in your library.")
        # Named, the files dropped come back even if they had been removed from the index.
        self.reindex([str(self.library_dir), *(c.dest for c in copied)])

    def apply_settings(self, new: Settings, drop_removed: bool = True) -> None:
        """Adopt edited settings: folders are watched or dropped, a new model is loaded."""
        old_folders = set(self.settings.folders)
        model_before = (self.settings.model_path, self.settings.n_ctx, self.settings.threads)
        for f in fields(Settings):
            setattr(self.settings, f.name, getattr(new, f.name))
        self._folders_edited()
        for folder in sorted(old_folders - set(self.settings.folders)):
            self._pending_roots.discard(folder)
            if drop_removed:
                self._drop(folder)
        added = sorted(set(self.settings.folders) - old_folders)
        if added:
            self.reindex(added)
        if (self.settings.model_path, self.settings.n_ctx, self.settings.threads) != model_before:
            self.reload_model()

    def set_model(self, path: str) -> None:
        self.settings.model_path = path
        self._save_settings()
        self.reload_model()

    def reload_model(self) -> None:
        """Give the answer service a model for the current settings, and load it.

        Never under a running answer (it holds the old model): that waits for it to end.
        """
        app, answer, settings, swap = self.app, self.answer, self.settings, self._model_swap
        if app is None:
            return
        if self._answer_job is not None:
            self._reload_pending = True
            return
        self._reload_pending = False
        if answer is None:
            self._set_model(ModelState.MISSING, "No answer model is available in this build.")
            return
        self._set_model(ModelState.WAITING, "")
        self.lanes.run(
            LOAD,
            lambda job: swap(app, settings),
            on_errored=lambda e: self._set_model(ModelState.FAILED, user_message(e)),
            name="swap model",
        )
        self._load_model(answer)

    # -- answering ------------------------------------------------------------------------------

    def ask(self, question: str, history: Sequence[Turn] = ()) -> bool:
        """Stream an answer as answer_event signals; False if it cannot start now."""
        answer = self.answer
        if answer is None or self.app is None:
            self.answer_failed.emit(
                "The library is still opening." if self.app is None else self.model_status[1]
            )
            return False
        if self._answer_job is not None:
            return False
        k = self.settings.top_k

        def run(job: Job) -> Iterator[AnswerEvent]:
            return answer.ask(question, tuple(history), k=k, cancel=job.cancel)

        job = Job(run, "answer")
        job.signals.yielded.connect(self.answer_event.emit)
        job.signals.errored.connect(self._on_answer_job_errored)
        job.signals.finished.connect(self._on_answer_job_finished)
        self._answer_job = job
        self.lanes.start(ANSWER, job)
        return True

    def stop_answer(self) -> None:
        if self._answer_job is not None:
            self._answer_job.stop()

    def _on_answer_job_errored(self, exc: BaseException) -> None:
        self.answer_failed.emit(user_message(exc))

    def _on_answer_job_finished(self) -> None:
        self._answer_job = None
        self.answer_finished.emit()
        if self._reload_pending and not self._closing:
            self.reload_model()

    # -- conversations (small files, but still off the GUI thread, in order) ------------------

    def load_conversations(self) -> None:
        store = self.conversations
        self.lanes.run(
            SAVE,
            lambda job: store.load_all(),
            on_returned=self.conversations_loaded.emit,
            on_errored=lambda e: self.notice.emit(f"Conversations: {user_message(e)}"),
            name="load conversations",
        )

    def save_conversation(self, conv: Conversation) -> None:
        store, snapshot = self.conversations, copy.deepcopy(conv)
        self.lanes.run(
            SAVE,
            lambda job: store.save(snapshot),
            on_errored=lambda e: self.notice.emit(
                f"The conversation could not be saved: {user_message(e)}"
            ),
            name="save conversation",
        )

    def delete_conversation(self, conv_id: str) -> None:
        store = self.conversations
        self.lanes.run(SAVE, lambda job: store.delete(conv_id), name="delete conversation")

    # -- shutdown -------------------------------------------------------------------------------

    def shutdown(self, timeout_s: float = 4.0) -> None:
        """Stop every job and the watcher; `closed` follows when they are done or time is up.

        Cancelled indexing keeps what it finished (the core commits it before stopping), so
        nothing is lost; the next start picks up the rest.
        """
        if self._closing:
            return
        self._closing = True
        self._close_started = time.monotonic()
        log.info("shutting down; stopping %s", ", ".join(self._running_names()) or "nothing")
        self._pending_roots.clear()
        watcher, self._watcher = self._watcher, None
        self.lanes.stop_all()
        if watcher is not None:
            self.lanes.run(WATCH, lambda job: watcher.stop(), name="stop watching")
        self.lanes.idle.connect(self._on_lanes_idle)
        if not self.lanes.busy():
            QTimer.singleShot(0, self._on_lanes_idle)
            return
        QTimer.singleShot(int(timeout_s * 1000), self._on_shutdown_timeout)

    def _on_lanes_idle(self) -> None:
        if not self._close_reported:
            self._close_reported = True
            log.info("every job stopped in %.2f s", time.monotonic() - self._close_started)
            self.closed.emit(True)

    def _on_shutdown_timeout(self) -> None:
        if not self._close_reported:
            self._close_reported = True
            log.warning("jobs still running at exit: %s", self._running_names())
            self.closed.emit(False)

    def _running_names(self) -> list[str]:
        return [j.name for lane in LANES for j in self.lanes.jobs(lane)]
