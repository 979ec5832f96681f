"""The window shows the sources' own words under the sources, before the model's answer."""

from __future__ import annotations

from pathlib import Path

from desktop_rag.conversations import Conversation, ConversationStore
from desktop_rag.gui.chat import ChatPane
from desktop_rag.types import Quote, Source

QUOTE = "To install an extension, open the Tools menu and click Add."


def _conversation() -> Conversation:
    conv = Conversation()
    e = conv.add("How do I install an extension?")
    e.sources = [Source(1, "/docs/manual.pdf", 47, 0.9, f"Extensions. {QUOTE} More text.")]
    e.quotes = [Quote(1, "/docs/manual.pdf", 47, QUOTE, 0.8)]
    e.answer = "According to [1], open the Tools menu."
    return conv


def test_quotes_come_between_the_sources_and_the_answer(qtbot) -> None:
    chat = ChatPane()
    qtbot.addWidget(chat)
    chat.show_conversation(_conversation())
    text = chat.view.toPlainText()
    sources_at, quote_at = text.index("manual.pdf"), text.index(QUOTE)
    answer_at = text.index("According to [1], open the Tools menu.")
    assert sources_at < quote_at < answer_at
    assert "[1] p. 47" in text[quote_at:answer_at].replace("\xa0", " ")


def test_a_quote_opens_its_source(qtbot) -> None:
    from PySide6.QtCore import QUrl

    chat = ChatPane()
    qtbot.addWidget(chat)
    chat.show_conversation(_conversation())
    assert "href='src:0:1'>[1]&nbsp;p.&nbsp;47</a></p>" in chat._quotes_html(
        0, chat.conversation.exchanges[0]
    )
    with qtbot.waitSignal(chat.source_clicked) as blocker:
        chat._on_view_anchor_clicked(QUrl("src:0:1"))
    assert blocker.args == [0, 1]


def test_quotes_are_kept_with_the_conversation(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    conv = _conversation()
    store.save(conv)
    (loaded,) = store.load_all()
    assert loaded.exchanges[0].quotes == conv.exchanges[0].quotes


def test_the_window_shows_the_quote_as_soon_as_it_arrives(open_window, animal_pdfs, qtbot):
    from desktop_rag.types import QuotesEvent, TokenEvent
    from tests.helpers.window import ask, wait_indexed

    window = open_window()
    window.session.add_folder(str(animal_pdfs))
    wait_indexed(window, qtbot, 4)
    shown_at_first_token: list[str] = []

    def on_event(event: object) -> None:
        if isinstance(event, TokenEvent) and not shown_at_first_token:
            shown_at_first_token.append(window.chat.view.toPlainText())

    window.session.answer_event.connect(on_event)
    events = ask(window, qtbot, "Why is octopus blood blue?")
    (quotes,) = [e for e in events if isinstance(e, QuotesEvent)]
    best = quotes.quotes[0].text
    assert best.startswith("Octopus blood is blue because it uses hemocyanin")
    assert best in shown_at_first_token[0], "the quote was on screen before the answer began"
    assert window.current.exchanges[-1].quotes == list(quotes.quotes)
