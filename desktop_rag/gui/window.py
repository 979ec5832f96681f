"""The main window: library, chat and source panes, menus, shortcuts, drops and the status bar."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QEvent, QSettings, Qt, QTimer
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QGuiApplication,
    QKeySequence,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QToolBar,
    QWidget,
)

from desktop_rag import __version__
from desktop_rag.config import config_dir
from desktop_rag.conversations import ChatState, Conversation, Exchange, Version
from desktop_rag.gui.chat import ChatPane, ConversationsPane, other_answer
from desktop_rag.gui.doclist import DocumentListPanel
from desktop_rag.gui.documents import DocumentsPane
from desktop_rag.gui.icons import icon, refresh, set_icon
from desktop_rag.gui.kindbar import KindBar
from desktop_rag.gui.models import ConversationsModel, DocumentsModel, SourcesModel
from desktop_rag.gui.session import ModelState, Session
from desktop_rag.gui.settings_dialog import SettingsDialog
from desktop_rag.gui.viewer import SourcePane
from desktop_rag.gui.words import rebuild_question
from desktop_rag.ingest.readers import SUFFIXES
from desktop_rag.library import GUIDE_NAME, classify_drop
from desktop_rag.query.kind import DOCUMENT
from desktop_rag.query.scope import Scope
from desktop_rag.routing import AUTO, Routed
from desktop_rag.types import (
    AnswerEvent,
    AnswerMode,
    DoneEvent,
    FileEvent,
    IndexReport,
    Progress,
    QuotesEvent,
    Source,
    SourcesEvent,
    Status,
    TokenEvent,
)

if TYPE_CHECKING:
    from desktop_rag.query.compose import Composed

log = logging.getLogger(__name__)

# The file dialog's filters: the names are translated, the patterns are not.
DOCUMENT_PATTERNS = f"*.pdf {' '.join('*' + s for s in sorted(SUFFIXES))}"

STATUS_ICONS = ("queued", "indexing", "indexed", "failed")
# Narrower than this, the window shows two panes, not three: the library and the chat, or,
# while a page is open, the chat and the page (the library one click away). Beside an empty
# viewer, then beside a page, the chat of a 900 x 600 screen's window was 190 pixels wide.
NARROW_WINDOW = 1100
# The chat's least width: about eight words a line.
CHAT_MIN_WIDTH = 320
# The chat's share of a narrow window beside a page; the page gets the rest.
NARROW_CHAT_SHARE = 0.42


def window_state_file() -> Path:
    return config_dir() / "window.ini"


class MainWindow(QMainWindow):
    """Wires the panes to the session; keeps only what is on screen (no core decisions)."""

    def __init__(
        self, session: Session, *, quit_on_close: bool = True, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.session = session
        self._quit_on_close = quit_on_close
        self.setWindowTitle("Desktop RAG")
        self._welcome = ""  # the first start's message, while the status bar shows it
        self.setWindowIcon(icon("app"))
        self.setAcceptDrops(True)
        self.setMinimumSize(760, 480)

        self.state = ChatState()  # what is shown and answered; what is never saved again
        self._closing = False
        self._closed = False
        self.clean_exit = True

        status_icons = {s: icon(f"status-{s}") for s in STATUS_ICONS}
        self.documents_model = DocumentsModel(status_icons, self)
        self.conversations_model = ConversationsModel(self)
        self.sources_model = SourcesModel(self)

        self.documents = DocumentsPane(self.documents_model)
        self.conversations = ConversationsPane(self.conversations_model)
        self.chat = ChatPane()
        self.sources = SourcePane(self.sources_model)
        # Under the transcript: how the last question was taken, and a library answer's list.
        self.kind_bar = KindBar()
        self.doc_list = DocumentListPanel()
        self.chat.add_panel(self.kind_bar)
        self.chat.add_panel(self.doc_list)
        self.sources.boxes_lookup = self._page_boxes
        # Documents shown as text are read in the library's reader process, with its limits
        # and the passwords the user gave.
        self.sources.text_view.read_document = session.library.read_document

        self.left = QSplitter(Qt.Orientation.Vertical)
        self.left.setObjectName("leftSplit")
        self.left.addWidget(self.conversations)
        self.left.addWidget(self.documents)
        # Two parts conversations to three parts documents: at 1 to 3 a 900 x 600 screen's
        # window listed three conversations.
        self.left.setStretchFactor(0, 2)
        self.left.setStretchFactor(1, 3)
        self.main = QSplitter(Qt.Orientation.Horizontal)
        self.main.setObjectName("mainSplit")
        self.main.addWidget(self.left)
        self.main.addWidget(self.chat)
        self.main.addWidget(self.sources)
        self.main.setStretchFactor(0, 2)
        self.main.setStretchFactor(1, 3)
        self.main.setStretchFactor(2, 3)
        self.main.setChildrenCollapsible(False)
        self.chat.setMinimumWidth(CHAT_MIN_WIDTH)
        self._library_over_page = False  # in a narrow window, the user asked for the library
        self._panes: tuple[bool, bool] | None = None  # the library, the page: as last shown
        self.setCentralWidget(self.main)

        self._make_actions()
        self._make_status_bar()
        self._connect()
        self._restore_layout()
        self.documents.set_folders(session.folders)
        self.documents.set_opening(True)  # not "no documents yet" while the index opens

    @property
    def current(self) -> Conversation | None:
        """The conversation shown (None: a new one, not asked in yet)."""
        return self.state.current

    @current.setter
    def current(self, conv: Conversation | None) -> None:
        self.state.current = conv

    # -- construction --------------------------------------------------------------------------

    def _action(
        self,
        text: str,
        icon_name: str,
        shortcut: QKeySequence | QKeySequence.StandardKey | str | None,
    ) -> QAction:
        action = QAction(text, self)
        if icon_name:
            set_icon(action, icon_name)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.addAction(action)
        return action

    def _make_actions(self) -> None:
        self.new_action = self._action(self.tr("&New conversation"), "new-chat", "Ctrl+N")
        self.add_folder_action = self._action(self.tr("Add &folder…"), "folder-add", "Ctrl+O")
        self.add_files_action = self._action(self.tr("Add &documents…"), "document", "Ctrl+Shift+O")
        self.settings_action = self._action(self.tr("&Settings…"), "settings", "Ctrl+,")
        self.rebuild_action = self._action(self.tr("&Rebuild index…"), "rescan", None)
        self.quit_action = self._action(self.tr("&Quit"), "", QKeySequence.StandardKey.Quit)
        if self.quit_action.shortcut().isEmpty():
            self.quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        self.stop_action = self._action(self.tr("&Stop answering"), "stop", "Esc")
        self.stop_action.setEnabled(False)
        self.copy_action = self._action(self.tr("&Copy last answer"), "copy", "Ctrl+Shift+C")
        # The last answer's other one: the documents' own sentences beside a written answer
        # (D for documents; Ctrl+Shift+O adds documents). Its text says which way it goes.
        self.other_answer_action = self._action(
            self.tr("Sho&w the documents' own sentences"), "", "Ctrl+Shift+D"
        )
        self.other_answer_action.setEnabled(False)
        self.guide_action = self._action(
            self.tr("User &guide"), "", QKeySequence.StandardKey.HelpContents
        )
        self.about_action = self._action(self.tr("&About Desktop RAG"), "", None)
        # In a narrow window an open page takes the library's place; this brings it back.
        self.library_action = self._action(self.tr("&Library"), "folder", "Ctrl+L")
        self.library_action.setCheckable(True)
        self.library_action.setChecked(True)
        self.library_action.setToolTip(self.tr("Show your documents and conversations (Ctrl+L)"))

        menu = self.menuBar()
        file_menu = menu.addMenu(self.tr("&File"))
        file_menu.addActions([self.add_folder_action, self.add_files_action])
        file_menu.addSeparator()
        file_menu.addAction(self.settings_action)
        file_menu.addAction(self.rebuild_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        chat_menu = menu.addMenu(self.tr("&Chat"))
        chat_menu.addActions(
            [self.new_action, self.stop_action, self.copy_action, self.other_answer_action]
        )
        chat_menu.addSeparator()
        answer_as = chat_menu.addMenu(self.tr("&Answer as"))
        answer_as.addActions(self.kind_bar.actions_for_menu())
        self.addActions(self.kind_bar.actions_for_menu())  # their keys work in any pane
        help_menu = menu.addMenu(self.tr("&Help"))
        help_menu.addActions([self.guide_action, self.about_action])

        bar = QToolBar(self.tr("Main"))
        bar.setObjectName("mainToolbar")
        bar.setMovable(False)
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        bar.addActions([self.new_action, self.add_folder_action, self.add_files_action])
        bar.addSeparator()
        bar.addAction(self.settings_action)
        self._library_separator = bar.addSeparator()
        bar.addAction(self.library_action)
        self.addToolBar(bar)

    def _make_status_bar(self) -> None:
        self.library_label = QLabel(self.tr("Opening the library…"))
        self.embedder_label = QLabel()
        self.model_label = QLabel()
        for label, name in (
            (self.library_label, self.tr("Library state")),
            (self.embedder_label, self.tr("Search model state")),
            (self.model_label, self.tr("Answer model state")),
        ):
            label.setAccessibleName(name)
            self.statusBar().addPermanentWidget(label)
        self._on_session_embedder_state(*self.session.embedder_status)
        self._on_session_model_state(*self.session.model_status)

    def _connect(self) -> None:
        s = self.session
        s.opened.connect(self._on_session_opened)
        s.open_failed.connect(self._on_session_open_failed)
        s.needs_rebuild.connect(self._on_session_needs_rebuild)
        s.mostly_in.connect(self._on_session_mostly_in)
        s.first_start.connect(self._on_session_first_start)
        s.folders_changed.connect(self._on_session_folders_changed)
        s.watch_problems.connect(self._on_session_watch_problems)
        s.documents_loaded.connect(self._on_session_documents_loaded)
        s.files_changed.connect(self._on_session_files_changed)
        s.index_started.connect(self._on_session_index_started)
        s.index_progress.connect(self._on_session_index_progress)
        s.index_finished.connect(self._on_session_index_finished)
        s.index_failed.connect(self._on_session_index_failed)
        s.paused_changed.connect(self._on_session_paused_changed)
        s.embedder_state.connect(self._on_session_embedder_state)
        s.model_state.connect(self._on_session_model_state)
        s.answer_event.connect(self._on_session_answer_event)
        s.routed.connect(self._on_session_routed)
        s.answer_failed.connect(self._on_session_answer_failed)
        s.answer_finished.connect(self._on_session_answer_finished)
        s.outline_progress.connect(self._on_session_outline_progress)
        s.composed.connect(self._on_session_composed)
        s.compose_failed.connect(self._on_session_compose_failed)
        s.conversations_loaded.connect(self._on_session_conversations_loaded)
        s.notice.connect(self._on_session_notice)
        s.suggestions.connect(self.chat.set_suggestions)
        s.closed.connect(self._on_session_closed)

        self.new_action.triggered.connect(self._on_new_action_triggered)
        self.add_folder_action.triggered.connect(self._on_add_folder_action_triggered)
        self.add_files_action.triggered.connect(self._on_add_files_action_triggered)
        self.settings_action.triggered.connect(self._on_settings_action_triggered)
        self.quit_action.triggered.connect(self.close)
        self.rebuild_action.triggered.connect(self._on_rebuild_action_triggered)
        self.stop_action.triggered.connect(s.stop_answer)
        self.copy_action.triggered.connect(self._on_copy_action_triggered)
        self.other_answer_action.triggered.connect(self._on_other_answer_action_triggered)
        self.guide_action.triggered.connect(self._on_guide_action_triggered)
        self.about_action.triggered.connect(self._on_about_action_triggered)

        self.documents.add_folder_requested.connect(self._on_add_folder_action_triggered)
        self.documents.remove_folder_requested.connect(self._on_documents_remove_folder_requested)
        self.documents.pause_requested.connect(s.set_paused)
        self.documents.cancel_requested.connect(s.cancel_indexing)
        self.documents.rescan_requested.connect(self._on_documents_rescan_requested)
        self.documents.document_activated.connect(self._on_documents_document_activated)
        self.documents.password_requested.connect(self._on_documents_password_requested)
        self.documents.reindex_requested.connect(self._on_documents_reindex_requested)
        self.documents.ocr_requested.connect(self.session.read_with_ocr)
        self.documents.remove_requested.connect(self.session.remove_file)
        self.documents.outline_requested.connect(self.outline)
        self.documents.ask_about_requested.connect(self._on_documents_ask_about_requested)

        self.conversations.selected.connect(self._on_conversations_selected)
        self.conversations.new_requested.connect(self._on_conversations_new_requested)
        self.conversations.delete_requested.connect(self._on_conversations_delete_requested)

        self.chat.question_submitted.connect(self._on_chat_question_submitted)
        self.chat.stop_requested.connect(s.stop_answer)
        self.chat.source_clicked.connect(self._on_chat_source_clicked)
        self.chat.copied.connect(self._on_chat_copied)
        self.chat.other_requested.connect(self._on_chat_other_requested)
        self.chat.scope_cleared.connect(self._on_chat_scope_cleared)
        self.chat.scope_chosen.connect(self.set_scope)
        self.kind_bar.kind_chosen.connect(self._on_kind_bar_kind_chosen)
        self.doc_list.document_chosen.connect(self._on_doc_list_document_chosen)
        self.chat.set_collections(self.session.settings.collections)
        self.sources.open_failed.connect(self._on_sources_open_failed)
        self.sources.notice.connect(self._on_session_notice)
        self.sources.stack.currentChanged.connect(self._on_sources_stack_current_changed)
        self.sources.opened.connect(self._on_sources_opened)
        self.library_action.toggled.connect(self._on_library_action_toggled)

    def start(self) -> None:
        """Open the library and the conversations in the background."""
        self.session.load_conversations()
        self.session.start()

    # -- layout memory -------------------------------------------------------------------------

    def _layout_store(self) -> QSettings:
        return QSettings(str(window_state_file()), QSettings.Format.IniFormat)

    def _restore_layout(self) -> None:
        store = self._layout_store()
        geometry = store.value("geometry")
        if isinstance(geometry, QByteArray) and self.restoreGeometry(geometry):
            pass
        else:
            screen = QGuiApplication.primaryScreen()
            size = screen.availableSize() if screen else None
            if size is not None:
                self.resize(min(1400, int(size.width() * 0.9)), min(860, int(size.height() * 0.9)))
            self.main.setSizes([360, 600, 500])
            self.left.setSizes([280, 420])
        state = store.value("state")
        if isinstance(state, QByteArray):
            self.restoreState(state)
        for splitter in (self.main, self.left, self.sources.split):
            value = store.value(f"splitters/{splitter.objectName()}")
            if isinstance(value, QByteArray):
                splitter.restoreState(value)

    def save_layout(self) -> None:
        store = self._layout_store()
        store.setValue("geometry", self.saveGeometry())
        store.setValue("state", self.saveState())
        for splitter in (self.main, self.left, self.sources.split):
            if splitter is self.main and not self.left.isVisible():
                continue  # a narrow window's page in the library's place: not a layout to keep
            store.setValue(f"splitters/{splitter.objectName()}", splitter.saveState())
        store.sync()

    # -- library -------------------------------------------------------------------------------

    def _on_session_opened(self, records: list) -> None:
        self.documents_model.set_records(records)
        self.documents.set_opening(False)
        self.documents.set_idle()
        self._update_library_label()
        self.session.suggest()

    def _on_session_open_failed(self, message: str) -> None:
        self.documents.set_opening(False)
        self.library_label.setText(self.tr("Library: cannot be opened"))
        self.statusBar().showMessage(message)
        QMessageBox.warning(self, self.tr("The library cannot be opened"), message)

    def _on_session_needs_rebuild(self, message: str) -> None:
        self.library_label.setText(self.tr("Library: needs rebuilding"))
        self._ask_rebuild(rebuild_question(message))

    def _on_session_mostly_in(self, language: str) -> None:
        """Most of the library is in `language`, not English, and the English embedder reads
        it: the setting that reads it better, said once (the session decides when)."""
        self.statusBar().showMessage(
            self.tr(
                "Most of this library is in {language}: Settings > “My documents are in "
                "several languages” finds its passages better."
            ).format(language=self._language_name(language)),
            30000,
        )

    def _language_name(self, language: str) -> str:
        """A language's name as the sentence above says it, in the window's language."""
        names = {
            "de": self.tr("German"),
            "fr": self.tr("French"),
            "es": self.tr("Spanish"),
            "it": self.tr("Italian"),
            "pt": self.tr("Portuguese"),
            "nl": self.tr("Dutch"),
            "zh": self.tr("Chinese"),
            "ja": self.tr("Japanese"),
            "ko": self.tr("Korean"),
        }
        return names.get(language, language)

    def _on_rebuild_action_triggered(self) -> None:
        self._ask_rebuild(
            self.tr(
                "The index is built again from every watched folder, beside the current one, "
                "which keeps answering until the new one is complete."
            )
        )

    def _ask_rebuild(self, message: str) -> None:
        answer = QMessageBox.question(
            self,
            self.tr("Rebuild the index?"),
            f"{message}\n\n" + self.tr("Rebuild now? Your files are not touched."),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.session.rebuild()
        elif self.session.needs_rebuilding:
            self.statusBar().showMessage(
                self.tr(
                    "The index was not rebuilt: it answers as it was built, and changes to "
                    "your documents wait for a rebuild (File > Rebuild index)."
                )
            )

    def _on_session_first_start(self) -> None:
        self.chat.set_first_start(True)
        self._welcome = self.tr(
            "Welcome! Your library folder is {folder}; the user guide in it is being indexed."
        ).format(folder=self.session.library_dir)
        self.statusBar().showMessage(self._welcome, 15000)

    def _on_session_folders_changed(self, folders: list[str]) -> None:
        self.documents.set_folders(folders, self.session.watch_errors, self.session.watch_polled)

    def _on_session_watch_problems(self, problems: dict[str, str]) -> None:
        self.documents.set_folders(self.session.folders, problems, self.session.watch_polled)
        for folder in sorted(self.session.watch_polled):
            name = os.path.basename(folder.rstrip(os.sep)) or folder
            self.statusBar().showMessage(f"{name} {problems[folder]}.", 15000)

    def _on_session_documents_loaded(self, records: list) -> None:
        self.documents_model.set_records(records)
        self._update_library_label()

    def _on_session_files_changed(self, events: list[FileEvent]) -> None:
        self.documents_model.apply_many(events)

    def _on_session_index_started(self) -> None:
        self.documents.set_running()
        self.documents.set_paused(self.session.paused)
        self._update_library_label()

    def _on_session_index_progress(self, progress: Progress) -> None:
        self.documents.set_progress(progress)
        if progress.stage == "vectors":
            # Every file is read and found by its words; meaning search follows.
            self.library_label.setText(self.tr("Found by words; computing vectors"))
        elif progress.files_total:
            self.library_label.setText(
                self.tr("Indexing {done} of {total} files").format(
                    done=progress.files_done, total=progress.files_total
                )
            )

    def _on_session_index_finished(self, report: IndexReport) -> None:
        self.documents_model.settle()
        self.session.suggest()  # the welcome's questions, from the documents now indexed
        if not self.session.indexing:
            self.documents.set_idle(report)
            if self._welcome and self.statusBar().currentMessage() == self._welcome:
                # The first start's message said the guide was being indexed: it now is.
                self._welcome = self.tr(
                    "Welcome! Your library folder is {folder}; the user guide in it is "
                    "indexed: ask it a question below."
                ).format(folder=self.session.library_dir)
                self.statusBar().showMessage(self._welcome, 15000)
        self._update_library_label()
        failed = self.documents_model.counts().get(Status.FAILED, 0)
        if report.failed and not report.cancelled and failed:
            # The pane's count, which holds the failures of earlier runs too: the two agree.
            text = (
                self.tr("1 file could not be read; see Documents.")
                if failed == 1
                else self.tr("{n} files could not be read; see Documents.").format(n=failed)
            )
            self.statusBar().showMessage(text, 10000)

    def _on_session_index_failed(self, message: str) -> None:
        self.documents_model.settle()
        self.documents.set_idle()
        self.statusBar().showMessage(self.tr("Indexing stopped: {why}").format(why=message))
        self._update_library_label()

    def _on_session_paused_changed(self, paused: bool) -> None:
        self.documents.set_paused(paused)

    def _update_library_label(self) -> None:
        if self.session.app is None:
            return
        counts = self.documents_model.counts()
        done = counts.get("indexed", 0)
        pages, _ = self.documents_model.totals()
        self.chat.set_documents(done)
        documents = self.tr("1 document") if done == 1 else self.tr("{n} documents").format(n=done)
        if self.session.indexing:
            text = self.tr("Library: {documents}, {pages} pages (indexing)")
        elif self.session.needs_rebuilding:
            text = self.tr("Library: {documents}, {pages} pages (needs rebuilding)")
        else:
            text = self.tr("Library: {documents}, {pages} pages")
        self.library_label.setText(text.format(documents=documents, pages=pages))

    def _on_add_folder_action_triggered(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, self.tr("Add a folder of documents to watch"), os.path.expanduser("~")
        )
        if folder:
            self.session.add_folder(folder)

    def _on_add_files_action_triggered(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(
            self,
            self.tr("Add documents (they are copied into your library)"),
            os.path.expanduser("~"),
            self.tr("Documents ({patterns});;PDF files (*.pdf);;All files (*)").format(
                patterns=DOCUMENT_PATTERNS
            ),
        )
        if paths:
            self.session.import_files(paths)

    def _on_documents_remove_folder_requested(self, folder: str) -> None:
        answer = QMessageBox.question(
            self,
            self.tr("Stop watching this folder?"),
            f"{folder}\n\n"
            + self.tr(
                "Its documents will be removed from the index. The files on your disk are not "
                "touched."
            ),
            QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel,
        )
        if answer == QMessageBox.StandardButton.Ok:
            self.session.remove_folder(folder)

    def _on_documents_rescan_requested(self) -> None:
        self.session.reindex()

    def _on_documents_document_activated(self, path: str) -> None:
        self.sources.show_file(path)

    def _on_documents_password_requested(self, path: str) -> None:
        password, ok = QInputDialog.getText(
            self,
            self.tr("Password"),
            self.tr("Password for {name}\n(used to read it now; not saved):").format(
                name=os.path.basename(path)
            ),
            QLineEdit.EchoMode.Password,
        )
        if ok and password:
            self.session.set_password(path, password)

    def _on_documents_reindex_requested(self, path: str) -> None:
        """Index again, or include again: the row says so at once, the log and the status bar
        too, and the run that reads it again follows (after the one in progress)."""
        name = os.path.basename(path)
        if self.session.app is None:
            self.statusBar().showMessage(
                self.tr("The library is still opening; ask again for {name} in a moment.").format(
                    name=name
                ),
                8000,
            )
            return
        log.info("indexing %s again, as asked", path)
        self.documents_model.apply(FileEvent(path, Status.QUEUED))
        if self.session.needs_rebuilding:
            self.session.reindex([path])  # it says why it waits
            return
        queued = (
            self.tr("{name} is queued to be indexed again after the indexing in progress.")
            if self.session.indexing
            else self.tr("{name} is queued to be indexed again.")
        )
        self.statusBar().showMessage(queued.format(name=name), 8000)
        self.session.reindex([path])

    # -- models --------------------------------------------------------------------------------

    def _on_session_embedder_state(self, state: str, detail: str) -> None:
        text = {
            ModelState.WAITING: self.tr("Search: waiting"),
            ModelState.LOADING: self.tr("Search: loading…"),
            ModelState.READY: self.tr("Search: ready"),
            ModelState.FAILED: self.tr("Search: failed"),
            ModelState.MISSING: self.tr("Search: missing"),
        }[ModelState(state)]
        self.embedder_label.setText(text)
        self.embedder_label.setToolTip(detail or self.tr("The model that finds passages (MiniLM)"))

    def _on_session_model_state(self, state: str, detail: str) -> None:
        name = self.session.model_name
        text = {
            ModelState.WAITING: self.tr("Answers: waiting"),
            ModelState.LOADING: self.tr("Answers: loading…"),
            ModelState.READY: self.tr("Answers: ready"),
            ModelState.FAILED: self.tr("Answers: failed"),
            ModelState.MISSING: self.tr("Answers: unavailable"),
        }[ModelState(state)]
        self.model_label.setText(text)
        self.model_label.setToolTip(f"{name}\n{detail}" if detail else name)
        if state == ModelState.FAILED:
            self.statusBar().showMessage(
                self.tr("The answer model could not be loaded: {why}").format(why=detail)
            )

    # -- conversations -------------------------------------------------------------------------

    def _on_session_conversations_loaded(self, items: list[Conversation]) -> None:
        self.conversations_model.set_conversations(items)
        if items and self.current is None:
            self.show_conversation(items[0])

    def _on_new_action_triggered(self) -> None:
        self.new_conversation()

    def _on_conversations_new_requested(self) -> None:
        self.new_conversation()

    def new_conversation(self, scope: Scope | None = None) -> None:
        """Show a new conversation, over the whole library or limited to a scope."""
        self.current = None
        self.state.pending_scope = scope or Scope()
        self.chat.set_scope(self.state.scope)
        self.conversations.select("")
        self.chat.show_conversation(None)
        self.sources.clear()
        self._show_kind()
        self.chat.question.setFocus()

    def show_conversation(self, conv: Conversation) -> None:
        if conv is not self.current:
            self.sources.clear()  # the page of another conversation's answer
        self.current = conv
        self.chat.set_scope(conv.scope)
        self.conversations.select(conv.id)
        self.chat.show_conversation(conv)
        if conv.exchanges:
            last = conv.exchanges[-1]
            self.sources_model.set_sources(last.sources, last.cited)
        else:
            self.sources.clear()
        self._show_kind()

    def _on_conversations_selected(self, conv_id: str) -> None:
        row = self.conversations_model.row_of(conv_id)
        conv = self.conversations_model.conversation(row)
        if conv is not None and conv is not self.current:
            self.show_conversation(conv)

    def _on_conversations_delete_requested(self, conv_id: str) -> None:
        if self.state.delete(conv_id):
            self.session.stop_answer()
        self.conversations_model.remove(conv_id)
        self.session.delete_conversation(conv_id)
        if self.current is not None and self.current.id == conv_id:
            self.new_conversation()

    # -- asking --------------------------------------------------------------------------------

    def _on_chat_question_submitted(self, question: str) -> None:
        self.ask(question)

    def ask(self, question: str, kind: str = AUTO) -> None:
        """Ask in the conversation shown, as the kind of question the rules say or `kind`."""
        history = self.state.ask(question)
        if history is None:
            self.statusBar().showMessage("Wait for the answer to finish, or stop it (Esc).", 5000)
            return
        conv = self.state.current
        assert conv is not None  # asking shows the conversation asked in
        self.conversations_model.upsert(conv)
        self.conversations.select(conv.id)
        self.sources.clear()  # the last answer's page is not one of this answer's sources
        self.chat.set_busy(True)
        self.chat.set_status(self.tr("Searching your documents…"))
        self.chat.show_conversation(conv)
        self.stop_action.setEnabled(True)
        self._show_kind()
        if not self.session.ask(question, history, conv.scope, kind):
            self._finish_answer()

    def outline(self, path: str) -> None:
        """Show a document's outline in the chat, as the answer to "Outline of NAME": in the
        conversation shown, unless its scope leaves the document out (the chip would say it
        answers from other documents); then in a new one about the document."""
        if self.state.in_progress is None and not self.state.scope.contains(path):
            self.new_conversation(Scope.of([path]))
        history = self.state.ask(f"Outline of {os.path.basename(path)}")
        if history is None:
            self.statusBar().showMessage("Wait for the answer to finish, or stop it (Esc).", 5000)
            return
        conv = self.state.current
        assert conv is not None
        exchange = conv.exchanges[-1]
        exchange.kind = DOCUMENT
        exchange.routed = f"Outline of {os.path.basename(path)} (from the document's menu)"
        self.conversations_model.upsert(conv)
        self.conversations.select(conv.id)
        self.sources.clear()
        self.chat.set_busy(True)
        self.chat.set_status(self.tr("Building the outline…"))
        self.chat.show_conversation(conv)
        self.stop_action.setEnabled(True)
        self._show_kind()
        if not self.session.outline(path):
            self._finish_answer()

    def _on_session_outline_progress(self, progress: Progress) -> None:
        if progress.files_total:
            self.chat.set_status(
                self.tr("Building the outline: {done} of {total} sections (ETA {eta})…").format(
                    done=progress.files_done, total=progress.files_total, eta=progress.eta_text
                )
            )

    def ask_about(self, paths: list[str]) -> None:
        """A new conversation that answers from these documents (or folders) only."""
        if not paths:
            return
        self.new_conversation(Scope.of(paths))

    def _on_documents_ask_about_requested(self, paths: list[str]) -> None:
        self.ask_about(paths)

    def _on_chat_scope_cleared(self) -> None:
        self.set_scope(Scope())

    def set_scope(self, scope: Scope) -> None:
        """Limit the conversation shown to a scope (or widen it back), kept with it."""
        conv = self.state.set_scope(scope)
        self.chat.set_scope(scope)
        if conv is not None and self.state.in_progress is None:
            self.session.save_conversation(conv)

    def _on_session_routed(self, routed: Routed) -> None:
        exchange = self.state.exchange
        if exchange is None:
            return
        exchange.kind, exchange.routed = routed.route.kind, routed.line
        if routed.notice:
            self.statusBar().showMessage(routed.notice, 15000)
        if self.state.shown:
            self._show_kind()

    def _on_kind_bar_kind_chosen(self, kind: str) -> None:
        """Ask the last question again, as the kind the user chose."""
        conv = self.current
        if conv is None or not conv.exchanges or self.state.in_progress is not None:
            return
        self.ask(conv.exchanges[-1].question, kind)

    def _show_kind(self) -> None:
        """The kind bar and the list of documents, for the last answer of the conversation
        shown (hidden for none, and for answers kept from before kinds were recorded)."""
        conv = self.current
        last = conv.exchanges[-1] if conv is not None and conv.exchanges else None
        busy = self.state.in_progress is not None
        self.kind_bar.show_kind(last.kind if last else "", last.routed if last else "")
        self.kind_bar.set_enabled(last is not None and not busy)
        if last is not None and last.mode == AnswerMode.LISTING and last.sources:
            self.doc_list.show_list(last.answer.split("\n", 1)[0].rstrip(":"), last.sources)
        else:
            self.doc_list.clear()
        self._update_other_action()

    def _update_other_action(self) -> None:
        """Chat > the last answer's other one: enabled, and saying which, when it has one."""
        conv = self.current
        last = conv.exchanges[-1] if conv is not None and conv.exchanges else None
        offer = other_answer(last, menu=True) if last is not None else ""
        composing = last is not None and any(e is last for e in self.chat.composing)
        # W for both ways: Alt+C, A (Answer as), N and S are taken in the Chat menu.
        self.other_answer_action.setText(offer or self.tr("Sho&w the documents' own sentences"))
        self.other_answer_action.setEnabled(
            bool(offer) and self.state.in_progress is None and not composing
        )

    def _on_doc_list_document_chosen(self, source: Source) -> None:
        """Open a listed document at its best passage (its first page if listed by fields)."""
        conv = self.current
        if conv is not None and conv.exchanges:
            last = conv.exchanges[-1]
            self.sources_model.set_sources(last.sources, last.cited)
        if source.text:
            self.sources.show_source(source)
        else:
            self.sources.show_file(source.path, source.page)

    def _on_session_answer_event(self, event: AnswerEvent) -> None:
        exchange = self.state.exchange
        if exchange is None:
            return
        shown = self.state.shown
        first_words = isinstance(event, TokenEvent) and not exchange.answer
        exchange.apply(event)
        if isinstance(event, SourcesEvent):
            if event.notice:  # searching by words only until the rebuild
                self.statusBar().showMessage(event.notice, 15000)
            if shown:
                self.sources_model.set_sources(exchange.sources)
            if self.session.model_status[0] != ModelState.READY:
                self.chat.set_status("Loading the answer model…")
            else:
                self.chat.set_status("Writing the answer…")
            self._redraw_if_shown()
        elif isinstance(event, QuotesEvent):
            self._redraw_if_shown()
        elif isinstance(event, TokenEvent):
            if first_words:
                self.chat.set_status("Writing the answer…")
            if shown:
                self.chat.schedule_redraw()
        elif isinstance(event, DoneEvent) and shown:
            self.sources_model.set_sources(exchange.sources, exchange.cited)

    def _on_session_answer_failed(self, message: str) -> None:
        exchange = self.state.exchange
        if exchange is not None:
            exchange.fail(message)

    def _on_session_answer_finished(self) -> None:
        self._finish_answer()

    def _finish_answer(self) -> None:
        conv = self.state.finish()
        self.stop_action.setEnabled(False)
        self.chat.set_busy(False)
        if conv is not None:
            self.session.save_conversation(conv)
        self.chat.refresh()
        self._show_kind()

    def _redraw_if_shown(self) -> None:
        if self.state.shown:
            self.chat.refresh()

    def _on_chat_source_clicked(self, exchange_index: int, n: int) -> None:
        conv = self.current
        if conv is None or not 0 <= exchange_index < len(conv.exchanges):
            return
        exchange = conv.exchanges[exchange_index]
        source = exchange.source(n)
        if source is None:
            self.statusBar().showMessage(
                self.tr("[{n}] is not one of this answer's sources.").format(n=n), 5000
            )
            return
        self.sources_model.set_sources(exchange.sources, exchange.cited)
        self.sources.show_source(source, [q.text for q in exchange.quotes if q.n == n])

    # -- the other answer: the documents' own sentences beside a written one ------------------

    def _on_chat_other_requested(self, index: int) -> None:
        self.show_other_answer(index)

    def _on_other_answer_action_triggered(self) -> None:
        if self.current is not None and self.current.exchanges:
            self.show_other_answer(len(self.current.exchanges) - 1)

    def show_other_answer(self, index: int) -> None:
        """Show an exchange's other answer in place of the one shown: kept from before, or
        the documents' own sentences, composed off the GUI thread the first time."""
        conv = self.current
        if conv is None or not 0 <= index < len(conv.exchanges):
            return
        exchange = conv.exchanges[index]
        if exchange is self.state.exchange or not other_answer(exchange):
            return  # being written, or nothing to offer
        if exchange.other is not None:
            exchange.swap()
            self._other_shown(conv, exchange)
            return
        if any(e is exchange for e in self.chat.composing):
            return
        why = self.session.compose((conv, exchange), exchange.question, exchange.sources)
        if why:
            self.statusBar().showMessage(why, 8000)
            return
        self.chat.composing.append(exchange)
        self.chat.redraw_exchange(index)
        self._update_other_action()

    def _on_session_composed(self, key: tuple[Conversation, Exchange], composed: Composed) -> None:
        conv, exchange = key
        self._stop_composing(exchange)
        exchange.take_other(
            Version(
                composed.text, AnswerMode.COMPOSED, tuple(composed.cited), tuple(composed.quotes)
            )
        )
        self._other_shown(conv, exchange)

    def _on_session_compose_failed(self, key: tuple[Conversation, Exchange], why: str) -> None:
        conv, exchange = key
        self._stop_composing(exchange)
        self._redraw_exchange(conv, exchange)
        self.statusBar().showMessage(
            self.tr("The documents' own sentences were not found: {why}").format(why=why), 10000
        )

    def _stop_composing(self, exchange: Exchange) -> None:
        self.chat.composing = [e for e in self.chat.composing if e is not exchange]

    def _other_shown(self, conv: Conversation, exchange: Exchange) -> None:
        """An exchange's answer changed for its other one: drawn again, its sources' cited
        marks too if they are listed, and saved (the answer shown is the one kept)."""
        if self.state.keep(conv) is not None and (
            self.state.in_progress is None or self.state.in_progress.conversation is not conv
        ):
            self.session.save_conversation(conv)  # else the answer being written's end saves it
        self._redraw_exchange(conv, exchange)
        if conv is self.current and exchange is conv.exchanges[-1]:
            self.sources_model.set_sources(exchange.sources, exchange.cited)

    def _redraw_exchange(self, conv: Conversation, exchange: Exchange) -> None:
        if conv is self.current:
            index = next((i for i, e in enumerate(conv.exchanges) if e is exchange), -1)
            if index >= 0:
                self.chat.redraw_exchange(index)
        self._update_other_action()

    def _page_boxes(self, path: str, page: int) -> list[str]:
        """An OCR'd page's word boxes, from the index (called on the viewer's worker)."""
        app = self.session.app
        return app.store.page_boxes(path, page) if app is not None else []

    def _on_sources_open_failed(self, path: str, why: str) -> None:
        if Path(path) == self.session.library_dir / GUIDE_NAME:
            self.statusBar().showMessage(
                self.tr("The guide is not in {folder}.").format(folder=self.session.library_dir),
                8000,
            )
        else:
            self.statusBar().showMessage(
                self.tr("{path} cannot be opened ({why}).").format(path=path, why=why), 8000
            )

    def _on_chat_copied(self, text: str) -> None:
        QGuiApplication.clipboard().setText(text)
        self.statusBar().showMessage(self.tr("Answer copied."), 3000)

    def _on_copy_action_triggered(self) -> None:
        self.chat.copy_answer(-1)

    # -- settings, help, notices ---------------------------------------------------------------

    def _on_settings_action_triggered(self) -> None:
        self.open_settings()

    def open_settings(self) -> None:
        dialog = SettingsDialog(self.session.settings, self)
        if dialog.exec():
            self.session.apply_settings(dialog.result_settings())
            self._on_session_model_state(*self.session.model_status)

    def _on_guide_action_triggered(self) -> None:
        self.sources.show_file(str(self.session.library_dir / GUIDE_NAME))

    def _on_about_action_triggered(self) -> None:
        QMessageBox.about(
            self,
            self.tr("About Desktop RAG"),
            self.tr(
                "<b>Desktop RAG {version}</b><p>Private answers from your own documents. "
                "Everything runs on this computer; nothing is sent anywhere.</p>"
                "<p>Answer model: {model}<br>Data: {data}</p>"
            ).format(
                version=__version__,
                model=self.session.model_name,
                data=self.session.settings.data_path,
            ),
        )

    def _on_session_notice(self, text: str) -> None:
        self.statusBar().showMessage(text, 10000)

    # -- drag and drop -------------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if any(url.isLocalFile() for url in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.drop_paths(paths)

    def drop_paths(self, paths: list[str]) -> None:
        """Folders become watched folders, documents are copied in, a .gguf becomes the model."""
        drop = classify_drop(paths, self.session.folders)
        for folder in drop.folders:
            self.session.add_folder(folder)
        if drop.documents:
            self.session.import_files(drop.documents)
        if drop.model:
            self.session.set_model(drop.model)
            self.statusBar().showMessage(
                self.tr("Using the model {name}.").format(name=os.path.basename(drop.model)), 8000
            )
        if drop.ignored and not (drop.folders or drop.documents or drop.model):
            path, why = drop.ignored[0]
            self.statusBar().showMessage(
                self.tr("{name} {why}; nothing added.").format(
                    name=os.path.basename(path), why=why
                ),
                8000,
            )

    # -- theme and closing ---------------------------------------------------------------------

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            refresh(self)
            self.chat.redraw()
        super().changeEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_panes()

    def _on_sources_stack_current_changed(self, _index: int) -> None:
        self._library_over_page = False
        self._fit_panes()

    def _on_sources_opened(self, _path: str) -> None:
        """A page asked for takes the library's place again in a narrow window."""
        if self._library_over_page:
            self._library_over_page = False
            self._fit_panes()

    def _on_library_action_toggled(self, checked: bool) -> None:
        if self._narrow_page() and checked != self._library_over_page:
            self._library_over_page = checked
            self._fit_panes()

    def _narrow_page(self) -> bool:
        """A narrow window with a page open: two panes of the three fit."""
        return self.width() < NARROW_WINDOW and self.sources.stack.currentIndex() == 1

    def _fit_panes(self) -> None:
        """A wide window shows the library, the chat and the source pane. A narrow one shows
        the library and the chat, or, while a page is open, the chat and the page (the Library
        button swaps the library back in); the Sources line under an answer and its [n] open
        a page."""
        narrow = self.width() < NARROW_WINDOW
        page = self.sources.stack.currentIndex() == 1
        show_page = page and not (narrow and self._library_over_page)
        show_library = not narrow or not show_page
        self.left.setVisible(show_library)
        self.sources.setVisible(show_page or not narrow)
        self.library_action.setVisible(narrow and page)
        self._library_separator.setVisible(narrow and page)
        self.library_action.setChecked(show_library)
        panes = (show_library, show_page)
        if narrow and panes != self._panes and show_page and not show_library:
            # The chat beside the page, both readable: the page gets what the chat can spare.
            total = sum(self.main.sizes())
            chat = max(CHAT_MIN_WIDTH, int(NARROW_CHAT_SHARE * total))
            self.main.setSizes([0, chat, max(0, total - chat)])
        self._panes = panes

    def closeEvent(self, event: QCloseEvent) -> None:
        """Stop the work, keep what is done, then quit once the jobs have let go."""
        if self._closed:
            event.accept()
            return
        event.ignore()
        if self._closing:
            return
        self._closing = True
        self.save_layout()
        conv = self.state.at_close()
        if conv is not None:
            self.session.save_conversation(conv)  # the partial answer, at least
        self.hide()
        self.session.shutdown()

    def _on_session_closed(self, clean: bool) -> None:
        self.clean_exit = clean
        self._closed = True
        self.close()
        app = QApplication.instance()
        if app is not None and self._quit_on_close:
            QTimer.singleShot(0, app.quit)
