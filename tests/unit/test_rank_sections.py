"""The right page first: a manual's contents page must not outrank the section it lists."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.app import App, build_app
from desktop_rag.config import Settings
from tests.fakes import HashEmbedder, WordTokenizer
from tests.pdfgen import make_pdf

HEADER = "Handy Vac 3000 User Manual"
FILLER = (
    "The unit should be switched off and unplugged before any of the steps below, and the "
    "instructions of this chapter apply to every model of the range sold since the first "
    "edition of this manual was printed, whatever the colour or the size of the unit."
)
SECTIONS = [
    ("1 Getting started", "Unpack the vacuum cleaner and fit the nozzle to the hose."),
    ("2 Battery care", "The pack lasts longest when it is treated as described here."),
    ("2.1 Charging the battery", "Plug the charger in for four hours before the first use."),
    ("2.2 Storing the battery", "Keep the pack in a cool dry place at half charge for months."),
    ("3 Cleaning the filter", "Rinse the filter under cold water once a month and let it dry."),
    ("4 Emptying the bin", "Press the red button and tip the dust into a bin."),
    ("5 Troubleshooting", "If the motor stops, check the hose for blockages."),
]


def manual(tmp_path: Path) -> Path:
    contents = ["Contents"] + [
        f"{title} . . . . . . . . . . . . . . . . {page}"
        for page, (title, _) in enumerate(SECTIONS, start=3)
    ]
    pages = ["Handy Vac 3000\nUser Manual\nThird edition", "\n".join(contents)]
    for number, (title, body) in enumerate(SECTIONS, start=3):
        pages.append(f"{HEADER}\n{title}\n{body} {FILLER} {FILLER}\n{number}")
    return make_pdf(tmp_path / "handyvac.pdf", pages)


@pytest.fixture
def app(tmp_path: Path) -> App:
    app = build_app(
        Settings(data_dir=str(tmp_path / "data")),
        embedder=HashEmbedder(),
        tokenizer=WordTokenizer,
        isolate=False,
    )
    app.ingest.index([str(manual(tmp_path))])
    return app


@pytest.mark.parametrize(
    ("query", "page"),
    [
        ("Storing the battery", 6),
        ("Charging the battery", 5),
        ("Cleaning the filter", 7),
        ("Troubleshooting", 9),
    ],
)
def test_a_section_title_finds_the_section_not_the_contents(
    app: App, query: str, page: int
) -> None:
    hits = app.retriever.search(query, k=5)
    assert hits[0].page == page
    assert 2 in [h.page for h in hits], "the contents page stays findable"


def test_the_contents_page_is_still_found_when_nothing_else_matches(app: App) -> None:
    hits = app.retriever.search("Contents", k=3)
    assert hits[0].page == 2
