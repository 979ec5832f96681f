"""The first hour in the window (issue 31): a failed file indexed again on request, the
Documents pane readable at 900 x 600, counts that agree, no false "no documents" while the
library opens, a welcome that knows the library, "Why these?" for one answer, a question's
lines aligned, the folder dialog at home, and Settings in plain words."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QLabel, QStyle

from desktop_rag.config import Settings
from desktop_rag.conversations import Conversation
from desktop_rag.gui.chat import ChatPane
from desktop_rag.gui.models import DocumentsModel
from desktop_rag.gui.settings_dialog import SettingsDialog
from desktop_rag.types import Explanation, FileEvent, Source
from tests.gui.conftest import close
from tests.pdfgen import make_pdf

WAIT_MS = 30_000


def _row(window, path: Path):
    return window.documents_model.row_for(str(path))


def _failed_folder(tmp_path: Path, *names: str) -> Path:
    folder = tmp_path / "odd"
    folder.mkdir(exist_ok=True)
    for name in names:
        (folder / name).write_text("this is not a PDF at all")
    return folder


def _settled(window, qtbot, check) -> None:
    qtbot.waitUntil(lambda: check() and not window.session.indexing, timeout=WAIT_MS)


# -- item 3: "Index again" on a failed file ----------------------------------------------------


def test_index_again_reads_a_failed_file_again_and_says_so(open_window, tmp_path, qtbot, caplog):
    folder = _failed_folder(tmp_path, "fake.pdf")
    path = folder / "fake.pdf"
    window = open_window()
    window.session.add_folder(str(folder))
    _settled(window, qtbot, lambda: _row(window, path) and _row(window, path).status == "failed")
    seen: list[FileEvent] = []
    window.session.files_changed.connect(
        lambda events: seen.extend(e for e in events if e.path == str(path))
    )
    with caplog.at_level(logging.INFO, logger="desktop_rag"):
        window.documents.reindex_requested.emit(str(path))  # the row's "Index again"
        assert _row(window, path).status == "queued", "the row shows it at once"
        assert "fake.pdf" in window.statusBar().currentMessage()
        _settled(window, qtbot, lambda: any(e.status == "failed" for e in seen))
    assert any(e.status in ("queued", "indexing") for e in seen), "it was read again"
    assert any("fake.pdf" in r.getMessage() and "again" in r.getMessage() for r in caplog.records)
    assert _row(window, path).status == "failed" and _row(window, path).error


# -- item 7: the Documents pane at 900 x 600 ---------------------------------------------------


def test_the_documents_pane_reads_at_a_glance_at_900_by_600(open_window, tmp_path, qtbot):
    folder = _failed_folder(tmp_path, "broken-download.pdf")
    long_name = "coronavirus-transmission-review-annual-report-2023-final.pdf"
    make_pdf(folder / long_name, ["Coronaviruses spread by droplets."])
    window = open_window()
    window.resize(900, 600)
    window.session.add_folder(str(folder))
    _settled(window, qtbot, lambda: _row(window, folder / long_name) is not None)
    _settled(window, qtbot, lambda: _row(window, folder / "broken-download.pdf").error != "")
    qtbot.wait(100)
    pane = window.documents
    table = pane.table
    metrics = table.fontMetrics()
    icon = table.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize)
    proxy = pane.proxy
    for r in range(proxy.rowCount()):
        status = proxy.index(r, DocumentsModel.STATUS)
        word = str(status.data())
        assert " " not in word and ":" not in word, word  # one word, the reason elsewhere
        assert status.data(Qt.ItemDataRole.DecorationRole) is not None, "and its icon"
        needed = metrics.horizontalAdvance(word) + icon + 8
        assert table.columnWidth(DocumentsModel.STATUS) >= needed, (word, needed)
    failed = next(
        proxy.index(r, DocumentsModel.STATUS)
        for r in range(proxy.rowCount())
        if proxy.index(r, DocumentsModel.NAME).data() == "broken-download.pdf"
    )
    row = _row(window, folder / "broken-download.pdf")
    assert row.error in failed.data(Qt.ItemDataRole.ToolTipRole)
    table.setCurrentIndex(failed)
    assert pane.detail.isVisibleTo(window) and row.error in pane.detail.text()
    # A name too long for its column keeps its start and its end.
    name_width = table.columnWidth(DocumentsModel.NAME)
    assert metrics.horizontalAdvance(long_name) > name_width, "the case needs a narrow column"
    assert table.textElideMode() == Qt.TextElideMode.ElideMiddle
    shown = metrics.elidedText(long_name, Qt.TextElideMode.ElideMiddle, name_width - 12)
    assert shown.startswith("corona") and shown.endswith("nal.pdf"), shown


# -- item 8: small things ----------------------------------------------------------------------


def test_the_status_bar_and_the_pane_count_the_same_failures(open_window, tmp_path, qtbot):
    folder = _failed_folder(tmp_path, "one.pdf")
    window = open_window()
    window.session.add_folder(str(folder))
    _settled(window, qtbot, lambda: _row(window, folder / "one.pdf") is not None)
    (folder / "two.pdf").write_text("not a PDF either")
    window.session.reindex([str(folder)])
    _settled(window, qtbot, lambda: (r := _row(window, folder / "two.pdf")) and r.error)
    qtbot.wait(200)
    assert "2 could not be read" in window.documents.summary.text()
    assert window.statusBar().currentMessage().startswith("2 files could not"), (
        window.statusBar().currentMessage()
    )


def test_no_documents_is_not_said_while_the_library_opens(open_window, animal_pdfs, qtbot):
    window = open_window()
    window.session.add_folder(str(animal_pdfs))
    _settled(window, qtbot, lambda: _row(window, animal_pdfs / "octopus.pdf") is not None)
    assert close(qtbot, window)
    again = open_window(wait=False)
    assert again.session.app is None, "the library is still opening"
    assert "No documents yet" not in again.documents.summary.text()
    assert "Opening" in again.documents.summary.text()
    qtbot.waitUntil(lambda: again.session.app is not None, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "documents" in again.documents.summary.text(), timeout=WAIT_MS)


def test_the_welcome_stops_saying_the_guide_is_all_once_more_is_indexed(
    open_window, animal_pdfs, qtbot
):
    window = open_window()
    assert "starts with the Desktop RAG user guide" in window.chat.view.toPlainText()
    window.session.add_folder(str(animal_pdfs))
    _settled(window, qtbot, lambda: window.documents_model.counts().get("indexed", 0) >= 4)
    qtbot.wait(200)
    text = window.chat.view.toPlainText()
    assert "starts with the Desktop RAG user guide" not in text
    assert f"{window.documents_model.counts()['indexed']} documents" in text


WHY = Explanation(text_rank=3, text_score=7.5, vector_rank=1, similarity=0.61, blended=0.09)


def _conversation(questions: tuple[str, ...] = ("First?", "Second?")) -> Conversation:
    conv = Conversation()
    for q in questions:
        e = conv.add(q)
        e.sources = [Source(1, "/docs/manual.pdf", 26, 0.9, "Keep it cool.", why=WHY)]
        e.answer = "Keep it cool [1]."
    return conv


def test_why_these_explains_one_answer_and_not_the_next_conversation(qtbot) -> None:
    chat = ChatPane()
    qtbot.addWidget(chat)
    chat.show_conversation(_conversation())
    chat._on_view_anchor_clicked(QUrl("explain:0"))
    text = chat.view.toPlainText()
    said = "3rd best match for your words"  # in plain words since issue 41
    assert text.count(said) == 1 and text.count("Why these?") == 1, "the first answer only"
    chat.show_conversation(_conversation(("Another?",)))
    assert said not in chat.view.toPlainText(), "a new conversation starts without it"


def test_the_lines_of_a_shift_enter_question_are_aligned(qtbot) -> None:
    chat = ChatPane()
    qtbot.addWidget(chat)
    chat.resize(500, 400)
    chat.show()
    conv = Conversation()
    conv.add("first line of it\nsecond line of it").answer = "An answer."
    chat.show_conversation(conv)
    qtbot.wait(50)
    lefts = []
    for words in ("first line", "second line"):
        found = chat.view.document().find(words)
        assert not found.isNull(), words
        cursor = QTextCursor(chat.view.document())
        cursor.setPosition(found.selectionStart())
        lefts.append(chat.view.cursorRect(cursor).left())
    assert lefts[0] == lefts[1], lefts


def test_the_folder_dialogs_open_in_the_home_folder(open_window, monkeypatch) -> None:
    asked: list[str] = []

    def folder(parent, caption, directory="", *args, **kwargs):
        asked.append(directory)
        return ""

    def files(parent, caption, directory="", *args, **kwargs):
        asked.append(directory)
        return [], ""

    monkeypatch.setattr("desktop_rag.gui.window.QFileDialog.getExistingDirectory", folder)
    monkeypatch.setattr("desktop_rag.gui.window.QFileDialog.getOpenFileNames", files)
    window = open_window()
    window.add_folder_action.trigger()  # Ctrl+O
    window.add_files_action.trigger()
    assert asked == [os.path.expanduser("~")] * 2


def test_settings_say_how_the_built_in_model_answers_and_ocr_in_plain_words(qtbot) -> None:
    dialog = SettingsDialog(Settings(), find=lambda: [])
    qtbot.addWidget(dialog)
    texts = " ".join(label.text() for label in dialog.findChildren(QLabel))
    assert "own sentences" in texts and "loosely" in texts
    ocr = dialog.ocr.toolTip()
    for jargon in ("models are trained", "processor core", "Chinese print"):
        assert jargon not in ocr and jargon not in texts, jargon
