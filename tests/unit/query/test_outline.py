"""A document's outline: sections from its chunks' heading paths, each section's central
sentences cited to their pages, progress and cancel, and one cached outline per version."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from desktop_rag.errors import Cancelled, UsageError
from desktop_rag.locations import SEPARATOR
from desktop_rag.query import outline as outline_mod
from desktop_rag.query.outline import (
    Outline,
    OutlineService,
    build_outline,
    parts_of,
)
from desktop_rag.types import DocumentRecord, Progress
from tests.fakes import HashEmbedder
from tests.helpers.rows import BATTERY, EMB, SCREEN, manual, row


def test_sections_are_the_heading_paths_and_every_prefix_shows() -> None:
    parts, headings = parts_of(manual(), 3)
    assert headings
    assert [(p.title, p.level, p.page) for p in parts] == [
        ("1 Intro", 0, 1),
        ("2 Power", 0, 2),  # no text of its own: all of it is under 2.1
        ("2.1 Battery", 1, 2),
        ("3 Screen", 0, 3),
    ]
    assert [p.chunks for p in parts] == [[0], [], [1], [2]]


def test_a_title_used_again_later_is_a_section_of_its_own() -> None:
    rows = [
        row(0, 1, BATTERY, "Foo"),
        row(1, 1, SCREEN, "Bar"),
        row(2, 2, BATTERY, "Foo"),
        row(3, 2, SCREEN, f"Foo{SEPARATOR}Sub"),
        row(4, 3, SCREEN, f"Baz{SEPARATOR}Sub"),
    ]
    parts, _ = parts_of(rows, 3)
    assert [(p.title, p.level, p.chunks) for p in parts] == [
        ("Foo", 0, [0]),
        ("Bar", 0, [1]),
        ("Foo", 0, [2]),
        ("Sub", 1, [3]),
        ("Baz", 0, []),
        ("Sub", 1, [4]),
    ]


def test_each_section_keeps_its_central_sentences_verbatim_with_their_pages() -> None:
    outline = build_outline(manual(), EMB, path="/docs/manual.pdf", section_sentences=2)
    by_title = {s.title: s for s in outline.sections}
    assert by_title["2 Power"].sentences == ()
    battery = by_title["2.1 Battery"].sentences
    assert len(battery) == 2 and all(s.page == 2 and s.text in BATTERY for s in battery)
    screen = by_title["3 Screen"].sentences
    # The penguins are not what the screen section is about: its two screen sentences are kept.
    assert [s.text for s in screen] == [
        "The screen brightness adapts to the light of the room automatically.",
        "Clean the screen with a soft dry cloth and never with any solvent.",
    ]
    assert all(s.page == 3 for s in screen)
    assert outline.headings
    assert 0 < len(outline.gist) <= outline_mod.GIST_SENTENCES


def test_a_long_section_does_not_take_the_whole_gist() -> None:
    penguins = [
        row(i, 10 + i, f"Emperor penguins number {i} breed on the sea ice in the dark winter.",
             "Appendix")
        for i in range(30)
    ]  # fmt: skip
    rows = [
        row(100, 1, BATTERY, "Battery"),
        row(101, 2, "The charger of the battery is charged in two hours of charging time.",
             "Charger"),
        row(102, 3, "The battery charge lasts for ten hours of music on one battery charge.",
             "Battery life"),
        *penguins,
    ]  # fmt: skip
    outline = build_outline(rows, EMB, gist_sentences=2)
    assert any(s.page <= 3 for s in outline.gist), outline.gist


def test_sentences_come_from_the_nearest_chunks_that_have_any() -> None:
    table = "Net sales 805 805 805 52.9 1,048 1,048 1,048 70.1 12.3 14,694"
    rows = [row(i, 1, table, "Results") for i in range(5)]
    rows.append(row(5, 2, "Net sales of the year were 1,048 million on a reported basis.",
                     "Results"))  # fmt: skip
    outline = build_outline(rows, EMB)
    assert [s.page for s in outline.sections[0].sentences] == [2]
    assert [s.page for s in outline.gist] == [2]


def test_a_sentence_much_like_one_kept_is_passed_over() -> None:
    text = (
        "The battery charges fully in about two hours from the adapter. "
        "The battery charges fully in about two hours from the adapter today. "
        "Storing the battery cold keeps its charge for months on the shelf."
    )
    outline = build_outline([row(0, 1, text, "Battery")], EMB, section_sentences=2)
    kept = [s.text for s in outline.sections[0].sentences]
    assert len(kept) == 2
    assert "Storing the battery cold keeps its charge for months on the shelf." in kept


def test_halves_of_sentences_at_a_chunks_edges_are_not_kept() -> None:
    text = (
        "of the adapter and then it stops charging on its own at full. "
        "The battery lasts for ten hours of music playback on one charge. "
        "Charge the battery before the first use and keep it"
    )
    outline = build_outline([row(0, 1, text, "Battery")], EMB, section_sentences=3)
    assert [s.text for s in outline.sections[0].sentences] == [
        "The battery lasts for ten hours of music playback on one charge."
    ]


def test_table_rows_and_runs_without_a_full_stop_are_not_sentences() -> None:
    text = (
        "The battery charges fully in about two hours from the supplied adapter. "
        "Net sales 805 805 805 52.9 1,048 1,048 1,048 70.1 and 12.3 of 14,694 total. "
        "Fiscal 2023 Full Year Highlights • Net sales of the battery in line with last year "
        "• Adjusted battery margin up on the year • Charge the battery at home. "
        "Keep the battery away from heat and sunlight while it is charging. "
        "(2) Includes the losses on the battery business sold in fiscal year 2022."
    )
    kept = build_outline([row(0, 1, text, "Battery")], EMB, section_sentences=4)
    assert [s.text for s in kept.sections[0].sentences] == [
        "The battery charges fully in about two hours from the supplied adapter.",
        "Keep the battery away from heat and sunlight while it is charging.",
    ]


def test_bookmarks_give_the_sections_even_those_that_start_inside_a_chunk() -> None:
    rows = [
        row(0, 1, BATTERY, "Results"),
        row(1, 2, SCREEN, "Outlook"),  # "Balance Sheet" starts on page 2 too, inside this chunk
        row(2, 3, BATTERY, "Results"),  # a second "Results", after the first two
    ]
    bookmarks = [(0, "Results", 1), (0, "Outlook", 2), (0, "Balance Sheet", 2), (0, "Results", 3)]
    outline = build_outline(rows, EMB, headings=bookmarks)
    assert [(s.title, s.page, bool(s.sentences)) for s in outline.sections] == [
        ("Results", 1, True),
        ("Outlook", 2, True),
        ("Balance Sheet", 2, False),
        ("Results", 3, True),
    ]
    assert [s.sentences[0].page for s in outline.sections if s.sentences] == [1, 2, 3]


def test_navigation_pages_are_left_out() -> None:
    rows = [
        row(0, 1, "Contents of the manual with every section listed here in order.", nav=True),
        *manual(),
    ]
    outline = build_outline(rows, EMB)
    assert all(s.page != 1 or s.text.startswith("A short") for s in outline.gist)
    assert "Contents" not in " ".join(s.title for s in outline.sections)


def test_a_document_without_headings_is_cut_into_parts_of_pages() -> None:
    rows = [row(i, i + 1, f"Page {i + 1} tells of the battery and the screen here. " + BATTERY)
            for i in range(25)]  # fmt: skip
    outline = build_outline(rows, EMB)
    assert not outline.headings
    assert [s.title for s in outline.sections] == ["Pages 1–9", "Pages 10–18", "Pages 19–25"]
    for section in outline.sections:
        lo, hi = (int(n) for n in section.title.split()[1].split("–"))
        assert section.sentences and all(lo <= s.page <= hi for s in section.sentences)
    short = build_outline(rows[:3], EMB)
    assert [s.title for s in short.sections] == ["Whole document"]


def test_only_the_sentences_of_the_chunks_nearest_the_mean_are_embedded() -> None:
    rows = [row(i, i + 1, BATTERY.replace("two", str(i + 2)), "Battery") for i in range(40)]
    embedder = HashEmbedder()
    build_outline(rows, embedder, gist_sentences=0)
    # 40 chunks of 3 sentences: only CANDIDATE_CHUNKS of them are split and embedded.
    assert embedder.texts_embedded <= outline_mod.CANDIDATE_CHUNKS * 3


def test_progress_counts_up_to_the_sections_and_cancel_stops_the_build() -> None:
    seen: list[Progress] = []
    build_outline(manual(), EMB, on_progress=seen.append)
    assert seen[0].files_done == 0 and seen[-1].files_done == seen[-1].files_total == 5
    assert [p.files_done for p in seen] == sorted(p.files_done for p in seen)

    cancel = threading.Event()

    def cancel_at_second(p: Progress) -> None:
        if p.files_done == 2:
            cancel.set()

    with pytest.raises(Cancelled):
        build_outline(manual(), EMB, on_progress=cancel_at_second, cancel=cancel)


def test_the_outline_reads_back_from_json_and_as_text() -> None:
    outline = build_outline(manual(), EMB, path="/docs/manual.pdf", pages=3)
    again = Outline.from_json(outline.to_json())
    assert again == outline
    text = outline.text()
    assert "Outline of manual.pdf (3 pages)" in text
    assert "  2.1 Battery (p. 2)" in text
    assert "(p. 3)" in text


class _Store:
    def __init__(self, rows: list[dict[str, Any]], record: DocumentRecord) -> None:
        self.rows = rows
        self.record = record
        self.reads = 0

    def documents(self) -> list[DocumentRecord]:
        return [self.record]

    def chunk_rows(self, doc_id: str) -> list[dict[str, Any]]:
        self.reads += 1
        return [dict(r) for r in self.rows if r["doc_id"] == doc_id]


def _record(sha: str = "a" * 64) -> DocumentRecord:
    return DocumentRecord(
        doc_id="doc",
        path="/docs/manual.pdf",
        size=100,
        mtime_ns=1,
        sha256=sha,
        pages=3,
        chunks=3,
        status="indexed",
        error="",
        error_kind="",
        indexed_at=0.0,
    )


def test_an_outline_is_built_once_per_document_version(tmp_path: Path) -> None:
    store = _Store(manual(), _record())
    embedder = HashEmbedder()
    service = OutlineService(store, embedder, tmp_path / "outlines")
    first = service.outline("/docs/manual.pdf")
    assert not first.cached and store.reads == 1
    calls = embedder.calls

    second = OutlineService(store, embedder, tmp_path / "outlines").outline("/docs/manual.pdf")
    assert second.cached and store.reads == 1 and embedder.calls == calls
    assert replace(second, cached=False, seconds=first.seconds) == first

    store.record = _record(sha="b" * 64)  # the file changed: its outline is built again
    third = service.outline("/docs/manual.pdf")
    assert not third.cached and store.reads == 2
    # Only the outline of the version indexed now is kept.
    assert len(list((tmp_path / "outlines").iterdir())) == 1


def test_a_cancelled_outline_is_not_kept(tmp_path: Path) -> None:
    store = _Store(manual(), _record())
    service = OutlineService(store, HashEmbedder(), tmp_path / "outlines")
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        service.outline("/docs/manual.pdf", cancel=cancel)
    assert not (tmp_path / "outlines").exists() or not any((tmp_path / "outlines").iterdir())
    assert not service.outline("/docs/manual.pdf").cached


def test_a_document_not_in_the_index_is_a_usage_error(tmp_path: Path) -> None:
    service = OutlineService(_Store([], _record()), HashEmbedder(), tmp_path)
    with pytest.raises(UsageError, match="not in the index"):
        service.outline("/docs/other.pdf")


def test_an_outline_becomes_an_answer_citing_each_page_once() -> None:
    from desktop_rag.query.outline import outline_events
    from desktop_rag.types import DoneEvent, QuotesEvent, SourcesEvent, TokenEvent

    outline = build_outline(manual(), EMB, path="/docs/manual.pdf", pages=3)
    sources, quotes, token, done = outline_events(outline)
    assert isinstance(sources, SourcesEvent) and isinstance(quotes, QuotesEvent)
    assert isinstance(token, TokenEvent) and isinstance(done, DoneEvent)
    pages = [s.page for s in sources.sources]
    assert sorted(pages) == [1, 2, 3] and [s.n for s in sources.sources] == [1, 2, 3]
    by_page = {s.page: s.n for s in sources.sources}
    assert done.answer == token.text and done.mode == "outline" and done.cited == (1, 2, 3)
    lines = done.answer.split("\n")
    assert lines[0] == "Outline of manual.pdf (3 pages)"
    battery = next(line for line in lines if "2.1 Battery" in line)
    assert battery.endswith(f"[{by_page[2]}]") and battery.startswith("\u00a0" * 4)
    for section in outline.sections:
        for sentence in section.sentences:
            assert f"{sentence.text} [{by_page[sentence.page]}]" in done.answer
    # Each quote is one of the outline's sentences, to be marked on its source's page.
    assert quotes.quotes
    for quote in quotes.quotes:
        source = sources.sources[quote.n - 1]
        assert quote.page == source.page and quote.text in source.text


def test_every_bookmark_is_listed_with_its_page_even_with_no_sentences_of_its_own() -> None:
    # AMCOR's release has three bookmarks on page 9 (cash flows, balance sheet, pro forma
    # income), all tables: none has a sentence, and a bookmark gives its page, not its place
    # on the page, so "Balance Sheet" may start inside another's chunk. The outline is where
    # the user learns that the balance sheet is on page 9: it keeps the author's bookmarks.
    from desktop_rag.query.outline import outline_events

    rows = [
        row(0, 1, BATTERY, "Results"),
        row(1, 2, SCREEN, "Outlook"),
        row(2, 3, BATTERY, "Results"),
    ]
    bookmarks = [(0, "Results", 1), (0, "Outlook", 2), (0, "Balance Sheet", 2), (0, "Results", 3)]
    outline = build_outline(rows, EMB, path="/docs/report.pdf", headings=bookmarks)
    assert "Balance Sheet (p. 2)" in outline.text()
    done = outline_events(outline)[-1]
    assert "Balance Sheet [" in done.answer and "Outlook [" in done.answer
    nested = build_outline(manual(), EMB, path="/docs/manual.pdf", pages=3)
    assert "2 Power" in nested.text() and "2 Power" in outline_events(nested)[-1].answer


def test_a_section_of_tables_without_a_whole_sentence_is_still_listed_with_its_page() -> None:
    # AMCOR's release: "GAAP Balance Sheet" (p. 9) is a table. It has no sentence to quote, but
    # the outline is where the user learns that the balance sheet is on page 9.
    from desktop_rag.query.outline import outline_events

    table = "Total assets 17,003 16,867 Total liabilities 12,234 11,846 Equity 4,769 5,021"
    rows = [
        row(0, 1, BATTERY, "Results"),
        row(1, 2, SCREEN, "Outlook"),
        row(2, 3, table, "Balance Sheet"),
    ]
    bookmarks = [(0, "Results", 1), (0, "Outlook", 2), (0, "Balance Sheet", 3)]
    outline = build_outline(rows, EMB, path="/docs/report.pdf", headings=bookmarks)
    sheet = next(s for s in outline.sections if s.title == "Balance Sheet")
    assert not sheet.sentences
    assert "Balance Sheet (p. 3)" in outline.text()
    done = outline_events(outline)[-1]
    assert "Balance Sheet [" in done.answer
    assert outline_events(Outline.from_json(outline.to_json()))[-1].answer == done.answer
