"""The library as every front end uses it: folders, passwords, index runs, rebuilds, models.

Qt-free and synchronous. It decides what an edit means (which folders to index, which to
drop, whether the model must be reloaded) and does the work when called; the window's session
only runs its calls on background lanes and turns the results into signals, and the CLI's
`watch` calls it from its own loop. Cheap calls (folder edits, the queue) belong to the front
end's thread; the work (`open`, `reindex`, `rebuild`, `drop`, `copy_in`, `watch`, model
loading) to one worker at a time per kind, as the session's lanes arrange.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from desktop_rag.config import Settings, default_library_dir
from desktop_rag.errors import DesktopRagError, UsageError, user_message
from desktop_rag.infra.paths import is_under, normalize
from desktop_rag.ingest.control import RunControl
from desktop_rag.languages import NAMES
from desktop_rag.routing import Answerer, Questions
from desktop_rag.types import DocumentRecord, IndexReport, LanguageMix, Page

if TYPE_CHECKING:
    from desktop_rag.app import App
    from desktop_rag.engines.llm import Llm
    from desktop_rag.ingest.pipeline import IngestService
    from desktop_rag.ingest.progress import ProgressFn
    from desktop_rag.ingest.sandbox import ReadFn
    from desktop_rag.library import Copied

log = logging.getLogger(__name__)

MISSING = "is missing (moved, deleted or on a drive not connected)"
NO_MODEL = "No answer model is available in this build."
BUILT_IN_MODEL = "Gemma 3 270M (built in)"


def _rebuild_takes(estimate_s: float) -> str:
    """How long a rebuild should take, in whole minutes (at least one)."""
    minutes = max(1, round(estimate_s / 60))
    return f"A rebuild should take about {minutes} minute{'s' if minutes != 1 else ''}"


# A library is mostly in another language than English when more than half its chunks are
# clearly in one (LanceStore.languages). "Clearly" is strict (languages.text_language leaves a
# listing, a table of names or a passage mixing languages as English), so the share is a floor:
# past half, most of what the English embedder reads it reads badly, and the multilingual one is
# worth its slower indexing; a mostly English library with a few German or Japanese documents
# keeps the faster one and is not told.
MOSTLY = 0.5


def mostly_in(mix: LanguageMix) -> str:
    """The language most of the library is in ("de", "ja"...) when it is mostly not English,
    "" otherwise."""
    return mix.language if mix.share > MOSTLY else ""


def language_notice(language: str) -> str:
    """What to tell the user of a library mostly in `language` (not English) read by the
    English embedder."""
    name = NAMES.get(language, language)
    return (
        f"Most of this library is in {name}: Settings > “My documents are in several "
        "languages” finds its passages better."
    )


def switched_embedder(multilingual: bool) -> str:
    """Why the index must be rebuilt after the embedder was switched in the settings."""
    if multilingual:
        return (
            "Your library is now read by the multilingual embedder (Settings > “My documents "
            "are in several languages”), and its index was made by the English one, so it must "
            "be rebuilt. Until then it is searched by its words only."
        )
    return (
        "Your library is read by the English embedder again, and its index was made by the "
        "multilingual one, so it must be rebuilt. Until then it is searched by its words only."
    )


def _embedder_changed(app: App) -> bool:
    """Whether the stale index was built by another embedder than the app's."""
    found = app.stale.found if app.stale is not None else None
    return getattr(found, "embedder_id", app.meta.embedder_id) != app.meta.embedder_id


def rebuild_meanwhile(estimate_s: float) -> str:
    """The end of the rebuild's question: how long it takes, and what answers meanwhile."""
    return f"{_rebuild_takes(estimate_s)}; the current index keeps answering meanwhile."


def _reset_roots(app: App) -> list[str]:
    """What a damaged index, moved aside and started afresh, held: to index again."""
    return app.roots() if app.needs_reindex else []


def _only_pdfs(paths: Sequence[str]) -> None:
    """Raise UsageError naming the first file that is not a PDF (folders pass: their PDFs)."""
    for path in paths:
        if os.path.isfile(path) and not path.lower().endswith(".pdf"):
            raise UsageError(
                f"{path} is not a PDF: only PDFs are read with OCR. Name the PDF files to read."
            )


@runtime_checkable
class WithLlm(Protocol):
    """An answer service that says which model it answers with (the real one does)."""

    @property
    def llm(self) -> Llm: ...


class ModelSwap(Protocol):
    """Give the app's answer service a model built for the settings (on a worker)."""

    def __call__(self, app: App, settings: Settings) -> None: ...


