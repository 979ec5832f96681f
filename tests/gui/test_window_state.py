"""What the window shows agrees with what it answers (issue 41, item 6): the scope chip and
the question box's hint after a restart and a switch of conversation, the chip after an
Outline, and the page viewer after a new question."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject

from desktop_rag.gui.window import MainWindow
from tests.gui.conftest import close
from tests.helpers.window import WAIT_MS, ask, names


def _indexed(window: MainWindow, qtbot, folder) -> None:
    window.session.add_folder(str(folder))
    qtbot.waitUntil(
        lambda: len(names(window, "indexed")) >= 3 and not window.session.indexing,
        timeout=WAIT_MS,
    )


class _Paints(QObject):
    """Counts the paint events of a widget."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False


def _chip_and_box_agree(window: MainWindow) -> None:
    chat = window.chat
    scope = window.state.scope
    hint = chat.question.placeholderText()
    if scope.whole_library:
        assert hint == "Ask a question about your documents…", hint
    else:
        assert chat.scope_chip.isVisibleTo(window), hint
        assert chat.scope_label.text() == f"Answering from: {scope.label()}"
        assert scope.label() in hint, hint


def test_the_chip_and_the_box_agree_after_a_restart_and_a_switch(
    open_window, animal_pdfs, qtbot
) -> None:
    window = open_window()
    _indexed(window, qtbot, animal_pdfs)
    window.ask_about([str(animal_pdfs / "zebra.pdf"), str(animal_pdfs / "penguin.pdf")])
    ask(window, qtbot, "Why do zebras have stripes?")
    scoped = window.current
    assert scoped is not None and not scoped.scope.whole_library
    window.new_conversation()
    ask(window, qtbot, "How many hearts does an octopus have?")
    assert close(qtbot, window)

    again = open_window()
    qtbot.waitUntil(lambda: again.conversations_model.rowCount() == 2, timeout=WAIT_MS)
    _chip_and_box_agree(again)
    # The hint is drawn again when it changes: QPlainTextEdit repaints only when its hint is
    # shown or hidden, so "Ask a question about 2 documents…" stayed on screen.
    paints = _Paints()
    viewport = again.chat.question.viewport()
    viewport.installEventFilter(paints)
    qtbot.wait(50)
    for _ in range(2):
        for row in range(again.conversations_model.rowCount()):
            conv = again.conversations_model.conversation(row)
            assert conv is not None
            hint = again.chat.question.placeholderText()
            paints.count = 0
            again.conversations.select(conv.id)
            assert again.current is not None and again.current.id == conv.id
            _chip_and_box_agree(again)
            if again.chat.question.placeholderText() != hint:
                qtbot.waitUntil(lambda: paints.count > 0, timeout=2000)
        again.new_conversation()
        _chip_and_box_agree(again)
    viewport.removeEventFilter(paints)


def test_an_outline_says_what_it_is_answered_from(open_window, animal_pdfs, qtbot) -> None:
    window = open_window()
    _indexed(window, qtbot, animal_pdfs)
    window.ask_about([str(animal_pdfs / "zebra.pdf"), str(animal_pdfs / "penguin.pdf")])
    ask(window, qtbot, "Why do zebras have stripes?")
    octopus = str(animal_pdfs / "octopus.pdf")
    with qtbot.waitSignal(window.session.answer_finished, timeout=WAIT_MS):
        window.outline(octopus)
    # The chip said "Answering from: 2 documents" over the octopus's outline.
    assert window.state.scope.contains(octopus), window.chat.scope_label.text()
    _chip_and_box_agree(window)


def test_a_new_question_does_not_leave_the_last_answers_page_open(
    open_window, animal_pdfs, qtbot
) -> None:
    window = open_window()
    _indexed(window, qtbot, animal_pdfs)
    ask(window, qtbot, "How many hearts does an octopus have?")
    first = window.current.exchanges[-1]
    window._on_chat_source_clicked(0, first.sources[0].n)
    qtbot.waitUntil(lambda: window.sources.source is not None, timeout=WAIT_MS)
    assert window.sources.stack.currentIndex() == 1
    ask(window, qtbot, "Why do zebras have stripes?")
    second = window.current.exchanges[-1]
    shown = window.sources.source
    # Either no page, or one of the sources the list now shows.
    assert window.sources.stack.currentIndex() == 0 or shown in second.sources, (
        shown,
        second.sources,
    )
