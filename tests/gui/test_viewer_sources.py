"""The sources list above the page: every source's file and page in sight, in a narrow pane."""

from __future__ import annotations

from desktop_rag.gui.models import SourcesModel
from desktop_rag.gui.viewer import SourcePane
from desktop_rag.types import Source

LONG_SECTION = "2.4 Margins and further paragraph options for captions set beside their floats"


def test_six_sources_with_long_sections_fit_the_list_without_scrolling_sideways(qtbot):
    model = SourcesModel()
    pane = SourcePane(model)
    qtbot.addWidget(pane)
    pane.resize(320, 700)
    pane.show()
    qtbot.waitExposed(pane)
    sources = [
        Source(n, "/docs/caption.pdf", 10 + n, 0.5, "text", section=LONG_SECTION)
        for n in range(1, 7)
    ]
    model.set_sources(sources)
    qtbot.wait(50)
    # A sideways scroll bar would hide the pages of long lines and take the sixth row's room.
    assert not pane.list.horizontalScrollBar().isVisible()
    viewport = pane.list.viewport().rect()
    for row in range(len(sources)):
        rect = pane.list.visualRect(model.index(row))
        assert rect.bottom() <= viewport.bottom(), f"source {row + 1} is below the list's edge"