AppFactory = Callable[[Settings], "App"]
AnswerFactory = Callable[["App"], Answerer | None]


def build_default_app(settings: Settings) -> App:
    from desktop_rag.app import build_app

    return build_app(settings)


def default_answerer(app: App) -> Answerer | None:
    return app.answer


def swap_model(app: App, settings: Settings) -> None:
    """The model the settings name replaces the answer service's; the old one is freed.
    Closing a model and opening the next are not instant: call it from a worker."""
    from desktop_rag.app import default_llm

    app.answer.use_llm(default_llm(settings)).close()


@dataclass(frozen=True, slots=True)
class Opened:
    """What opening the library found, gathered off the front end's thread."""

    first: bool  # the library folder and the guide were just created
    app: App
    records: list[DocumentRecord]
    roots: list[str]  # to index again after a damaged index was reset
    estimate_s: float  # how long a rebuild would take, when one is needed


@dataclass(frozen=True, slots=True)
class Edit:
    """What an edit means for the index and the models; the front end carries it out."""

    folders_changed: bool = False  # watch the new list, show it
    index: tuple[str, ...] = ()  # roots to reconcile
    drop: tuple[str, ...] = ()  # folders whose documents leave the index (never the disk)
    reload_model: bool = False
    # The embedder changed (`multilingual`): the app is built again over the index, which is
    # then stale until rebuilt (`reopen`), once no indexing run holds the old one.
    reopen: bool = False
    notices: tuple[str, ...] = ()  # for the user, in order


