"""A written answer keeps the documents' own sentences one click (or one key) away."""

from __future__ import annotations

import html
import threading
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence

from desktop_rag.conversations import Conversation, ConversationStore, Exchange
from desktop_rag.gui.chat import ChatPane
from desktop_rag.query.ability import describe
from desktop_rag.query.compose import Composed
from desktop_rag.types import DoneEvent, Quote, Source
from tests.helpers.answers import written
from tests.helpers.window import WAIT_MS, ask, wait_indexed

CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
SHOW_COMPOSED = "Show the documents' own sentences"
NOTHING_CLOSE = "None of the sources' sentences answers it closely enough."
MODEL = "tiny.gguf"
COMPOSED = "Octopus blood is blue because of hemocyanin [1]."
QUOTE = "Octopus blood is blue because of hemocyanin."
SOURCE = Source(1, "/docs/octopus.pdf", 2, 0.9, f"Blood. {QUOTE} More.")


def _exchange(question: str, mode: str, answer: str = "It is blue [1].", **kw: object) -> Exchange:
    e = Exchange(question, answer=answer, sources=[SOURCE], cited=[1], mode=mode, model=MODEL)
    for key, value in kw.items():
        setattr(e, key, value)
    return e


def _pane(qtbot, *exchanges: Exchange) -> ChatPane:
    chat = ChatPane()
    qtbot.addWidget(chat)
    conv = Conversation()
    conv.exchanges.extend(exchanges)
    chat.show_conversation(conv)
    return chat


def test_the_link_is_under_finished_written_answers_only(qtbot) -> None:
    chat = _pane(
        qtbot,
        _exchange("Written?", "written"),
        _exchange("Composed?", "composed"),
        _exchange("Refused?", "", refused=True),
        _exchange("Which documents?", "listing"),
        _exchange("Outline?", "outline"),
        _exchange("Stopped?", "written", stopped=True),
        _exchange("Failed?", "written", error="The model ran out of memory."),
        _exchange("Streaming?", "written"),
    )
    conv = chat.conversation
    assert conv is not None
    drawn = [html.unescape(chat._exchange_html(i, e)) for i, e in enumerate(conv.exchanges)]
    assert SHOW_COMPOSED in drawn[0] and "href='other:0'" in drawn[0]
    assert [SHOW_COMPOSED in html for html in drawn[1:-1]] == [False] * 6
    assert SHOW_COMPOSED in chat.view.toPlainText(), "the last one, finished, has it too"

    # While the last answer streams (its DoneEvent came, the job has not ended yet): no link.
    chat.set_busy(True)
    chat.redraw()
    last = len(conv.exchanges) - 1
    assert SHOW_COMPOSED not in html.unescape(chat._exchange_html(last, conv.exchanges[last]))
    assert chat.view.toPlainText().count(SHOW_COMPOSED) == 1


def test_a_reopened_conversation_shows_the_answer_it_stored(qtbot, tmp_path: Path) -> None:
    e = _exchange("Why blue?", "written")
    from desktop_rag.conversations import Version  # new with the other answer

    e.take_other(Version(COMPOSED, "composed", (1,), (Quote(1, SOURCE.path, 2, QUOTE, 0.8),)))
    store = ConversationStore(tmp_path)
    conv = Conversation(exchanges=[e])
    store.save(conv)
    (loaded,) = store.load_all()
    chat = _pane(qtbot, *loaded.exchanges)
    text = chat.view.toPlainText()
    assert describe("composed", MODEL) in text and COMPOSED in text
    assert f"Show {MODEL}'s answer" in text and "It is blue" not in text
    assert loaded.exchanges[0].other == Version("It is blue [1].", "written", (1,))


def test_the_label_is_set_apart_from_the_answer(qtbot) -> None:
    """Fusion's placeholder colour is the text's at half alpha: the label drawn in it as
    #rrggbb was as dark as the answer under it ("From your documents' own sentences")."""
    from PySide6.QtGui import QColor, QPalette

    chat = ChatPane()
    qtbot.addWidget(chat)
    palette = chat.palette()
    palette.setColor(QPalette.ColorRole.Text, QColor("#000000"))
    palette.setColor(QPalette.ColorRole.Base, QColor("#ffffff"))
    palette.setColor(QPalette.ColorRole.PlaceholderText, QColor(0, 0, 0, 128))
    chat.setPalette(palette)
    assert chat._colors()["muted"] == "#7f7f7f"


def _written(open_window, animal_pdfs, qtbot, monkeypatch):
    """A window whose model (named MODEL) wrote the answer to the octopus question, and the
    threads the answer service's compose ran on since (it composes when asked to)."""
    window = open_window(answer_factory=written(name=MODEL))
    window.session.add_folder(str(animal_pdfs))
    wait_indexed(window, qtbot, 4)
    events = ask(window, qtbot, "Why is octopus blood blue?")
    assert isinstance(events[-1], DoneEvent) and events[-1].mode == "written"
    service = window.session.app.answer
    compose = service.compose
    threads: list[threading.Thread] = []

    def composing(query: str, sources: Sequence[Source]) -> Composed:
        threads.append(threading.current_thread())
        return compose(query, sources)

    monkeypatch.setattr(service, "compose", composing)
    return window, threads


