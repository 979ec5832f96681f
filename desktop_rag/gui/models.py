"""Item models for the views: documents with their status, conversations, an answer's sources."""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractListModel,
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QIcon

from desktop_rag.conversations import Conversation
from desktop_rag.gui.words import place
from desktop_rag.locations import paginated
from desktop_rag.team import source_name
from desktop_rag.types import DocumentRecord, FileEvent, Source, Status

Index = QModelIndex | QPersistentModelIndex
PathRole = Qt.ItemDataRole.UserRole + 1
StatusRole = Qt.ItemDataRole.UserRole + 2
SortRole = Qt.ItemDataRole.UserRole + 3


def translated(text: object) -> str:
    """`text`, one of the words below, in the window's language (PySide6 types what
    QT_TRANSLATE_NOOP returns as object)."""
    return QCoreApplication.translate("DocumentsModel", str(text))


# Translated where they are shown (translated), in the window's language.
STATUS_TEXT = {
    Status.QUEUED: QT_TRANSLATE_NOOP("DocumentsModel", "Queued"),
    Status.INDEXING: QT_TRANSLATE_NOOP("DocumentsModel", "Indexing…"),
    Status.INDEXED: QT_TRANSLATE_NOOP("DocumentsModel", "Indexed"),
    Status.FAILED: QT_TRANSLATE_NOOP("DocumentsModel", "Failed"),
    Status.EXCLUDED: QT_TRANSLATE_NOOP("DocumentsModel", "Removed from the index"),
}
# What the Status column shows beside the state's icon: one word a glance can read at any
# width (the reason of a failure is in the row's tooltip and the line below the list).
STATE_WORD = {
    Status.QUEUED: QT_TRANSLATE_NOOP("DocumentsModel", "Queued"),
    Status.INDEXING: QT_TRANSLATE_NOOP("DocumentsModel", "Indexing"),
    Status.INDEXED: QT_TRANSLATE_NOOP("DocumentsModel", "Indexed"),
    Status.FAILED: QT_TRANSLATE_NOOP("DocumentsModel", "Failed"),
    Status.EXCLUDED: QT_TRANSLATE_NOOP("DocumentsModel", "Removed"),
}
# Sorting by status puts what needs attention first.
STATUS_ORDER = {
    Status.FAILED: 0,
    Status.INDEXING: 1,
    Status.QUEUED: 2,
    Status.INDEXED: 3,
    Status.EXCLUDED: 4,
}


BULK_ROWS = 200  # more changes than this at once: reset the model instead
MOVE_ROWS = 8  # at most this many rows out of order after a change are moved one by one


@dataclass(slots=True)
class DocumentRow:
    path: str
    status: str
    pages: int = 0
    chunks: int = 0
    error: str = ""
    kind: str = ""  # FailKind of a failure, when the index says it
    reader: str = ""  # what read it ("ocr", "pdfium+ocr": some or all pages read with OCR)
    ocr: bool = False  # the user asked to read it with OCR

    @property
    def name(self) -> str:
        return os.path.basename(self.path)

    @property
    def state_word(self) -> str:
        word = STATE_WORD.get(Status(self.status))
        return translated(word) if word else self.status.title()

    @property
    def status_text(self) -> str:
        said = STATUS_TEXT.get(Status(self.status))
        text = translated(said) if said else self.status.title()
        if self.error:
            return f"{text}: {self.error}"
        if self.status == Status.INDEXED and self.reader.endswith("ocr"):
            ocr = (
                QCoreApplication.translate("DocumentsModel", "{pages} pages, read with OCR")
                if self.reader == "ocr"
                else QCoreApplication.translate(
                    "DocumentsModel", "{pages} pages, some read with OCR"
                )
            )
            return f"{text}: " + ocr.format(pages=self.pages)
        return text


def _row(rec: DocumentRecord) -> DocumentRow:
    return DocumentRow(
        rec.path,
        rec.status,
        rec.pages,
        rec.chunks,
        rec.error,
        rec.error_kind,
        rec.reader,
        rec.ocr,
    )


