"""The item models pass pytest-qt's model tester (which keeps watching every change after
`check`), and keep their rows in step with the index."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop_rag.conversations import Conversation
from desktop_rag.gui.icons import icon
from desktop_rag.gui.models import ConversationsModel, DocumentsModel, PathRole, SourcesModel
from desktop_rag.types import DocumentRecord, FileEvent, Source


def _record(path: str, status: str = "indexed", pages: int = 2, error: str = "") -> DocumentRecord:
    return DocumentRecord(path, path, 10, 1, "sha", pages, pages * 3, status, error, "", 0.0)


def test_documents_model(qapp, qtmodeltester):
    model = DocumentsModel({"indexed": icon("status-indexed")})
    model.set_records([_record("/a/one.pdf"), _record("/a/two.pdf", "failed", 0, "is empty.")])
    qtmodeltester.check(model, force_py=True)
    model.apply(FileEvent("/a/three.pdf", "queued"))
    model.apply(FileEvent("/a/three.pdf", "indexing", pages=4))
    model.apply(FileEvent("/a/three.pdf", "indexed", pages=4, chunks=9))
    model.apply(FileEvent("/a/one.pdf", "removed"))
    assert sorted(model.paths()) == ["/a/three.pdf", "/a/two.pdf"]
    three = model.row_for("/a/three.pdf")
    assert three is not None and (three.pages, three.chunks) == (4, 9)
    assert model.counts() == {"indexed": 1, "failed": 1}
    index = model.index(model.paths().index("/a/two.pdf"), DocumentsModel.STATUS)
    assert index.data() == "Failed", "one word a glance can read; the reason is below it"
    assert "is empty." in index.data(Qt.ItemDataRole.ToolTipRole)
    assert index.data(PathRole) == "/a/two.pdf"

    model.apply(FileEvent("/a/four.pdf", "indexing"))
    model.set_records([_record("/a/two.pdf", "failed", 0, "is empty.")])
    assert sorted(model.paths()) == ["/a/four.pdf", "/a/two.pdf"], "work in progress stays"
    model.settle()
    assert model.row_for("/a/four.pdf").status == "queued"


def test_conversations_model(qtmodeltester):
    model = ConversationsModel()
    a, b = Conversation(title="first"), Conversation(title="second")
    model.set_conversations([a, b])
    qtmodeltester.check(model, force_py=True)
    model.upsert(b)  # moves to the top
    assert model.conversation(0) is b
    c = Conversation()
    model.upsert(c)
    assert model.index(0).data() == "New conversation"
    model.remove(a.id)
    assert model.rowCount() == 2 and model.row_of(a.id) == -1


def test_sources_model(qtmodeltester):
    model = SourcesModel()
    model.set_sources(
        [Source(1, "/a/one.pdf", 3, 0.9, "text one"), Source(2, "/a/two.pdf", 1, 0.5, "two")],
        cited=[2],
    )
    qtmodeltester.check(model, force_py=True)
    assert model.index(0).data() == "[1] one.pdf, page 3"
    assert model.row_of(2) == 1 and model.source(1).path == "/a/two.pdf"
    assert model.index(1).data(model.SourceRole).n == 2


def test_documents_model_bulk_changes_reset_once(qapp, qtmodeltester):
    model = DocumentsModel()
    qtmodeltester.check(model, force_py=True)
    resets = []
    model.modelReset.connect(lambda: resets.append(1))
    many = [_record(f"/big/{i:05d}.pdf") for i in range(1000)]
    model.set_records(many)
    assert model.rowCount() == 1000 and resets == [1]
    model.apply(FileEvent("/new/working.pdf", "indexing"))
    model.set_records(many[:10])  # a folder of 990 removed, in one go
    assert resets == [1, 1] and model.rowCount() == 11
    assert model.row_for("/new/working.pdf") is not None, "work in progress stays"
    model.set_records(many[:9])  # one more: in place, no reset
    assert resets == [1, 1] and model.rowCount() == 10


def test_a_file_read_with_ocr_says_so(qapp, qtmodeltester):
    from dataclasses import replace

    model = DocumentsModel()
    model.set_records(
        [
            replace(_record("/a/scan.pdf", pages=73), reader="ocr"),
            replace(_record("/a/mixed.pdf", pages=9), reader="pdfium+ocr"),
            _record("/a/plain.pdf"),
        ]
    )
    qtmodeltester.check(model, force_py=True)
    paths = ("/a/scan.pdf", "/a/mixed.pdf", "/a/plain.pdf")
    texts = {p.rsplit("/", 1)[1]: model.row_for(p).status_text for p in paths}
    assert texts == {
        "scan.pdf": "Indexed: 73 pages, read with OCR",
        "mixed.pdf": "Indexed: 9 pages, some read with OCR",
        "plain.pdf": "Indexed",
    }
    # An indexing event keeps saying how it was read.
    model.apply(FileEvent("/a/plain.pdf", "indexed", 4, 10, reader="ocr"))
    assert model.row_for("/a/plain.pdf").status_text == "Indexed: 4 pages, read with OCR"


def test_the_documents_are_in_the_order_the_sort_arrow_shows_whatever_order_they_come_in(
    qapp, qtmodeltester
) -> None:
    # Issue 41: after a restart FOOTLOCKER… stood between 1554.pdf and 1556.pdf. A few rows
    # out of place were each moved by a binary search among the others, which were not in
    # order either.
    import itertools

    names = ["1545.pdf", "1554.pdf", "1556.pdf", "FOOTLOCKER.pdf", "ULTA.pdf", "guide.pdf"]
    for order in itertools.islice(itertools.permutations(names), 0, 720, 7):
        model = DocumentsModel({})
        model.set_records([_record(f"/lib/{n}") for n in order])
        shown = [p.rsplit("/", 1)[1] for p in model.paths()]
        assert shown == sorted(names, key=str.lower), (order, shown)
    qtmodeltester.check(model, force_py=True)
