"""Follow-ups and quotes with the real embedder over the bundled manual (the user guide)."""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

import pytest

from desktop_rag.app import App, build_app
from desktop_rag.config import Settings
from desktop_rag.library import GUIDE_NAME, GUIDE_QUESTION
from desktop_rag.query.prompt import NOTHING_RELEVANT
from desktop_rag.types import DoneEvent, QuotesEvent, SourcesEvent, Turn
from tests.fakes import FakeLlm

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def guide_app(tmp_path_factory: pytest.TempPathFactory) -> App:
    root = tmp_path_factory.mktemp("guide")
    guide = resources.files("desktop_rag.resources") / "guide" / GUIDE_NAME
    (root / "library").mkdir()
    with resources.as_file(guide) as path:
        shutil.copy(path, root / "library" / GUIDE_NAME)
    # The canned answer is the guide's own words: the claim check refuses one it cannot find
    # in the cited source, which is not what these tests are about.
    llm = FakeLlm("1], drag documents onto the Desktop RAG window.")
    app = build_app(Settings(data_dir=str(root / "data"), n_threads=2), llm=llm)
    report = app.ingest.index([str(root / "library")])
    assert report.indexed == 1 and not report.failed
    return app


def _ask(app: App, question: str, history: list[Turn]) -> list[object]:
    return list(app.answer.ask(question, history))


def test_an_off_topic_question_after_an_on_topic_one_is_refused(guide_app: App) -> None:
    first = _ask(guide_app, GUIDE_QUESTION, [])
    done = first[-1]
    assert isinstance(done, DoneEvent) and not done.refused and done.cited
    history = [Turn(GUIDE_QUESTION, done.answer)]
    for question in (
        "What is the capital of France?",
        "And the capital of France?",
        "Capital of France?",
    ):
        alone = _ask(guide_app, question, [])
        after = _ask(guide_app, question, history)
        assert alone[0] == SourcesEvent(()), question
        assert after[0] == SourcesEvent(()), question
        refusal = after[-1]
        assert isinstance(refusal, DoneEvent)
        assert refusal.answer == NOTHING_RELEVANT and refusal.refused and not refusal.cited


def test_a_follow_up_that_refers_back_still_finds_its_page(guide_app: App) -> None:
    history = [Turn("How do I add my own documents?", "According to [1], drag them in.")]
    events = _ask(guide_app, "And how do I remove them?", history)
    sources = events[0]
    assert isinstance(sources, SourcesEvent) and sources.sources
    assert any("remov" in s.text.lower() for s in sources.sources)


def test_the_quote_is_the_guide_sentence_that_answers(guide_app: App) -> None:
    events = _ask(guide_app, "How do I open the settings?", [])
    sources, quotes = events[0], events[1]
    assert isinstance(sources, SourcesEvent) and isinstance(quotes, QuotesEvent)
    best = quotes.quotes[0]
    assert "Ctrl+," in best.text and best.page == 2
    source = next(s for s in sources.sources if s.n == best.n)
    assert best.text in source.text and Path(best.path).name == GUIDE_NAME


def test_the_second_one_is_the_second_item_of_the_previous_answer(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # Issue 41: "and what about the second one?" after an answer naming two viruses answered
    # about something else. A real paper (covid-qa 1548.pdf), the real embedder.
    from tests.conftest import CORPUS

    root = tmp_path_factory.mktemp("horses")
    (root / "library").mkdir()
    shutil.copy(CORPUS / "covid-qa" / "pdf" / "1548.pdf", root / "library" / "1548.pdf")
    app = build_app(Settings(data_dir=str(root / "data"), n_threads=2))
    app.answer.mode = "composed"
    assert app.ingest.index([str(root / "library")]).indexed == 1
    history = [
        Turn(
            "Which viruses were the ECoV positive samples tested for?",
            "They were tested for equine coronavirus and equine rotavirus [1].",
        )
    ]
    done = _ask(app, "and what about the second one?", history)[-1]
    assert isinstance(done, DoneEvent) and not done.refused
    assert "rotavirus" in done.answer.lower(), done.answer
