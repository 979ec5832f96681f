"""The answer path with the real bundled GGUF and the real embedder over small generated PDFs."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from desktop_rag.app import App, build_app
from desktop_rag.config import Settings
from desktop_rag.engines.llm import LlamaCppLlm, Prompt, bundled_model_path
from desktop_rag.errors import ModelError
from desktop_rag.query.prompt import build_prompt
from desktop_rag.types import DoneEvent, Hit, SourcesEvent, TokenEvent
from tests.conftest import ANIMALS
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def llm() -> LlamaCppLlm:
    """The bundled model, loaded once for the module (2 threads, as on the target laptop)."""
    model = LlamaCppLlm(threads=2, n_ctx=2048)
    model.load()
    return model


def test_the_model_answers_a_prompt_on_this_cpu(llm: LlamaCppLlm):
    """On a Xeon VM with AMX, llama.cpp built for that CPU crashed every answer at its first
    prompt (packaging/llama.py); the build chosen at run time answers whichever CPU this is."""
    text = llm.llama("Question: What colour is the sky?\nAnswer:", max_tokens=4)
    assert text["usage"]["completion_tokens"] >= 1
    # llama.cpp's own API on the model the app generates with (bench/llm_speed.py's measure)
    assert llm.llama.n_ctx() == llm.context_size == 2048
    tokens = llm.llama.tokenize(b"The sky is blue.", add_bos=False, special=False)
    assert len(tokens) == llm.count_tokens("The sky is blue.")


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, llm: LlamaCppLlm) -> App:
    root = tmp_path_factory.mktemp("answer-real")
    for name, pages in ANIMALS.items():
        make_pdf(root / "library" / name, pages)
    application = build_app(Settings(data_dir=str(root / "data"), n_threads=2), llm=llm)
    application.answer.answer_tokens = 48  # keep the real model's answers (and tests) short
    # These tests are of llama.cpp writing: the bundled model's answers are composed by
    # default (tests/integration/test_composed_real.py tests that).
    application.answer.mode = "written"
    report = application.ingest.index([str(root / "library")])
    assert report.indexed == 3 and not report.failed
    return application


def test_bundled_model_is_assembled_once_into_the_cache(llm: LlamaCppLlm) -> None:
    path = bundled_model_path()
    assert path.parent.name == "models"
    assert path.read_bytes()[:4] == b"GGUF"
    assert bundled_model_path() == path  # verified stamp: no re-assembly
    assert llm.has_chat_template is False  # a base model: completion prompt, stop strings
    assert llm.context_size == 2048


def test_an_answer_streams_with_sources_on_the_right_pages(app: App) -> None:
    events = list(app.answer.ask("Why is octopus blood blue?"))
    assert isinstance(events[0], SourcesEvent)
    tokens = [e for e in events if isinstance(e, TokenEvent)]
    done = events[-1]
    assert isinstance(done, DoneEvent)
    assert len(tokens) >= 3  # streamed, not delivered in one piece
    # What streamed is the model's answer; shown as it is, or, when a word of it is not in
    # its sources ("color" over a page saying "colour"), replaced by their sentences.
    written = done.withheld or done.answer
    assert written == "".join(t.text for t in tokens).strip()
    assert done.mode == "written" or (done.note and "hemocyanin" in done.answer)
    sources = events[0].sources
    by_n = {s.n: s for s in sources}
    top = sources[0]
    assert (Path(top.path).name, top.page) == ("octopus.pdf", 2)
    assert "hemocyanin" in top.text
    assert done.cited, done.answer
    assert all(n in by_n for n in done.cited)
    assert written.startswith("According to [")
    assert done.timings.ttft_s > 0 and done.timings.tokens_per_s > 0
    assert not done.refused and not done.cancelled


def test_an_off_topic_question_is_refused_without_the_model(app: App) -> None:
    *_, done = app.answer.ask("Who won the football World Cup in 2018?")
    assert isinstance(done, DoneEvent)
    assert done.refused is True and done.cited == ()


def test_long_sources_are_fitted_to_a_small_context(tmp_path: Path) -> None:
    small = LlamaCppLlm(threads=2, n_ctx=1024)
    text = "Octopus blood is blue because of hemocyanin, a copper protein. " * 60
    hits = [
        Hit(f"c{i}", "d", "/docs/long.pdf", i + 1, 0, len(text), text, 1.0 / (i + 1), 0.6)
        for i in range(5)
    ]
    fitted = build_prompt(
        "Why is octopus blood blue?",
        hits,
        small,
        context_size=small.context_size,
        answer_tokens=32,
    )
    assert fitted.truncated == 1 and len(fitted.sources) == 1 and fitted.dropped == 4
    assert small.count_tokens(fitted.prompt.text) + 32 <= 1024
    # llama.cpp itself accepts it: more would raise "exceeds context window".
    answer = "".join(small.stream(fitted.prompt, 32))
    assert small.last_generation.generated_tokens >= 1
    assert "Question:" not in answer and "\n[" not in answer  # the prompt's stop strings
    small.close()


def test_the_base_model_stops_at_its_stop_strings(llm: LlamaCppLlm) -> None:
    prompt = Prompt(
        text="Question: What colour is the sky?\nAnswer: Blue.\n"
        "Question: What colour is grass?\nAnswer: Green.\n"
        "Question: What colour is snow?\nAnswer:",
        stop=("\n", "Question:"),
    )
    answer = "".join(llm.stream(prompt, 64))
    assert answer.strip()
    assert "\n" not in answer and "Question" not in answer
    # Stopped by the stop string, long before the token limit.
    assert llm.last_generation.generated_tokens < 20


def test_cancel_stops_generation_promptly(llm: LlamaCppLlm) -> None:
    prompt = Prompt(text="Once upon a time, in a land far away, there lived")
    cancel = threading.Event()
    pieces = []
    for piece in llm.stream(prompt, 400, cancel):
        pieces.append(piece)
        if len(pieces) == 5:
            cancel.set()
    assert len(pieces) == 5  # not one token more after the flag
    assert llm.last_generation.cancelled


def test_cancel_interrupts_the_prompt_evaluation_itself(llm: LlamaCppLlm) -> None:
    long_prompt = Prompt(text="The history of the city is long and varied. " * 150)
    cancel = threading.Event()
    cancel.set()  # already set: llama.cpp's abort callback fires inside the first decode
    assert list(llm.stream(long_prompt, 50, cancel)) == []
    assert llm.last_generation.cancelled
    # The model is still usable afterwards, and its KV cache consistent.
    again = "".join(llm.stream(Prompt(text="One, two, three,", stop=("\n",)), 8))
    assert again.strip()


def test_bad_model_paths_give_the_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="Model file not found"):
        LlamaCppLlm(tmp_path / "nope.gguf").load()
    text = tmp_path / "notes.gguf"
    text.write_text("hello")
    with pytest.raises(ModelError, match="is not a GGUF model file"):
        LlamaCppLlm(text).load()
    # A truncated download: the magic is right, the rest is missing.
    torn = tmp_path / "torn.gguf"
    torn.write_bytes(bundled_model_path().read_bytes()[: 1 << 20])
    with pytest.raises(ModelError, match=r"could not load torn\.gguf"):
        LlamaCppLlm(torn).load()
