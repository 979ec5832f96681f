"""The fast embedder for real: exported offline from the bundled model, close to PyTorch's."""

from __future__ import annotations

import os
import socket
import sys

import numpy as np
import pytest

from desktop_rag.app import build_app, default_embedder
from desktop_rag.config import Settings
from desktop_rag.engines.embed import SentenceTransformerEmbedder, warm_up
from desktop_rag.engines.onnx_embed import AutoEmbedder
from desktop_rag.engines.onnx_export import ExportCache, export_onnx
from desktop_rag.infra import priority
from desktop_rag.ingest.control import RunControl
from tests.conftest import ANIMALS

pytestmark = pytest.mark.slow

TEXTS = [
    *(page for pages in ANIMALS.values() for page in pages),
    "What is the incubation period of the novel coronavirus?",
    "Net revenue for fiscal 2022 increased 8% to $4.2 billion, driven by services.",
    "x",
    "The committee reviewed the audit findings. " * 60,  # past 256 word pieces
]


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("network access is not allowed in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_exports_offline_and_matches_pytorch(tmp_path, no_network):
    # A fresh cache and the export in this process, so the socket guard covers it too.
    auto = AutoEmbedder(ExportCache(tmp_path / "cache"), exporter=export_onnx)
    statuses: list[str] = []
    backend = auto.prepare(statuses.append)
    assert auto.query_backend == "onnx-fp32"
    assert statuses  # the one-time export is announced
    # The app's rule, measured here as on a user's machine: int8 embeds passages only where its
    # vectors of real text agree with fp32's on this CPU.
    agreement = auto.agreement
    assert agreement is not None and agreement.texts >= 40
    assert backend == ("onnx-int8" if agreement.ok else "onnx-fp32"), agreement
    fast = auto.embed(TEXTS)
    ref = SentenceTransformerEmbedder().embed(TEXTS)
    assert fast.shape == ref.shape == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(fast, axis=1), 1.0, atol=1e-4)
    cos = np.sum(fast * ref, axis=1)
    if backend == "onnx-fp32":
        assert cos.min() > 0.9999, cos
    else:
        # int8 against PyTorch on these ten texts gave a mean of 0.9897 (lowest 0.974) on an
        # AVX2 CPU without VNNI and more on AVX-512/VNNI; these gates leave a margin below both
        # and still fail a broken export (whose cosines fall far below 0.9).
        assert cos.mean() > 0.98, cos
        assert cos.min() > 0.95, cos
    # Alone or in a padded batch, a text gets nearly the same vector. Not exactly the same:
    # dynamic int8 quantises activations with one scale per batch, so neighbours matter a bit.
    alone = auto.embed([TEXTS[-3]])[0]
    assert float(np.dot(alone, fast[-3])) > 0.97
    # Questions go through the fp32 export: PyTorch's vectors up to float noise.
    query = auto.embed_query(TEXTS[-3])
    assert float(np.dot(query, ref[-3])) > 0.9999
    # A second embedder finds the export without exporting again.
    again = AutoEmbedder(ExportCache(tmp_path / "cache"), exporter=_must_not_export)
    assert again.prepare() == backend


def _must_not_export(*args):
    raise AssertionError("exported twice")


def test_default_app_indexes_with_the_fast_backend(tmp_path, animal_pdfs):
    settings = Settings(data_dir=str(tmp_path / "data"))
    app = build_app(settings, isolate=False)
    assert isinstance(app.embedder, AutoEmbedder)
    stages: list[str] = []
    report = app.ingest.index(
        [str(animal_pdfs)], RunControl(on_progress=lambda p: stages.append(p.stage))
    )
    assert report.indexed == 3 and not report.failed
    assert app.embedder.backend in ("onnx-int8", "onnx-fp32")
    hits = app.retriever.search("why is octopus blood blue", k=3)
    assert hits[0].path.endswith("octopus.pdf") and hits[0].page == 2


def test_torch_setting_uses_pytorch():
    torch = default_embedder(Settings(embed_backend="torch"))
    assert isinstance(torch, SentenceTransformerEmbedder)
    assert isinstance(default_embedder(Settings(embed_backend="auto")), AutoEmbedder)


def test_onnx_fp32_setting_embeds_passages_in_fp32():
    """What a CPU whose int8 disagrees with fp32 ends up with, chosen by hand (benchmarks)."""
    fp32 = default_embedder(Settings(embed_backend="onnx-fp32"))
    assert isinstance(fp32, AutoEmbedder)
    fp32.prepare()
    assert (fp32.backend, fp32.query_backend) == ("onnx-fp32", "onnx-fp32")
    auto = default_embedder(Settings(embed_backend="auto"))
    assert isinstance(auto, AutoEmbedder) and auto.variant == "int8"


