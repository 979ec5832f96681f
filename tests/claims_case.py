"""The claim check's cases on the real app: a one-file library, the real embedder, a fake model."""

from __future__ import annotations

from pathlib import Path

from desktop_rag.app import App, build_app
from desktop_rag.config import Settings
from desktop_rag.query import claims
from tests.fakes import FakeLlm


def near_but_unbacked(library: Path, data: Path, reply: str, question: str) -> tuple[App, FakeLlm]:
    """The one file in `library` indexed with the real embedder, and a model that writes `reply`.
    Checks that the question is the case the claim check's rules are for: its best passage past
    the cosine gate and near enough (WEAK_MATCH) that the check alone would only flag an
    unbacked answer."""
    llm = FakeLlm(reply)
    app = build_app(Settings(data_dir=str(data), n_threads=2), llm=llm)
    app.answer.mode = "written"  # the claim check is of what a model writes
    assert app.ingest.index([str(library)]).indexed == 1
    hits = app.retriever.search(question, app.answer.k)
    best = max(h.similarity for h in hits)
    assert best >= app.answer.threshold and best >= claims.WEAK_MATCH, best
    return app, llm