class DocumentsModel(QAbstractTableModel):
    """Every file the index knows or is working on; rows keyed by path, updated in place.

    The model keeps its rows in the order the view sorts by (`sort`), so a filtering proxy on
    top passes that order through: a sorting proxy would compare rows through data() in
    Python, n log n calls per change, which a library of thousands of files feels. Events
    come in batches (`apply_many`): new rows are appended with one insert and put in place
    with one layout change, never one sorted insert per file.
    """

    NAME, STATUS, PAGES, CHUNKS = range(4)
    HEADERS = (
        QT_TRANSLATE_NOOP("DocumentsModel", "Name"),
        QT_TRANSLATE_NOOP("DocumentsModel", "Status"),
        QT_TRANSLATE_NOOP("DocumentsModel", "Pages"),
        QT_TRANSLATE_NOOP("DocumentsModel", "Passages"),
    )

    def __init__(self, icons: dict[str, QIcon] | None = None, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[DocumentRow] = []
        self._by_path: dict[str, int] = {}
        self._icons = icons or {}
        self._sort_column = self.NAME
        self._sort_order = Qt.SortOrder.AscendingOrder

    # -- reading -------------------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(self.HEADERS):
            if role == Qt.ItemDataRole.DisplayRole:
                return translated(self.HEADERS[section])
            if role == Qt.ItemDataRole.TextAlignmentRole and section >= self.PAGES:
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == self.NAME:
                return row.name
            if col == self.STATUS:
                return row.state_word
            if col == self.PAGES:
                return str(row.pages) if row.pages else ""
            if col == self.CHUNKS:
                return str(row.chunks) if row.chunks else ""
        elif role == Qt.ItemDataRole.ToolTipRole:
            tip = row.path
            if row.pages and not paginated(row.path):
                # The Pages column counts its sections: such a document has no pages.
                sections = (
                    QCoreApplication.translate("DocumentsModel", "1 section")
                    if row.pages == 1
                    else QCoreApplication.translate("DocumentsModel", "{n} sections")
                )
                tip += "\n" + sections.format(n=row.pages)
            if row.chunks:  # the Chunks column is hidden in a narrow pane
                passages = (
                    QCoreApplication.translate("DocumentsModel", "1 passage indexed")
                    if row.chunks == 1
                    else QCoreApplication.translate("DocumentsModel", "{n} passages indexed")
                )
                tip += "\n" + passages.format(n=row.chunks)
            if row.error:
                tip += f"\n\n{row.name} {row.error}"
            elif row.status_text != row.state_word:
                tip += f"\n\n{row.status_text}"
            return tip
        elif role == Qt.ItemDataRole.DecorationRole and col == self.STATUS:
            return self._icons.get(row.status)
        elif role == Qt.ItemDataRole.TextAlignmentRole and col >= self.PAGES:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        elif role == Qt.ItemDataRole.AccessibleTextRole:
            return f"{row.name}, {row.status_text}"
        elif role == PathRole:
            return row.path
        elif role == StatusRole:
            return row.status
        elif role == SortRole:
            return self._key(row, col)
        return None

    def _key(self, row: DocumentRow, col: int) -> Any:
        if col == self.NAME:
            return row.name.lower()
        if col == self.STATUS:
            return STATUS_ORDER.get(row.status, 9)  # type: ignore[call-overload]
        if col == self.PAGES:
            return row.pages
        return row.chunks

    def row_for(self, path: str) -> DocumentRow | None:
        i = self._by_path.get(path)
        return self._rows[i] if i is not None else None

    def paths(self) -> list[str]:
        return [r.path for r in self._rows]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for row in self._rows:
            out[row.status] = out.get(row.status, 0) + 1
        return out

    def totals(self) -> tuple[int, int]:
        """Pages and chunks of the indexed documents."""
        done = [r for r in self._rows if r.status == Status.INDEXED]
        return sum(r.pages for r in done), sum(r.chunks for r in done)

    # -- order ---------------------------------------------------------------------------------

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Keep the rows in this order from now on (the view's header calls it)."""
        if not 0 <= column < len(self.HEADERS):
            return
        self._sort_column, self._sort_order = column, order
        self._resort()

    def _sort_key(self, row: DocumentRow) -> tuple[Any, str]:
        # The path breaks ties, so equal keys keep one order whatever came first.
        return (self._key(row, self._sort_column), row.path)

    def _in_place(self, i: int) -> bool:
        """Whether row i sits between its neighbours in the sort order."""
        key = self._sort_key(self._rows[i])
        before = self._sort_key(self._rows[i - 1]) if i > 0 else None
        after = self._sort_key(self._rows[i + 1]) if i + 1 < len(self._rows) else None
        if self._sort_order == Qt.SortOrder.DescendingOrder:
            before, after = after, before
        return (before is None or before <= key) and (after is None or key <= after)

    def _resort(self, touched: Sequence[int] | None = None) -> None:
        """Put the rows in order; persistent indexes (selection, current row) follow their row.

        `touched`: the only rows that changed. Each still between its neighbours: nothing to
        do (a status change in a name sort). A few out of place, the others in order: each is
        moved to its place. Otherwise one layout change sorts them all.
        """
        if touched is not None:
            out = []
            for i in touched:
                if not self._in_place(i):
                    out.append(i)
                    if len(out) > MOVE_ROWS:
                        # Sorted all at once below; looking on at the rest of a large batch
                        # (5,000 rows queued at once) cost more than the sort itself.
                        break
            if not out:
                return
            # Each is moved by a binary search among the rows in order: the others out of
            # place are left out of it (a search among rows out of order put FOOTLOCKER…
            # between 1554.pdf and 1556.pdf), and the rest must be in order.
            if len(out) <= MOVE_ROWS and self._sorted_without(out):
                pending = {self._rows[i].path for i in out}
                for path in [self._rows[i].path for i in out]:
                    pending.discard(path)
                    self._move_into_place(self._by_path[path], pending)
                return
        self.layoutAboutToBeChanged.emit()
        before = {id(r): i for i, r in enumerate(self._rows)}
        self._rows.sort(
            key=self._sort_key, reverse=self._sort_order == Qt.SortOrder.DescendingOrder
        )
        self._by_path = {r.path: i for i, r in enumerate(self._rows)}
        new_of_old = [0] * len(self._rows)
        for new, row in enumerate(self._rows):
            new_of_old[before[id(row)]] = new
        old_indexes = self.persistentIndexList()
        new_indexes = [
            self.index(new_of_old[i.row()], i.column()) if 0 <= i.row() < len(new_of_old) else i
            for i in old_indexes
        ]
        self.changePersistentIndexList(old_indexes, new_indexes)
        self.layoutChanged.emit()

    def _sorted_without(self, rows: Sequence[int]) -> bool:
        """Whether the rows but these are in the sort order."""
        left_out = set(rows)
        keys = [self._sort_key(r) for k, r in enumerate(self._rows) if k not in left_out]
        if self._sort_order == Qt.SortOrder.DescendingOrder:
            keys.reverse()
        return all(a <= b for a, b in itertools.pairwise(keys))

    def _move_into_place(self, i: int, pending: set[str] | frozenset[str] = frozenset()) -> None:
        """Move row i among the rows in order (those of `pending` are still to be moved)."""
        row = self._rows[i]
        rest = self._rows[:i] + self._rows[i + 1 :]
        placed = [k for k, r in enumerate(rest) if r.path not in pending]
        key = self._sort_key(row)
        descending = self._sort_order == Qt.SortOrder.DescendingOrder
        lo, hi = 0, len(placed)
        while lo < hi:  # the first row in order that sorts after this one
            mid = (lo + hi) // 2
            other = self._sort_key(rest[placed[mid]])
            if (other > key) if descending else (other < key):
                lo = mid + 1
            else:
                hi = mid
        at = placed[lo] if lo < len(placed) else len(rest)
        if at == i:
            return
        # Qt's destination is the row before which it goes, counted before the move.
        self.beginMoveRows(QModelIndex(), i, i, QModelIndex(), at if at < i else at + 1)
        rest.insert(at, row)
        self._rows = rest
        for n in range(min(i, at), max(i, at) + 1):
            self._by_path[self._rows[n].path] = n
        self.endMoveRows()

    # -- writing -------------------------------------------------------------------------------

    def set_records(self, records: Sequence[DocumentRecord]) -> None:
        """Make the rows match the index; rows in progress that it does not know yet stay.

        Small differences update rows in place (selection and scroll survive); a large one
        (a first load, a folder removed) resets the model once instead of row by row.
        """
        wanted = {r.path: r for r in records}
        keep_unknown = {Status.QUEUED, Status.INDEXING}
        doomed = [
            r.path for r in self._rows if r.path not in wanted and r.status not in keep_unknown
        ]
        new = [r for r in records if r.path not in self._by_path]
        if len(doomed) + len(new) > BULK_ROWS:
            gone = set(doomed)
            kept = [r for r in self._rows if r.path not in wanted and r.path not in gone]
            self._reset([_row(r) for r in records] + kept)
            return
        self._remove_many(doomed)
        self._upsert_many([_row(rec) for rec in records])

    def apply(self, event: FileEvent) -> None:
        self.apply_many([event])

    def apply_many(self, events: Sequence[FileEvent]) -> None:
        """A batch of events, in order: one insert for its new rows, one change per row."""
        rows: dict[str, DocumentRow | None] = {}  # path -> its row after the batch, None: gone
        for event in events:
            if event.status == "removed":
                rows[event.path] = None
                continue
            old = rows[event.path] if event.path in rows else self.row_for(event.path)
            pages = event.pages or (old.pages if old and event.status != Status.INDEXED else 0)
            chunks = event.chunks if event.status == Status.INDEXED else (old.chunks if old else 0)
            kind = old.kind if old and old.error == event.error else ""
            reader = event.reader or (old.reader if old and event.status != Status.INDEXED else "")
            ocr = old.ocr if old else False
            rows[event.path] = DocumentRow(
                event.path, event.status, pages, chunks, event.error, kind, reader, ocr
            )
        gone = [p for p, r in rows.items() if r is None]
        if len(gone) > BULK_ROWS:
            kept = [r for r in self._rows if r.path not in rows]
            self._reset(kept + [r for r in rows.values() if r is not None])
            return
        self._remove_many(gone)
        self._upsert_many([r for r in rows.values() if r is not None])

    def settle(self) -> None:
        """After a run ends (or is cancelled) nothing is 'indexing' any more."""
        changed = []
        for i, row in enumerate(self._rows):
            if row.status == Status.INDEXING:
                row.status = Status.QUEUED
                changed.append(i)
        self._changed(changed)
        self._resort(changed)

    def _reset(self, rows: list[DocumentRow]) -> None:
        self.beginResetModel()
        self._rows = sorted(
            rows, key=self._sort_key, reverse=self._sort_order == Qt.SortOrder.DescendingOrder
        )
        self._by_path = {r.path: i for i, r in enumerate(self._rows)}
        self.endResetModel()

    def _upsert_many(self, rows: Sequence[DocumentRow]) -> None:
        new = [r for r in rows if r.path not in self._by_path]
        changed = []
        for row in rows:
            i = self._by_path.get(row.path)
            if i is not None and self._rows[i] != row:
                self._rows[i] = row
                changed.append(i)
        self._changed(changed)
        if new:
            n = len(self._rows)
            self.beginInsertRows(QModelIndex(), n, n + len(new) - 1)
            for k, row in enumerate(new):
                self._rows.append(row)
                self._by_path[row.path] = n + k
            self.endInsertRows()
            changed.extend(range(n, len(self._rows)))
        self._resort(changed)

    def _changed(self, rows: Sequence[int]) -> None:
        """dataChanged once per run of adjacent rows."""
        ordered = sorted(rows)
        start = 0
        for k in range(1, len(ordered) + 1):
            if k == len(ordered) or ordered[k] != ordered[k - 1] + 1:
                first, last = ordered[start], ordered[k - 1]
                self.dataChanged.emit(self.index(first, 0), self.index(last, len(self.HEADERS) - 1))
                start = k

    def _remove_many(self, paths: Iterable[str]) -> None:
        doomed = sorted((self._by_path[p] for p in set(paths) if p in self._by_path), reverse=True)
        if not doomed:
            return
        # Runs of adjacent rows go in one removal each, from the bottom up.
        k = 0
        while k < len(doomed):
            last = first = doomed[k]
            while k + 1 < len(doomed) and doomed[k + 1] == first - 1:
                k += 1
                first = doomed[k]
            self.beginRemoveRows(QModelIndex(), first, last)
            del self._rows[first : last + 1]
            self.endRemoveRows()
            k += 1
        self._by_path = {r.path: n for n, r in enumerate(self._rows)}


class ConversationsModel(QAbstractListModel):
    """Conversations, most recent first."""

    IdRole = Qt.ItemDataRole.UserRole + 1

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._items: list[Conversation] = []

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._items)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._items):
            return None
        conv = self._items[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return conv.title or self.tr("New conversation")
        if role == Qt.ItemDataRole.ToolTipRole:
            when = time.strftime("%d %b %Y, %H:%M", time.localtime(conv.updated))
            n = len(conv.exchanges)
            questions = self.tr("1 question") if n == 1 else self.tr("{n} questions").format(n=n)
            title = conv.title or self.tr("New conversation")
            return f"{title}\n{questions}, {when}"
        if role == self.IdRole:
            return conv.id
        return None

    def set_conversations(self, items: Iterable[Conversation]) -> None:
        self.beginResetModel()
        self._items = list(items)
        self.endResetModel()

    def conversation(self, row: int) -> Conversation | None:
        return self._items[row] if 0 <= row < len(self._items) else None

    def row_of(self, conv_id: str) -> int:
        return next((i for i, c in enumerate(self._items) if c.id == conv_id), -1)

    def upsert(self, conv: Conversation) -> None:
        """Show it first (it is the most recent); update its title if it is there."""
        i = self.row_of(conv.id)
        if i == 0:
            self.dataChanged.emit(self.index(0), self.index(0))
            return
        if i > 0:
            self.beginMoveRows(QModelIndex(), i, i, QModelIndex(), 0)
            self._items.insert(0, self._items.pop(i))
            self.endMoveRows()
            self.dataChanged.emit(self.index(0), self.index(0))
            return
        self.beginInsertRows(QModelIndex(), 0, 0)
        self._items.insert(0, conv)
        self.endInsertRows()

    def remove(self, conv_id: str) -> None:
        i = self.row_of(conv_id)
        if i < 0:
            return
        self.beginRemoveRows(QModelIndex(), i, i)
        del self._items[i]
        self.endRemoveRows()


class SourcesModel(QAbstractListModel):
    """The numbered passages of one answer."""

    SourceRole = Qt.ItemDataRole.UserRole + 1

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._items: list[Source] = []
        self._cited: set[int] = set()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._items)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._items):
            return None
        src = self._items[index.row()]
        name = source_name(src.path, src.library)  # "Team: contract.pdf" for the team's
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return f"[{src.n}] {name}, {place(src.path, src.page, src.section)}"
        if role == Qt.ItemDataRole.ToolTipRole:
            text = " ".join(src.text.split())
            if len(text) > 300:
                text = text[:300].rsplit(" ", 1)[0] + " …"
            long = src.section and not paginated(src.path)  # the whole heading path
            where = src.section if long else place(src.path, src.page, src.section)
            return f"{src.path}, {where}\n\n{text}"
        if role == Qt.ItemDataRole.FontRole and src.n in self._cited:
            from PySide6.QtGui import QFont

            font = QFont()
            font.setBold(True)
            return font
        if role == self.SourceRole:
            return src
        return None

    def set_sources(self, sources: Sequence[Source], cited: Iterable[int] = ()) -> None:
        self.beginResetModel()
        self._items = list(sources)
        self._cited = set(cited)
        self.endResetModel()

    def row_of(self, n: int) -> int:
        return next((i for i, s in enumerate(self._items) if s.n == n), -1)

    def source(self, row: int) -> Source | None:
        return self._items[row] if 0 <= row < len(self._items) else None
