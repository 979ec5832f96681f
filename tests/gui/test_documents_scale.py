"""The documents pane at 5,000 files: rows arrive in batches, stay sorted by the model itself,
filter, and survive the Qt bindings' reference-count bug."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt

from desktop_rag.gui import models
from desktop_rag.gui.documents import DocumentsPane
from desktop_rag.gui.models import STATUS_ORDER, DocumentsModel, PathRole
from desktop_rag.types import FileEvent, Status

FILES = 5000


def _paths(n: int = FILES) -> list[str]:
    paths = [f"/library/lot {i % 7}/document n° {i:05d}.pdf" for i in range(n)]
    random.Random(12).shuffle(paths)  # as a scan finds them: in no useful order
    return paths


def _shown(pane: DocumentsPane) -> list[str]:
    proxy = pane.proxy
    return [proxy.index(r, 0).data(PathRole) for r in range(proxy.rowCount())]


def _counter(signal) -> list[int]:  # type: ignore[no-untyped-def]
    hits: list[int] = []
    signal.connect(lambda *args: hits.append(1))
    return hits


def _name_key(path: str) -> tuple[str, str]:
    return (path.rsplit("/", 1)[1].lower(), path)


@pytest.fixture
def pane(qtbot):  # type: ignore[no-untyped-def]
    widget = DocumentsPane(DocumentsModel())
    qtbot.addWidget(widget)
    widget.resize(600, 800)
    widget.show()
    return widget


def test_5000_queued_files_are_one_insert_and_shown_sorted(pane, qapp):
    model = pane.model
    inserts, layouts, resets = (
        _counter(model.rowsInserted),
        _counter(model.layoutChanged),
        _counter(model.modelReset),
    )
    paths = _paths()
    model.apply_many([FileEvent(p, Status.QUEUED) for p in paths])
    qapp.processEvents()
    assert (len(inserts), len(resets)) == (1, 0)
    assert _shown(pane) == sorted(paths, key=_name_key)

    # Each file's own events, as indexing reports them: rows change in place, in a name sort
    # nothing moves and nothing is inserted.
    layouts.clear()
    for path in paths[:300]:
        model.apply_many([FileEvent(path, Status.INDEXING, pages=3)])
        model.apply_many([FileEvent(path, Status.INDEXED, pages=3, chunks=7)])
    qapp.processEvents()
    assert (len(inserts), len(layouts), len(resets)) == (1, 0, 0)
    assert model.counts() == {Status.QUEUED: FILES - 300, Status.INDEXED: 300}
    assert _shown(pane) == sorted(paths, key=_name_key)


def _status_key(model: DocumentsModel, path: str) -> tuple[int, str]:
    row = model.row_for(path)
    assert row is not None
    return (STATUS_ORDER[Status(row.status)], path)  # ties: by path, as the model sorts


def test_sorting_by_status_moves_few_rows_and_sorts_many_at_once(pane, qapp):
    model = pane.model
    paths = _paths()
    model.apply_many([FileEvent(p, Status.QUEUED) for p in paths])
    pane.table.sortByColumn(DocumentsModel.STATUS, Qt.SortOrder.AscendingOrder)
    qapp.processEvents()
    shown = _shown(pane)
    assert shown == sorted(paths, key=lambda p: _status_key(model, p))
    moves, layouts = _counter(model.rowsMoved), _counter(model.layoutChanged)
    # The selected file keeps its selection while rows move around it.
    chosen = shown[2500]
    pane.table.setCurrentIndex(pane.proxy.index(2500, 0))

    # Up to MOVE_ROWS rows out of place: each is moved; one more: one layout change.
    batch = paths[:100]
    model.apply_many([FileEvent(p, Status.INDEXING) for p in batch[: models.MOVE_ROWS]])
    assert (len(moves), len(layouts)) == (models.MOVE_ROWS, 0)
    model.apply_many([FileEvent(p, Status.FAILED, error="is empty.") for p in batch[10:19]])
    assert (len(moves), len(layouts)) == (models.MOVE_ROWS, 1)
    model.apply_many([FileEvent(p, Status.INDEXED, 2, 5) for p in batch[19:100]])
    qapp.processEvents()
    shown = _shown(pane)
    assert shown == sorted(paths, key=lambda p: _status_key(model, p))
    assert [model.row_for(p).status for p in shown[:9]] == [Status.FAILED] * 9  # type: ignore[union-attr]
    assert pane.table.currentIndex().data(PathRole) == chosen

    pane.table.sortByColumn(DocumentsModel.NAME, Qt.SortOrder.DescendingOrder)
    qapp.processEvents()
    assert _shown(pane) == sorted(paths, key=_name_key, reverse=True)
    assert pane.table.currentIndex().data(PathRole) == chosen


def test_filter_at_5000_files(pane, qapp):
    model = pane.model
    paths = _paths()
    model.apply_many([FileEvent(p, Status.QUEUED) for p in paths])
    pane.filter.setText("N° 0004")  # case-insensitive, on the name
    qapp.processEvents()
    wanted = sorted((p for p in paths if "n° 0004" in p.lower()), key=_name_key)
    assert len(wanted) == 10 and _shown(pane) == wanted
    # New rows in a batch while filtered: only the matching ones show, in their place.
    model.apply_many([FileEvent("/new/document n° 00041b.pdf", Status.QUEUED)])
    model.apply_many([FileEvent("/new/other.pdf", Status.QUEUED)])
    assert _shown(pane) == sorted([*wanted, "/new/document n° 00041b.pdf"], key=_name_key)
    pane.filter.setText("")
    qapp.processEvents()
    assert len(_shown(pane)) == FILES + 2


@pytest.mark.parametrize("removed", [models.BULK_ROWS, models.BULK_ROWS + 1])
def test_removals_in_a_batch_reset_only_beyond_the_limit(pane, qapp, removed):
    model = pane.model
    paths = _paths(1000)
    model.apply_many([FileEvent(p, Status.QUEUED) for p in paths])
    resets, removals = _counter(model.modelReset), _counter(model.rowsRemoved)
    events = [FileEvent(p, "removed") for p in paths[:removed]]
    events.append(FileEvent("/late/arrival.pdf", Status.QUEUED))  # and a new row, same batch
    model.apply_many(events)
    qapp.processEvents()
    assert len(resets) == (removed > models.BULK_ROWS)
    assert (len(removals) > 0) == (removed <= models.BULK_ROWS)
    left = [*paths[removed:], "/late/arrival.pdf"]
    assert _shown(pane) == sorted(left, key=_name_key)


def test_void_calls_into_qt_do_not_free_none():
    """PySide6 6.12 on CPython 3.11 drops a reference to None on every void call and to True
    on every signal emit: 30,000 model changes (a few thousand files) used to abort."""
    code = """
