"""The GUI thread never waits on a file or a long render: PDFs load on a worker, a streamed
answer touches only the end of a long conversation."""

from __future__ import annotations

import gc
import threading
import weakref

from PySide6.QtPdf import QPdfDocument

from desktop_rag.conversations import Conversation
from desktop_rag.gui.chat import ChatPane
from desktop_rag.gui.session import ModelState
from desktop_rag.types import Source
from tests.helpers.answers import written
from tests.helpers.window import WAIT_MS, ask, wait_indexed
from tests.pdfgen import make_pdf

TURNS = 50


def long_conversation(turns: int = TURNS) -> Conversation:
    conv = Conversation()
    for i in range(turns):
        e = conv.add(f"Question {i}: how many lighthouses stand on island {i}?")
        e.answer = f"Island {i} has {i % 7} lighthouses [1], the oldest from 18{i:02d} [2]. " * 4
        e.sources = [
            Source(n, f"/library/atlas {n}.pdf", n, 0.5, "Island text. " * 30, 0, 100)
            for n in range(1, 7)
        ]
        e.cited = [1, 2]
    return conv


def _blocks(pane: ChatPane) -> list[tuple[str, str, float]]:
    """Each paragraph's text, shading and top margin: what the reader sees."""
    out = []
    block = pane.view.document().begin()
    while block.isValid():
        fmt = block.blockFormat()
        out.append((block.text(), fmt.background().color().name(), fmt.topMargin()))
        block = block.next()
    return out


def _fresh_render(conv: Conversation) -> list[tuple[str, str, float]]:
    pane = ChatPane()
    pane.show_conversation(conv)
    blocks = _blocks(pane)
    pane.deleteLater()
    return blocks


def _anchors(pane: ChatPane) -> list[str]:
    out = []
    block = pane.view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            href = it.fragment().charFormat().anchorHref()
            if href:
                out.append(href)
            it += 1
        block = block.next()
    return out


def test_a_pdf_loads_off_the_gui_thread(open_window, tmp_path, qtbot, monkeypatch):
    big = make_pdf(tmp_path / "big.pdf", [f"Page {p} of a long report." for p in range(1, 301)])
    threads: list[threading.Thread] = []
    load = QPdfDocument.load

    def spy(self, *args):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread())
        return load(self, *args)

    monkeypatch.setattr(QPdfDocument, "load", spy)
    window = open_window()
    pane = window.sources
    pane.show_file(str(big), page=120)
    qtbot.waitUntil(lambda: "page 120 of 300" in pane.heading.text(), timeout=WAIT_MS)
    assert threads and threading.main_thread() not in threads, threads
    assert pane.document.pageCount() == 300

    # A missing file says so, once the worker has tried it; the window shows it too.
    pane.show_file(str(tmp_path / "gone.pdf"))
    qtbot.waitUntil(lambda: "cannot be opened" in pane.passage.toPlainText(), timeout=WAIT_MS)
    assert "no longer there" in pane.passage.toPlainText()
    qtbot.waitUntil(lambda: "cannot be opened" in window.statusBar().currentMessage())


def test_opening_one_pdf_then_another_shows_the_last_one_asked_for(open_window, tmp_path, qtbot):
    first = make_pdf(tmp_path / "first.pdf", [f"First {p}" for p in range(1, 201)])
    second = make_pdf(tmp_path / "second.pdf", ["Second one", "Second two"])
    window = open_window()
    pane = window.sources
    pane.show_file(str(first), page=150)
    pane.show_file(str(second), page=2)  # before the first has loaded
    qtbot.waitUntil(lambda: "second.pdf — page 2 of 2" in pane.heading.text(), timeout=WAIT_MS)
    qtbot.wait(300)  # the first one's load finishing late must not replace it
    assert pane.document.property("path") == str(second)
    assert "second.pdf — page 2 of 2" in pane.heading.text()


def test_an_answer_in_a_long_conversation_touches_only_its_own_end(open_window, animal_pdfs, qtbot):
    window = open_window(
        answer_factory=written(
            "Octopus blood is blue [1] because of hemocyanin [1, 2]. ", delay_s=0.005
        )
    )
    window.session.add_folder(str(animal_pdfs))
    wait_indexed(window, qtbot, 4)
    conv = long_conversation()
    window.show_conversation(conv)
    doc = window.chat.view.document()
    before = doc.characterCount()
    changes: list[tuple[int, int, int]] = []
    doc.contentsChange.connect(lambda pos, removed, added: changes.append((pos, removed, added)))

    ask(window, qtbot, "Why is octopus blood blue?")

    assert len(changes) >= 3  # sources, the streamed tokens and the end were all drawn
    earliest = min(pos for pos, _, _ in changes)
    assert earliest >= before - 1, f"a change at {earliest} redrew the earlier {TURNS} turns"
    assert _blocks(window.chat) == _fresh_render(conv)
    last = len(conv.exchanges) - 1
    assert f"cite:{last}:1" in _anchors(window.chat) and f"cite:{last}:2" in _anchors(window.chat)


def test_streamed_tokens_are_appended_and_citations_split_across_batches_still_link(qtbot):
    pane = ChatPane()
    qtbot.addWidget(pane)
    conv = long_conversation(3)
    exchange = conv.add("Why is octopus blood blue?")
    # Both numbers it cites are its sources: only an answer's own [n] are links (issue 41).
    exchange.sources = [
        Source(1, "/library/octopus.pdf", 2, 0.9, "Hemocyanin.", 0, 10),
        Source(2, "/library/octopus.pdf", 3, 0.8, "Copper.", 0, 7),
    ]
    pane.set_busy(True)
    pane.show_conversation(conv)
    doc = pane.view.document()
    changes: list[tuple[int, int, int]] = []
    for piece in ["Octopus blood", " is blue [", "1", "] because of", " hemocyanin [1,", " 2]."]:
        exchange.answer += piece
        pane.schedule_redraw()
        qtbot.wait(80)  # one flush per batch
        if len(changes) == 0:  # the first token replaces "Thinking…": one redraw of the tail
            doc.contentsChange.connect(lambda p, r, a: changes.append((p, r, a)))
    assert changes and all(removed == 0 for _, removed, _ in changes), changes
    assert "Octopus blood is blue [1] because of hemocyanin [1, 2]." in pane.view.toPlainText()
    assert _anchors(pane)[-3:] == ["cite:3:1", "cite:3:1", "cite:3:2"]
    pane.set_busy(False)
    pane.show_conversation(conv)
    assert _blocks(pane) == _fresh_render(conv)


def test_full_collections_leave_out_what_start_up_left_alive(open_window, qtbot):
    """A full pass of the cyclic collector holds the GIL over every object it walks: with
    start-up's heap in it, every pass stopped the GUI thread for 0.1-0.5 s while indexing
    (bench/window_stall.py). Once the window is open and its models are loaded, a pass walks
    only what came after."""
    window = open_window()
    session = window.session
    qtbot.waitUntil(lambda: session.embedder_status[0] == ModelState.READY, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: session.model_status[0] == ModelState.READY, timeout=WAIT_MS)
    frozen = gc.get_freeze_count()
    walked = len(gc.get_objects())  # what a full pass would walk now
    assert frozen > 10 * walked, (frozen, walked)
    # Still collected: a cycle made after start-up goes in the next full pass.
    cycle: list[object] = []
    cycle.append(cycle)
    probe = weakref.ref(window)  # a live object stays
    del cycle
    assert gc.collect() >= 1
    assert probe() is window
