"""The guacamole case with the real embedder over the real covid-qa article it was asked of:
a passage near enough by cosine to pass the cosine gate and, for an unbacked answer, to be
flagged rather than withheld; yet most of the question is in words no passage holds, so the
question is refused before the model."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from desktop_rag.query.gate import unknown_share
from desktop_rag.query.prompt import NOTHING_RELEVANT
from desktop_rag.types import DoneEvent
from tests.claims_case import near_but_unbacked

pytestmark = pytest.mark.slow

GUACAMOLE = "What is the main ingredient of guacamole?"


def test_guacamole_near_a_carrageenan_page_by_cosine_is_refused_by_its_words(
    tmp_path: Path, corpus: Path
) -> None:
    article = corpus / "covid-qa" / "pdf" / "1629.pdf"  # carrageenan nasal sprays
    (tmp_path / "library").mkdir()
    shutil.copy(article, tmp_path / "library" / article.name)
    app, llm = near_but_unbacked(
        tmp_path / "library",
        tmp_path / "data",
        "1], the main ingredient of guacamole is avocado.",
        GUACAMOLE,
    )
    assert unknown_share(app.store, GUACAMOLE) >= app.answer.unknown_gate
    # One article stands for the whole library (98 articles, 6,080 passages), where the
    # gate applies.
    app.answer.unknown_gate_passages = app.store.count_chunks()
    *_, done = app.answer.ask(GUACAMOLE)
    assert isinstance(done, DoneEvent)
    assert llm.prompts == [], "the model was asked though the library lacks the question"
    assert done.refused and done.answer == NOTHING_RELEVANT and done.cited == ()