def _threads() -> set[int]:
    return {int(t) for t in os.listdir("/proc/self/task")}


def _nice(tids: set[int]) -> set[int]:
    return {os.getpriority(os.PRIO_PROCESS, t) for t in tids}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
def test_passage_embedding_pool_runs_at_indexing_priority():
    """The window loads the embedder on its loading lane, at the window's priority; the pool
    threads ONNX Runtime starts for the passage session must still run below the GUI thread,
    like the indexing thread that feeds them, and the question session's must not.

    In a process of its own, as the window is: which threads ONNX Runtime starts depends on
    the sessions made before in the process (in this file's run, the earlier tests')."""
    import subprocess

    code = "from tests.integration.test_fast_embedder import _pools; _pools()"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]


def _pools() -> None:
    own = os.getpriority(os.PRIO_PROCESS, 0)
    if own >= priority.NICE:
        # This process was started by one an earlier test had lowered (an index run on the
        # main thread lowers it for good): lower the pools further, or nothing tells them apart.
        priority.NICE = min(19, own + 5)
    low = max(own, priority.NICE)
    # Eight threads: passages in four runs of two threads side by side on one session (a pool
    # of four threads, one beside each run's caller), questions on one session of eight (seven
    # pool threads), and any thread the runtime starts once per process, at its creator's
    # priority.
    auto = default_embedder(Settings(embed_backend="auto", n_threads=8))
    before = _threads()
    warm_up(auto)  # as the window does: passages' session, then questions' on a question
    new = _threads() - before
    assert auto.backend == "onnx-int8" and auto.query_backend == "onnx-fp32"
    nice = sorted(os.getpriority(os.PRIO_PROCESS, t) for t in new)
    assert nice.count(low) == 4 and nice.count(own) >= 7, nice
    # Two threads: passages in two runs of one thread each, which start no pool threads
    # (they run on the indexing thread and one it starts: test_batching.py).
    two = default_embedder(Settings(embed_backend="auto", n_threads=2))
    warm_up(two)
    sessions = two._sessions
    assert (sessions["int8"].streams, sessions["fp32"].streams) == (2, 1)
    # A session that serves questions keeps its creator's priority, whatever does passages.
    both = default_embedder(Settings(embed_backend="onnx-fp32", n_threads=8))
    before = _threads()
    both.prepare()
    new = _threads() - before
    assert new and _nice(new) == {own}
    # Indexing at normal priority (the setting off): no pool is lowered either.
    normal = default_embedder(Settings(embed_backend="auto", n_threads=8, index_low_priority=False))
    before = _threads()
    normal.prepare()
    new = _threads() - before
    assert len(new) >= 2 and _nice(new) == {own}


def test_7_bit_export_holds_no_weight_that_can_saturate_and_stays_close_to_fp32(
    tmp_path, monkeypatch
):
    """The export a CPU without VNNI gets (forced here, whatever this CPU is): every int8
    weight within ±64, so no pair of u8 x s8 products overflows 16 bits; and its vectors stay
    close to fp32's on the int8 rule's own probe passages."""
    import onnx
    from onnx import numpy_helper

    from desktop_rag.engines import int8_check
    from desktop_rag.infra import cpu

    monkeypatch.setenv(cpu.WEIGHT_BITS_ENV, "7")
    auto = AutoEmbedder(ExportCache(tmp_path / "cache"), exporter=export_onnx)
    auto.prepare()
    auto.embed_query("loads the fp32 session")
    int8 = auto._sessions["int8"]
    manifest = (int8.model_file.parent / "manifest.json").read_text()
    assert '"weight_bits": 7' in manifest
    weights = [
        numpy_helper.to_array(t)
        for t in onnx.load(str(int8.model_file)).graph.initializer
        if t.data_type == onnx.TensorProto.INT8
    ]
    assert len(weights) >= 36  # six layers' worth of weight matrices
    # 2 x 255 x 64 = 32,640 fits a signed 16-bit sum; 2 x 255 x 127 does not.
    assert max(int(np.abs(w.astype(np.int32)).max()) for w in weights) <= 64
    # On an AVX-512 VNNI CPU the rule measured mean 0.9913, lowest 0.9760 (8-bit: 0.9930 /
    # 0.9815): just above its 0.99 / 0.97. The rule decides on the user's machine; this gate
    # leaves a margin below those figures (CPUs differ in the float parts) and still fails a
    # broken export, whose cosines fall far below 0.9.
    agreement = int8_check.measure(int8, auto._sessions["fp32"])
    assert agreement.mean > 0.985 and agreement.worst > 0.95, agreement.describe()
