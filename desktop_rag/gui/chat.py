"""The chat pane: the conversation as it streams, [n] links to sources, and the question box.

Drawing a long conversation takes a noticeable fraction of a second, so it is drawn whole
only when another one is shown. The last exchange sits at the end of the document and is
redrawn alone; a streaming answer's new text is appended to it, citations included.
"""

from __future__ import annotations

import html
import re
from collections.abc import Collection
from urllib.parse import quote, unquote

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QModelIndex,
    QPoint,
    Qt,
    QTimer,
    QUrl,
    Signal,
)
from PySide6.QtGui import (
    QAction,
    QColor,
    QKeyEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
)
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QListView,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_rag.conversations import Conversation, Exchange
from desktop_rag.gui.icons import icon, set_icon, tool_button
from desktop_rag.gui.models import ConversationsModel
from desktop_rag.gui.words import answer_label, cite, note, place, recited_note, unsupported_note
from desktop_rag.library import GUIDE_QUESTION
from desktop_rag.query.scope import Scope
from desktop_rag.team import source_name
from desktop_rag.types import AnswerMode, Explanation

_CITE = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
FOLLOW_MARGIN_PX = 8  # room above the last question when a long answer stops the scrolling
# Translated where they are shown (QCoreApplication.translate, context ChatPane).
SHOW_COMPOSED = QT_TRANSLATE_NOOP("ChatPane", "Show the documents' own sentences")
COMPOSING = QT_TRANSLATE_NOOP("ChatPane", "Finding the documents' own sentences…")
NOTHING_CLOSE = QT_TRANSLATE_NOOP(
    "ChatPane", "None of the sources' sentences answers it closely enough."
)


def _tr(text: object) -> str:
    """`text` in the window's language, for the chat's plain functions (PySide6 types what
    QT_TRANSLATE_NOOP returns as object)."""
    return QCoreApplication.translate("ChatPane", str(text))


class QuestionEdit(QPlainTextEdit):
    """Enter sends, Shift+Enter starts a new line."""

    submitted = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not (
            event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        ):
            self.submitted.emit()
            return
        super().keyPressEvent(event)


ORDINAL = QT_TRANSLATE_NOOP("ChatPane", "{n}th")  # a rank: "3." in German, "n° 3" in French


def _ordinal(n: int) -> str:
    """A rank as the window's language writes it: English's 1st, 2nd, 3rd are no one pattern,
    so they are made here, and a translation of ORDINAL gives its language's ("{n}.")."""
    said = _tr(ORDINAL)
    if said != ORDINAL:
        return said.format(n=n)
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def plain_why(why: Explanation) -> str:
    """How the search ranked a passage, in a reader's words ("BM25 #1 (22.31) · vector #4
    (0.714)" is `Explanation.describe`, one click further)."""
    parts = [
        QCoreApplication.translate("ChatPane", "{nth} best match for your words").format(
            nth=_ordinal(why.text_rank)
        )
        if why.text_rank is not None
        else QCoreApplication.translate("ChatPane", "none of your words"),
        QCoreApplication.translate("ChatPane", "{nth} closest in meaning").format(
            nth=_ordinal(why.vector_rank)
        )
        if why.vector_rank is not None
        else QCoreApplication.translate("ChatPane", "not among the closest in meaning"),
    ]
    if why.sentence is not None:
        parts.append(QCoreApplication.translate("ChatPane", "moved up for its best sentence"))
    if why.demoted:
        parts.append(
            QCoreApplication.translate("ChatPane", "moved down: {why}").format(why=why.demoted)
        )
    return " · ".join(parts)


def _text_html(text: str) -> str:
    return html.escape(text).replace("\n", "<br>")


def settled(text: str) -> int:
    """How much of a streaming answer can be drawn now: all of it but a citation still open
    ("[1" waits for its "]", so that it becomes a link)."""
    start = text.rfind("[")
    if start >= 0 and "]" not in text[start:] and len(text) - start <= 16:
        return start
    return len(text)


def opaque(color: QColor, under: QColor) -> QColor:
    """A translucent colour as it shows over another: the HTML the chat draws takes #rrggbb,
    and Fusion's placeholder colour is the text's at half alpha, so a label set in it as is
    ("Written by… from the sources") looked as dark as the answer under it."""
    a = color.alphaF()
    return QColor.fromRgbF(
        a * color.redF() + (1 - a) * under.redF(),
        a * color.greenF() + (1 - a) * under.greenF(),
        a * color.blueF() + (1 - a) * under.blueF(),
    )