import desktop_rag.gui
from PySide6.QtCore import QAbstractTableModel, QCoreApplication, QModelIndex
app = QCoreApplication([])
class M(QAbstractTableModel):
    n = 0
    def rowCount(self, parent=QModelIndex()): return 0 if parent.isValid() else self.n
    def columnCount(self, parent=QModelIndex()): return 1
    def data(self, index, role=0): return None
m = M()
for _ in range(15000):
    m.beginInsertRows(QModelIndex(), m.n, m.n); m.n += 1; m.endInsertRows()
    m.layoutAboutToBeChanged.emit(); m.layoutChanged.emit()
print("alive")
"""
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[2],  # this checkout's desktop_rag
        env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "alive"


def test_model_tester_through_batches_moves_sorts_and_resets(qtbot, qtmodeltester, qapp):
    """Every change kind at a size past each limit, under pytest-qt's model tester (which
    checks the whole model after every change, so not at 5,000 rows)."""
    model = DocumentsModel()
    qtmodeltester.check(model, force_py=True)
    widget = DocumentsPane(model)
    qtbot.addWidget(widget)
    paths = _paths(models.BULK_ROWS + 50)
    model.apply_many([FileEvent(p, Status.QUEUED) for p in paths])  # one insert
    widget.table.sortByColumn(DocumentsModel.STATUS, Qt.SortOrder.AscendingOrder)
    model.apply_many([FileEvent(p, Status.INDEXING) for p in paths[:3]])  # moves
    model.apply_many([FileEvent(p, Status.INDEXED, 1, 2) for p in paths[3:40]])  # one layout
    model.settle()
    model.apply_many([FileEvent(p, "removed") for p in paths[40:45]])  # removals
    model.apply_many([FileEvent(p, "removed") for p in paths[45 : 45 + models.BULK_ROWS + 1]])
    widget.table.sortByColumn(DocumentsModel.PAGES, Qt.SortOrder.DescendingOrder)
    widget.filter.setText("0001")
    qapp.processEvents()
    assert model.rowCount() == len(paths) - 5 - models.BULK_ROWS - 1


def test_model_sort_ignores_a_column_it_does_not_have(pane):
    pane.model.apply_many([FileEvent("/a/b.pdf", Status.QUEUED)])
    pane.model.sort(9)
    assert pane.model.rowCount(QModelIndex()) == 1
