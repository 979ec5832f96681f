"""The sources pane's "Why these?" toggle shows how retrieval ranked each source."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl

from desktop_rag.conversations import Conversation, ConversationStore
from desktop_rag.gui.chat import ChatPane
from desktop_rag.types import Explanation, Source

WHY = Explanation(text_rank=3, text_score=7.5, vector_rank=1, similarity=0.61, blended=0.09)
DEMOTED = Explanation(text_rank=1, text_score=9.0, blended=0.02, demoted="navigation page")


def _conversation() -> Conversation:
    conv = Conversation()
    e = conv.add("How do I store the battery?")
    e.sources = [
        Source(
            1,
            "/docs/manual.pdf",
            26,
            0.9,
            "Keep it cool.",
            section="4 Power › 4.2 Battery care",
            why=WHY,
        ),
        Source(2, "/docs/manual.pdf", 3, 0.1, "Battery care . . . 26", why=DEMOTED),
    ]
    e.answer = "According to [1], keep it cool."
    return conv


def test_the_toggle_shows_and_hides_the_ranking(qtbot) -> None:
    chat = ChatPane()
    qtbot.addWidget(chat)
    chat.show_conversation(_conversation())
    text = chat.view.toPlainText().replace("\xa0", " ")
    assert "Why these?" in text and "BM25 #3" not in text
    assert "p. 26, § 4.2 Battery care" in text  # a source shows its heading
    chat._on_view_anchor_clicked(QUrl("explain:0"))
    text = chat.view.toPlainText().replace("\xa0", " ")
    # In a reader's words first (issue 41), the search's figures one click further.
    assert "3rd best match for your words · 1st closest in meaning" in text
    assert "moved down: navigation page" in text
    assert "Hide ranking" in text
    chat._on_view_anchor_clicked(QUrl("figures:0"))
    text = chat.view.toPlainText().replace("\xa0", " ")
    assert "BM25 #3 (7.50) · vector #1 (0.610) · blended 0.0900" in text
    assert "demoted: navigation page" in text
    chat._on_view_anchor_clicked(QUrl("explain:0"))
    assert "BM25 #3" not in chat.view.toPlainText()


def test_the_ranking_is_kept_with_the_conversation(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    conv = _conversation()
    store.save(conv)
    (loaded,) = store.load_all()
    assert [s.why for s in loaded.exchanges[0].sources] == [WHY, DEMOTED]


def test_a_long_heading_shared_by_sources_is_shown_once(qtbot) -> None:
    # Issue 41: a long heading repeated on every source of a file filled the Sources lines.
    heading = "Results › Detection of equine coronavirus in faecal samples of adult horses"
    conv = Conversation()
    e = conv.add("Where was ECoV found?")
    e.sources = [Source(n, "/docs/paper.pdf", n, 1.0, "Text.", section=heading) for n in (1, 2, 3)]
    e.answer = "In faeces [1]."
    chat = ChatPane()
    qtbot.addWidget(chat)
    chat.show_conversation(conv)
    text = chat.view.toPlainText()
    assert text.count("Detection of equine coronavirus") == 1, text
    assert "[2] p. 2" in text.replace("\xa0", " ") and "[3] p. 3" in text.replace("\xa0", " ")