def _own(match: re.Match[str], sources: Collection[int] | None) -> bool:
    """A citation of the answer's own sources, not a number in brackets it quotes (a paper's
    "[16]")."""
    return sources is None or all(int(n) in sources for n in match.group(1).split(","))


def other_answer(e: Exchange, *, menu: bool = False) -> str:
    """What the link under a finished answer offers instead of it ("" for nothing): the
    documents' own sentences under one the model wrote (unless they were found not to
    answer), and the model's answer back under them. `menu`: as the Chat menu's item says it,
    with its accelerator (W for both ways: C, A, N and S are taken in that menu)."""
    if not e.complete:
        return ""
    if e.other is not None and e.other.mode == AnswerMode.WRITTEN and e.other.answer:
        if menu:
            if not e.model:
                return QCoreApplication.translate("MainWindow", "Sho&w the model's answer")
            return QCoreApplication.translate("MainWindow", "Sho&w {model}'s answer").format(
                model=e.model.replace("&", "&&")
            )
        if not e.model:
            return QCoreApplication.translate("ChatPane", "Show the model's answer")
        return QCoreApplication.translate("ChatPane", "Show {model}'s answer").format(model=e.model)
    if e.mode == AnswerMode.WRITTEN and (e.other is None or e.other.answer):
        if menu:
            return QCoreApplication.translate("MainWindow", "Sho&w the documents' own sentences")
        return _tr(SHOW_COMPOSED)
    return ""


def answer_html(exchange_index: int, text: str, sources: Collection[int] | None = None) -> str:
    """The answer as HTML, each [n] (or [n, m]) of its `sources` a link to its source."""
    out = []
    last = 0
    for m in _CITE.finditer(text):
        if not _own(m, sources):
            continue
        out.append(_text_html(text[last : m.start()]))
        links = [
            f'<a href="cite:{exchange_index}:{n.strip()}">{n.strip()}</a>'
            for n in m.group(1).split(",")
        ]
        out.append("[" + ", ".join(links) + "]")
        last = m.end()
    out.append(_text_html(text[last:]))
    return "".join(out)


class ConversationView(QTextBrowser):
    """The transcript, keeping its place when it narrows or widens: in a narrow window the
    page viewer comes in beside the chat, and the rewrapped text showed an earlier answer."""

    at_end_resized = Signal()  # it was at its end (following the last answer) before

    def resizeEvent(self, event: QResizeEvent) -> None:
        bar = self.verticalScrollBar()
        at_end = bar.value() >= bar.maximum() - 4
        top = self.cursorForPosition(QPoint(0, 0)).position() if bar.value() > 0 else -1
        super().resizeEvent(event)
        if at_end:
            self.at_end_resized.emit()
        elif top >= 0:
            cursor = QTextCursor(self.document())
            cursor.setPosition(top)
            bar.setValue(bar.value() + self.cursorRect(cursor).top())


