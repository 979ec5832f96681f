"""The guacamole case with the real embedder over the real covid-qa article it was asked of:
a passage near enough by cosine to pass the cosine gate and, for an unbacked answer, to be
flagged rather than withheld; yet most of the question is in words no passage holds, so the
question is refused before the model."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.query import claims
from desktop_rag.query.answer import unknown_share
from desktop_rag.query.prompt import NOTHING_RELEVANT
from desktop_rag.types import DoneEvent
from tests.fakes import FakeLlm

pytestmark = pytest.mark.slow

GUACAMOLE = "What is the main ingredient of guacamole?"


def test_guacamole_near_a_carrageenan_page_by_cosine_is_refused_by_its_words(
    tmp_path: Path, corpus: Path
) -> None:
    article = corpus / "covid-qa" / "pdf" / "1629.pdf"  # carrageenan nasal sprays
    (tmp_path / "library").mkdir()
    shutil.copy(article, tmp_path / "library" / article.name)
    llm = FakeLlm("1], the main ingredient of guacamole is avocado.")
    app = build_app(Settings(data_dir=str(tmp_path / "data"), n_threads=2), llm=llm)
    assert app.ingest.index([str(tmp_path / "library")]).indexed == 1
    hits = app.retriever.search(GUACAMOLE, app.answer.k)
    best = max(h.similarity for h in hits)
    # The case the rule is for: past the cosine gate, and near enough that the claim check
    # would only flag the answer.
    assert best >= app.answer.threshold and best >= claims.WEAK_MATCH, best
    assert unknown_share(app.store, GUACAMOLE) >= app.answer.unknown_gate
    # One article stands for the whole library (98 articles, 6,080 passages), where the
    # gate applies.
    app.answer.unknown_gate_passages = app.store.count_chunks()
    *_, done = app.answer.ask(GUACAMOLE)
    assert isinstance(done, DoneEvent)
    assert llm.prompts == [], "the model was asked though the library lacks the question"
    assert done.refused and done.answer == NOTHING_RELEVANT and done.cited == ()