class LibraryService:
    """One library: its settings, the core services over its index, the queue of roots to
    reconcile, and the passwords the user gave for this session (never saved)."""

    def __init__(
        self,
        settings: Settings,
        *,
        library_dir: Path | None = None,
        app_factory: AppFactory | None = None,
        answer_factory: AnswerFactory | None = None,
        model_swap: ModelSwap | None = None,
        save_settings: bool = True,
        app: App | None = None,
    ) -> None:
        self.settings = settings
        self.library_dir = library_dir or default_library_dir()
        self.app: App | None = None
        self.answer: Answerer | None = None
        self.questions: Questions | None = None  # every question of the window (routing.py)
        self.passwords: dict[str, str] = {}
        self._app_factory = app_factory or build_default_app
        self._answer_factory = answer_factory or default_answerer
        self._model_swap = model_swap or swap_model
        self._save = save_settings
        self._pending: set[str] = set()
        if app is not None:
            self._use(app)

    # -- state ---------------------------------------------------------------------------------

    @property
    def folders(self) -> list[str]:
        return list(self.settings.folders)

    @property
    def needs_rebuild(self) -> bool:
        return self.app is not None and self.app.stale is not None

    def rebuild_question(self, estimate_s: float) -> str:
        """What to ask the user before rebuilding an index that was built differently: in
        plain words when the embedder was switched in the settings."""
        app = self.app
        stale: object = app.stale if app else ""
        if app is not None and app.stale is not None and _embedder_changed(app):
            stale = switched_embedder(self.settings.multilingual)
        return f"{stale}\n\n{rebuild_meanwhile(estimate_s)}"

    @property
    def model_name(self) -> str:
        if isinstance(self.answer, WithLlm) and self.answer.llm.name:
            return self.answer.llm.name
        if self.settings.model_path:
            return os.path.basename(self.settings.model_path)
        return BUILT_IN_MODEL

    # -- opening -------------------------------------------------------------------------------

    def open(self) -> Opened:
        """First-start set-up, then the index and the services over it (a worker's job).
        `adopt` the result on the front end's thread."""
        from desktop_rag.library import first_start

        first = first_start(self.settings, self.library_dir)
        if first and self._save:
            self.settings.save()
        app = self._app_factory(self.settings)
        # A damaged index was reset: what was indexed before comes back.
        roots = _reset_roots(app)
        estimate = app.rebuild_estimate_s() if app.stale is not None else 0.0
        return Opened(first, app, app.store.documents(), roots, estimate)

    def adopt(self, opened: Opened) -> list[str]:
        """Use what `open` found; the roots to reconcile now (none while a rebuild is due)."""
        self._use(opened.app)
        if opened.app.stale is not None:
            return []
        return [*self.folders, *opened.roots]

    def reopen(self) -> Opened:
        """The app built again for the settings (a worker's job, when the embedder changed),
        answering with the model already loaded; `adopt` the result on the front end's
        thread. Over an index built by the other embedder it is stale: it answers by words
        until `rebuild`, and nothing indexed is lost meanwhile."""
        old = self._opened()
        app = self._app_factory(self.settings)
        app.answer.use_llm(old.answer.llm).close()  # the new one was never loaded
        estimate = app.rebuild_estimate_s() if app.stale is not None else 0.0
        return Opened(False, app, app.store.documents(), [], estimate)

    def _use(self, app: App) -> None:
        self.app = app
        self._attach_team(app)
        self.answer = self._answer_factory(app)
        self.questions = Questions(app, self.answer)

    def _attach_team(self, app: App) -> None:
        """The settings' team library searched beside this one; an address that is none is
        logged, not raised (the window's settings say so where it is typed)."""
        try:
            self.use_team(app)
        except DesktopRagError as exc:  # a hand-edited address that is none
            log.warning("team library not searched: %s", exc)

    def use_team(self, app: App | None = None, uri: str | None = None) -> None:
        """Search the settings' team library (or `uri`, the command line's --team; "none" for
        none) beside this one from the next question on (desktop_rag/team.py; nothing is
        opened here). Raises StoreError for an address that is no team library's."""
        from desktop_rag import team

        team.attach(app or self._opened(), self.settings, uri)

    def language_check(self) -> str:
        """The language most of the library is in when that is not English and the English
        embedder reads it ("" otherwise, and for a team's library, which is not this
        desktop's to rebuild): a read of the index, a worker's job."""
        app = self.app
        if app is None or self.settings.multilingual or self.settings.library_uri:
            return ""
        if app.stale is not None:
            return ""  # asked about the rebuild first
        return mostly_in(app.store.languages())

    def notices(self) -> list[str]:
        """What opening found that the user must be told (a stale index is asked about)."""
        app = self.app
        if app is None or app.stale is not None:
            return []
        return list(app.notices)

    # -- the queue of roots to reconcile ---------------------------------------------------------

    def queue(self, roots: Iterable[str]) -> None:
        self._pending.update(roots)

    def take_pending(self) -> list[str]:
        """The queued roots, in order, and an empty queue."""
        roots = sorted(self._pending)
        self._pending.clear()
        return roots

    def clear_pending(self) -> None:
        self._pending.clear()

    @property
    def has_pending(self) -> bool:
        return bool(self._pending)

    # -- folders, files, passwords and settings (cheap) ----------------------------------------

    def add_folder(self, folder: str) -> Edit:
        folder = normalize(folder)
        if any(is_under(folder, normalize(f)) for f in self.settings.folders):
            return Edit(notices=(f"{folder} is already in your library.",))
        self.settings.folders.append(folder)
        return Edit(True, index=(folder,), notices=self._saved())

    def remove_folder(self, folder: str, drop_documents: bool = True) -> Edit:
        """Stop watching a folder; its documents leave the index (never the disk)."""
        if folder not in self.settings.folders:
            return Edit()
        self.settings.folders.remove(folder)
        self._pending.discard(folder)
        return Edit(True, drop=(folder,) if drop_documents else (), notices=self._saved())

    def set_password(self, path: str, password: str) -> Edit:
        """Use this password for one file (kept in memory only, never saved), and retry it."""
        app = self.app
        if app is None:
            return Edit()
        self.passwords[path] = password
        app.ingest.passwords = dict(self.passwords)
        return Edit(index=(path,))

    def read_with_ocr(self, path: str) -> Edit:
        """Read every page of this PDF (or of the PDFs in this folder) with OCR from now on
        (its text layer is garbage): the next run records the wish in the index and reads the
        file again. Raises UsageError for a file that is not a PDF."""
        app = self.app
        if app is None:
            return Edit()
        _only_pdfs([path])
        app.ingest.ocr_requested.add(path)
        return Edit(index=(path,))

    def set_model(self, path: str) -> Edit:
        self.settings.model_path = path
        return Edit(reload_model=True, notices=self._saved())

    def apply_settings(self, new: Settings, drop_removed: bool = True) -> Edit:
        """Adopt edited settings: added folders are indexed, removed ones dropped, and a new
        model, context size or thread count means loading the model again."""
        from desktop_rag.team import team_settings

        old_folders = set(self.settings.folders)
        model_before = self._model_settings()
        multilingual_before = self.settings.multilingual
        team_before = team_settings(self.settings)
        for f in fields(Settings):
            setattr(self.settings, f.name, getattr(new, f.name))
        if self.app is not None:
            self.app.ingest.ocr = self.settings.ocr
            if team_settings(self.settings) != team_before:
                self._attach_team(self.app)
        notices = self._saved()
        removed = sorted(old_folders - set(self.settings.folders))
        self._pending.difference_update(removed)
        return Edit(
            True,
            index=tuple(sorted(set(self.settings.folders) - old_folders)),
            drop=tuple(removed) if drop_removed else (),
            reload_model=self._model_settings() != model_before,
            reopen=self.settings.multilingual != multilingual_before,
            notices=notices,
        )

    def _model_settings(self) -> tuple[str, int, int]:
        return (self.settings.model_path, self.settings.n_ctx, self.settings.threads)

    def before_import(self) -> Edit:
        """Before copying files in: the library folder must be watched."""
        library = normalize(str(self.library_dir))
        if any(is_under(library, normalize(f)) for f in self.settings.folders):
            return Edit()
        self.settings.folders.append(library)
        return Edit(True, notices=self._saved())

    def after_import(self, copied: Sequence[Copied]) -> Edit:
        """After copying: say what happened and index the library folder."""
        new = [c for c in copied if not c.already_there]
        if new:
            notice = f"Copied {len(new)} file(s) into {self.library_dir}."
        elif copied:
            notice = "Those files are already in your library."
        else:
            notice = ""
        # Named, the files dropped come back even if they had been removed from the index.
        index = (str(self.library_dir), *(c.dest for c in copied))
        return Edit(index=index, notices=(notice,) if notice else ())

    def _saved(self) -> tuple[str, ...]:
        """Save the settings; a problem to tell the user, if any."""
        if not self._save:
            return ()
        try:
            self.settings.save()
        except OSError as exc:
            return (f"Settings could not be saved: {user_message(exc)}",)
        return ()

    # -- the work (a worker's thread) ----------------------------------------------------------

    def _opened(self) -> App:
        if self.app is None:
            raise RuntimeError("the library is not open yet")
        return self.app

    def documents(self) -> list[DocumentRecord]:
        return self._opened().store.documents()

    def index(
        self,
        paths: Sequence[str],
        control: RunControl | None = None,
        *,
        ocr: bool = False,
        ingest: IngestService | None = None,
    ) -> IndexReport:
        """Index the files and folders the user named (the command line's `index`), with what a
        reset index held before. Refused while the index was built differently: `rebuild`
        replaces it. `ocr`: every page of these PDFs is read with OCR from now on. `ingest`:
        another service to run it (Ray's, ingest/ray_engine.py), the app's by default."""
        app = self._opened()
        if app.stale is not None:
            raise UsageError(f"{app.stale} {_rebuild_takes(app.rebuild_estimate_s())}.")
        if ocr:
            _only_pdfs(paths)  # all checked before any is asked for
            for path in paths:
                self.read_with_ocr(path)
        roots = [*paths, *_reset_roots(app)]
        if ingest is not None:
            return ingest.index(roots, control)
        return app.index(roots, control)

    def recover(self, control: RunControl | None = None) -> IndexReport | None:
        """Index again what a reset index held (it was damaged and moved aside, and the
        notices say so); None when there is nothing to index again."""
        app = self._opened()
        roots = _reset_roots(app)
        return app.index(roots, control) if roots else None

    def reindex(self, roots: Sequence[str], control: RunControl | None = None) -> IndexReport:
        """Reconcile these roots with the index (ingest/watch.py says how)."""
        from desktop_rag.ingest.watch import reindex

        return reindex(self._opened(), roots, control)

    def rebuild(
        self,
        folders: Sequence[str],
        on_progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
    ) -> IndexReport:
        """Build a new index beside the old one (which keeps answering), then swap it in."""
        app = self._opened()
        return app.rebuild(folders, on_progress, cancel)

    def remove_file(self, path: str) -> list[DocumentRecord]:
        """One file leaves the index (not the disk) and stays out of its folder's reconciles
        until it is indexed by name again; the documents that remain."""
        self._pending.discard(path)
        app = self._opened()
        app.remove([path])
        return app.store.documents()

    def drop(self, folder: str) -> list[DocumentRecord]:
        """The folder's documents leave the index; the documents that remain."""
        app = self._opened()
        app.remove([folder])
        return app.store.documents()

    def copy_in(self, paths: Sequence[str]) -> list[Copied]:
        """Copy files into the library folder; the originals are only read."""
        from desktop_rag.library import copy_into

        return copy_into(paths, self.library_dir)

    def watch(self, watcher: Watching, roots: Sequence[str]) -> dict[str, str]:
        """Point the watcher at these folders (or files); why any of them is not watched.

        Watching a big tree walks every sub-folder (one inotify watch each): a worker's job.
        """
        watcher.set_roots([r for r in roots if os.path.exists(r)])
        missing = {r: MISSING for r in roots if not os.path.exists(r)}
        return {**watcher.polled, **watcher.errors, **missing}

    def keep_watching(
        self,
        roots: Sequence[str],
        stop: threading.Event,
        on_report: Callable[[IndexReport], None],
        *,
        on_unwatched: Callable[[str, str, bool], None] | None = None,
        progress: Callable[[], AbstractContextManager[ProgressFn]] | None = None,
    ) -> bool:
        """Index the roots, then reconcile whatever changes under them, until `stop` is set
        (the front end's own loop: `desktop-rag watch`); whether any pass had failures.

        Each pass's report goes to `on_report`; a root watched by polling or not at all is
        told to `on_unwatched(root, why, polled)`; `progress()` gives each pass its progress
        callback, as a context that ends with the pass.
        """
        import queue

        from desktop_rag.ingest.watch import Change, Watcher

        changes: queue.Queue[Change] = queue.Queue()
        watcher = Watcher(changes.put)
        failed = False
        try:
            watcher.start()
            for root, why in self.watch(watcher, roots).items():
                if on_unwatched is not None:
                    on_unwatched(root, why, root in watcher.polled)
            self.queue(roots)
            while not stop.is_set():
                pending = self.take_pending()
                if pending:
                    with progress() if progress is not None else nullcontext(None) as on_progress:
                        control = RunControl(on_progress=on_progress, cancel=stop)
                        report = self.reindex(pending, control)
                    if report.cancelled:
                        break
                    on_report(report)
                    failed = failed or bool(report.failed)
                try:
                    change = changes.get(timeout=0.2)
                except queue.Empty:
                    continue
                self.queue(change.roots)
                while not changes.empty():  # fold changes that arrived meanwhile into one pass
                    self.queue(changes.get_nowait().roots)
        finally:
            watcher.stop()
        return failed

    def read_document(self, path: str) -> list[Page]:
        """A document's pages for the window to show, read as indexing reads it: in a reader
        process, under the library's time and memory limits, with its password if one was
        given. Raises ExtractError with the reason (a time-out, too much memory, damage)."""
        password = self.passwords.get(normalize(path)) or self.passwords.get(path)
        if self.app is None:
            return read_document(path, password)
        ingest = self.app.ingest
        return read_document(path, password, timeout_s=ingest.timeout_s, memory_mb=ingest.memory_mb)

    def load_embedder(self) -> None:
        """Load (or export once, then load) the embedder, so the first question does not wait."""
        from desktop_rag.engines.embed import warm_up

        warm_up(self._opened().embedder)

    def swap_model(self) -> None:
        """Give the answer service the model the settings name (a worker's job)."""
        self._model_swap(self._opened(), self.settings)


