"""The int8 rule: passages go through int8 only where it agrees with fp32 on this CPU."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from desktop_rag.engines import int8_check, onnx_embed
from desktop_rag.engines.int8_check import Agreement, VerdictCache
from desktop_rag.engines.onnx_embed import AutoEmbedder
from tests.fakes import HashEmbedder


class FakeSession:
    """Stands in for an ONNX session: fp32 is a hash embedder, int8 the same plus noise."""

    noise: ClassVar[dict[str, float]] = {"int8": 0.0, "fp32": 0.0}
    calls: ClassVar[dict[str, int]] = {"int8": 0, "fp32": 0}
    alive: ClassVar[weakref.WeakSet[FakeSession]] = weakref.WeakSet()  # sessions still held

    def __init__(self, model_file: Path, tokenizer_json: Path, **kwargs: object) -> None:
        self.model_file = Path(model_file)
        self.variant = self.model_file.parent.name
        self._ref = HashEmbedder(dim=384)
        FakeSession.alive.add(self)

    def load(self) -> None:
        pass

    def embed(self, texts):
        FakeSession.calls[self.variant] += 1
        vecs = self._ref.embed(texts)
        rng = np.random.default_rng(len(texts))
        vecs = vecs + FakeSession.noise[self.variant] * rng.standard_normal(vecs.shape)
        return (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)

    def embed_query(self, text):
        return self.embed([text])[0]


@pytest.fixture
def exports(tmp_path, monkeypatch):
    """Prebuilt int8 and fp32 'exports' and the fake session in place of ONNX Runtime."""
    monkeypatch.setattr(onnx_embed, "OnnxEmbedder", FakeSession)
    FakeSession.calls = {"int8": 0, "fp32": 0}
    FakeSession.alive = weakref.WeakSet()
    files = {}
    for variant in ("int8", "fp32"):
        folder = tmp_path / variant
        folder.mkdir()
        (folder / "model.onnx").write_bytes(variant.encode())
        files[variant] = folder / "model.onnx"
    return files


def _auto(tmp_path, exports):
    return AutoEmbedder(
        None,
        model_dir=tmp_path,
        prebuilt=exports,
        verdicts=VerdictCache(tmp_path / "verdicts.json"),
    )


def test_int8_that_agrees_embeds_passages_and_the_verdict_is_kept(tmp_path, exports):
    FakeSession.noise = {"int8": 0.002, "fp32": 0.0}
    auto = _auto(tmp_path, exports)
    assert auto.prepare() == "onnx-int8"
    assert auto.agreement is not None and auto.agreement.ok
    assert auto.agreement.texts == len(int8_check.probe_texts()) >= 40
    measured = dict(FakeSession.calls)
    again = _auto(tmp_path, exports)
    assert again.prepare() == "onnx-int8"
    assert FakeSession.calls == measured  # the kept verdict: nothing embedded to decide again


def _held() -> list[str]:
    gc.collect()
    return sorted(s.variant for s in FakeSession.alive)


def test_an_index_run_holds_no_question_session(tmp_path, exports):
    """Indexing embeds passages only: the fp32 session for questions (130 MB) is loaded for the
    first int8 check and let go after it, and loaded again by the first question (issue 45)."""
    FakeSession.noise = {"int8": 0.002, "fp32": 0.0}
    first = _auto(tmp_path, exports)
    assert first.prepare() == "onnx-int8"  # measured against fp32 here
    assert first.agreement is not None and first.agreement.ok
    assert _held() == ["int8"]
    del first
    measured = FakeSession.calls["fp32"]
    auto = _auto(tmp_path, exports)
    assert auto.prepare() == "onnx-int8"  # the kept verdict: fp32 not even loaded
    assert _held() == ["int8"] and FakeSession.calls["fp32"] == measured
    assert auto.query_backend == "onnx-fp32"  # what will embed questions
    auto.embed(["a passage"])
    assert _held() == ["int8"]
    before = FakeSession.calls["fp32"]
    auto.embed_query("a question")
    assert FakeSession.calls["fp32"] == before + 1 and _held() == ["fp32", "int8"]


def test_without_a_kept_verdict_embedding_checks_int8_first(tmp_path, exports):
    FakeSession.noise = {"int8": 0.002, "fp32": 0.0}
    auto = _auto(tmp_path, exports)
    auto.embed(["passages before any prepare()"])
    assert auto.agreement is not None and auto.agreement.ok
    assert auto.backend == "onnx-int8" and _held() == ["int8"]


def test_int8_that_drifts_falls_back_to_fp32_for_passages(tmp_path, exports):
    FakeSession.noise = {"int8": 0.02, "fp32": 0.0}  # about 0.98 mean cosine: below the rule
    auto = _auto(tmp_path, exports)
    assert auto.prepare() == "onnx-fp32"
    assert auto.agreement is not None and not auto.agreement.ok
    assert auto.backend == "onnx-fp32" and auto.query_backend == "onnx-fp32"
    before = FakeSession.calls["int8"]
    auto.embed(["a passage"])
    assert FakeSession.calls["int8"] == before  # int8 is not used for passages any more
    assert _auto(tmp_path, exports).prepare() == "onnx-fp32"  # remembered as well


def test_embedding_without_prepare_still_applies_the_rule(tmp_path, exports):
    FakeSession.noise = {"int8": 0.02, "fp32": 0.0}
    auto = _auto(tmp_path, exports)
    auto.embed(["passages before any prepare()"])
    assert auto.backend == "onnx-fp32"


@pytest.mark.parametrize(
    ("mean", "worst", "ok"),
    [(0.995, 0.98, True), (0.9899, 0.98, False), (0.995, 0.969, False), (0.99, 0.97, True)],
)
def test_the_thresholds(mean, worst, ok):
    assert Agreement(mean, worst, 10).ok is ok


def test_a_check_that_cannot_run_keeps_passages_in_fp32(tmp_path, exports, monkeypatch):
    def broken(self, texts):
        raise RuntimeError("session cannot run")

    monkeypatch.setattr(FakeSession, "embed", broken)
    auto = _auto(tmp_path, exports)
    assert auto.prepare() == "onnx-fp32"
    assert not (tmp_path / "verdicts.json").exists()  # measured again next time


def test_a_damaged_verdict_file_is_measured_again(tmp_path, exports):
    (tmp_path / "verdicts.json").write_text("not json")
    FakeSession.noise = {"int8": 0.002, "fp32": 0.0}
    assert _auto(tmp_path, exports).prepare() == "onnx-int8"
    assert VerdictCache(tmp_path / "verdicts.json").get("nothing") is None


def test_the_verdict_depends_on_the_cpu(tmp_path, monkeypatch):
    model = tmp_path / "model.onnx"
    model.write_bytes(b"x")
    first = int8_check.verdict_key(model)
    monkeypatch.setattr(int8_check, "cpu_signature", lambda: "another cpu")
    assert int8_check.verdict_key(model) != first


def test_passages_fall_back_to_the_fp32_export_when_int8_is_missing(tmp_path, exports):
    auto = AutoEmbedder(
        None,
        model_dir=tmp_path,
        prebuilt={"fp32": exports["fp32"]},
        verdicts=VerdictCache(tmp_path / "verdicts.json"),
    )
    auto.embed(["passages before any prepare()"])
    assert auto.backend == "onnx-fp32" and _held() == ["fp32"]


def test_the_loaded_sessions_are_listed_by_variant(tmp_path, exports):
    FakeSession.noise = {"int8": 0.002, "fp32": 0.0}
    auto = _auto(tmp_path, exports)
    assert auto.sessions() == {}
    assert auto.prepare() == "onnx-int8"
    assert set(auto.sessions()) == {"int8"}  # the questions' session waits for a question
    auto.embed_query("a question")
    listed = auto.sessions()
    assert set(listed) == {"int8", "fp32"}
    assert listed["int8"].model_file == exports["int8"]
    listed.clear()
    assert set(auto.sessions()) == {"int8", "fp32"}  # a copy: the embedder's own are kept
