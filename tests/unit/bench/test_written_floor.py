"""bench.tune.written_floor's counts: the words and gold pages the floor and the brief keep, by
the service's own rules, on a composed answer made by hand."""

from __future__ import annotations

from bench.tune.written_floor import Read
from desktop_rag.query.compose import Composed


def _read() -> Read:
    # Four pages of 100 words; the composed answer cites page 1; page 3 answers (0.5); the
    # others do not (0.05), page 4 after the last that answers.
    composed = Composed(
        "An answer [1].",
        (),
        (1,),
        0.9,
        strength=((1, 0.9), (2, 0.05), (3, 0.5), (4, 0.05)),
        leads=((1, "one two"), (2, "three four five"), (3, "six"), (4, "seven eight")),
    )
    pages = [{"page": ("a.pdf", n), "words": 100} for n in range(1, 5)]
    return Read(pages, composed, 4, floor=0.1)


def test_the_floor_leaves_out_the_pages_after_the_last_that_answers() -> None:
    read = _read()
    assert read.words("floor", 0.1) == 300 and read.changed("floor", 0.1)
    assert read.words("floor", 0.0) == 400 and not read.changed("floor", 0.0)
    assert read.gold_lost("floor", 0.1, [False, False, False, True])
    assert not read.gold_lost("floor", 0.1, [False, False, True, False])


def test_the_brief_gives_the_weak_pages_read_by_their_best_sentence() -> None:
    read = _read()
    # Page 2 is read (between pages that answer) and weak: its three words; page 4 is not read.
    assert read.briefed(0.3) == {2}
    assert read.words("brief", 0.3) == 100 + 3 + 100
    assert read.briefed(0.6) == {2, 3}, "page 3 is not cited and below 0.6"
    assert read.words("brief", 0.0) == 300 and not read.changed("brief", 0.0)
    assert read.gold_lost("brief", 0.3, [False, True, False, False])
    assert not read.gold_lost("brief", 0.3, [False, True, True, False])