def test_the_documents_sentences_are_composed_off_the_gui_thread_and_shown_in_place(
    open_window, animal_pdfs, qtbot, monkeypatch
):
    window, threads = _written(open_window, animal_pdfs, qtbot, monkeypatch)
    exchange = window.current.exchanges[0]
    written = exchange.answer
    written_label = describe("written", MODEL)
    text = window.chat.view.toPlainText()
    assert written_label in text and SHOW_COMPOSED in text

    with qtbot.waitSignal(window.session.composed, timeout=WAIT_MS) as blocker:
        window.chat.view.anchorClicked.emit(QUrl("other:0"))
    assert threads and threads[0] is not threading.main_thread()
    made: Composed = blocker.args[1]
    composed, (n, *_) = made.text, made.cited
    assert composed and "hemocyanin" in composed
    text = window.chat.view.toPlainText()
    assert describe("composed", MODEL) in text and composed in text
    assert written not in text and written_label not in text
    assert f"Show {MODEL}'s answer" in text and SHOW_COMPOSED not in text
    assert exchange.answer == composed and exchange.cited == list(made.cited)
    assert f'href="cite:0:{n}"' in window.chat.view.toHtml(), "its [n] is a link"

    # Its [n] opens the source with the composed answer's quotes of it marked.
    opened: list[tuple[Source, list[str]]] = []
    monkeypatch.setattr(window.sources, "show_source", lambda s, q=(): opened.append((s, q)))
    window.chat.view.anchorClicked.emit(QUrl(f"cite:0:{n}"))
    assert opened[-1][0].n == n and opened[-1][1] == [q.text for q in made.quotes if q.n == n]

    # Copy answer copies what is shown.
    window.chat.view.anchorClicked.emit(QUrl("copy:0"))
    assert QGuiApplication.clipboard().text() == composed

    # ... and back, without composing again; the written answer's own quotes come back.
    window.chat.view.anchorClicked.emit(QUrl("other:0"))
    text = window.chat.view.toPlainText()
    assert written in text and written_label in text and SHOW_COMPOSED in text
    assert composed not in text
    window.chat.view.anchorClicked.emit(QUrl("copy:0"))
    assert QGuiApplication.clipboard().text() == written

    # The Chat menu's action (Ctrl+Shift+D) does the same for the last answer: no compose.
    action = window.other_answer_action
    assert action.shortcut() == QKeySequence("Ctrl+Shift+D") and action.isEnabled()
    chat_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Chat")
    assert action in chat_menu.actions()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window.chat.question, Qt.Key.Key_D, CTRL_SHIFT)  # from the question box
    assert composed in window.chat.view.toPlainText()
    assert "Show tiny.gguf's answer" in action.text().replace("&", "")
    action.trigger()
    assert written in window.chat.view.toPlainText()
    assert len(threads) == 1, "switching back and forth composes once"

    # What is shown is what is saved: the composed answer, the written one kept beside it.
    action.trigger()
    window.session.lanes.wait(5)
    qtbot.waitUntil(lambda: not window.session.lanes.busy(), timeout=WAIT_MS)
    (saved,) = window.session.conversations.load_all()
    assert saved.exchanges[0].answer == composed
    assert saved.exchanges[0].other is not None and saved.exchanges[0].other.answer == written


def test_when_no_sentence_answers_the_written_answer_stays_and_says_so(
    open_window, animal_pdfs, qtbot, monkeypatch
):
    window, _threads = _written(open_window, animal_pdfs, qtbot, monkeypatch)
    # A compose that finds no sentence likely enough to answer (the cross-encoder's verdict):
    # canned, as the window's side of it is the test.
    service = window.session.app.answer
    monkeypatch.setattr(service, "compose", lambda query, sources: Composed("", (), (), 0.01))
    written = window.current.exchanges[0].answer
    with qtbot.waitSignal(window.session.composed, timeout=WAIT_MS):
        window.chat.view.anchorClicked.emit(QUrl("other:0"))
    text = window.chat.view.toPlainText()
    assert NOTHING_CLOSE in text and written in text
    assert describe("written", MODEL) in text and SHOW_COMPOSED not in text
    assert not window.other_answer_action.isEnabled()


def test_every_shortcut_of_the_window_is_its_own(open_window):
    window = open_window()
    keys = [a.shortcut().toString() for a in window.findChildren(QAction)]
    keys = [k for k in keys if k]
    assert len(keys) == len(set(keys)), sorted(keys)
    assert "Ctrl+Shift+D" in keys
