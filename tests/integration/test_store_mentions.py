"""LanceStore.mentions on a real index: a name is mentioned when one passage holds all its
words as the full-text index reads them (stemmed), or, asked so, within a letter or two."""

from __future__ import annotations

from pathlib import Path

from tests.fakes import FakeLlm
from tests.helpers.apps import make_app


def test_mentions_on_a_real_index(tmp_path: Path, animal_pdfs: Path) -> None:
    app = make_app(tmp_path, FakeLlm())
    app.ingest.index([str(animal_pdfs)])
    store = app.store
    assert store.mentions("hemocyanin")
    assert store.mentions("copper rich protein")  # one passage holds all three
    assert not store.mentions("penguin hemocyanin")  # two documents, never one passage
    assert store.mentions("octopuses")  # stemmed as the index stems it
    assert store.mentions("chromatophore", 1)
    assert not store.mentions("hemocyanen")
    assert store.mentions("hemocyanen", 1)  # a letter off
    assert not store.mentions("snowflake", 2)
