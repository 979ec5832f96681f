"""A passage cut mid-sentence is read with the rest of its sentences from its page, so the
composed answer quotes whole sentences (issue 41, item 3)."""

from __future__ import annotations

from dataclasses import replace

from desktop_rag.query.compose import candidates
from desktop_rag.query.quote import widen
from desktop_rag.types import Hit, Source

PAGE = (
    "Packages\n\n"
    "Octave can install a package from a file. Installing a newer version replaces the old "
    "one, which allows to downgrade a package, but makes it impossible to have several "
    "versions of the same package installed at once. A package that depends on others can "
    "be installed with the -nodeps flag. Loading a package adds its folder to the path."
)


def _hit(start: int, end: int) -> Hit:
    return Hit("c:1", "c", "pkg.pdf", 3, start, end, PAGE[start:end], 1.0)


def test_a_passage_is_widened_to_the_sentences_it_cuts() -> None:
    start = PAGE.index("downgrade")
    end = PAGE.index("installed with") + len("installed")
    hit = widen(_hit(start, end), PAGE)
    assert hit.text.startswith("Installing a newer version")
    assert hit.text.endswith("with the -nodeps flag.")
    assert hit.text == PAGE[hit.start : hit.end] and hit.whole


def test_a_passage_already_whole_or_at_the_page_start_is_kept() -> None:
    start = PAGE.index("Octave can")
    end = PAGE.index("at once.") + len("at once.")
    assert widen(_hit(start, end), PAGE) == replace(_hit(start, end), whole=True)
    first = widen(_hit(0, 40), PAGE)
    assert first.start == 0 and first.text.endswith("from a file.")


def test_a_sentence_longer_than_the_reach_stays_a_fragment() -> None:
    long_page = "It starts here " + "and goes on " * 200 + "until it stops."
    start = long_page.index("goes on", 1000)
    cut = Hit("c:1", "c", "a.pdf", 1, start, start + 40, long_page[start : start + 40], 1.0)
    hit = widen(cut, long_page)
    assert hit.start == start and not hit.whole


def test_whole_sources_are_not_shown_as_fragments() -> None:
    start = PAGE.index("downgrade")
    hit = widen(_hit(start, PAGE.index("-nodeps")), PAGE)
    source = Source(1, hit.path, hit.page, 1.0, hit.text, hit.start, hit.end, whole=hit.whole)
    found = candidates([source])
    assert found[0].text.startswith("Installing a newer version") and found[0].cut == ""
    assert all(c.cut == "" for c in found)
