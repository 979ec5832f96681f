"""The composed answer: the sources' own sentences, chosen, joined and cited."""

from __future__ import annotations

import re

import pytest

from desktop_rag.query import compose
from desktop_rag.types import Source
from tests.fakes import HashEmbedder


def _sources(*texts: str) -> tuple[Source, ...]:
    return tuple(
        Source(n=i, path=f"/docs/m{i}.pdf", page=i * 10, score=1.0 - i / 10, text=t)
        for i, t in enumerate(texts, 1)
    )


def _sentences(answer: str) -> list[str]:
    return [s.strip() for s in re.split(r"\s*\[\d+\]\s*", answer) if s.strip()]


def test_every_sentence_of_the_answer_is_a_source_sentence_word_for_word() -> None:
    sources = _sources(
        "The battery lasts about two days. Charge it with the USB cable for two hours.",
        "Press and hold the power button for ten seconds to reset the device.",
        "Keep the device away from water and direct sunlight.",
    )
    made = compose.compose("How long does the battery last?", sources, HashEmbedder())
    assert made.text
    for run in _sentences(made.text):
        assert any(run in s.text for s in sources), run
    assert "two days" in made.text
    assert made.cited and made.cited[0] == 1
    assert all(q.text in sources[q.n - 1].text for q in made.quotes)


def test_each_run_of_neighbours_is_cited_once_and_the_answer_stays_short() -> None:
    long_text = " ".join(
        f"Sentence number {i} talks about the battery charge level." for i in range(30)
    )
    made = compose.compose("battery charge level", _sources(long_text), HashEmbedder())
    words = len(re.sub(r"\[\d+\]", "", made.text).split())
    assert words <= compose.WORD_LIMIT
    assert len(made.quotes) <= compose.MAX_SENTENCES


def test_a_sentence_that_announces_what_follows_brings_its_next_sentence() -> None:
    text = (
        "Unrelated words about the weather today. "
        "To remove an old kernel safely, use the following command: "
        "Run apt purge linux-image-OLD as root. "
        "Another unrelated line about cooking pasta."
    )
    made = compose.compose("How do I remove an old kernel safely?", _sources(text), HashEmbedder())
    assert "apt purge linux-image-OLD" in made.text
    # The two neighbours are one run with one citation after it, in reading order.
    assert made.text.index("following command") < made.text.index("apt purge")
    assert made.text.count("[1]") == 1


def test_a_sentence_starting_with_this_brings_the_one_before() -> None:
    text = (
        "The cache lives in /var/cache/apt/archives. "
        "This folder can grow to several gigabytes over a year. "
        "Then ask."
    )
    made = compose.compose("Can it grow to several gigabytes?", _sources(text), HashEmbedder())
    assert "/var/cache/apt/archives" in made.text


def test_reading_order_within_a_source() -> None:
    text = (
        "Step one: open the lid of the printer. Step two: take out the old printer cartridge. "
        "Step three: insert the new printer cartridge until it clicks."
    )
    made = compose.compose(
        "What are the steps to change the printer cartridge?", _sources(text), HashEmbedder()
    )
    positions = [text.index(q.text) for q in made.quotes]
    assert positions == sorted(positions)


def test_no_sentences_no_answer() -> None:
    assert compose.compose("anything", (), HashEmbedder()).text == ""
    assert compose.compose("  ", _sources("Some words here to read."), HashEmbedder()).text == ""


def test_a_sentence_holding_what_the_question_asks_for_gains() -> None:
    assert compose.cue("How many days does it take?", "It takes 5 days.") == 1.0
    assert compose.cue("How many days does it take?", "It takes a while.") == 0.0
    assert compose.cue("Why does my bread come out flat?", "Because it rose too long.") == 1.0
    assert compose.cue("Which option turns it off?", "Set R_DEFAULT_PACKAGES=NULL first.") == 1.0
    assert compose.cue("What is a zebra?", "Zebras have 3 species.") == 0.0
    sentences = (
        "The limit of the upload is generous and the upload is quick for files.",
        "Each upload may be up to 25 MB.",
    )
    found = [compose.Candidate(1, 0, i, t) for i, t in enumerate(sentences)]
    question = "How large can an upload be?"
    plain = compose.score(question, found, HashEmbedder(), cue_weight=0.0)
    cued = compose.score(question, found, HashEmbedder())
    assert cued[1] - cued[0] == pytest.approx(plain[1] - plain[0] + compose.CUE_WEIGHT)


def test_a_question_in_the_text_is_never_the_answer_and_an_announced_list_follows() -> None:
    # The list ends where the next heading starts: it is all there to be given whole.
    guide = (
        "How do I add my own documents? There are three ways to add your own documents: "
        "Drag and drop files. Drag PDF files onto the window. Add a folder with Ctrl+O.\n"
        "\nAsking questions\nType a question in the box and press Enter."
    )
    made = compose.compose("How do I add my own documents?", _sources(guide), HashEmbedder())
    assert "?" not in made.text
    assert made.text.startswith("There are three ways")
    assert "Drag PDF files onto the window." in made.text and "Ctrl+O" in made.text
    assert len(made.quotes) <= compose.LIST_SENTENCES


def test_a_list_that_runs_on_past_the_passage_is_not_announced() -> None:
    # Issue 41: "There are three ways" followed by two, the third in a passage not read.
    guide = (
        "There are three ways to add your own documents:\nDrag and drop files. Drag PDF "
        "files onto the window. They are copied into your library folder and indexed at once."
        " Drag and drop a folder, or press Ctrl+O. A folder you drop becomes a watched folder."
    )
    made = compose.compose("How do I add my own documents?", _sources(guide), HashEmbedder())
    assert made.text and "three ways" not in made.text, made.text


def test_a_quote_is_its_sources_own_text_line_breaks_and_all() -> None:
    # The composed answer reads a source by its lines (issue 41); its quotes stay the
    # source's own words, so a quote is found in its source as it is.
    text = "The battery lasts about\ntwo days on one charge. Charge it with the USB\ncable."
    made = compose.compose("How long does the battery last?", _sources(text), HashEmbedder())
    assert made.quotes and all(q.text in text for q in made.quotes), made.quotes
    assert "\n" not in made.text


def test_a_sentence_cut_where_its_passage_starts_is_shown_as_a_fragment() -> None:
    """The chunker starts a passage a few words back, inside a sentence; when the fact is in
    that sentence's end, the answer gives it marked "…", and its quote is the page's words."""
    from desktop_rag.types import Source

    source = Source(
        n=1,
        path="/docs/octave.pdf",
        page=7,
        score=1.0,
        text=(
            "downgrade a package, but makes it impossible to have several versions of the "
            "same package installed at once. Packages are loaded with pkg load."
        ),
        start=120,
    )
    made = compose.compose(
        "Can I keep two versions of the same package installed?", (source,), HashEmbedder()
    )
    assert "… downgrade a package, but makes it impossible" in made.text
    assert made.quotes[0].text.startswith("downgrade a package")
