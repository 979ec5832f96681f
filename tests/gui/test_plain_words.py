"""Words a person uses (issue 41, item 8): Settings without "GGUF" and "tokens", its help text
as readable as the rest, the team library under its own tab; "Why these?" in plain words with
the engine's figures behind a disclosure; "Passages", not "Chunks"; a failed file's reason in
plain words with the engine's detail behind a disclosure. Every control kept."""

from __future__ import annotations

import shutil

from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QLabel, QLineEdit, QTabWidget

from desktop_rag.config import Settings
from desktop_rag.conversations import Conversation
from desktop_rag.gui.chat import ChatPane
from desktop_rag.gui.models import DocumentsModel
from desktop_rag.gui.settings_dialog import SettingsDialog
from desktop_rag.types import Explanation, Source
from tests.conftest import CORPUS
from tests.helpers.window import WAIT_MS, names


def _form_labels(dialog: SettingsDialog) -> list[str]:
    return [w.text() for w in dialog.findChildren(QLabel) if w.isVisibleTo(dialog)]


def test_settings_in_plain_words_with_the_team_library_on_its_own_tab(qtbot) -> None:
    dialog = SettingsDialog(Settings(), find=lambda: [])
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    tabs = dialog.findChild(QTabWidget)
    assert tabs is not None
    titles = [tabs.tabText(i).replace("&", "") for i in range(tabs.count())]
    assert "Team library" in titles, titles
    first = " ".join(_form_labels(dialog))
    for jargon in ("GGUF", "S3", "MinIO", "Ceph", "AWS", "Endpoint"):
        assert jargon not in first, (jargon, first)
    assert "tokens" not in dialog.n_ctx.suffix() and "tokens" not in first
    # Help text as readable as any other line: it was drawn disabled, pale grey.
    hints = [w for w in dialog.findChildren(QLabel) if w.wordWrap() and w.isVisibleTo(dialog)]
    assert hints and all(w.isEnabled() for w in hints), [w.text()[:30] for w in hints]
    # Every control is still there, the team library's fields on their tab.
    for control in (dialog.folders, dialog.model, dialog.threads, dialog.n_ctx, dialog.top_k):
        assert control is not None
    tabs.setCurrentIndex(titles.index("Team library"))
    qtbot.wait(20)
    assert any(e.isVisibleTo(dialog) for e in dialog.team.findChildren(QLineEdit))


def test_why_these_says_it_in_plain_words(qtbot) -> None:
    conv = Conversation()
    e = conv.add("How do I store the battery?")
    why = Explanation(text_rank=1, text_score=22.31, vector_rank=4, similarity=0.714, blended=0.9)
    e.sources = [Source(1, "/docs/manual.pdf", 26, 0.9, "Keep it cool.", why=why)]
    e.answer = "Keep it cool [1]."
    chat = ChatPane()
    qtbot.addWidget(chat)
    chat.show_conversation(conv)
    chat._on_view_anchor_clicked(QUrl("explain:0"))
    text = chat.view.toPlainText().replace("\xa0", " ")
    assert "BM25" not in text and "vector #" not in text and "22.31" not in text, text
    assert "your words" in text and "meaning" in text, text
    html = chat.view.toHtml()
    assert "figures:0" in html  # the engine's figures, one click away
    chat._on_view_anchor_clicked(QUrl("figures:0"))
    assert "BM25 #1 (22.31)" in chat.view.toPlainText()


def test_the_documents_table_says_passages_and_a_failure_in_plain_words(
    open_window, qtbot, tmp_path
) -> None:
    assert DocumentsModel.HEADERS[DocumentsModel.CHUNKS] == "Passages"
    folder = tmp_path / "docs"
    folder.mkdir()
    source = CORPUS / "covid-qa" / "pdf" / "1545.pdf"
    (folder / "cut-short.pdf").write_bytes(source.read_bytes()[:2000])
    shutil.copy(source, folder / "whole.pdf")
    window = open_window()
    window.session.add_folder(str(folder))
    qtbot.waitUntil(
        lambda: "cut-short.pdf" in names(window, "failed") and not window.session.indexing,
        timeout=WAIT_MS,
    )
    row = window.documents_model.row_for(str(folder / "cut-short.pdf"))
    assert row is not None and "PDFium" in row.error  # what the index keeps, for the log
    pane = window.documents
    proxy = pane.proxy
    index = next(
        proxy.index(r, DocumentsModel.NAME)
        for r in range(proxy.rowCount())
        if proxy.index(r, DocumentsModel.NAME).data() == "cut-short.pdf"
    )
    pane.table.setCurrentIndex(index)
    detail = pane.detail.text()
    assert "damaged" in detail and "PDFium" not in detail, detail
    assert "PDFium" not in str(index.siblingAtColumn(DocumentsModel.STATUS).data())
    pane._on_detail_link_activated("details")
    assert "PDFium" in pane.detail.text()
