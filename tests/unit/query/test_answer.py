"""The answer service over a real LanceStore with a fake embedder and a fake model."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from desktop_rag.app import App, build_app
from desktop_rag.config import Settings
from desktop_rag.errors import EmptyLibraryError
from desktop_rag.query.prompt import NOTHING_RELEVANT
from desktop_rag.types import DoneEvent, QuotesEvent, SourcesEvent, TokenEvent, Turn
from tests.fakes import FakeLlm, HashEmbedder, WordTokenizer
from tests.helpers.apps import make_app
from tests.pdfgen import make_pdf


@pytest.fixture
def indexed(tmp_path: Path, animal_pdfs: Path) -> tuple[App, FakeLlm]:
    llm = FakeLlm()
    app = make_app(tmp_path, llm)
    app.ingest.index([str(animal_pdfs)])
    return app, llm


def test_building_the_app_does_not_load_the_model(tmp_path: Path) -> None:
    app = build_app(
        Settings(data_dir=str(tmp_path / "d")),
        embedder=HashEmbedder(),
        tokenizer=WordTokenizer,
        isolate=False,
    )
    assert app.answer.llm.loaded is False


def test_events_come_as_sources_quotes_then_tokens_then_done(
    indexed: tuple[App, FakeLlm],
) -> None:
    app, llm = indexed
    events = list(app.answer.ask("Why is octopus blood blue?"))
    assert isinstance(events[0], SourcesEvent)
    assert isinstance(events[1], QuotesEvent)
    assert all(isinstance(e, TokenEvent) for e in events[2:-1])
    assert isinstance(events[-1], DoneEvent)
    sources = events[0].sources
    done = events[-1]
    assert sources and [s.n for s in sources] == list(range(1, len(sources) + 1))
    assert (Path(sources[0].path).name, sources[0].page) == ("octopus.pdf", 2)
    best = events[1].quotes[0]
    assert best.text == (
        "Octopus blood is blue because it uses hemocyanin, a copper-rich protein, to carry oxygen."
    )
    assert (best.n, best.path, best.page) == (1, sources[0].path, 2)
    assert best.text in sources[0].text
    streamed = "".join(e.text for e in events[2:-1])
    assert (
        done.answer == streamed == "According to [1], octopus blood is blue because of hemocyanin."
    )
    assert done.cited == (1,)
    assert not done.refused and not done.cancelled
    assert done.timings.retrieval_ms > 0
    assert done.timings.total_s >= done.timings.ttft_s > 0
    assert len(llm.prompts) == 1
    assert "[1] octopus.pdf, page 2:" in llm.prompts[0].text


def test_citations_of_sources_that_do_not_exist_are_dropped(tmp_path, animal_pdfs) -> None:
    # (An answer of the question's words alone, "blue", would be withheld from these sources.)
    llm = FakeLlm("1], blue, from hemocyanin [2] [9].")
    app = make_app(tmp_path, llm)
    app.ingest.index([str(animal_pdfs)])
    *_, done = app.answer.ask("Why is octopus blood blue?", k=2)
    assert isinstance(done, DoneEvent)
    assert done.cited == (1, 2)


def test_figures_the_sources_do_not_hold_are_flagged(tmp_path, animal_pdfs) -> None:
    # octopus.pdf says three hearts and eight arms, in words: 12 and 3.5 come from nowhere,
    # while 65 comes from the question itself.
    llm = FakeLlm("1], an octopus has 12 hearts, 3.5 litres of blood and lives 65 days.")
    app = make_app(tmp_path, llm)
    app.ingest.index([str(animal_pdfs)])
    # Its new claims are mostly from nowhere, which would withhold it: this test is of the flags.
    app.answer.refuse_below = 0.0
    *_, done = app.answer.ask("How many hearts has an octopus that lives 65 days?")
    assert isinstance(done, DoneEvent)
    # "litres" and "lives" are in no page either: words are checked as figures are.
    assert done.unsupported[:2] == ("12", "3.5") and "litres" in done.unsupported
    assert done.mode == "composed" and done.withheld.endswith("lives 65 days.")


def test_an_answer_true_to_its_sources_flags_nothing(indexed) -> None:
    app, _ = indexed
    *_, done = app.answer.ask("Why is octopus blood blue?")
    assert isinstance(done, DoneEvent)
    assert done.unsupported == ()


def test_empty_library_is_a_clear_error(tmp_path: Path) -> None:
    llm = FakeLlm()
    app = make_app(tmp_path, llm)
    with pytest.raises(EmptyLibraryError, match="library is empty"):
        list(app.answer.ask("Anything?"))
    assert llm.loads == 0


def test_nothing_relevant_is_said_plainly_without_asking_the_model(indexed) -> None:
    app, llm = indexed
    events = list(app.answer.ask("quantum chromodynamics lattice gauge"))
    assert events[:2] == [SourcesEvent(()), QuotesEvent(())]
    done = events[-1]
    assert isinstance(done, DoneEvent)
    assert done.answer == NOTHING_RELEVANT
    assert done.refused is True
    assert done.cited == ()
    assert llm.prompts == []


def test_model_saying_the_sources_do_not_say_is_a_refusal(tmp_path, animal_pdfs) -> None:
    app = make_app(tmp_path, FakeLlm("The sources do not say.", chat=True))
    app.ingest.index([str(animal_pdfs)])
    *_, done = app.answer.ask("How many hearts does an octopus have?")
    assert isinstance(done, DoneEvent)
    assert done.refused is True


def test_a_refusal_after_the_answer_prefix_cites_nothing(tmp_path, animal_pdfs) -> None:
    # The base model's answer starts "According to [", and it may still refuse after it.
    app = make_app(tmp_path, FakeLlm("1], the source does not say."))
    app.ingest.index([str(animal_pdfs)])
    *_, done = app.answer.ask("How many hearts does an octopus have?")
    assert isinstance(done, DoneEvent)
    assert done.refused is True
    assert done.cited == ()


def test_cancel_stops_the_stream_and_still_ends_with_done(tmp_path, animal_pdfs) -> None:
    llm = FakeLlm(" ".join(["word"] * 200), delay_s=0.001)
    app = make_app(tmp_path, llm)
    app.ingest.index([str(animal_pdfs)])
    cancel = threading.Event()
    tokens = 0
    done = None
    for event in app.answer.ask("octopus hearts", cancel=cancel):
        if isinstance(event, TokenEvent):
            tokens += 1
            if tokens == 3:
                cancel.set()
        elif isinstance(event, DoneEvent):
            done = event
    assert done is not None and done.cancelled
    assert tokens == 3
    assert llm.last_generation.cancelled


def test_cancel_before_generation_asks_nothing(indexed) -> None:
    app, llm = indexed
    cancel = threading.Event()
    cancel.set()
    events = list(app.answer.ask("octopus hearts", cancel=cancel))
    assert isinstance(events[0], SourcesEvent) and isinstance(events[-1], DoneEvent)
    assert [type(e) for e in events] == [SourcesEvent, QuotesEvent, DoneEvent]
    assert events[-1].cancelled and events[-1].answer == ""
    assert llm.prompts == []


def test_short_follow_ups_retrieve_with_the_previous_question(indexed) -> None:
    app, llm = indexed
    history = [Turn("How many hearts does an octopus have?", "According to [1], three.")]
    assert app.answer.retrieval_query("and its blood?", history) == (
        "How many hearts does an octopus have? and its blood?"
    )
    long_question = "What do we know about the breeding of emperor penguins in winter?"
    assert app.answer.retrieval_query(long_question, history) == long_question
    events = list(app.answer.ask("and its blood?", history=history))
    sources = events[0].sources
    assert sources and Path(sources[0].path).name == "octopus.pdf"
    assert "Question: How many hearts does an octopus have?" in llm.prompts[-1].text


def test_warm_up_loads_the_model(indexed) -> None:
    app, llm = indexed
    assert llm.loads == 0
    app.answer.warm_up()
    assert llm.loads == 1


@pytest.mark.parametrize(
    "question",
    ["Why is octopus blood blue?", "How many hearts does an octopus have?"],
)
def test_an_index_of_another_embedder_answers_by_words(tmp_path, animal_pdfs, question) -> None:
    from desktop_rag.query.prompt import WORDS_ONLY

    make_app(tmp_path, FakeLlm()).ingest.index([str(animal_pdfs)])
    llm = FakeLlm()
    app = build_app(  # another embedder: its vectors mean nothing to the index's
        Settings(data_dir=str(tmp_path / "data")),
        embedder=HashEmbedder(dim=32),
        tokenizer=WordTokenizer,
        isolate=False,
        llm=llm,
    )
    app.answer.mode = "written"
    assert app.stale is not None and app.retriever.text_only
    events = list(app.answer.ask(question))
    sources, done = events[0], events[-1]
    assert isinstance(sources, SourcesEvent) and isinstance(done, DoneEvent)
    assert done.answer != NOTHING_RELEVANT and not done.refused, "an on-topic question was refused"
    assert sources.sources and sources.sources[0].path.endswith("octopus.pdf")
    assert sources.notice == WORDS_ONLY and "words only until the rebuild" in WORDS_ONLY.lower()
    assert llm.prompts


@pytest.mark.parametrize(
    "question", ["What is the capital of France?", "How do I bake sourdough bread at home?"]
)
def test_an_index_of_another_embedder_refuses_off_topic_questions(
    tmp_path, animal_pdfs, question
) -> None:
    make_app(tmp_path, FakeLlm()).ingest.index([str(animal_pdfs)])
    llm = FakeLlm()
    app = build_app(
        Settings(data_dir=str(tmp_path / "data")),
        embedder=HashEmbedder(dim=32),
        tokenizer=WordTokenizer,
        isolate=False,
        llm=llm,
    )
    done = list(app.answer.ask(question))[-1]
    assert isinstance(done, DoneEvent)
    assert done.answer == NOTHING_RELEVANT and done.refused
    assert llm.prompts == [], "the model was asked though nothing was relevant"


def test_an_answer_from_none_of_its_sources_is_refused(tmp_path, animal_pdfs) -> None:
    # The case: the model answering the capital of France while citing a page that
    # says nothing of it. From sources only weakly near the question, the refusal replaces it.
    llm = FakeLlm("1], the capital of France is Paris.")
    app = make_app(tmp_path, llm)
    app.ingest.index([str(animal_pdfs)])
    app.answer.weak_match = 1.01  # every source counts as a weak match here
    events = list(app.answer.ask("How many hearts pump octopus blood?"))
    sources, done = events[0], events[-1]
    assert isinstance(sources, SourcesEvent) and sources.sources
    assert isinstance(done, DoneEvent)
    assert done.refused and done.cited == ()
    assert done.answer == NOTHING_RELEVANT
    assert done.withheld == "According to [1], the capital of France is Paris."
    # Why, in plain words.
    assert "not shown" in done.note and "rather than from your documents" in done.note


WILDLIFE_PAGE = (
    "The national council approved every animal procedure. Wild birds and bats were captured "
    "with mist nets at dawn, and the wild animals were sedated by veterinarians."
)
SCOTLAND = "What is the national animal of Scotland?"


def ask_claim_check(
    tmp_path: Path, library: Path, reply: str, question: str, weak_match: float
) -> tuple[App, SourcesEvent, DoneEvent]:
    """The library indexed and the question asked of a model that writes `reply`, with sources
    from this cosine on counting as near; the claim check, not the gate, decides."""
    llm = FakeLlm(reply)
    app = make_app(tmp_path, llm)
    app.ingest.index([str(library)])
    app.answer.weak_match = weak_match
    app.answer.written_sources = None  # the fake answers from any page: it reads them all
    events = list(app.answer.ask(question))
    sources, done = events[0], events[-1]
    assert isinstance(sources, SourcesEvent) and isinstance(done, DoneEvent)
    assert llm.prompts, "the gate refused it: this test is of the claim check"
    return app, sources, done


def test_an_answer_that_borrows_a_word_of_its_weak_source_is_withheld(
    tmp_path, animal_pdfs
) -> None:
    # The benchmark's Scotland answer: its claim "cat" is in no source, "wild" is a common word
    # of the page it cites, which lent it a third of its support; searching by meaning, a
    # third from a source only weakly near the question is an answer of the model's own.
    make_pdf(animal_pdfs / "wildlife.pdf", [WILDLIFE_PAGE])
    # The hash embedder's cosines are not MiniLM's: every source a weak match here.
    app, _, done = ask_claim_check(
        tmp_path,
        animal_pdfs,
        "1], the national animal of Scotland is the wild cat.",
        SCOTLAND,
        1.01,
    )
    assert not app.retriever.text_only
    assert done.withheld == "According to [1], the national animal of Scotland is the wild cat."
    assert done.refused and done.answer == NOTHING_RELEVANT and done.cited == ()
    assert app.answer.refuse_below_words_only < done.support < app.answer.refuse_below


def test_an_answer_that_only_repeats_its_question_from_a_weak_source_is_withheld(
    tmp_path, animal_pdfs
) -> None:
    # financebench's "According to [1], the metal is liquid at room temperature." for "Which
    # metal is liquid at room temperature?": it adds nothing to the question, so nothing of it
    # could be checked and its support read 1.0; from a source only weakly near the question
    # it is no answer, under a citation.
    make_pdf(animal_pdfs / "wildlife.pdf", [WILDLIFE_PAGE])
    llm = FakeLlm("1], the national animal of Scotland is the national animal.")
    app = make_app(tmp_path, llm)
    app.ingest.index([str(animal_pdfs)])
    app.answer.weak_match = 1.01  # the hash embedder's cosines are not MiniLM's: a weak match
    *_, done = app.answer.ask(SCOTLAND)
    assert isinstance(done, DoneEvent)
    assert llm.prompts, "the gate refused it: this test is of the claim check"
    assert done.refused and done.answer == NOTHING_RELEVANT and done.cited == ()
    # From near sources it is shown: it says nothing its sources do not.
    app.answer.weak_match = 0.0
    *_, near = app.answer.ask(SCOTLAND)
    assert isinstance(near, DoneEvent)
    assert not near.refused and near.cited == (1,)


def test_searching_by_words_only_an_answer_with_some_support_is_kept(tmp_path, animal_pdfs) -> None:
    # No cosine says how near the sources are: the words-only threshold stays low, so the same
    # answer is flagged, not withheld (an on-topic answer citing the wrong page of the right
    # document scores as low: test_an_index_of_another_embedder_answers_by_words).
    make_pdf(animal_pdfs / "wildlife.pdf", [WILDLIFE_PAGE])
    make_app(tmp_path, FakeLlm()).ingest.index([str(animal_pdfs)])
    llm = FakeLlm("1], the national animal of Scotland is the wild cat.")
    app = build_app(  # another embedder: its vectors mean nothing to the index's
        Settings(data_dir=str(tmp_path / "data")),
        embedder=HashEmbedder(dim=32),
        tokenizer=WordTokenizer,
        isolate=False,
        llm=llm,
    )
    app.answer.mode = "written"
    assert app.retriever.text_only
    *_, done = app.answer.ask(SCOTLAND)
    assert isinstance(done, DoneEvent)
    assert llm.prompts, "the word gate refused it: this test is of the claim check"
    assert not done.refused and done.cited == (1,) and "cat" in done.unsupported
    assert app.answer.refuse_below_words_only < done.support < app.answer.refuse_below


def test_an_unbacked_answer_from_near_sources_is_replaced_not_refused(
    tmp_path, animal_pdfs
) -> None:
    # Sources near the question are about it: an answer they do not back with a figure of the
    # model's own ("12 hearts" over pages that say three) is not refused; the sources' own
    # sentences are shown instead, with the figure named.
    llm = FakeLlm("1], 12 hearts pump octopus blood.")
    app = make_app(tmp_path, llm)
    app.ingest.index([str(animal_pdfs)])
    question = "How many hearts pump octopus blood?"
    best = max(h.similarity for h in app.retriever.search(question, app.answer.k))
    assert best >= app.answer.weak_match
    *_, done = app.answer.ask(question)
    assert isinstance(done, DoneEvent)
    assert not done.refused and done.cited == (1,) and done.support == 0.0
    assert done.unsupported == ("12",)
    assert done.mode == "composed" and "12" in done.note and "three hearts" in done.answer


CURRENCY_PAGE = (
    "In the Asia Pacific area, total sales decreased 3 percent, driven by foreign currency "
    "translation impacts. In Japan, total sales and organic local-currency sales were flat."
)
JAPAN = "What is the currency of Japan?"


def test_an_answer_in_words_no_source_holds_is_withheld_from_near_sources(
    tmp_path, animal_pdfs
) -> None:
    # financebench's "the currency of Japan is the yen [1]" over a 3M page that names Japan
    # and currency but not the yen: near the question by cosine, so its unbacked answer was
    # only flagged. What it adds is a word none of its sources holds: the model's own.
    make_pdf(animal_pdfs / "sales.pdf", [CURRENCY_PAGE])
    _, sources, done = ask_claim_check(  # every source counts as near here
        tmp_path, animal_pdfs, "1], the currency of Japan is the yen.", JAPAN, 0.0
    )
    assert not any("yen" in s.text for s in sources.sources)
    assert done.withheld == "According to [1], the currency of Japan is the yen."
    assert done.refused and done.answer == NOTHING_RELEVANT and done.cited == ()


def test_an_answer_citing_one_source_for_the_words_of_another_is_cited_to_that_one(
    tmp_path, animal_pdfs
) -> None:
    # The 270M model cites [1] almost always, also for what it read in [2]: covid-qa's
    # on-topic answers with no support from their cited source mostly hold words of another
    # source. Its words are from its sources, only its citation is wrong: it is cited to the
    # source that holds them, and the reader is told which one the model named.
    _, sources, done = ask_claim_check(  # every source counts as near here
        tmp_path,
        animal_pdfs,
        "1], octopus skin changes colour with chromatophores.",
        "Why is octopus blood blue?",
        0.0,
    )
    assert "chromatophores" not in sources.sources[0].text
    holder = next(s.n for s in sources.sources if "chromatophores" in s.text)
    assert holder != 1
    assert not done.refused and done.cited == (holder,) and done.recited_from == (1,)
    assert (
        done.answer == f"According to [{holder}], octopus skin changes colour with chromatophores."
    )
    assert done.support == 1.0 and done.unsupported == ()


def test_a_name_missing_from_the_cited_source_flags_the_answer(tmp_path, animal_pdfs) -> None:
    # Mostly from its source (hemocyanin, copper-rich protein), one name of its own: flagged,
    # from a source as weak as the hash embedder's cosine makes it, as from a near one.
    llm = FakeLlm(
        "1], octopus blood is blue because of hemocyanin, a copper-rich protein, in Paris."
    )
    app = make_app(tmp_path, llm)
    app.ingest.index([str(animal_pdfs)])
    *_, done = app.answer.ask("Why is octopus blood blue?")
    assert isinstance(done, DoneEvent)
    assert not done.refused and done.cited == (1,)
    assert done.unsupported == ("Paris",)
    # Weighed over what it adds to the question (hemocyanin, Paris), not over its repeats.
    assert app.answer.refuse_below < done.support < 1.0


def test_a_name_in_an_uncited_source_does_not_support_the_answer(tmp_path, animal_pdfs) -> None:
    # "Antarctic" is on the penguin page, which is a source of this answer but not cited.
    llm = FakeLlm(
        "1], octopus blood is blue because it uses hemocyanin, a copper-rich protein, to carry "
        "oxygen, even in the Antarctic."
    )
    app = make_app(tmp_path, llm)
    app.ingest.index([str(animal_pdfs)])
    events = list(app.answer.ask("Why is octopus blood blue in winter?"))
    sources, done = events[0], events[-1]
    assert isinstance(sources, SourcesEvent) and isinstance(done, DoneEvent)
    assert any("Antarctic" in s.text for s in sources.sources if s.n != 1)
    assert "Antarctic" in done.unsupported
    # Not shown as an answer: the sources' own sentences are, with a note naming the word.
    assert done.mode == "composed" and "Antarctic" in done.note and "Antarctic" in done.withheld
    # The penguin page holds "Antarctic" but not the rest: no source backs it better.
    assert done.recited_from == ()


def test_the_store_gives_the_viewer_an_ocr_pages_word_boxes(indexed) -> None:
    app, _ = indexed
    table = app.store.chunks_table
    row = table.search().where("page = 2").limit(1).to_arrow().to_pylist()[0]
    assert app.store.page_boxes(row["path"], 2) == []
    boxes = "[[0, 7, 0.1, 0.2, 0.3, 0.25]]"
    table.update(where=f"chunk_id = '{row['chunk_id']}'", values={"boxes": boxes})
    assert app.store.page_boxes(row["path"], 2) == [boxes]
    assert app.store.page_boxes(row["path"], 1) == []


BEIJING_PAGE = (
    "Beijing, the capital of China, reported its first cases in January; the city closed its "
    "schools and opened fever clinics."
)
FRANCE = "What is the capital of France?"


def test_a_question_that_does_not_refer_back_is_answered_as_if_asked_first(
    tmp_path, animal_pdfs
) -> None:
    # The case: an off-topic question after an on-topic one must be refused exactly as
    # when it comes first; the previous answer in its prompt only lends the model a subject.
    llm = FakeLlm()
    app = make_app(tmp_path, llm)
    app.ingest.index([str(animal_pdfs)])
    history = [Turn("Why is octopus blood blue?", "According to [1], because of hemocyanin.")]
    question = "What do zebras' stripes deter?"
    alone = list(app.answer.ask(question))
    after = list(app.answer.ask(question, history))
    assert len(llm.prompts) == 2
    assert llm.prompts[1].text == llm.prompts[0].text
    assert "Why is octopus blood blue?" not in llm.prompts[1].text
    assert after[0] == alone[0] and after[-1].answer == alone[-1].answer


def test_an_answer_whose_new_words_are_not_in_its_source_is_refused(tmp_path, animal_pdfs) -> None:
    # A page that says "capital" lent the France answer a quarter of its words, which kept it
    # above the refusal; but "capital" and "France" are the question's: the claim is "Paris".
    make_pdf(animal_pdfs / "cities.pdf", [BEIJING_PAGE])
    llm = FakeLlm("1], the capital of France is Paris.")
    app = make_app(tmp_path, llm)
    app.ingest.index([str(animal_pdfs)])
    # The hash embedder's cosines are not MiniLM's: count this page as the weak match it is.
    app.answer.weak_match = 1.01
    events = list(app.answer.ask(FRANCE))
    sources, done = events[0], events[-1]
    assert isinstance(sources, SourcesEvent) and isinstance(done, DoneEvent)
    assert llm.prompts, "the gate refused it: this test is of the claim check"
    assert done.refused and done.answer == NOTHING_RELEVANT and done.cited == ()
    assert done.support == 0.0


GUACAMOLE = "What is the main ingredient of guacamole?"


def test_a_question_mostly_in_words_the_library_lacks_is_refused_without_the_model(
    tmp_path, animal_pdfs
) -> None:
    # covid-qa's guacamole case: MiniLM put a passage on carrageenan at cosine 0.404 to it,
    # above the cosine gate and just near enough for its unbacked answer ("avocado [1]") to
    # be flagged rather than withheld; but most of the question's weight is on words no
    # passage of the library holds: nothing in it is about the question.
    llm = FakeLlm("1], the main ingredient of guacamole is avocado.")
    app = make_app(tmp_path, llm)
    app.ingest.index([str(animal_pdfs)])
    # The hash embedder's cosines are not MiniLM's: let every source by the cosine gate.
    app.answer.threshold = -1.0
    app.answer.weak_match = 0.0
    # Seven passages stand for a library large enough for a missing word to mean something.
    assert app.store.count_chunks() < app.answer.unknown_gate_passages
    app.answer.unknown_gate_passages = app.store.count_chunks()
    events = list(app.answer.ask(GUACAMOLE))
    done = events[-1]
    assert isinstance(done, DoneEvent)
    assert llm.prompts == [], "the model was asked though the library lacks the question"
    assert done.refused and done.answer == NOTHING_RELEVANT and done.cited == ()
    # The same question, its subject in the library, reaches the model.
    *_, asked = app.answer.ask("What is the main protein of octopus blood?")
    assert isinstance(asked, DoneEvent) and len(llm.prompts) == 1


def test_in_a_small_library_a_missing_everyday_word_refuses_nothing(tmp_path, animal_pdfs) -> None:
    # "keep" and "away" are in none of its seven passages: by chance, not because the question
    # is about something else.
    from desktop_rag.query.gate import unknown_share

    llm = FakeLlm("1], the stripes of a zebra deter biting flies.")
    app = make_app(tmp_path, llm)
    app.ingest.index([str(animal_pdfs)])
    question = "How do zebras keep flies away?"
    assert unknown_share(app.store, question) >= app.answer.unknown_gate
    *_, done = app.answer.ask(question)
    assert isinstance(done, DoneEvent)
    assert llm.prompts and not done.refused and done.cited == (1,)


OCEAN_PAGE = (
    "Ninety amino acids were found on a meteorite in Australia, while on Earth only about 20 "
    "of them are used for protein synthesis. Life may have started in the deep ocean, where "
    "the vents lie between Africa and its islands."
)


def test_an_answer_half_backed_by_a_weak_source_is_withheld(tmp_path, animal_pdfs) -> None:
    # covid-qa's "Which ocean lies between Africa and Australia?": "between 20°S and 30°S"
    # over a page that holds a 20 (of the amino acids) and no 30: half of what the answer
    # adds, from a source only weakly near the question, is no answer from it.
    make_pdf(animal_pdfs / "origins.pdf", [OCEAN_PAGE])
    llm = FakeLlm("1], the ocean between Africa and Australia lies between 20°S and 30°S.")
    app = make_app(tmp_path, llm)
    app.ingest.index([str(animal_pdfs)])
    app.answer.weak_match = 1.01  # the hash embedder's cosines are not MiniLM's: a weak match
    *_, done = app.answer.ask("Which ocean lies between Africa and Australia?")
    assert isinstance(done, DoneEvent)
    assert llm.prompts, "the gate refused it: this test is of the claim check"
    assert done.support == 0.5
    assert done.refused and done.answer == NOTHING_RELEVANT and done.cited == ()


def test_an_unbacked_answer_to_a_question_with_unknown_codes_is_replaced_not_refused(
    tmp_path, animal_pdfs
) -> None:
    # Near sources, a question whose only unknown words are a code and a name: the answer
    # they do not back is not refused; it is replaced by the sources' own sentences, and
    # what it lacked is named.
    llm = FakeLlm("1], octopus blood pumped 12 litres in FY2021 at Octoco.")
    app = make_app(tmp_path, llm)
    app.ingest.index([str(animal_pdfs)])
    app.answer.weak_match = 0.0
    *_, done = app.answer.ask("How much blood did the hearts of Octoco's octopus pump in FY2021?")
    assert isinstance(done, DoneEvent)
    assert not done.refused and done.mode == "composed" and 1 in done.cited
    assert "12" in done.unsupported and "12" in done.note
