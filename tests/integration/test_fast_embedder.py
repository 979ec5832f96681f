"""The fast embedder for real: exported offline from the bundled model, close to PyTorch's."""

from __future__ import annotations

import socket

import numpy as np
import pytest

from desktop_rag.app import build_app, default_embedder
from desktop_rag.config import Settings
from desktop_rag.ingest.embed import SentenceTransformerEmbedder
from desktop_rag.ingest.export import ExportCache, export_onnx
from desktop_rag.ingest.onnx_embed import AutoEmbedder
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
    assert auto.prepare(statuses.append) == "onnx-int8"
    assert auto.query_backend == "onnx-fp32"
    assert statuses  # the one-time export is announced
    fast = auto.embed(TEXTS)
    ref = SentenceTransformerEmbedder().embed(TEXTS)
    assert fast.shape == ref.shape == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(fast, axis=1), 1.0, atol=1e-4)
    cos = np.sum(fast * ref, axis=1)
    assert cos.mean() > 0.99, cos
    assert cos.min() > 0.97, cos
    # Alone or in a padded batch, a text gets nearly the same vector. Not exactly the same:
    # dynamic int8 quantises activations with one scale per batch, so neighbours matter a bit.
    alone = auto.embed([TEXTS[-3]])[0]
    assert float(np.dot(alone, fast[-3])) > 0.98
    # Questions go through the fp32 export: PyTorch's vectors up to float noise.
    query = auto.embed_query(TEXTS[-3])
    assert float(np.dot(query, ref[-3])) > 0.9999
    # A second embedder finds the export without exporting again.
    again = AutoEmbedder(ExportCache(tmp_path / "cache"), exporter=_must_not_export)
    assert again.prepare() == "onnx-int8"


def _must_not_export(*args):
    raise AssertionError("exported twice")


def test_default_app_indexes_with_the_fast_backend(tmp_path, animal_pdfs):
    settings = Settings(data_dir=str(tmp_path / "data"))
    app = build_app(settings, isolate=False)
    assert isinstance(app.embedder, AutoEmbedder)
    stages: list[str] = []
    report = app.ingest.index([str(animal_pdfs)], on_progress=lambda p: stages.append(p.stage))
    assert report.indexed == 3 and not report.failed
    assert app.embedder.backend == "onnx-int8"
    hits = app.retriever.search("why is octopus blood blue", k=3)
    assert hits[0].path.endswith("octopus.pdf") and hits[0].page == 2


def test_torch_setting_uses_pytorch():
    torch = default_embedder(Settings(embed_backend="torch"))
    assert isinstance(torch, SentenceTransformerEmbedder)
    assert isinstance(default_embedder(Settings(embed_backend="auto")), AutoEmbedder)
