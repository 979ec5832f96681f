"""Answers true to the page, with the real embedder, the bundled model and real PDFs: the
composed answer holds the gold sentence, a written answer its sources do not back is not shown
as an answer, `ask --json` keeps its contract, and the bundled model fails the rule for
writing (so its answers are composed)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from desktop_rag.app import App, build_app
from desktop_rag.config import Settings
from desktop_rag.engines.llm import LlamaCppLlm
from desktop_rag.library import GUIDE_NAME, GUIDE_QUESTION
from desktop_rag.query import ability, claims
from desktop_rag.types import DoneEvent, SourcesEvent
from tests.conftest import CORPUS
from tests.helpers.cli import ASK_JSON_KEYS

pytestmark = pytest.mark.slow

ARTICLES = ("1547.pdf", "1573.pdf", "1684.pdf", "1564.pdf", "1671.pdf")
# covid-qa's questions on those articles, with their gold answers (questions.jsonl).
GOLD = {
    "How long is the SAIBK gene?": "27,534 nucleotides",
    "What are the symptoms of HBoV1 infection?": "cough, rhinitis, fever",
    "What causes tuberculosis?": "Mycobacterium tuberculosis",
    "What is the long-term risk of chronic hepatitis C infection?": (
        "cirrhosis and hepatocellular carcinoma"
    ),
}


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("composed-real") / "library"
    root.mkdir()
    for name in ARTICLES:
        shutil.copy(CORPUS / "covid-qa" / "pdf" / name, root / name)
    guide = resources.files("desktop_rag.resources") / "guide" / GUIDE_NAME
    with resources.as_file(guide) as path:
        shutil.copy(path, root / GUIDE_NAME)
    return root


@pytest.fixture(scope="module")
def app(library: Path) -> App:
    llm = LlamaCppLlm(threads=2, n_ctx=2048)
    application = build_app(Settings(data_dir=str(library.parent / "data"), n_threads=2), llm=llm)
    application.answer.answer_tokens = 96
    assert application.ingest.index([str(library)]).indexed == len(ARTICLES) + 1
    return application


def _done(app: App, question: str) -> tuple[SourcesEvent, DoneEvent]:
    events = list(app.answer.ask(question))
    sources, done = events[0], events[-1]
    assert isinstance(sources, SourcesEvent) and isinstance(done, DoneEvent)
    return sources, done


def test_the_bundled_model_composes_and_the_answer_holds_the_gold_sentence(app: App) -> None:
    app.answer.mode = None
    assert app.answer.answer_mode() == "composed"
    held = []
    for question, gold in GOLD.items():
        sources, done = _done(app, question)
        assert done.mode == "composed" and not done.refused, question
        words = len(re.sub(r"\[\d+\]", "", done.answer).split())
        assert words <= 80, done.answer
        # Every run of the answer is a source's own words, cited to it.
        for n in done.cited:
            assert f"[{n}]" in done.answer
        by_n = {s.n: _norm(s.text) for s in sources.sources}
        for run in re.split(r"\s*\[(\d+)\]\s*", done.answer)[::2]:
            if run.strip():
                assert any(_norm(run) in text for text in by_n.values()), run
        if _norm(gold) in _norm(done.answer):
            held.append(question)
    # One miss allowed: the int8 or fp32 embedder (chosen per CPU) may order two sentences apart.
    assert len(held) >= len(GOLD) - 1, held


def test_the_guides_own_question_is_answered_from_the_guide(app: App) -> None:
    app.answer.mode = None
    sources, done = _done(app, GUIDE_QUESTION)
    assert done.mode == "composed" and not done.refused
    assert sources.sources[0].path.endswith(GUIDE_NAME)
    assert "drag" in done.answer.lower() or "ctrl+o" in done.answer.lower(), done.answer
    assert "power button" not in done.answer.lower()


def test_a_written_answer_its_sources_do_not_back_is_never_shown_as_the_answer(app: App) -> None:
    """The bundled model made to write: whatever it writes, the answer shown holds no name,
    term or figure its cited sources lack; what they do not back is replaced, with a note."""
    app.answer.mode = "written"
    try:
        replaced = 0
        for question in GOLD:
            sources, done = _done(app, question)
            if done.refused:
                continue
            cited = [s.text for s in sources.sources if s.n in done.cited]
            if done.mode == "written":
                found = claims.check(
                    done.answer, cited, app.answer.rarity, also_read=[question], asked=[question]
                )
                assert not found.unsupported and not done.unsupported, done.answer
            else:
                replaced += 1
                assert done.note and done.withheld and done.unsupported
                assert all(w not in done.answer for w in done.unsupported if len(w) > 3)
        # The 270M model adds words of its own to most of these (seen on two CPUs).
        assert replaced >= 1
    finally:
        app.answer.mode = None


def test_the_bundled_model_fails_the_rule_for_writing(app: App) -> None:
    verdict = ability.measure(app.answer.llm, app.answer.compose)
    assert verdict.probes == len(ability.PROBES)
    assert not verdict.writes, verdict
    # The bar it is measured against is met by the composed answers.
    assert verdict.composed_states >= len(ability.PROBES) // 2


def test_ask_json_keeps_its_keys_and_adds_the_mode(library: Path, app: App) -> None:
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    cmd = [sys.executable, "-m", "desktop_rag", "--data-dir", str(library.parent / "data")]
    out = subprocess.run(
        [*cmd, "ask", "What causes tuberculosis?", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=True,
    )
    doc = json.loads(out.stdout)
    assert set(doc) == ASK_JSON_KEYS
    assert doc["mode"] == "composed" and "Mycobacterium tuberculosis" in doc["answer"]
    assert doc["cited"] and doc["sources"][doc["cited"][0] - 1]["path"].endswith(".pdf")
    assert set(doc["timings"]) == {"retrieval_ms", "ttft_s", "tokens_per_s", "total_s"}
