"""A document without pages (Word, HTML, EPUB, text) shown as text with its headings, scrolled
to a passage with the passage marked."""

from __future__ import annotations

import html
import os
from collections.abc import Callable, Sequence

from PySide6.QtCore import QPoint, Signal
from PySide6.QtGui import QResizeEvent, QTextCursor
from PySide6.QtWidgets import QTextBrowser, QWidget

from desktop_rag.gui.workers import Job, Lanes
from desktop_rag.ingest.readers.sections import SEPARATOR
from desktop_rag.library_service import read_document
from desktop_rag.types import Page

DocumentReader = Callable[[str], list[Page]]  # path -> its pages; raises ExtractError

MARK_STYLE = "background-color: #ffe978; color: #000000;"
PASSAGE_ANCHOR = "passage"


def _paragraphs(text: str) -> str:
    return "".join(
        f"<p>{html.escape(' '.join(p.split()))}</p>" for p in text.split("\n\n") if p.strip()
    )


def document_html(pages: Sequence[Page], page: int = 0, start: int = 0, end: int = 0) -> str:
    """The sections as HTML, each under its heading (its depth in the heading path gives the
    level); the text [start, end) of section `page` is marked and anchored as "passage"."""
    parts: list[str] = []
    for p in pages:
        text = p.text
        title = p.section.rsplit(SEPARATOR, 1)[-1] if p.section else ""
        level = min(p.section.count(SEPARATOR) + 1, 6) if p.section else 0
        marked = p.number == page and 0 <= start < end <= len(text)
        if title and text.startswith(title) and not (marked and start < len(title)):
            parts.append(f"<h{level}>{html.escape(title)}</h{level}>")
            offset = len(title)
        else:
            offset = 0
        if marked:
            before, passage, after = text[offset:start], text[start:end], text[end:]
            parts.append(
                _paragraphs(before)
                + f"<p><a name='{PASSAGE_ANCHOR}'></a>"
                + f"<span style='{MARK_STYLE}'>{html.escape(' '.join(passage.split()))}</span></p>"
                + _paragraphs(after)
            )
        else:
            parts.append(_paragraphs(text[offset:]))
    return "".join(parts)


class TextView(QTextBrowser):
    """Reads the document on a worker, in a reader process (the reader that indexed it, under
    the same time and memory limits), then shows it."""

    shown = Signal(str)  # path, once its text is on screen
    failed = Signal(str, str)  # path, why

    def __init__(self, parent: QWidget | None = None, read: DocumentReader | None = None) -> None:
        super().__init__(parent)
        # Never this process's own extract(): a file that hangs or bloats the reader would
        # hang or bloat the window. The window may give its library's reader instead
        # (LibraryService.read_document: the library's limits and passwords).
        self.read_document: DocumentReader = read or read_document
        self.setAccessibleName(self.tr("Document text"))
        self.setOpenLinks(False)
        self.path = ""
        self.pages: list[Page] = []
        self.marked = ""  # the passage marked ("" when none is)
        self._stamp: tuple[int, int] | None = None
        self._lanes = Lanes(["read"], self)
        self._serial = 0

    def show_passage(self, path: str, page: int, start: int = 0, end: int = 0) -> None:
        """Show the document at section `page`, with text [start, end) marked (none if equal)."""
        self._serial += 1
        serial = self._serial
        if path == self.path and self._stamp == _stamp(path):
            self._render(page, start, end)
            return

        reader = self.read_document

        def read(job: Job) -> list[Page]:
            return reader(path)

        def done(pages: list[Page]) -> None:
            if serial != self._serial:
                return  # another document was asked for meanwhile
            self.path, self.pages, self._stamp = path, pages, _stamp(path)
            self._render(page, start, end)

        def error(exc: BaseException) -> None:
            if serial == self._serial:
                self.path, self.pages, self._stamp = "", [], None
                self.setPlainText(
                    self.tr("This document cannot be opened ({why}): {path}").format(
                        why=exc, path=path
                    )
                )
                self.failed.emit(path, str(exc))

        self._lanes.run("read", read, on_returned=done, on_errored=error, name="read document")

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Keep the line at the top in its place: the text wraps anew at the new width, which
        left the reader elsewhere in the document."""
        bar = self.verticalScrollBar()
        top = self.cursorForPosition(QPoint(0, 0)).position() if bar.value() > 0 else -1
        super().resizeEvent(event)
        if top >= 0:
            cursor = QTextCursor(self.document())
            cursor.setPosition(top)
            bar.setValue(bar.value() + self.cursorRect(cursor).top())

    @property
    def reading(self) -> bool:
        """A document is still being read."""
        return self._lanes.busy("read")

    def section(self, page: int) -> str:
        return next((p.section for p in self.pages if p.number == page), "")

    def _render(self, page: int, start: int, end: int) -> None:
        self.setHtml(document_html(self.pages, page, start, end))
        text = next((p.text for p in self.pages if p.number == page), "")
        self.marked = " ".join(text[start:end].split()) if 0 <= start < end <= len(text) else ""
        if self.marked:
            self.scrollToAnchor(PASSAGE_ANCHOR)
        else:
            self._scroll_to_section(page)
        self.shown.emit(self.path)

    def _scroll_to_section(self, page: int) -> None:
        target = next((p for p in self.pages if p.number == page), None)
        if target is None:
            self.moveCursor(QTextCursor.MoveOperation.Start)
            return
        words = " ".join(target.text.split()[:8])
        self.moveCursor(QTextCursor.MoveOperation.Start)
        if words and self.find(words):
            cursor = self.textCursor()
            cursor.clearSelection()
            self.setTextCursor(cursor)
        self.ensureCursorVisible()


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns
