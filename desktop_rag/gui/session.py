"""The window's link to the core: which service call runs on which lane, reported as signals.

No decisions about documents are made here: the library service (desktop_rag/library_service.py)
decides what an edit means and does the work; this class only moves its calls off the GUI
thread, queues index runs (one writer at a time) and turns results and callbacks into signals.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from PySide6.QtCore import QObject, QTimer, Signal

from desktop_rag import routing
from desktop_rag.config import Settings
from desktop_rag.conversations import Conversation, ConversationStore
from desktop_rag.errors import user_message
from desktop_rag.gui.workers import Job, Lanes
from desktop_rag.ingest.control import RunControl
from desktop_rag.library_service import (
    NO_MODEL,
    AnswerFactory,
    AppFactory,
    Edit,
    LibraryService,
    ModelSwap,
    Opened,
)
from desktop_rag.query.scope import Scope
from desktop_rag.routing import Answerer
from desktop_rag.types import AnswerEvent, FileEvent, IndexReport, Progress, Source, Turn

if TYPE_CHECKING:
    from desktop_rag.app import App
    from desktop_rag.ingest.watch import Change, Watcher
    from desktop_rag.query.compose import Composed

log = logging.getLogger(__name__)

LOAD, INDEX, ANSWER, WATCH, SAVE = "load", "index", "answer", "watch", "save"
LANES = (LOAD, INDEX, ANSWER, WATCH, SAVE)


class ModelState(StrEnum):
    WAITING = "waiting"
    LOADING = "loading"
    READY = "ready"
    FAILED = "failed"
    MISSING = "missing"


@runtime_checkable
class Composer(Protocol):
    """An answer service that also answers from the sources' own sentences on demand (the
    real one, query/answer.py, does), for a reader who wants them beside a written answer."""

    def compose(self, query: str, sources: Sequence[Source]) -> Composed: ...


class FileEvents:
    """File events from the indexing thread, handed to the GUI thread in batches.

    The first event of a batch wakes the GUI thread (`wake(self)`, a queued signal); it then
    takes every event that arrived meanwhile. 5,000 files queued at once cost a handful of
    wake-ups and model updates instead of 5,000, and no event waits for a later one.
    """

    def __init__(self, wake: Callable[[object], None]) -> None:
        self._wake = wake
        self._events: list[FileEvent] = []
        self._lock = threading.Lock()

    def add(self, event: FileEvent) -> None:
        with self._lock:
            self._events.append(event)
            first = len(self._events) == 1
        if first:
            self._wake(self)

    def take(self) -> list[FileEvent]:
        with self._lock:
            events, self._events = self._events, []
        return events


def settle_heap() -> None:
    """Leave every object alive now out of the cyclic collector's full passes (gc.freeze).

    A full pass walks every tracked object while holding the GIL, so every thread waits for
    it, the GUI thread too, and what start-up leaves alive (Qt's wrappers, LanceDB, the
    tokenizer, the models' Python side) is most of the heap and lives as long as the window.
    Done after each step of start-up, once its objects are in place: passes then walk only
    what came later. Frozen objects are still freed when their last reference goes; only a
    cycle among them would outlive its use.
    """
    gc.freeze()


class Session(QObject):
    """Owns the core services for one window and runs their work on background lanes."""

    opened = Signal(object)  # list[DocumentRecord]: the index is open
    open_failed = Signal(str)
    needs_rebuild = Signal(str)  # the index was built differently: ask before rebuilding
    # The language ("de", "ja"...) most of the library is in, not English, while the English
    # embedder reads it: said once a session (LibraryService.language_check).
    mostly_in = Signal(str)
    first_start = Signal()  # the library folder and the guide were just created
    folders_changed = Signal(object)  # list[str]
    documents_loaded = Signal(object)  # list[DocumentRecord]
    files_changed = Signal(object)  # list[FileEvent], in order: one batch
    index_started = Signal()
    index_progress = Signal(object)  # Progress
    index_finished = Signal(object)  # IndexReport
    index_failed = Signal(str)
    paused_changed = Signal(bool)
    embedder_state = Signal(str, str)  # ModelState, detail
    model_state = Signal(str, str)  # ModelState, detail
    answer_event = Signal(object)  # AnswerEvent
    routed = Signal(object)  # routing.Routed: the kind a question is answered as, before it
    answer_failed = Signal(str)
    answer_finished = Signal()
    composed = Signal(object, object)  # the caller's key, Composed
    compose_failed = Signal(object, str)  # the caller's key, why
    outline_progress = Signal(object)  # Progress of an outline being built (then answer_*)
    conversations_loaded = Signal(object)  # list[Conversation], newest first
    notice = Signal(str)  # a short message for the status bar
    suggestions = Signal(object)  # list[str]: questions drawn from the library's headings
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
        self.library = LibraryService(
            settings,
            library_dir=library_dir,
            app_factory=app_factory,
            answer_factory=answer_factory,
            model_swap=model_swap,
            save_settings=save_settings,
        )
        self.settings = settings
        self.library_dir = self.library.library_dir
        self.lanes = Lanes(LANES, self)
        self.conversations = ConversationStore(settings.conversations_path)
        self.embedder_status = (ModelState.WAITING, "")
        self.model_status = (ModelState.WAITING, "")
        self._watch = watch
        self._watcher: Watcher | None = None
        self._index_job: Job | None = None
        self._last_report: IndexReport | None = None
        self._answer_job: Job | None = None
        self.watch_errors: dict[str, str] = {}
        self.watch_polled: set[str] = set()
        self._paused = False
        self._reopen_due = False  # the embedder changed: the app is built again when it can be
        self._reopening = 0  # apps being built again, the latest settings' last
        self._language_told = False
        self._closing = False
        self._close_reported = False
        self._close_started = 0.0
        self._watched.connect(self._on_watcher_changed)

    # -- start ----------------------------------------------------------------------------------

    @property
    def app(self) -> App | None:
        return self.library.app

    @property
    def answer(self) -> Answerer | None:
        return self.library.answer

    @property
    def folders(self) -> list[str]:
        return self.library.folders

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
        self.lanes.run(
            LOAD,
            lambda job: self.library.open(),
            on_returned=self._on_open_returned,
            on_errored=self._on_open_errored,
            name="open library",
        )

    def _on_open_returned(self, opened: Opened) -> None:
        log.info("library open with %d documents", len(opened.records))
        roots = self.library.adopt(opened)
        self.opened.emit(opened.records)
        self.folders_changed.emit(self.folders)
        for text in self.library.notices():
            self.notice.emit(text)
        if self._watch:
            self._start_watcher()
        if self.library.needs_rebuild:
            self.needs_rebuild.emit(self.library.rebuild_question(opened.estimate_s))
        else:
            self.reindex(roots)
            self._check_language()
        self._warm_up()
        if opened.first:
            self.first_start.emit()
        settle_heap()

    def reopen(self) -> None:
        """Build the app again for the settings (the embedder changed) on the load lane: over
        an index built by the other embedder it is stale, answers by words, and the rebuild is
        asked about. An indexing run in progress embeds with the old embedder: it is stopped
        first (what it finished is kept) and the folders are reconciled again afterwards."""
        if self.library.app is None or self._closing:
            return
        self._reopen_due = True
        if self._index_job is not None:
            self._index_job.stop()  # _on_index_job_finished reopens
            return
        self._reopen_now()

    def _reopen_now(self) -> None:
        library = self.library
        self._reopen_due = False
        self._reopening += 1
        self.lanes.run(
            LOAD,
            lambda job: library.reopen(),
            on_returned=self._on_reopen_returned,
            on_errored=self._on_reopen_errored,
            name="reopen library",
        )

    def _on_reopen_returned(self, opened: Opened) -> None:
        self._reopening -= 1
        if self._reopening:
            return  # switched again meanwhile: the app built for that comes next
        roots = self.library.adopt(opened)
        self.documents_loaded.emit(opened.records)
        if self.library.needs_rebuild:
            self.needs_rebuild.emit(self.library.rebuild_question(opened.estimate_s))
        else:
            self.reindex(roots)  # and what a stopped run left; after a rebuild, if one is due
        self._warm_up()

    def _on_reopen_errored(self, exc: BaseException) -> None:
        self._reopening -= 1
        log.error("cannot open the library again: %s", exc)
        self.index_failed.emit(user_message(exc))

    def _check_language(self) -> None:
        """Once a session: is the library mostly in another language than English while the
        English embedder reads it? A read of the index, on the load lane (`mostly_in`)."""
        library = self.library
        if self._language_told or library.app is None or self._closing:
            return

        def told(language: str) -> None:
            if language and not self._language_told:
                self._language_told = True
                self.mostly_in.emit(language)

        self.lanes.run(
            LOAD,
            lambda job: library.language_check(),
            on_returned=told,
            on_errored=lambda e: log.info("the library's language is not known: %s", e),
            name="check language",
        )

    def _on_open_errored(self, exc: BaseException) -> None:
        log.error("cannot open the library: %s", exc)
        self.open_failed.emit(user_message(exc))

    @property
    def needs_rebuilding(self) -> bool:
        return self.library.needs_rebuild

    def rebuild(self) -> None:
        """Build a new index beside the old one (which keeps answering), then swap it in."""
        library, folders = self.library, self.folders
        if library.app is None or self._index_job is not None or self._changing_embedder:
            self.notice.emit(self.tr("Wait for the current indexing to finish, then rebuild."))
            return

        def run(job: Job) -> tuple[IndexReport, list[Any]]:
            report = library.rebuild(folders, job.report, job.cancel)
            return report, library.documents()

        self.notice.emit(self.tr("Rebuilding the index from your documents…"))
        self._start_index_job(run, "rebuild")

    @property
    def _changing_embedder(self) -> bool:
        return self._reopen_due or self._reopening > 0

    def _warm_up(self) -> None:
        library, answer = self.library, self.answer
        if library.app is None:
            return
        self._set_embedder(ModelState.LOADING, "")
        if answer is None:
            self._set_model(ModelState.MISSING, NO_MODEL)
        else:
            self._set_model(ModelState.WAITING, "")

        def after_embedder() -> None:
            # One model load at a time on two cores: the answer model's comes next.
            if answer is not None and not self._closing:
                self._load_model(answer)

        self.lanes.run(
            LOAD,
            lambda job: library.load_embedder(),
            on_returned=lambda _r: self._set_embedder(ModelState.READY, ""),
            on_errored=lambda e: self._set_embedder(ModelState.FAILED, user_message(e)),
            on_finished=after_embedder,
            name="load embedder",
        )

    def _load_model(self, answer: Answerer) -> None:
        """Load the answer model on the answer lane: after the answer in progress, before the
        next question, so one model is ever loaded at a time (an answer loads it too, lazily,
        on that same lane)."""

        def load(job: Job) -> None:
            if not job.cancel.is_set():  # not worth seconds of loading at shutdown
                answer.warm_up()

        job = Job(load, "load model")
        # "Loading" when the job starts, not while it waits behind an answer.
        job.signals.started.connect(lambda: self._set_model(ModelState.LOADING, ""))
        job.signals.returned.connect(lambda _r: self._set_model(ModelState.READY, ""))
        job.signals.errored.connect(lambda e: self._set_model(ModelState.FAILED, user_message(e)))
        self.lanes.start(ANSWER, job)

    def _set_embedder(self, state: ModelState, detail: str) -> None:
        self.embedder_status = (state, detail)
        self.embedder_state.emit(state.value, detail)
        if state == ModelState.READY:
            settle_heap()

    def _set_model(self, state: ModelState, detail: str) -> None:
        self.model_status = (state, detail)
        self.model_state.emit(state.value, detail)
        if state == ModelState.READY:
            settle_heap()

    @property
    def model_name(self) -> str:
        return self.library.model_name

    # -- watching -------------------------------------------------------------------------------

    def _start_watcher(self) -> None:
        from desktop_rag.ingest.watch import Watcher

        self._watcher = Watcher(self._watched.emit).start()
        self._update_watcher()

    def _update_watcher(self) -> None:
        watcher, library, folders = self._watcher, self.library, self.folders
        if watcher is None:
            return

        def update(job: Job) -> tuple[dict[str, str], set[str]]:
            problems = library.watch(watcher, folders)
            return problems, set(watcher.polled)

        self.lanes.run(WATCH, update, on_returned=self._on_watch_update_returned, name="watch")

    def _on_watch_update_returned(self, result: Any) -> None:
        problems, polled = result
        self.watch_errors = dict(problems)
        self.watch_polled = set(polled)  # reconciled every few minutes instead of watched
        self.watch_problems.emit(self.watch_errors)

    def _on_watcher_changed(self, change: Change) -> None:
        if not self._closing:
            self.reindex(change.roots)

    # -- indexing -------------------------------------------------------------------------------

    def reindex(self, roots: Iterable[str] | None = None) -> None:
        """Reconcile these roots (default: every watched folder) after any run in progress."""
        self.library.queue(self.folders if roots is None else roots)
        if self._index_job is None:
            self._start_index()

    def _start_index(self) -> None:
        library = self.library
        if library.app is None or not library.has_pending or self._closing:
            return
        if self._changing_embedder:
            return  # kept queued: the app built again for the new embedder indexes them
        if library.needs_rebuild:
            # Kept queued, not dropped: the rebuild's end starts them.
            self.notice.emit(
                self.tr(
                    "The index must be rebuilt before changes can be indexed; they are indexed "
                    "once it is."
                )
            )
            return
        roots = library.take_pending()

        def run(job: Job) -> tuple[IndexReport, list[Any]]:
            events = FileEvents(job.report)
            control = RunControl(
                on_progress=job.report, on_file=events.add, cancel=job.cancel, pause=job.pause
            )
            report = library.reindex(roots, control)
            return report, library.documents()

        self._start_index_job(run, "index")

    def _start_index_job(self, run: Callable[[Job], object], name: str) -> None:
        job = Job(run, name)
        job.signals.progress.connect(self._on_index_job_progress)
        job.signals.returned.connect(self._on_index_job_returned)
        job.signals.errored.connect(self._on_index_job_errored)
        job.signals.finished.connect(self._on_index_job_finished)
        self._index_job = job
        self._hold_indexing()
        self.lanes.start(INDEX, job)
        self.index_started.emit()

    def _on_index_job_progress(self, value: object) -> None:
        if isinstance(value, FileEvents):
            batch = value.take()
            if batch:
                self.files_changed.emit(batch)
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
        if self._reopen_due and not self._closing:
            self.library.queue(self.folders)  # the stopped run's, reconciled by the new app
            self._reopen_now()
        elif self.library.has_pending and not self._closing:
            self._start_index()
        if report is not None:
            self.index_finished.emit(report)
            if report.indexed and not self.library.needs_rebuild:
                self._check_language()

    def set_paused(self, paused: bool) -> None:
        self._paused = paused
        self._hold_indexing()
        self.paused_changed.emit(paused)

    def _hold_indexing(self) -> None:
        """The index job waits (between batches) while the user paused it, and while an answer
        is being written: on two cores, indexing at low priority still made an answer's first
        word four times as late (docs/performance.md, "History"), and the question is what the user
        is waiting for now."""
        job = self._index_job
        if job is None:
            return
        if self._paused or self._answer_job is not None:
            job.pause.set()
        else:
            job.pause.clear()

    def cancel_indexing(self) -> None:
        """Stop the run in progress; what is already indexed stays. Queued runs are dropped."""
        self.library.clear_pending()
        if self._index_job is not None:
            self._index_job.stop()
        if self._paused:
            self.set_paused(False)

    # -- folders, files and settings: the service decides, this carries it out ----------------

    def _carry_out(self, edit: Edit) -> None:
        for text in edit.notices:
            self.notice.emit(text)
        if edit.folders_changed:
            self._update_watcher()
            self.folders_changed.emit(self.folders)
        for folder in edit.drop:
            self._drop(folder)
        if edit.index:
            self.reindex(edit.index)
        if edit.reload_model:
            self.reload_model()
        if edit.reopen:
            self.reopen()

    def add_folder(self, folder: str) -> bool:
        edit = self.library.add_folder(folder)
        self._carry_out(edit)
        return edit.folders_changed

    def remove_folder(self, folder: str, drop_documents: bool = True) -> None:
        """Stop watching a folder; drop its documents from the index (never from the disk)."""
        self._carry_out(self.library.remove_folder(folder, drop_documents))

    def suggest(self) -> None:
        """Questions for the welcome, drawn from the documents' headings, read on the load
        lane (`suggestions` follows)."""
        app = self.app
        if app is None:
            return
        from desktop_rag.library import suggested_questions

        self.lanes.run(
            LOAD,
            lambda job: suggested_questions(app.store),
            on_returned=self.suggestions.emit,
            on_errored=lambda e: log.info("no suggestions: %s", e),
            name="suggest questions",
        )

    def remove_file(self, path: str) -> None:
        """Take one file out of the index (never off the disk); it stays out when its folder
        is reconciled, until it is indexed again by name (Include again, or dropped again)."""
        library = self.library
        if library.app is None:
            return
        self.lanes.run(
            INDEX,
            lambda job: library.remove_file(path),
            on_returned=self.documents_loaded.emit,
            on_errored=lambda e: self.index_failed.emit(user_message(e)),
            name="remove file",
        )

    def _drop(self, folder: str) -> None:
        library = self.library
        if library.app is None:
            return
        self.lanes.run(
            INDEX,
            lambda job: library.drop(folder),
            on_returned=self.documents_loaded.emit,
            on_errored=lambda e: self.index_failed.emit(user_message(e)),
            name="remove folder",
        )

    def set_password(self, path: str, password: str) -> None:
        """Use this password for one file (kept in memory only, never saved), and retry it."""
        self._carry_out(self.library.set_password(path, password))

    def read_with_ocr(self, path: str) -> None:
        """Read every page of this PDF with OCR from now on (remembered in the index)."""
        self._carry_out(self.library.read_with_ocr(path))

    def import_files(self, paths: Sequence[str]) -> None:
        """Copy PDFs into the library folder (the originals are only read), then index them."""
        library = self.library
        if library.app is None:
            self.notice.emit(
                self.tr("The library is still opening; drop the files again in a moment.")
            )
            return
        self._carry_out(library.before_import())
        self.lanes.run(
            INDEX,
            lambda job: library.copy_in(paths),
            on_returned=lambda copied: self._carry_out(library.after_import(copied)),
            on_errored=lambda e: self.index_failed.emit(user_message(e)),
            name="copy files",
        )

    def apply_settings(self, new: Settings, drop_removed: bool = True) -> None:
        """Adopt edited settings: folders are watched or dropped, a new model is loaded."""
        self._carry_out(self.library.apply_settings(new, drop_removed))

    def set_model(self, path: str) -> None:
        self._carry_out(self.library.set_model(path))

    def reload_model(self) -> None:
        """Give the answer service a model for the current settings, and load it.

        On the answer lane: a running answer (it holds the old model) finishes first, and a
        question asked after the change waits for the new model rather than reloading the
        old one, so two models are never in memory at once.
        """
        library, answer = self.library, self.answer
        if library.app is None:
            return
        if answer is None:
            self._set_model(ModelState.MISSING, NO_MODEL)
            return
        self._set_model(ModelState.WAITING, "")
        self.lanes.run(
            ANSWER,
            lambda job: library.swap_model(),
            on_errored=lambda e: self._set_model(ModelState.FAILED, user_message(e)),
            name="swap model",
        )
        self._load_model(answer)

    # -- answering ------------------------------------------------------------------------------

    def ask(
        self,
        question: str,
        history: Sequence[Turn] = (),
        scope: Scope | None = None,
        kind: str = routing.AUTO,
    ) -> bool:
        """Stream an answer as answer_event signals (from the scope's documents only, if
        one is given), after a `routed` signal saying which kind it is answered as (`kind`,
        or the rules'); False if it cannot start now."""
        if self.answer is None or self.app is None:
            self.answer_failed.emit(
                self.tr("The library is still opening.")
                if self.app is None
                else self.model_status[1]
            )
            return False
        questions = self.library.questions
        if self._answer_job is not None or questions is None:
            return False
        k = self.settings.top_k

        def run(job: Job) -> Iterator[AnswerEvent]:
            # A list of documents or an outline instead of passages, when the question asks
            # for one (desktop_rag/routing.py); the answer's label says which.
            routed = questions.decide(question, scope, kind)
            self.routed.emit(routed)  # queued to the GUI thread, ahead of the first event
            return questions.ask(
                question, tuple(history), scope, cancel=job.cancel, routed=routed, k=k
            )

        self._start_answer_job(Job(run, "answer"))
        return True

    def outline(self, path: str) -> bool:
        """Build a document's outline off the GUI thread (or read it from the cache) and send it
        as an answer's events (answer_event, then answer_finished), with outline_progress on
        the way; stop_answer cancels it. False if it cannot start now."""
        app = self.app
        if app is None:
            self.answer_failed.emit(self.tr("The library is still opening."))
            return False
        if self._answer_job is not None:
            return False
        from desktop_rag.outline_service import document_answer

        def run(job: Job) -> Iterator[AnswerEvent]:
            return document_answer(app, path, job.cancel, on_progress=job.report)

        job = Job(run, "outline")
        job.signals.progress.connect(self.outline_progress.emit)
        self._start_answer_job(job)
        return True

    def _start_answer_job(self, job: Job) -> None:
        """Run an answer's (or an outline's) job in the answer lane, indexing held meanwhile."""
        job.signals.yielded.connect(self.answer_event.emit)
        job.signals.errored.connect(self._on_answer_job_errored)
        job.signals.finished.connect(self._on_answer_job_finished)
        self._answer_job = job
        self._hold_indexing()
        self.lanes.start(ANSWER, job)

    def stop_answer(self) -> None:
        if self._answer_job is not None:
            self._answer_job.stop()

    def _on_answer_job_errored(self, exc: BaseException) -> None:
        self.answer_failed.emit(user_message(exc))

    def _on_answer_job_finished(self) -> None:
        self._answer_job = None
        self._hold_indexing()
        self.answer_finished.emit()

    def compose(self, key: object, question: str, sources: Sequence[Source]) -> str:
        """Compose the answer from the sources' own sentences off the GUI thread: `composed`
        (key, Composed) follows, or `compose_failed` (key, why). On the answer lane, as it
        uses the answer's models: after an answer being written, before the next question.
        Returns why it cannot start now ("" when it starts)."""
        answer = self.answer
        if self.app is None:
            return self.tr("The library is still opening.")
        if not isinstance(answer, Composer):
            return self.model_status[1] or self.tr(
                "Answers cannot be composed from the sources here."
            )
        sources = tuple(sources)
        self.lanes.run(
            ANSWER,
            lambda job: answer.compose(question, sources),
            on_returned=lambda composed: self.composed.emit(key, composed),
            on_errored=lambda e: self.compose_failed.emit(key, user_message(e)),
            name="compose",
        )
        return ""

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
        store, snapshot = self.conversations, conv.snapshot()
        self.lanes.run(
            SAVE,
            lambda job: store.save(snapshot),
            on_errored=lambda e: self.notice.emit(
                self.tr("The conversation could not be saved: {why}").format(why=user_message(e))
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
        self.library.clear_pending()
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
