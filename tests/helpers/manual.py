"""A small manual with a contents page, the sections it lists, and a broad question about it."""

from __future__ import annotations

from pathlib import Path

from tests.pdfgen import make_pdf

HEADER = "Handy Vac 3000 User Manual"
FILLER = (
    "Before any of these steps switch the unit off and unplug it; they apply to every model "
    "of the range sold since the first edition, whatever its colour or size, and to the spare "
    "parts too."
)
SECTIONS = [
    ("1 Getting started", "Unpack the vacuum cleaner and fit the nozzle to the hose."),
    ("2 Battery care", "Treat the pack as described here and it lasts longest."),
    ("2.1 Charging the battery", "Plug the charger in for four hours before the first use."),
    ("2.2 Storing the battery", "Keep the pack in a cool dry place at half charge for months."),
    ("3 Cleaning the filter", "Rinse it under cold water once a month and let it dry."),
    ("4 Emptying the bin", "Press the red button and tip the dust out."),
    ("5 Troubleshooting", "If the motor stops, look for blockages in the hose."),
]
CONTENTS_PAGE = 2


def manual(tmp_path: Path) -> Path:
    contents = ["Contents"] + [
        f"{title} . . . . . . . . {page}" for page, (title, _) in enumerate(SECTIONS, start=3)
    ]
    pages = ["Handy Vac 3000\nUser Manual", "\n".join(contents)]
    for number, (title, body) in enumerate(SECTIONS, start=3):
        pages.append(f"{HEADER}\n{title}\n{body} {FILLER} {FILLER} {FILLER}\n{number}")
    return make_pdf(tmp_path / "handyvac.pdf", pages)


BROAD = "Contents: getting started, battery care, cleaning the filter, emptying the bin"
