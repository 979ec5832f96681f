"""Documents without pages in the window: "manual.docx, § 3.4" in the sources, the text shown
with its headings, scrolled to the passage and marked, "Open in system viewer" as for PDFs."""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl

from desktop_rag.gui.models import SourcesModel
from desktop_rag.gui.textview import document_html
from desktop_rag.gui.viewer import SourcePane
from desktop_rag.ingest.extract import extract
from desktop_rag.types import Page, Source
from tests.docgen import make_docx
from tests.helpers.window import WAIT_MS, ask, wait_indexed

MANUAL = [
    (1, "1 Introduction", ["This manual explains how the office printer is installed."]),
    (1, "3 Setup", []),
    (2, "3.4 Choosing a printer", ["Choose a printer that speaks PostScript over USB."]),
    (1, "4 Care", ["Dust the paper tray once a month with a dry cloth. " * 40]),
]


def test_document_html_marks_the_passage_under_its_heading():
    pages = [
        Page(1, "1 Introduction\n\nIntro text.", "1 Introduction"),
        Page(2, "3.4 Choosing\n\nPick a PostScript printer.", "3 Setup › 3.4 Choosing"),
    ]
    start = pages[1].text.index("PostScript")
    html = document_html(pages, 2, start, start + len("PostScript printer"))
    assert "<h1>1 Introduction</h1>" in html and "<h2>3.4 Choosing</h2>" in html
    assert "<a name='passage'></a><span" in html and ">PostScript printer</span>" in html
    assert html.index("<h2>3.4 Choosing</h2>") < html.index("name='passage'")


def test_pane_shows_a_docx_at_its_section_with_the_passage_marked(qtbot, tmp_path, monkeypatch):
    path = str(make_docx(tmp_path / "manual.docx", MANUAL))
    page = next(p for p in extract(path).pages if p.section.endswith("3.4 Choosing a printer"))
    start = page.text.index("Choose a printer")
    end = start + len("Choose a printer that speaks PostScript")
    source = Source(1, path, page.number, 1.0, page.text[start:end], start, end, page.section)
    model = SourcesModel()
    model.set_sources([source])
    assert model.index(0).data() == "[1] manual.docx, § 3.4 Choosing a printer"
    pane = SourcePane(model)
    qtbot.addWidget(pane)
    opened = []
    monkeypatch.setattr(
        "desktop_rag.gui.viewer.QDesktopServices.openUrl", lambda url: opened.append(url)
    )
    with qtbot.waitSignal(pane.text_view.shown, timeout=WAIT_MS):
        pane.show_source(source)
    qtbot.waitUntil(lambda: not pane.text_view.reading, timeout=WAIT_MS)
    assert pane.page_stack.currentWidget() is pane.text_view
    assert pane.heading.text() == "[1] manual.docx, § 3.4 Choosing a printer"
    assert pane.matched == "Choose a printer that speaks PostScript"
    text = pane.text_view.toPlainText()
    assert "3.4 Choosing a printer" in text and "Dust the paper tray" in text
    selection = pane.text_view.document().toHtml()
    assert "background-color:#ffe978" in selection.replace(" ", "")
    assert pane.open_button.isEnabled() and not pane.next_button.isEnabled()
    pane.open_button.click()
    assert opened == [QUrl.fromLocalFile(path)]


def test_a_docx_citation_opens_its_text_in_the_window(open_window, qtbot, tmp_path):
    folder = tmp_path / "manuals"
    folder.mkdir()
    make_docx(folder / "printer.docx", MANUAL)
    window = open_window()
    window.session.add_folder(str(folder))
    wait_indexed(window, qtbot, 2, WAIT_MS)  # the guide and the manual
    ask(window, qtbot, "Which printer should I choose? PostScript over USB")
    source = next(s for s in window.current.exchanges[0].sources if s.path.endswith(".docx"))
    assert source.section == "3 Setup › 3.4 Choosing a printer"
    assert "§&nbsp;3.4" in window.chat.view.toHtml() or "§ 3.4" in window.chat.view.toPlainText()
    pane = window.sources
    with qtbot.waitSignal(pane.text_view.shown, timeout=WAIT_MS):
        window.chat.view.anchorClicked.emit(QUrl(f"cite:0:{source.n}"))
    assert pane.heading.text().endswith("printer.docx, § 3.4 Choosing a printer")
    assert "PostScript" in pane.matched
    model = window.documents_model
    row = model._by_path[source.path]
    assert "3 sections" in model.index(row, model.NAME).data(Qt.ItemDataRole.ToolTipRole)
