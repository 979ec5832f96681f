"""Quote first: the sentences of the top sources that best answer the question, verbatim."""

from __future__ import annotations

from desktop_rag.query.quote import (
    MAX_WORDS,
    content_words,
    pick_quotes,
    split_sentences,
    term_scores,
)
from desktop_rag.types import Source
from tests.fakes import HashEmbedder

MANUAL = (
    "Extensions add features to the editor. To install an extension, open the Tools menu, "
    "choose Extension Manager and click Add. The editor restarts after the installation. "
    "Themes change the colours of the window."
)


def _source(n: int, text: str, page: int = 1) -> Source:
    return Source(n=n, path=f"/docs/manual{n}.pdf", page=page, score=1.0 / n, text=text)


def test_sentences_are_verbatim_and_abbreviations_do_not_split_them() -> None:
    text = (
        "Zebras are striped, e.g. The plains zebra is common. The stripes (Fig. 3) deter "
        'flies, as J. Smith wrote "in 2019." Flies land less. Short one. A table run 1 2 3'
    )
    sentences = split_sentences(text)
    assert sentences == [
        "Zebras are striped, e.g. The plains zebra is common.",
        'The stripes (Fig. 3) deter flies, as J. Smith wrote "in 2019."',
        "A table run 1 2 3",
    ]
    assert all(s in text for s in sentences)


def test_a_run_without_full_stops_is_cut_into_pieces() -> None:
    text = " ".join(f"w{i}" for i in range(MAX_WORDS * 2 + 10))
    pieces = split_sentences(text)
    assert [len(p.split()) for p in pieces] == [MAX_WORDS, MAX_WORDS, 10]


def test_pieces_joined_with_a_gap_are_apart() -> None:
    assert split_sentences("The first passage ends here … the second one starts here") == [
        "The first passage ends here",
        "the second one starts here",
    ]


def test_content_words_drop_stopwords_and_plurals() -> None:
    assert content_words("How do I install the extensions?") == ["install", "extension"]


def test_term_scores_favour_the_rare_words_of_the_question() -> None:
    scores = term_scores(
        "install extension",
        ["Extensions add features.", "To install an extension, click Add.", "Themes."],
    )
    assert scores[1] == 1.0 and 0 < scores[0] < 1.0 and scores[2] == 0.0


def test_the_sentence_that_answers_is_quoted_with_its_source_and_page() -> None:
    sources = [
        _source(1, "Themes change the colours. The window can be resized by dragging.", 3),
        _source(2, MANUAL, 47),
    ]
    quotes = pick_quotes("How do I install an extension?", sources, HashEmbedder())
    assert quotes, "a quote for a question its sources answer"
    best = quotes[0]
    assert best.text == (
        "To install an extension, open the Tools menu, choose Extension Manager and click Add."
    )
    assert (best.n, best.path, best.page) == (2, "/docs/manual2.pdf", 47)
    assert len(quotes) <= 2 and all(q.text in sources[q.n - 1].text for q in quotes)
    assert [q.score for q in quotes] == sorted((q.score for q in quotes), reverse=True)


def test_only_the_top_sources_are_read() -> None:
    filler = [_source(n, f"Filler sentence number {n} about nothing at all.") for n in (1, 2, 3)]
    quotes = pick_quotes("install an extension", [*filler, _source(4, MANUAL)], HashEmbedder())
    assert all(q.n <= 3 for q in quotes)


def test_no_sources_no_quotes() -> None:
    assert pick_quotes("anything", [], HashEmbedder()) == ()
    assert pick_quotes("  ", [_source(1, MANUAL)], HashEmbedder()) == ()


def test_an_exchange_keeps_the_quotes_of_its_answer() -> None:
    from desktop_rag.conversations import Exchange
    from desktop_rag.types import Quote, QuotesEvent, SourcesEvent

    exchange = Exchange("How do I install an extension?")
    source = _source(1, MANUAL, 47)
    quote = Quote(1, source.path, 47, "To install an extension, open the Tools menu.", 0.9)
    exchange.apply(SourcesEvent((source,)))
    exchange.apply(QuotesEvent((quote,)))
    assert exchange.quotes == [quote] and exchange.sources == [source]
