"""The chat follows an answer as it grows, but a long answer is read from its start: the view
never scrolls the question above its top (an outline arrives all at once)."""

from __future__ import annotations

from PySide6.QtGui import QTextCursor

from desktop_rag.conversations import Conversation
from desktop_rag.gui.chat import ChatPane

QUESTION = "Outline of annual report.pdf"


def _top_of(chat: ChatPane, text: str) -> int:
    """Where `text` starts, in the view's own coordinates (0 is the top of what shows)."""
    found = chat.view.document().find(text)
    assert not found.isNull(), text
    cursor = QTextCursor(chat.view.document())
    cursor.setPosition(found.selectionStart())
    return chat.view.cursorRect(cursor).top()


def _chat(qtbot) -> ChatPane:
    chat = ChatPane()
    qtbot.addWidget(chat)
    chat.resize(700, 420)
    chat.show()
    return chat


def test_a_long_answer_that_arrives_at_once_shows_its_question(qtbot) -> None:
    chat = _chat(qtbot)
    conv = Conversation()
    first = conv.add("What is in my library?")
    first.answer = "A few documents. " * 30
    chat.show_conversation(conv)
    exchange = conv.add(QUESTION)
    chat.set_busy(True)
    chat.refresh()
    exchange.answer = "\n".join(f"- Section {i}: what it says [1]" for i in range(1, 90))
    chat.set_busy(False)
    chat.refresh()
    height = chat.view.viewport().height()
    assert 0 <= _top_of(chat, QUESTION) < height, "the question is in view"
    assert _top_of(chat, "Section 1:") < height, "and the answer's first line"
    bar = chat.view.verticalScrollBar()
    assert 0 < bar.value() < bar.maximum(), "scrolled to the question, not to the end"


def test_a_short_answer_still_scrolls_to_the_end(qtbot) -> None:
    chat = _chat(qtbot)
    conv = Conversation()
    for i in range(6):
        e = conv.add(f"Question {i}?")
        e.answer = f"Answer {i}. " * 40
    chat.show_conversation(conv)
    exchange = conv.add("And the last one?")
    chat.set_busy(True)
    chat.refresh()
    exchange.answer = "The last answer."
    chat.set_busy(False)
    chat.refresh()
    bar = chat.view.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == bar.maximum()


def _long_conversation() -> Conversation:
    conv = Conversation()
    first = conv.add("What is in my library?")
    first.answer = "A few documents. " * 30
    outline = conv.add(QUESTION)
    outline.answer = "\n".join(f"- Section {i}: what it says [1]" for i in range(1, 90))
    return conv


def _ask(chat: ChatPane, conv: Conversation, question: str, answer: str) -> None:
    """As the window asks: a new exchange shown busy, its answer streamed, then done."""
    exchange = conv.add(question)
    chat.set_busy(True)
    chat.show_conversation(conv)
    for word in answer.split(" "):
        exchange.answer += ("" if not exchange.answer else " ") + word
        chat.refresh()
    chat.set_busy(False)
    chat.refresh()


def test_a_new_question_after_a_long_answer_is_brought_into_view(qtbot) -> None:
    # Issue 41: once an outline had stopped the scrolling at its question, Enter changed the
    # Sources list and nothing else in view; the new answer had to be scrolled to.
    chat = _chat(qtbot)
    conv = _long_conversation()
    chat.show_conversation(conv)
    bar = chat.view.verticalScrollBar()
    assert bar.value() < bar.maximum() - 4, "the outline is read from its start"
    _ask(chat, conv, "What does section 3 say?", "Section 3 says what it says [1].")
    height = chat.view.viewport().height()
    assert 0 <= _top_of(chat, "What does section 3 say?") < height
    assert 0 <= _top_of(chat, "Section 3 says what") < height


def test_a_new_question_is_brought_into_view_from_anywhere_above(qtbot) -> None:
    chat = _chat(qtbot)
    conv = Conversation()
    for i in range(6):
        e = conv.add(f"Question {i}?")
        e.answer = f"Answer {i}. " * 40
    chat.show_conversation(conv)
    chat.view.verticalScrollBar().setValue(0)  # the reader went back to the first answer
    _ask(chat, conv, "And the last one?", "The last answer.")
    bar = chat.view.verticalScrollBar()
    assert bar.value() == bar.maximum()
    assert 0 <= _top_of(chat, "And the last one?") < chat.view.viewport().height()


def test_only_the_answers_own_citations_are_links(qtbot) -> None:
    # Issue 41: a paper's "[16]" and "[10, 12]" quoted in an answer were links to sources
    # the answer does not have.
    from desktop_rag.types import Source

    chat = _chat(qtbot)
    conv = Conversation()
    exchange = conv.add("What do the papers say?")
    exchange.sources = [Source(n, "/docs/p.pdf", n, 1.0, "text") for n in (1, 2)]
    exchange.answer = "Bats carry it [16]. Camels too [10, 12]. Both are hosts [1, 2]."
    chat.show_conversation(conv)
    document = chat.view.document()
    hrefs = []
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            href = it.fragment().charFormat().anchorHref()
            if href.startswith("cite:"):
                hrefs.append(href)
            it += 1
        block = block.next()
    assert hrefs == ["cite:0:1", "cite:0:2"], hrefs
    assert "[16]" in chat.view.toPlainText() and "[10, 12]" in chat.view.toPlainText()


def test_the_conversation_keeps_its_place_when_the_chat_narrows(qtbot) -> None:
    # Issue 41: in a narrow window the page viewer comes in beside the chat when a page is
    # opened; the chat, narrower, rewrapped and showed an earlier answer instead of the last.
    chat = _chat(qtbot)
    chat.resize(700, 420)
    conv = Conversation()
    for i in range(8):
        e = conv.add(f"Question number {i}?")
        e.answer = f"Answer {i}: " + "words of the answer " * 30
    chat.show_conversation(conv)
    qtbot.wait(20)
    assert 0 <= _top_of(chat, "Question number 7?") < chat.view.viewport().height()
    for width in (300, 700, 260):
        chat.resize(width, 420)
        qtbot.wait(20)
        top = _top_of(chat, "Question number 7?")
        assert 0 <= top < chat.view.viewport().height(), (width, top)
