"""The Settings dialog: watched folders, the model, threads, context size, sources per answer,
OCR, and the embedder for documents in several languages."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, QObject, Qt, QThreadPool
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QStyle,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_rag.config import Settings, cache_dir, default_threads
from desktop_rag.engines.discover import FoundModel, find_models, human_size
from desktop_rag.gui.icons import set_icon
from desktop_rag.gui.team_box import TeamLibraryBox
from desktop_rag.gui.workers import Job
from desktop_rag.library import is_gguf
from desktop_rag.query.ability import Abilities, settings_line

# What the bundled OCR reads well, measured (README, "Scanned PDFs"), in a reader's words.
OCR_HINT = QT_TRANSLATE_NOOP(
    "SettingsDialog",
    "Pages that are only pictures (scans, photos of pages) are read on this computer, up to "
    "half a minute a page. Print reads well in English, Chinese, Japanese and the languages "
    "written with accents (é, ü, ñ), which are kept. Handwriting is not read.",
)

# What the multilingual embedder changes, for a reader deciding whether to switch it on.
MULTILINGUAL_HINT = QT_TRANSLATE_NOOP(
    "SettingsDialog",
    "Finds passages in German, French, Spanish, Italian, Japanese, Chinese… by what they mean, "
    "not only by their words. Switching rebuilds the index in the background while the current "
    "one goes on answering by its words; indexing takes about half as long again from then on.",
)

PATH_ROLE = Qt.ItemDataRole.UserRole
# A search still running when its dialog closes keeps its job alive until it ends.
_running: set[Job] = set()


def full_width(label: QLabel) -> None:
    """A wrapped line as wide as the form's fields: left at its hint's width (a nested layout in
    a QFormLayout does not grow) it wraps into more lines than the dialog gave it room for."""
    label.setWordWrap(True)
    policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
    policy.setHeightForWidth(True)
    label.setSizePolicy(policy)


def choice(checked: bool, text: str, name: str, hint: str) -> tuple[QCheckBox, QVBoxLayout]:
    """A checkbox (its accessible name `name`) with what it does in a wrapped line under it,
    which is its tooltip too."""
    box = QCheckBox(text)
    box.setChecked(checked)
    box.setAccessibleName(name)
    box.setToolTip(hint)
    line = QLabel(hint)
    full_width(line)
    layout = QVBoxLayout()
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(box)
    layout.addWidget(line)
    return box, layout


class SettingsDialog(QDialog):
    """Edits a copy of the settings; `result_settings()` is read after exec() accepts."""

    def __init__(
        self,
        settings: Settings,
        parent: QWidget | None = None,
        find: Callable[[], list[FoundModel]] = find_models,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Settings"))
        self.setMinimumWidth(680)
        self._original = settings
        self.removed_folders: list[str] = []

        self.folders = QListWidget()
        self.folders.setAccessibleName(self.tr("Watched folders"))
        for folder in settings.folders:
            self.folders.addItem(folder)
            self.folders.item(self.folders.count() - 1).setToolTip(folder)
        self.folders.setFixedHeight(self.fontMetrics().lineSpacing() * 5 + 12)
        self.folders.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.folders.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        add = QPushButton(self.tr("Add…"))
        set_icon(add, "folder-add")
        add.setAccessibleName(self.tr("Add folder"))
        remove = QPushButton(self.tr("Remove"))
        set_icon(remove, "folder-remove")
        remove.setAccessibleName(self.tr("Remove folder"))
        add.clicked.connect(self._on_add_clicked)
        remove.clicked.connect(self._on_remove_clicked)
        folder_buttons = QVBoxLayout()
        folder_buttons.addWidget(add)
        folder_buttons.addWidget(remove)
        folder_buttons.addStretch(1)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.folders, 1)
        folder_row.addLayout(folder_buttons)

        self.model = QLineEdit(settings.model_path)
        self.model.setPlaceholderText(self.tr("Built in: Gemma 3 270M"))
        self.model.setAccessibleName(self.tr("Model file"))
        self.model.setClearButtonEnabled(True)
        browse = QPushButton(self.tr("Choose…"))
        browse.setAccessibleName(self.tr("Choose a model file"))
        browse.clicked.connect(self._on_browse_clicked)
        builtin = QPushButton(self.tr("Use built-in"))
        builtin.setAccessibleName(self.tr("Use the built-in model"))
        builtin.clicked.connect(self.model.clear)
        model_row = QHBoxLayout()
        model_row.addWidget(self.model, 1)
        model_row.addWidget(browse)
        model_row.addWidget(builtin)
        # Who writes the answers with the model in the field: measured per model.
        self.answers_line = QLabel()
        full_width(self.answers_line)
        self._abilities = Abilities(cache_dir() / "abilities.json")
        self.model.textChanged.connect(self._on_model_text_changed)
        self._on_model_text_changed(self.model.text())
        model_box = QVBoxLayout()
        model_box.setContentsMargins(0, 0, 0, 0)
        model_box.addLayout(model_row)
        model_box.addWidget(self.answers_line)

        # The models other apps already downloaded; choosing one fills in the file above.
        self.found = QTreeWidget()
        self.found.setAccessibleName(self.tr("Models found on this computer"))
        self.found.setHeaderLabels(
            [
                self.tr("Model"),
                self.tr("From"),
                self.tr("Quantisation"),
                self.tr("Size"),
                self.tr("Memory"),
            ]
        )
        self.found.setRootIsDecorated(False)
        self.found.setFixedHeight(self.fontMetrics().lineSpacing() * 6 + 24)
        self.found.itemSelectionChanged.connect(self._on_found_itemSelectionChanged)
        self.found.hide()
        self.found_status = QLabel(
            self.tr("Looking for models of LM Studio, Ollama, GPT4All, Jan…")
        )
        full_width(self.found_status)
        self._find_job = Job(lambda job: find(), "find models")
        self._find_job.signals.returned.connect(self._on_find_job_returned)
        self._find_job.signals.errored.connect(self._on_find_job_errored)
        job = self._find_job
        _running.add(job)
        job.signals.finished.connect(lambda: _running.discard(job))
        QThreadPool.globalInstance().start(self._find_job)

        self.threads = QSpinBox()
        self.threads.setRange(0, max(64, os.cpu_count() or 1))
        self.threads.setSpecialValueText(self.tr("Automatic ({n})").format(n=default_threads()))
        self.threads.setValue(settings.n_threads)
        self.threads.setAccessibleName(self.tr("Processor threads"))

        # How much text the model reads at once, in its word pieces ("tokens"), said in
        # words beside it: about three words for four pieces.
        self.n_ctx = QSpinBox()
        self.n_ctx.setRange(512, 131072)
        self.n_ctx.setSingleStep(1024)
        self.n_ctx.setAccessibleName(self.tr("Text the model reads at once"))
        self.n_ctx_words = QLabel()
        self.n_ctx.valueChanged.connect(self._on_n_ctx_value_changed)
        self.n_ctx.setValue(settings.n_ctx)
        self._on_n_ctx_value_changed(self.n_ctx.value())
        n_ctx_row = QHBoxLayout()
        n_ctx_row.addWidget(self.n_ctx)
        n_ctx_row.addWidget(self.n_ctx_words, 1)

        self.top_k = QSpinBox()
        self.top_k.setRange(1, 20)
        self.top_k.setValue(settings.top_k)
        self.top_k.setAccessibleName(self.tr("Sources per answer"))

        self.ocr, ocr_box = choice(
            settings.ocr,
            self.tr("Read scanned pages with OCR (on this computer, offline)"),
            self.tr("Read scanned pages with OCR"),
            self.tr(str(OCR_HINT)),
        )
        self.multilingual, multilingual_box = choice(
            settings.multilingual,
            self.tr("My documents are in several languages"),
            self.tr("My documents are in several languages"),
            self.tr(str(MULTILINGUAL_HINT)),
        )

        self.team = TeamLibraryBox(settings)

        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #c0392b;")
        self.error.hide()

        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        form.addRow(self.tr("Watched folders:"), folder_row)
        form.addRow(self.tr("Answer model:"), model_box)
        found_box = QVBoxLayout()
        found_box.setContentsMargins(0, 0, 0, 0)
        found_box.addWidget(self.found_status)
        found_box.addWidget(self.found)
        form.addRow(self.tr("Models on this computer:"), found_box)
        form.addRow(self.tr("Processor threads:"), self.threads)
        form.addRow(self.tr("Text read at once:"), n_ctx_row)
        form.addRow(self.tr("Sources per answer:"), self.top_k)
        form.addRow(self.tr("Scanned PDFs:"), ocr_box)
        form.addRow(self.tr("Languages:"), multilingual_box)
        hint = QLabel(
            self.tr(
                "The more text the model reads at once, the more sources it can read, and the "
                "more memory it needs. Removing a folder removes its documents from the index, "
                "never from your disk."
            )
        )
        hint.setWordWrap(True)
        # The team library is for a few: its own tab, out of everyone's way.
        general = QWidget()
        general_layout = QVBoxLayout(general)
        general_layout.addLayout(form)
        general_layout.addWidget(hint)
        general_layout.addStretch(1)
        team_page = QWidget()
        team_layout = QVBoxLayout(team_page)
        team_layout.addWidget(self.team)
        team_layout.addStretch(1)
        # On a short screen (900x600) the General page scrolls: OK and Cancel stay on it.
        self._general = general
        self._fitted = -1  # the height _fit_height last gave the dialog
        for label in general.findChildren(QLabel):
            if label.wordWrap():
                label.installEventFilter(self)  # see eventFilter
                # Where a font's metrics make a line's height for its width one line too many,
                # the spare line falls below the text, not half above it.
                label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self._general_scroll = QScrollArea()
        self._general_scroll.setWidget(general)
        self._general_scroll.setWidgetResizable(True)
        self._general_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self._general_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # As wide as the page needs, with room for its scroll bar: never clipped on the right.
        scroll_bar = self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        self._general_scroll.setMinimumWidth(general.minimumSizeHint().width() + scroll_bar)
        self.tabs = QTabWidget()
        self.tabs.addTab(self._general_scroll, self.tr("&General"))
        self.tabs.addTab(team_page, self.tr("&Team library"))

        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        # The width set above is a floor: a page wider in its language (German) widens the
        # dialog, even where a short screen makes Qt open it narrower than its hint.
        self.setMinimumWidth(max(self.minimumWidth(), layout.totalMinimumSize().width()))

    def _on_add_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Add a folder of documents"))
        if folder and not self.folders.findItems(folder, Qt.MatchFlag.MatchExactly):
            self.folders.addItem(folder)

    def _on_remove_clicked(self) -> None:
        for item in self.folders.selectedItems():
            self.folders.takeItem(self.folders.row(item))

    def _on_browse_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            self.tr("Choose a GGUF model"),
            "",
            self.tr("GGUF models (*.gguf);;All files (*)"),
        )
        if path:
            self.model.setText(path)

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        # Any line changed (the model search's message, the list of models, an error) asks
        # for a new layout: once the layout has taken it in, the height is fitted to it.
        if event.type() == QEvent.Type.LayoutRequest:
            self._fit_height()
        return handled

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # A wrapped line under a checkbox (what OCR reads, in German on a short screen) was
        # given one line fewer than it wraps into at its width and drawn over the checkbox:
        # each keeps the height its width needs, whenever its width changes.
        if (
            event.type() == QEvent.Type.Resize
            and isinstance(watched, QLabel)
            and isinstance(event, QResizeEvent)
            and event.size().width() != event.oldSize().width()
        ):
            watched.setMinimumHeight(watched.heightForWidth(event.size().width()))
        return super().eventFilter(watched, event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_height()

    def _fit_height(self) -> None:
        """At least the height the wrapped lines need at this width: a dialog sized by its
        hint gives a long line ("No models found ...", what OCR reads) one line's height, and
        the lines are drawn over each other. No taller than the screen, though: there the
        General page scrolls instead."""
        layout, page = self.layout(), self._general.layout()
        if layout is None or page is None or not page.hasHeightForWidth():
            return
        viewport = self._general_scroll.viewport()
        around = layout.totalSizeHint().height() - self._general_scroll.sizeHint().height()
        need = around + page.totalHeightForWidth(max(viewport.width(), page.minimumSize().width()))
        screen = self.screen()
        if screen is not None:
            frame = self.frameGeometry().height() - self.geometry().height()
            need = min(need, screen.availableGeometry().height() - max(frame, 0))
        self.setMinimumHeight(need)
        # Grown here for lines that wrapped into more while the dialog was still narrow, it
        # shrinks back once they need less, unless the user has resized it since.
        if self.height() < need or (self.height() == self._fitted and self.height() > need):
            self.resize(self.width(), need)
            self._fitted = need

    def _on_n_ctx_value_changed(self, value: int) -> None:
        # The thousands separator is the translation's ("3,100" in English, "3.100" in German).
        separator = self.tr(",", "thousands separator")
        words = f"{round(value * 0.75, -2):,.0f}".replace(",", separator)
        self.n_ctx_words.setText(self.tr("word pieces, about {words} words").format(words=words))

    def _on_model_text_changed(self, text: str) -> None:
        self.answers_line.setText(settings_line(text.strip(), self._abilities))

    def _on_find_job_returned(self, models: object) -> None:
        assert isinstance(models, list)
        self.show_found(models)

    def _on_find_job_errored(self, exc: object) -> None:
        self.found_status.setText(
            self.tr("Could not look for other apps' models: {why}").format(why=exc)
        )

    def show_found(self, models: list[FoundModel]) -> None:
        self.found.clear()
        if not models:
            self.found_status.setText(
                self.tr(
                    "No models found in the folders of LM Studio, Ollama, GPT4All, Jan or "
                    "llama.cpp. Choose a .gguf file instead."
                )
            )
            return
        self.found_status.setText(self.tr("Downloaded by other apps; choose one to use it."))
        current = self.model.text().strip()
        for m in models:
            memory = self.tr("fits") if m.fits else self.tr("too large")
            item = QTreeWidgetItem(
                [m.name, m.app, m.quantisation or "?", human_size(m.size), memory]
            )
            item.setData(0, PATH_ROLE, m.path)
            for column in range(5):
                item.setToolTip(column, m.path)
            if not m.fits:
                item.setToolTip(
                    4,
                    self.tr("Needs about {needed} of memory; {free} is free now.").format(
                        needed=human_size(m.needed), free=human_size(m.available)
                    ),
                )
            if not m.fits:
                item.setForeground(4, self.palette().placeholderText())
            self.found.addTopLevelItem(item)
            if m.path == current:
                item.setSelected(True)
        for column in range(5):
            self.found.resizeColumnToContents(column)
        self.found.show()

    def _on_found_itemSelectionChanged(self) -> None:
        items = self.found.selectedItems()
        if items:
            self.model.setText(str(items[0].data(0, PATH_ROLE)))

    def folder_list(self) -> list[str]:
        return [self.folders.item(i).text() for i in range(self.folders.count())]

    def result_settings(self) -> Settings:
        chosen = replace(
            self._original,
            folders=self.folder_list(),
            model_path=self.model.text().strip(),
            n_threads=self.threads.value(),
            n_ctx=self.n_ctx.value(),
            top_k=self.top_k.value(),
            ocr=self.ocr.isChecked(),
            multilingual=self.multilingual.isChecked(),
        )
        return self.team.apply(chosen)

    def validate(self) -> str:
        """An error message, or "" when the settings can be used."""
        model = self.model.text().strip()
        if model and not os.path.isfile(model):
            return self.tr("The model file {path} does not exist.").format(path=model)
        if model and not is_gguf(model):
            return self.tr("{path} is not a GGUF model file.").format(path=model)
        return self.team.validate()

    def accept(self) -> None:
        problem = self.validate()
        if problem:
            self.error.setText(problem)
            self.error.show()
            return
        self.removed_folders = [f for f in self._original.folders if f not in self.folder_list()]
        if self.removed_folders and not self._confirm_removal():
            return
        super().accept()

    def _confirm_removal(self) -> bool:
        names = "\n".join(self.removed_folders)
        answer = QMessageBox.question(
            self,
            self.tr("Remove folders from the library?"),
            self.tr(
                "These folders will no longer be watched, and their documents will be removed "
                "from the index (the files on your disk are not touched):"
            )
            + f"\n\n{names}",
            QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel,
        )
        return answer == QMessageBox.StandardButton.Ok
