"""The ONNX embedder's sessions: how many it makes, and what they run on."""

from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import numpy as np
import pytest

from desktop_rag.engines.embed import bundled_model_dir
from desktop_rag.engines.onnx_embed import OnnxEmbedder


class CountingSession:
    """Stands in for onnxruntime.InferenceSession: counts sessions made and runs' threads."""

    made: ClassVar[list[Any]] = []

    def __init__(self, path: str, options: Any, providers: list[str]) -> None:
        self.options = options
        self.threads: set[int] = set()
        self._lock = threading.Lock()
        CountingSession.made.append(self)

    def get_inputs(self) -> list[SimpleNamespace]:
        return [SimpleNamespace(name=n) for n in ("input_ids", "attention_mask")]

    def run(self, names: object, feed: dict[str, np.ndarray]) -> list[np.ndarray]:
        with self._lock:
            self.threads.add(threading.get_ident())
        rows = feed["input_ids"].shape[0]
        threading.Event().wait(0.002)  # long enough for the other stream to take a batch
        return [np.ones((rows, 384), dtype=np.float32)]


@pytest.fixture
def sessions(monkeypatch):
    import onnxruntime

    CountingSession.made = []
    monkeypatch.setattr(onnxruntime, "InferenceSession", CountingSession)
    return CountingSession.made


def _embedder(streams: int, threads: int = 1) -> OnnxEmbedder:
    tokenizer = bundled_model_dir() / "tokenizer.json"
    return OnnxEmbedder(
        Path("model.onnx"), tokenizer, threads=threads, batch_size=2, streams=streams
    )


def test_streams_run_side_by_side_on_one_session(sessions):
    """Two sessions of one model held its weights twice (70 MB each for the int8 export) for
    nothing: ONNX Runtime runs one session from several threads at once, each run on its
    caller's thread when the session has one thread."""
    embedder = _embedder(streams=2)
    out = embedder.embed([f"passage number {i} " * (i % 7 + 1) for i in range(40)])
    assert out.shape == (40, 384)
    assert len(sessions) == 1
    assert len(sessions[0].threads) == 2  # both streams ran batches on it
    assert sessions[0].options.intra_op_num_threads == 1


def test_a_shared_session_keeps_every_streams_threads(sessions):
    """Streams of two threads each share one pool: the caller of each run, and one pool thread
    per stream beside it (so four streams of two threads still have eight threads)."""
    _embedder(streams=4, threads=2).load()
    assert len(sessions) == 1
    assert sessions[0].options.intra_op_num_threads == 5  # four pool threads and a caller


def test_every_session_takes_its_memory_from_one_arena():
    """Each session's own arena kept its largest batch's memory for good: the passages', the
    questions' and the cross-encoder's, 90-100 MB more in all than one arena they share
    (issue 45). Made twice in one process, the shared arena is registered once."""
    from desktop_rag.engines.onnx_embed import session_options

    for _ in range(2):
        options = session_options(1)
        assert options.get_session_config_entry("session.use_env_allocators") == "1"
