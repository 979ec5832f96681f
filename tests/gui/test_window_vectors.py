"""The window says when files are found by their words and their vectors are still computed."""

from __future__ import annotations

from desktop_rag.ingest.local_engine import VECTORS_MESSAGE
from desktop_rag.types import Progress


def test_the_status_says_vectors_are_being_computed(open_window, qtbot):
    window = open_window()
    said = f"{VECTORS_MESSAGE}: 1,200 passages to go"
    window.session.index_progress.emit(
        Progress(stage="vectors", files_done=3, files_total=3, pages_done=900, message=said)
    )
    assert window.library_label.text() == "Found by words; computing vectors"
    assert said in window.documents.progress_label.text()
