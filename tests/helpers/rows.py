"""Chunk rows as the store hands them to the outline (query/outline.py): a row of any text,
and a three-section device manual made of them, for the outline's and the summary's tests."""

from __future__ import annotations

from typing import Any

from desktop_rag.locations import SEPARATOR
from tests.fakes import HashEmbedder

EMB = HashEmbedder()

BATTERY = (
    "The battery charges fully in about two hours from the supplied adapter. "
    "Charge the battery before the first use of the device at home. "
    "The battery lasts for ten hours of music playback on one charge."
)
SCREEN = (
    "The screen brightness adapts to the light of the room automatically. "
    "Clean the screen with a soft dry cloth and never with any solvent. "
    "Penguins breed during the long Antarctic winter on the sea ice."
)


def row(i: int, page: int, text: str, section: str = "", nav: bool = False) -> dict[str, Any]:
    """The chunk row of `text` on `page` of /docs/manual.pdf, its vector the hash embedder's."""
    return {
        "chunk_id": f"doc:{i:05d}",
        "doc_id": "doc",
        "path": "/docs/manual.pdf",
        "page": page,
        "start": 0,
        "end": len(text),
        "text": text,
        "section": section,
        "nav": nav,
        "vector": EMB.embed([text])[0],
    }


def manual() -> list[dict[str, Any]]:
    """Three pages, three sections: an intro, battery care under "2 Power", the screen."""
    return [
        row(0, 1, "A short guide to the device and how to use it well every day.", "1 Intro"),
        row(1, 2, BATTERY, f"2 Power{SEPARATOR}2.1 Battery"),
        row(2, 3, SCREEN, "3 Screen"),
    ]