class ChatPane(QWidget):
    """Shows one conversation; emits what the user wants, the window runs it."""

    question_submitted = Signal(str)
    stop_requested = Signal()
    source_clicked = Signal(int, int)  # exchange index, source number
    new_requested = Signal()
    copied = Signal(str)
    scope_cleared = Signal()  # the chip's clear button: ask the whole library again
    scope_chosen = Signal(object)  # a Scope picked from the chip's menu (a saved collection)
    other_requested = Signal(int)  # exchange index: show its other answer (other_answer)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.conversation: Conversation | None = None
        self._busy = False
        self._status = ""
        self._first_start = False
        self._documents = 0  # indexed documents in the library
        self._suggestions: list[str] = []  # questions from the documents' headings
        # The answers (their indexes in the conversation shown) whose sources show how
        # retrieval ranked each one (BM25, vectors, demotion).
        self.explained: set[int] = set()
        self.figures: set[int] = set()  # ... with the search's own figures (BM25, cosine)
        # The exchanges whose documents' own sentences are being looked for (by identity:
        # the window may show another conversation before they arrive).
        self.composing: list[Exchange] = []

        self.view = ConversationView()
        self.view.at_end_resized.connect(self._follow)
        self.view.setOpenLinks(False)
        self.view.setAccessibleName(self.tr("Conversation"))
        self.view.anchorClicked.connect(self._on_view_anchor_clicked)

        self.status = QLabel()
        self.status.setAccessibleName(self.tr("Answer status"))
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

        self.question = QuestionEdit()
        self.question.setPlaceholderText(self.tr("Ask a question about your documents…"))
        self.question.setToolTip(self.tr("Enter sends the question; Shift+Enter starts a new line"))
        self.question.setAccessibleName(self.tr("Question"))
        self.question.setTabChangesFocus(True)
        self.question.setFixedHeight(self.question.fontMetrics().lineSpacing() * 3 + 16)
        self.question.submitted.connect(self._on_question_submitted)

        self.send_button = QPushButton(self.tr("Ask"))
        set_icon(self.send_button, "send")
        self.send_button.setAccessibleName(self.tr("Ask"))
        self.send_button.setToolTip(self.tr("Send the question (Enter)"))
        self.send_button.clicked.connect(self._on_question_submitted)
        self.stop_button = QPushButton(self.tr("Stop"))
        set_icon(self.stop_button, "stop")
        self.stop_button.setAccessibleName(self.tr("Stop answering"))
        self.stop_button.setToolTip(self.tr("Stop the answer (Esc)"))
        self.stop_button.clicked.connect(self.stop_requested)
        self.stop_button.hide()

        # The scope chip: what the questions of this conversation are answered from, when
        # not the whole library, with a button to widen it back.
        self.scope_label = QLabel()
        self.scope_label.setAccessibleName(self.tr("Scope"))
        self.scope_label.setTextFormat(Qt.TextFormat.PlainText)
        self.scope_clear = QToolButton()
        self.scope_clear.setText("×")
        self.scope_clear.setAutoRaise(True)
        self.scope_clear.setAccessibleName(self.tr("Clear the scope"))
        self.scope_clear.setToolTip(self.tr("Ask the whole library again"))
        self.scope_clear.clicked.connect(self.scope_cleared)
        # Change the scope to a saved collection (`desktop-rag collection add`), or back.
        self.scope_menu = QMenu(self)
        self.scope_menu.triggered.connect(self._on_scope_menu_triggered)
        self.scope_change = QToolButton()
        self.scope_change.setText(self.tr("Change"))
        self.scope_change.setAutoRaise(True)
        self.scope_change.setAccessibleName(self.tr("Change the scope"))
        self.scope_change.setToolTip(
            self.tr("Answer from a saved collection, or from all documents")
        )
        self.scope_change.setMenu(self.scope_menu)
        self.scope_change.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.collections: dict[str, list[str]] = {}
        self.scope_chip = QFrame()
        self.scope_chip.setObjectName("scopeChip")
        self.scope_chip.setFrameShape(QFrame.Shape.StyledPanel)
        chip_row = QHBoxLayout(self.scope_chip)
        chip_row.setContentsMargins(6, 0, 0, 0)
        chip_row.addWidget(self.scope_label, 1)
        chip_row.addWidget(self.scope_change)
        chip_row.addWidget(self.scope_clear)
        self.scope_chip.hide()
        self.scope = Scope()

        ask_row = QHBoxLayout()
        ask_row.addWidget(self.question, 1)
        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        ask_row.addLayout(buttons)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.status)
        layout.addWidget(self.scope_chip)
        layout.addLayout(ask_row)

        # What the document shows: `_shown`'s exchanges, the last of them (index `_tail`)
        # from character `_tail_start` to the end, its answer drawn up to `_drawn` characters.
        self._shown: Conversation | None = None
        self._tail = -1
        self._tail_start = 0
        self._drawn = 0
        self._tail_busy = False  # drawn while answering: drawn again once the answer ends
        # The last question was just asked: its answer is followed wherever the view was,
        # until the reader moves the scroll bar (a new question is always brought into view).
        self._following = False
        self.view.verticalScrollBar().actionTriggered.connect(self._on_bar_action_triggered)

        self._redraw_timer = QTimer(self)
        self._redraw_timer.setSingleShot(True)
        self._redraw_timer.setInterval(50)  # streaming redraws at most 20 times a second
        self._redraw_timer.timeout.connect(self._on_redraw_timer_timeout)
        self.redraw()

    # -- state ---------------------------------------------------------------------------------

    def show_conversation(self, conversation: Conversation | None) -> None:
        """Show a conversation; the one already shown, with a new exchange or a changed last
        one, is brought up to date without drawing its earlier exchanges again."""
        if conversation is not self.conversation:
            self.explained.clear()  # "Why these?" was asked of an answer of the other one
            self.figures.clear()
        self.conversation = conversation
        self.refresh()

    def add_panel(self, panel: QWidget) -> None:
        """A panel under the transcript, above the status line (the kind of the last question,
        a library answer's documents): added in order."""
        layout = self.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(layout.indexOf(self.status), panel)

    def set_collections(self, collections: dict[str, list[str]]) -> None:
        """The saved collections the chip offers (the chip shows while there are any)."""
        self.collections = dict(collections)
        self.scope_menu.clear()
        self.scope_menu.addAction(self.tr("All documents")).setData("")
        for name in sorted(self.collections):
            self.scope_menu.addAction(name).setData(name)
        self.set_scope(self.scope)

    def _on_scope_menu_triggered(self, action: QAction) -> None:
        name = str(action.data() or "")
        paths = self.collections.get(name, [])
        self.scope_chosen.emit(Scope.of(paths, name) if name else Scope())

    def set_scope(self, scope: Scope) -> None:
        """Show the scope of the conversation shown in the chip: hidden for the whole
        library unless there are collections to choose from."""
        self.scope = scope
        self.scope_label.setText(self.tr("Answering from: {scope}").format(scope=scope.label()))
        self.scope_chip.setToolTip("\n".join(scope.paths))
        self.scope_clear.setVisible(not scope.whole_library)
        self.scope_change.setVisible(bool(self.collections))
        self.scope_chip.setVisible(not scope.whole_library or bool(self.collections))
        self.question.setPlaceholderText(
            self.tr("Ask a question about your documents…")
            if scope.whole_library
            else self.tr("Ask a question about {scope}…").format(scope=scope.label())
        )
        # QPlainTextEdit repaints only when its hint shows or hides, not when it changes: the
        # last conversation's "Ask a question about 2 documents…" stayed on screen.
        self.question.viewport().update()

    def set_first_start(self, first: bool) -> None:
        self._first_start = first
        self.redraw()

    def set_documents(self, indexed: int) -> None:
        """How many documents the library holds: the welcome says the guide is the only one
        only while it is."""
        if indexed != self._documents:
            self._documents = indexed
            if self.conversation is None or not self.conversation.exchanges:
                self.redraw()

    def set_suggestions(self, questions: list[str]) -> None:
        """Questions the welcome offers, drawn from the user's documents (the guide's too)."""
        if questions != self._suggestions:
            self._suggestions = list(questions)
            if self.conversation is None or not self.conversation.exchanges:
                self.redraw()

    def set_busy(self, busy: bool) -> None:
        self._busy = busy
        self.send_button.setVisible(not busy)
        self.stop_button.setVisible(busy)
        if not busy:
            self.set_status("")

    def set_status(self, text: str) -> None:
        self._status = text
        self.status.setText(text)
        self.status.setVisible(bool(text))

    def schedule_redraw(self) -> None:
        if not self._redraw_timer.isActive():
            self._redraw_timer.start()

    # -- input ---------------------------------------------------------------------------------

    def _on_question_submitted(self) -> None:
        text = self.question.toPlainText().strip()
        if not text or self._busy:
            return
        self.question.clear()
        self.question_submitted.emit(text)

    def ask(self, text: str) -> None:
        """Put a question in the box and send it (the welcome hint's link does this)."""
        self.question.setPlainText(text)
        self._on_question_submitted()

    def _on_view_anchor_clicked(self, url: QUrl) -> None:
        scheme, _, rest = url.toString().partition(":")
        if scheme in ("cite", "src"):
            i, _, n = rest.partition(":")
            self.source_clicked.emit(int(i), int(n))
        elif scheme == "copy":
            self.copy_answer(int(rest))
        elif scheme == "other":
            self.other_requested.emit(int(rest))
        elif scheme == "explain":
            self.set_explain(int(rest), int(rest) not in self.explained)
        elif scheme == "figures":
            self.figures.symmetric_difference_update({int(rest)})
            self.redraw()
        elif scheme == "ask":
            self.ask(unquote(rest))

    def copy_answer(self, index: int = -1) -> None:
        conv = self.conversation
        if conv is None or not conv.exchanges:
            return
        exchange = conv.exchanges[index]
        if exchange.answer:
            self.copied.emit(exchange.answer)

    # -- drawing -------------------------------------------------------------------------------

    def redraw(self) -> None:
        """Draw the whole conversation again (another one shown, the palette changed)."""
        bar = self.view.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum() - 4
        conv = self.conversation
        if conv is not self._shown:
            self._following = False
        self._shown = conv
        self._tail = -1
        self.view.document().setDefaultStyleSheet(self._style())
        if conv is None or not conv.exchanges:
            self.view.setHtml(self._welcome_html())
            return
        last = len(conv.exchanges) - 1
        body = [self._exchange_html(i, e) for i, e in enumerate(conv.exchanges[:last])]
        self.view.setHtml(self._page("".join(body)))
        self._start_tail(last)
        if at_bottom:
            self._follow()

    def refresh(self) -> None:
        """Bring the view up to date, drawing as little as the change needs."""
        conv = self.conversation
        count = len(conv.exchanges) if conv is not None else 0
        if (
            conv is None
            or conv is not self._shown
            or count == 0
            or self._tail
            not in (
                count - 1,
                count - 2,
            )
        ):
            self.redraw()
            return
        bar = self.view.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum() - 4 or self._following
        if self._tail == count - 1 or self._tail_busy:
            self._redraw_tail()
        if self._tail == count - 2:  # a new question: the previous exchange stays as drawn
            self._start_tail(count - 1)
            at_bottom = self._following = True
        if at_bottom:
            self._follow()

    def redraw_exchange(self, index: int) -> None:
        """Draw one exchange of the conversation shown again (its other answer is shown, or
        is being looked for): the last one alone; an earlier one with the whole
        conversation, the view kept where the reader had it."""
        if self.conversation is not self._shown or self._tail < 0:
            self.redraw()
        elif index == self._tail:
            self._redraw_tail()
        else:
            bar = self.view.verticalScrollBar()
            value = bar.value()
            self.redraw()
            bar.setValue(value)

    def _on_bar_action_triggered(self, _action: int) -> None:
        self._following = False  # the reader scrolls: leave the view where they take it

    def _on_redraw_timer_timeout(self) -> None:
        conv = self.conversation
        if conv is None or conv is not self._shown or self._tail != len(conv.exchanges) - 1:
            self.refresh()
            return
        exchange = conv.exchanges[self._tail]
        if self._drawn == 0 or self._drawn > len(exchange.answer):
            self.refresh()  # the first words replace "Thinking…"
            return
        self._append_answer(exchange)

    def _follow(self) -> None:
        """Keep the end in view as it grows, but never scroll the last question above the
        top: a long answer (an outline arrives all at once) is read from its start."""
        bar = self.view.verticalScrollBar()
        target = bar.maximum()
        if self._tail >= 0:
            cursor = QTextCursor(self.view.document())
            cursor.setPosition(min(self._tail_start, self.view.document().characterCount() - 1))
            top = self.view.cursorRect(cursor).top() + bar.value()
            target = min(target, max(0, top - FOLLOW_MARGIN_PX))
        bar.setValue(target)

    def _start_tail(self, index: int) -> None:
        """Draw the last exchange in a block of its own at the end of the document."""
        cursor = QTextCursor(self.view.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        if cursor.block().length() > 1 or cursor.block().previous().isValid():
            cursor.insertBlock()
        self._tail = index
        self._tail_start = cursor.position()
        self._draw_tail(cursor)

    def _redraw_tail(self) -> None:
        cursor = QTextCursor(self.view.document())
        cursor.setPosition(self._tail_start)
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        self._draw_tail(cursor)

    def _bubble_format(self) -> QTextBlockFormat:
        """The question's paragraph format as `_exchange_html` writes it: HTML inserted into
        an empty block takes its text but not its first paragraph's format."""
        fmt = QTextBlockFormat()
        fmt.setBackground(QColor(self._colors()["bubble"]))
        fmt.setTopMargin(10)
        fmt.setLineHeight(130, QTextBlockFormat.LineHeightTypes.ProportionalHeight.value)
        return fmt

    def _draw_tail(self, cursor: QTextCursor) -> None:
        assert self.conversation is not None
        exchange = self.conversation.exchanges[self._tail]
        streaming = self._busy and not exchange.error
        self._tail_busy = self._busy
        self._drawn = settled(exchange.answer) if streaming else len(exchange.answer)
        cursor.setBlockFormat(self._bubble_format())
        cursor.setBlockCharFormat(QTextCharFormat())
        cursor.insertHtml(self._exchange_html(self._tail, exchange, self._drawn))

    def _append_answer(self, exchange: Exchange) -> None:
        """Add the answer's new text at the end: while it streams, the answer is the last
        paragraph of the document."""
        end = settled(exchange.answer)
        if end <= self._drawn:
            return
        bar = self.view.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum() - 4 or self._following
        cursor = QTextCursor(self.view.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        _insert_answer(
            cursor,
            self._tail,
            exchange.answer[self._drawn : end],
            self._link_format(),
            {s.n for s in exchange.sources},
        )
        self._drawn = end
        if at_bottom:
            self._follow()

    def _link_format(self) -> QTextCharFormat:
        link = QTextCharFormat()
        link.setAnchor(True)
        link.setForeground(self.palette().color(QPalette.ColorRole.Link))
        return link

    def _colors(self) -> dict[str, str]:
        pal = self.palette()
        return {
            "text": pal.color(QPalette.ColorRole.Text).name(),
            "muted": opaque(
                pal.color(QPalette.ColorRole.PlaceholderText), pal.color(QPalette.ColorRole.Base)
            ).name(),
            "bubble": pal.color(QPalette.ColorRole.AlternateBase).name(),
            "link": pal.color(QPalette.ColorRole.Link).name(),
            "warn": "#c0392b"
            if pal.color(QPalette.ColorRole.Base).lightness() > 128
            else "#ff8a80",
        }

    def _style(self) -> str:
        """The document's default style sheet, so that HTML inserted later gets it too."""
        c = self._colors()
        return (
            f"a {{ color: {c['link']}; text-decoration: none; }}"
            f".muted {{ color: {c['muted']}; }}"
            f".warn {{ color: {c['warn']}; }}"
        )

    def _page(self, body: str) -> str:
        c = self._colors()
        return (
            f"<html><head><style>{self._style()}</style></head>"
            f"<body style='color: {c['text']}'>{body}</body></html>"
        )

    def _exchange_html(self, i: int, e: Exchange, drawn: int | None = None) -> str:
        c = self._colors()
        # A shaded paragraph, not a table: every table is a frame that Qt lays out again on
        # each change to the document, which made appending a token cost O(conversation).
        you = html.escape(self.tr("You"))
        parts = [
            f"<p style='margin-top: 10px; background-color: {c['bubble']};"
            f" line-height: 130%;'>&nbsp;<b>{you}</b><br>&nbsp;"
            # Every line of a Shift+Enter question is set in as far as the first.
            f"{_text_html(e.question).replace('<br>', '<br>&nbsp;')}</p>"
        ]
        if e.sources:
            parts.append(self._sources_html(i, e))
        if e.quotes and e.mode not in (AnswerMode.COMPOSED, AnswerMode.OUTLINE, AnswerMode.SUMMARY):
            # A composed answer is made of these sentences: shown once, as the answer.
            parts.append(self._quotes_html(i, e))
        numbers = {s.n for s in e.sources}
        answer = answer_html(i, e.answer if drawn is None else e.answer[:drawn], numbers)
        if e.mode and e.answer and not e.refused:
            label = html.escape(answer_label(e.mode, e.model))
            answer = f"<span class='muted'>{label}</span><br>{answer}"
        last = self.conversation is not None and i == len(self.conversation.exchanges) - 1
        if (
            not (e.answer if drawn is None else e.answer[:drawn])
            and not e.error
            and last
            and self._busy
        ):
            status = html.escape(self._status or self.tr("Thinking…"))
            answer = f"<span class='muted'>{status}</span>"
        parts.append(f"<p style='margin: 8px 8px 0 8px'>{answer}</p>")
        notes = []
        if e.error:
            notes.append(f"<span class='warn'>{_text_html(e.error)}</span>")
        if e.stopped:
            stopped = html.escape(self.tr("Stopped."))
            notes.append(f"<span class='muted'>{stopped}</span>")
        if e.recited_from and e.cited and not (last and self._busy):
            said = recited_note(e.cited[0], e.recited_from)
            notes.append(f"<span class='muted'>{html.escape(said)}</span>")
        if e.note and not (last and self._busy):
            notes.append(f"<span class='muted'>{html.escape(note(e.note))}</span>")
        if e.unsupported and not e.note and not (last and self._busy):
            said = unsupported_note(tuple(e.unsupported))
            notes.append(f"<span class='warn'>{html.escape(said)}</span>")
        if e.answer and not (last and self._busy):
            copy = html.escape(self.tr("Copy answer"))
            notes.append(f"<a href='copy:{i}'>{copy}</a>")
            notes.extend(self._other_notes(i, e))
        if notes:
            parts.append(f"<p style='margin: 4px 8px 0 8px'>{' &nbsp;·&nbsp; '.join(notes)}</p>")
        return "".join(parts)

    def _other_notes(self, i: int, e: Exchange) -> list[str]:
        """The link to the exchange's other answer, or why there is none to show."""
        if any(x is e for x in self.composing):
            return [f"<span class='muted'>{html.escape(_tr(COMPOSING))}</span>"]
        offer = other_answer(e)
        if offer:
            return [f"<a href='other:{i}'>{html.escape(offer)}</a>"]
        if e.complete and e.mode == AnswerMode.WRITTEN and e.other is not None:
            return [f"<span class='muted'>{html.escape(_tr(NOTHING_CLOSE))}</span>"]
        return []

    def _sources_html(self, i: int, e: Exchange) -> str:
        """One line per file: its name, then each numbered passage's page, all clickable;
        with `explain`, one line per passage saying how retrieval ranked it."""
        explain = i in self.explained
        toggle_text = self.tr("Hide ranking") if explain else self.tr("Why these?")
        toggle = f"<a href='explain:{i}'>{html.escape(toggle_text)}</a>"
        if explain:
            figures = i in self.figures
            lines = []
            for s in e.sources:
                where = html.escape(cite(s.path, s.page, s.section, short=True))
                if s.why is None:
                    why = html.escape(self.tr("not recorded"))
                else:  # the search engine's own figures only when asked for
                    why = html.escape(s.why.describe() if figures else plain_why(s.why))
                lines.append(f"<a href='src:{i}:{s.n}'>[{s.n}]&nbsp;{where}</a>: {why}")
            label = html.escape(
                self.tr("Hide the figures") if figures else self.tr("Show the search's figures")
            )
            lines.append(f"<a href='figures:{i}'>{label}</a>")
        else:
            by_file: dict[tuple[str, str], list[str]] = {}
            named: set[tuple[str, str, str]] = set()  # each heading once per file
            for s in e.sources:
                said = (s.library, s.path, s.section) in named
                named.add((s.library, s.path, s.section))
                section = "" if said else s.section
                where = html.escape(place(s.path, s.page, section, short=True))
                link = f"<a href='src:{i}:{s.n}'>[{s.n}]&nbsp;{where.replace(' ', '&nbsp;')}</a>"
                by_file.setdefault((s.library, s.path), []).append(link)
            lines = [  # "Team: contract.pdf" for the team library's
                f"{html.escape(source_name(path, library))}: {' &nbsp;'.join(links)}"
                for (library, path), links in by_file.items()
            ]
        sources = html.escape(self.tr("Sources"))
        return (
            f"<p class='muted' style='margin: 6px 8px 0 8px'>{sources} &nbsp;·&nbsp; {toggle}<br>"
            + "<br>".join(lines)
            + "</p>"
        )

    def set_explain(self, index: int, on: bool) -> None:
        """Show (or hide) how retrieval ranked each source of one answer."""
        if on != (index in self.explained):
            if on:
                self.explained.add(index)
            else:
                self.explained.discard(index)
            self.redraw()

    def _quotes_html(self, i: int, e: Exchange) -> str:
        """The sources' own words that best answer, in a block of their own above the model's
        answer; each [n] p. opens its page."""
        c = self._colors()
        rows = []
        for q in e.quotes:
            source = e.source(q.n)
            where = html.escape(place(q.path, q.page, source.section if source else "", short=True))
            rows.append(
                f"“{html.escape(q.text)}” "
                f"<a href='src:{i}:{q.n}'>[{q.n}]&nbsp;{where.replace(' ', '&nbsp;')}</a>"
            )
        # A shaded paragraph, not a table: a table is a frame Qt lays out again on every change
        # to the document, which would make each streamed token cost O(conversation).
        heading = html.escape(self.tr("In the sources' own words"))
        return (
            f"<p class='quotes' style='margin: 6px 8px 0 8px; background-color: {c['bubble']};"
            f" color: {c['text']};'><span class='muted'>{heading}</span><br>"
            + "<br>".join(rows)
            + "</p>"
        )

    def _welcome_html(self) -> str:
        if self._first_start and self._documents <= 1:
            intro = self.tr(
                "Your library starts with the Desktop RAG user guide. Ask it something:"
            )
        elif self._documents > 1:
            intro = self.tr(
                "Ask anything about the {n} documents in your library. For example:"
            ).format(n=self._documents)
        else:
            intro = self.tr("Ask anything about the documents in your library. For example:")
        offered = [*self._suggestions, GUIDE_QUESTION] if self._documents > 1 else [GUIDE_QUESTION]
        links = "<br>".join(
            f"<a href='ask:{quote(question)}'>{html.escape(question)}</a>" for question in offered
        )
        heading = html.escape(self.tr("Ask your documents"))
        body = (
            "<div style='margin: 24px;'>"
            f"<h2>{heading}</h2>"
            f"<p>{html.escape(intro)}</p>"
            f"<p style='margin-left: 12px; line-height: 150%'>{links}</p>"
            "<p class='muted'>"
            + self.tr(
                "Add documents by dropping files or folders on this window, or with "
                "<i>Add folder</i> (Ctrl+O). Answers cite their sources as [1], [2]…: click one "
                "to see the page. Everything stays on this computer."
            )
            + "</p>"
            "</div>"
        )
        return self._page(body)


def _insert_answer(
    cursor: QTextCursor,
    index: int,
    text: str,
    link: QTextCharFormat,
    sources: Collection[int] | None = None,
) -> None:
    """Insert answer text as `answer_html` draws it: plain text, line breaks, [n] links.
    insertText keeps the spaces a token starts with (insertHtml would fold them away)."""
    plain = QTextCharFormat()

    def put(segment: str) -> None:
        if segment:
            cursor.insertText(segment.replace("\n", "\u2028"), plain)

    last = 0
    for m in _CITE.finditer(text):
        if not _own(m, sources):
            continue
        put(text[last : m.start()] + "[")
        for k, n in enumerate(m.group(1).split(",")):
            if k:
                put(", ")
            fmt = QTextCharFormat(link)
            fmt.setAnchorHref(f"cite:{index}:{n.strip()}")
            cursor.insertText(n.strip(), fmt)
        put("]")
        last = m.end()
    put(text[last:])


class PlaceholderListView(QListView):
    """A list that says something useful while it is empty."""

    def __init__(self, placeholder: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.placeholder = placeholder

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        model = self.model()
        if model is not None and model.rowCount() == 0 and self.placeholder:
            painter = QPainter(self.viewport())
            painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
            area = self.viewport().rect().adjusted(12, 12, -12, -12)
            flags = Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap
            painter.drawText(area, int(flags), self.placeholder)
            painter.end()


class ConversationsPane(QWidget):
    """The list of conversations, newest first."""

    selected = Signal(str)  # conversation id
    new_requested = Signal()
    delete_requested = Signal(str)

    def __init__(self, model: ConversationsModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        title = QLabel("<b>" + html.escape(self.tr("Conversations")) + "</b>")
        self.new_button = tool_button(
            "new-chat",
            self.tr("New"),
            self.tr("Start a new conversation (Ctrl+N)"),
            text_beside=True,
            accessible=self.tr("New conversation"),
        )
        self.new_button.clicked.connect(self.new_requested)
        head = QHBoxLayout()
        head.addWidget(title)
        head.addStretch(1)
        head.addWidget(self.new_button)

        self.list = PlaceholderListView(self.tr("Your conversations will be listed here."))
        self.list.setModel(model)
        self.list.setAccessibleName(self.tr("Conversations"))
        # A long title is cut at its end (the tooltip has it whole), not scrolled sideways.
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._on_list_custom_context_menu_requested)
        self.list.selectionModel().currentChanged.connect(self._on_list_current_changed)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(head)
        layout.addWidget(self.list, 1)

    def select(self, conv_id: str) -> None:
        row = self.model.row_of(conv_id)
        if row >= 0:
            self.list.setCurrentIndex(self.model.index(row))
        else:
            self.list.clearSelection()
            self.list.setCurrentIndex(QModelIndex())

    def _on_list_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.selected.emit(str(current.data(ConversationsModel.IdRole)))

    def _on_list_custom_context_menu_requested(self, pos: QPoint) -> None:
        index = self.list.indexAt(pos)  # pos is in the viewport's coordinates
        if not index.isValid():
            return
        menu = QMenu(self)
        delete = menu.addAction(icon("delete"), self.tr("Delete conversation"))
        if menu.exec(self.list.viewport().mapToGlobal(pos)) is delete:
            self.delete_requested.emit(str(index.data(ConversationsModel.IdRole)))
