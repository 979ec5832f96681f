"""The text view reads a document in a reader process, under the reader's limits: a file that
hangs or fails the reader costs that reader, never the window."""

from __future__ import annotations

from functools import partial

import pytest

from desktop_rag.gui.textview import TextView
from desktop_rag.ingest.extract import ExtractError
from desktop_rag.library_service import read_document
from desktop_rag.types import FailKind
from tests.docgen import make_docx
from tests.fake_readers import read_by_name

WAIT_MS = 60_000  # a reader process is started for each document: slow on a busy machine
MANUAL = [(1, "1 Introduction", ["This manual explains how the office printer is installed."])]


def test_a_document_is_read_in_a_reader_process_not_the_windows(qtbot, tmp_path, monkeypatch):
    from desktop_rag.ingest import extract as extract_module

    def in_the_window(*args, **kwargs):
        raise AssertionError("read in the window's own process")

    # The reader process imports its own copy of the module: only this process's is patched.
    monkeypatch.setattr(extract_module, "_extract_other", in_the_window)
    path = str(make_docx(tmp_path / "manual.docx", MANUAL))
    view = TextView()
    qtbot.addWidget(view)
    failures: list[str] = []
    view.failed.connect(lambda _path, why: failures.append(why))
    with qtbot.waitSignal(view.shown, timeout=WAIT_MS):
        view.show_passage(path, 1)
    assert failures == []
    assert "office printer is installed" in view.toPlainText()


def test_a_file_that_hangs_the_reader_cannot_hang_the_window(qtbot, tmp_path):
    path = tmp_path / "a hang.docx"  # read_by_name sleeps for a minute on it
    path.write_bytes(b"PK\x03\x04 not read")
    view = TextView(read=partial(read_document, timeout_s=2.0, memory_mb=0, read=read_by_name))
    qtbot.addWidget(view)
    with qtbot.waitSignal(view.failed, timeout=WAIT_MS) as failed:
        view.show_passage(str(path), 1)  # returns at once; the window's loop runs meanwhile
    # Stopped at the reader's time limit, not after the minute the reader would hang for.
    assert failed.args == [str(path), failed.args[1]]
    assert "took longer than 2 s" in failed.args[1]
    qtbot.waitUntil(lambda: not view.reading, timeout=WAIT_MS)
    assert "cannot be opened" in view.toPlainText()


def test_a_reader_that_dies_is_a_reason_not_a_crash(tmp_path):
    path = tmp_path / "b crash.docx"  # read_by_name ends its process on it
    path.write_bytes(b"PK\x03\x04 not read")
    with pytest.raises(ExtractError) as raised:
        read_document(str(path), timeout_s=30.0, memory_mb=0, read=read_by_name)
    assert raised.value.kind == FailKind.CORRUPT
