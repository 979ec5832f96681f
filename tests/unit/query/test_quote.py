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


# Issue 41, item 3: texts as the index holds them (real PDFs' lines).
FRONT_MATTER = (
    "The First Detection of Equine Coronavirus in Adult Horses and\nFoals in Ireland\n"
    "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC6832964/\n"
    "SHA: eee5a9068ade4c6776f189045115a90a5785e983\n"
    "Authors: Nemoto, Manabu; Schofield, Warren; Cullinane, Ann\nDate: 2019-10-14\n"
    "DOI: 10.3390/v11100946\nLicense: cc-by\nAbstract:\n"
    "Equine coronavirus (ECoV) is a positive-stranded RNA virus. It causes fever in foals."
)


def test_answer_sentences_leave_front_matter_and_headings_out() -> None:
    from desktop_rag.query.quote import answer_sentences

    assert answer_sentences(FRONT_MATTER) == [
        "Equine coronavirus (ECoV) is a positive-stranded RNA virus.",
        "It causes fever in foals.",
    ]
    budget = "Budget\n\nThe approved budget for the year is 2.4 million euros.\n\nTravel."
    assert answer_sentences(budget) == ["The approved budget for the year is 2.4 million euros."]
    headline = (
        "March 9, 2023\nUlta Beauty Announces Fourth Quarter\nFiscal 2022 Results\n"
        "Net Sales of $3.2 Billion Compared to $2.7 Billion in the Year-Ago Quarter\n"
        "Comparable Sales Increased 15.6%\n"
        "BOLINGBROOK, Ill.--(BUSINESS WIRE)-- Ulta Beauty, Inc. (NASDAQ: ULTA) today\n"
        "announced financial results for the fourth quarter."
    )
    assert answer_sentences(headline) == [
        "BOLINGBROOK, Ill.--(BUSINESS WIRE)-- Ulta Beauty, Inc. (NASDAQ: ULTA) today announced "
        "financial results for the fourth quarter."
    ]


def test_answer_sentences_are_whole_or_marked_as_fragments_where_a_passage_is_cut() -> None:
    """A sentence cut where a passage starts or ends is kept, marked as a fragment (the
    composed answer shows it with "…"): the fact a manual's answer needs is often in one, and
    leaving them out cost 6 of 44 manual questions their fact (bench/answer_facts.py)."""
    from desktop_rag.query.quote import answer_blocks, answer_sentences

    cut = (
        "transmission route is considered to be faecal-oral. ECoV is usually detected in "
        "faecal samples. The virus was found in"
    )
    blocks = answer_blocks(cut, page_start=False)
    assert [s for b in blocks for s in b.sentences] == [
        "transmission route is considered to be faecal-oral.",
        "ECoV is usually detected in faecal samples.",
        "The virus was found in",
    ]
    marked = {b.sentences[i]: side for b in blocks for i, side in b.cut}
    assert marked == {
        "transmission route is considered to be faecal-oral.": "start",
        "The virus was found in": "end",
    }
    # A capital does not make a sentence's start: a passage starts a few words back.
    ireland = answer_blocks("Ireland, the third country of the study. Horses were tested.", False)
    assert dict(ireland[0].cut) == {0: "start"}
    jump = (
        "There was season-to-season variability in the leading causes of\n"
        "The findings of our study show that HCoV is an important cause of ILI. "
        "It was common in winter."
    )
    assert "It was common in winter." in answer_sentences(jump)
    # A manual's line that starts with a command is a sentence.
    assert answer_sentences("make uninstall removes what make install put in place.") == [
        "make uninstall removes what make install put in place."
    ]
    assert answer_sentences("It rose. 22 For example, beds were short in the ED.") == [
        "For example, beds were short in the ED."
    ]


def test_an_option_list_entry_is_a_sentence_though_it_starts_with_the_option() -> None:
    """A manual's list of options: "leqno Place equation numbers on the left." is the answer to
    "how do I put equation numbers on the left"; a lower-case word of prose before a capital
    ("and Western blots showed …", cut from its start) is not such an entry."""
    from desktop_rag.query.quote import answer_sentences

    options = (
        "The amsmath package also recognizes the following options.\n"
        "leqno Place equation numbers on the left.\n"
        "reqno Place equation numbers on the right.\n"
    )
    assert answer_sentences(options) == [
        "The amsmath package also recognizes the following options.",
        "leqno Place equation numbers on the left.",
        "reqno Place equation numbers on the right.",
    ]
    prose = "It was seen in vitro.\nand Western blots showed a band at 40 kDa."
    assert answer_sentences(prose) == [" ".join(prose.split())]


