"""bench/answer_quality.py scores the service's own gate and verdict: its rule "now" at the
shipped thresholds decides as query/gate.py and query/verdict.py do."""

from __future__ import annotations

from typing import Any

import pytest

from bench.answer_quality import shipped, status
from desktop_rag.query import claims, gate, verdict


def _feat(**over: Any) -> dict[str, Any]:
    feat: dict[str, Any] = {
        "similarity": 0.5,
        "word_share": 1.0,
        "unknown_share": 0.0,
        "gate_passages": True,
        "model_refused": False,
        "empty": False,
        "not_asked": False,
        "support_before": 1.0,
        "support_after": 1.0,
        "adds_nothing": False,
        "own_words": 0.0,
    }
    feat.update(over)
    return feat


@pytest.mark.parametrize("similarity", [0.1, gate.RELEVANCE_THRESHOLD, 0.3, 0.39, 0.4, 0.9])
@pytest.mark.parametrize("support", [0.0, 0.3, claims.REFUSE_BELOW, 1.0])
@pytest.mark.parametrize("own", [0.0, 0.5, claims.OWN_WORDS, 1.0])
def test_rule_now_is_the_services_gate_and_verdict(
    similarity: float, support: float, own: float
) -> None:
    feat = _feat(similarity=similarity, support_after=support, own_words=own)
    want = (
        "gate"
        if not gate.similar(similarity)
        else "claims"
        if verdict.withheld(support < claims.REFUSE_BELOW, similarity, lambda: own)
        else "answered"
    )
    assert status(feat, "now", shipped()) == want


def test_the_word_gate_refuses_in_a_large_library_only() -> None:
    off = _feat(unknown_share=gate.UNKNOWN_GATE)
    assert status(off, "now", shipped()) == "gate"
    assert status({**off, "gate_passages": False}, "now", shipped()) == "answered"