def read_document(
    path: str,
    password: str | None = None,
    *,
    timeout_s: float | None = None,
    memory_mb: int | None = None,
    read: ReadFn | None = None,
) -> list[Page]:
    """One file's pages from a reader process of its own, killed past `timeout_s` or
    `memory_mb` (the indexing defaults unless given), never from this process: a file that
    hangs or bloats a reader costs that reader, not the window that asked. Raises
    ExtractError with the reason. `read`: the reader function (tests give a fake)."""
    from desktop_rag.ingest import sandbox
    from desktop_rag.ingest.extract import ExtractError, extract

    box = sandbox.Sandbox(
        sandbox.DEFAULT_TIMEOUT_S if timeout_s is None else timeout_s,
        sandbox.DEFAULT_MEMORY_MB if memory_mb is None else memory_mb,
        ahead=1,
        max_tasks=1,
        read=read or extract,
        low_priority=False,  # someone is waiting to see it
    )
    try:
        for _job, outcome in box.run([sandbox.Job(path, password, sandbox.OcrMode.OFF)]):
            if isinstance(outcome, sandbox.Reading):  # news only (never without OCR)
                continue
            if isinstance(outcome, ExtractError):
                raise outcome
            return outcome.pages
    finally:
        box.close()
    raise AssertionError("the reader process yields every job it is given")


class Watching(Protocol):
    """What `LibraryService.watch` needs of a watcher (ingest/watch.py's Watcher)."""

    errors: dict[str, str]
    polled: dict[str, str]  # watched by a periodic reconcile instead, and why

    def set_roots(self, roots: Iterable[str]) -> None: ...