# -- sentences in other languages (issue 46, item 3) ---------------------------------------------


def test_chinese_and_japanese_sentences_end_at_their_full_stops() -> None:
    """No space follows 。！？, and no space parts the words: a page in Chinese or Japanese had
    no sentence at all, so no quote and no composed answer."""
    chinese = "数据库已经在昨天晚上备份完毕。请在维护窗口内重新启动服务器！这样做安全吗？"
    assert split_sentences(chinese) == [
        "数据库已经在昨天晚上备份完毕。",
        "请在维护窗口内重新启动服务器！",
        "这样做安全吗？",
    ]
    japanese = (
        "バックアップは昨夜完了しました。「サーバーを再起動してください。」と管理者が言った。"
    )
    assert split_sentences(japanese)[0] == "バックアップは昨夜完了しました。"
    assert len(split_sentences(japanese)) == 2


def test_a_long_run_of_chinese_with_no_full_stop_is_cut_into_pieces() -> None:
    run = "服务器" * 200
    pieces = split_sentences(run)
    assert len(pieces) > 1 and "".join(pieces) == run


def test_a_sentence_may_start_with_an_accented_capital() -> None:
    text = "Le fichier de configuration est lu au démarrage. Étape suivante : le service démarre."
    assert split_sentences(text) == [
        "Le fichier de configuration est lu au démarrage.",
        "Étape suivante : le service démarre.",
    ]
    german = "Die Sicherung läuft jede Nacht um zwei Uhr. Über das Menü wird sie geändert."
    assert len(split_sentences(german)) == 2


def test_german_and_french_abbreviations_do_not_end_a_sentence() -> None:
    text = "Die Datei, z. B. die Konfiguration, wird gelesen. Siehe Nr. 5 im Handbuch dazu."
    assert split_sentences(text) == [
        "Die Datei, z. B. die Konfiguration, wird gelesen.",
        "Siehe Nr. 5 im Handbuch dazu.",
    ]


def test_the_composed_answers_sentences_in_other_languages_are_whole() -> None:
    """answer_sentences (what a composed answer is made of) gave no sentence of a Chinese page,
    ran two French sentences into one at "Étape", and cut a German one at "z. B."."""
    from desktop_rag.query.quote import answer_sentences

    chinese = "数据库已经在昨天晚上备份完毕。请在维护窗口内重新启动服务器！这样做安全吗？"
    assert answer_sentences(chinese) == [
        "数据库已经在昨天晚上备份完毕。",
        "请在维护窗口内重新启动服务器！",
        "这样做安全吗？",
    ]
    french = "Le fichier de configuration est lu au démarrage. Étape suivante : le service démarre."
    assert answer_sentences(french) == [
        "Le fichier de configuration est lu au démarrage.",
        "Étape suivante : le service démarre.",
    ]
    german = "Die Datei, z. B. die Konfiguration, wird gelesen. Über das Menü wird sie geändert."
    assert answer_sentences(german) == [
        "Die Datei, z. B. die Konfiguration, wird gelesen.",
        "Über das Menü wird sie geändert.",
    ]


def test_a_word_count_counts_two_characters_of_chinese_as_a_word() -> None:
    from desktop_rag.query.quote import words_in

    assert words_in("The boiler warranty lasts five years.") == 6
    assert words_in("这样做安全吗？") == 4 and words_in("The 服务器 restarts") == 3


def test_chinese_words_are_content_words_as_pairs() -> None:
    """Issue 46, item 2: the composed answer's word scores see Chinese and Japanese words."""
    from desktop_rag.query.quote import content_words, term_scores

    assert content_words("如何安装软件包") == ["如何", "何安", "安装", "装软", "软件", "件包"]
    assert content_words("The vaccines work") == ["vaccine", "work"]  # as before
    scores = term_scores("怎么安装软件包", ["网络配置文件位于这里。", "使用apt命令安装软件包。"])
    assert scores[1] == 1.0 and scores[0] == 0.0
