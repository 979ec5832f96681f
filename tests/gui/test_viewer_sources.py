"""The sources list above the page: every source's file and page in sight, in a narrow pane."""

from __future__ import annotations

from desktop_rag.gui.models import SourcesModel
from desktop_rag.gui.viewer import SourcePane
from desktop_rag.types import Source

LONG_SECTION = "2.4 Margins and further paragraph options for captions set beside their floats"


def _pane(qtbot, width: int, height: int) -> tuple[SourcesModel, SourcePane]:
    model = SourcesModel()
    pane = SourcePane(model)
    qtbot.addWidget(pane)
    pane.resize(width, height)
    pane.show()
    qtbot.waitExposed(pane)
    return model, pane


def test_six_sources_with_long_sections_fit_the_list_without_scrolling_sideways(qtbot):
    model, pane = _pane(qtbot, 320, 700)
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


def _in_view(pane, model, row: int) -> bool:
    rect = pane.list.visualRect(model.index(row))
    return rect.isValid() and rect.bottom() <= pane.list.viewport().rect().bottom()


def test_a_dozen_sources_all_show_until_a_page_opens_then_the_chosen_one_stays_in_view(
    qtbot, tmp_path
):
    """An outline cites a dozen pages: with no page open the list showed six of them beside
    an empty viewer. It shows all twelve now; once a page opens it takes six rows again,
    scrolled to the source being read."""
    model, pane = _pane(qtbot, 420, 800)
    report = tmp_path / "report.txt"
    report.write_text("\n\n".join(f"passage {n}" for n in range(1, 13)), encoding="utf-8")
    sources = [Source(n, str(report), 1, 0.5, f"passage {n}") for n in range(1, 13)]
    model.set_sources(sources)
    qtbot.wait(50)
    assert all(_in_view(pane, model, row) for row in range(12)), "all twelve in view"
    with qtbot.waitSignal(pane.text_view.shown, timeout=60_000):
        pane.show_source(sources[10])
    qtbot.waitUntil(lambda: not pane.text_view._lanes.busy(), timeout=10_000)
    assert not _in_view(pane, model, 0) or not _in_view(pane, model, 11), "six rows again"
    assert _in_view(pane, model, 10), "the source being read is in view"
