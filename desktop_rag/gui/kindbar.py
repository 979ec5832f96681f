"""Which kind of question the last answer took it for, and a way to answer it as another.

The rules of query/kind.py send a question to passages, to one document's outline or to a list
of documents; the bar says which and why ("Listing documents (asks which documents)"), and its
menu (or Ctrl+1, Ctrl+2, Ctrl+3) asks the same question again as the kind the user chooses.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QSizePolicy, QToolButton, QWidget

from desktop_rag.gui.words import kind_line
from desktop_rag.query.kind import DOCUMENT, KINDS, LIBRARY, PASSAGE

# Each item's text (translated where shown) and keys; the keys are the same in every language.
CHOICES = {
    PASSAGE: (QT_TRANSLATE_NOOP("KindBar", "Answer from &passages"), "Ctrl+1"),
    DOCUMENT: (QT_TRANSLATE_NOOP("KindBar", "Answer with the &document's outline"), "Ctrl+2"),
    LIBRARY: (QT_TRANSLATE_NOOP("KindBar", "Answer with a &list of documents"), "Ctrl+3"),
}


class KindBar(QWidget):
    """The kind of the last answer, and "Answer as" to ask it again as another kind."""

    kind_chosen = Signal(str)  # one of query.kind.KINDS

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel()
        self.label.setAccessibleName(self.tr("Kind of question"))
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        # A long line ("Outline of ULTABEAUTY_2023Q4_EARNINGS.pdf (asks for …)") wraps instead
        # of widening the chat and squeezing the panes beside it.
        self.label.setWordWrap(True)
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.label.setToolTip(
            self.tr(
                "How the question was taken, by plain rules; Answer as asks it again as another "
                "kind"
            )
        )
        self.menu = QMenu(self.tr("Answer as"), self)
        self.group = QActionGroup(self)
        self.group.setExclusive(True)
        self._actions: dict[str, QAction] = {}
        for kind in KINDS:
            text, keys = CHOICES[kind]
            action = QAction(self.tr(str(text)), self)
            action.setCheckable(True)
            action.setData(kind)
            action.setShortcut(QKeySequence(keys))
            # The window adds these to its Chat menu, so the keys work wherever focus is.
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            self.group.addAction(action)
            self.menu.addAction(action)
            self._actions[kind] = action
        self.group.triggered.connect(self._on_group_triggered)
        self.button = QToolButton()
        self.button.setText(self.tr("Answer as"))
        self.button.setAutoRaise(True)
        self.button.setAccessibleName(self.tr("Answer as another kind of question"))
        self.button.setMenu(self.menu)
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 2, 0, 0)
        row.addWidget(self.label, 1)
        row.addWidget(self.button)
        self.set_enabled(False)
        self.hide()

    def action(self, kind: str) -> QAction:
        return self._actions[kind]

    def actions_for_menu(self) -> list[QAction]:
        return [self._actions[k] for k in KINDS]

    def show_kind(self, kind: str, line: str) -> None:
        """Say how the last question was taken; "" hides the bar (an answer saved before)."""
        if kind not in self._actions:
            self.hide()
            return
        self.label.setText(kind_line(line))
        self._actions[kind].setChecked(True)
        self.show()

    def set_enabled(self, enabled: bool) -> None:
        """Asking again is possible only while no answer is being written."""
        for action in self._actions.values():
            action.setEnabled(enabled)
        self.button.setEnabled(enabled)

    def _on_group_triggered(self, action: QAction) -> None:
        self.kind_chosen.emit(str(action.data()))
