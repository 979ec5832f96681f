"""The export cache and the auto embedder's fallbacks, with a fake exporter and no real model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_rag.engines import onnx_export as export
from desktop_rag.engines.embed import Preparable
from desktop_rag.engines.onnx_embed import AutoEmbedder
from desktop_rag.engines.onnx_export import MODEL_FILE, ExportCache, ExportError
from desktop_rag.infra import cpu
from tests.fakes import HashEmbedder


@pytest.fixture
def model_dir(tmp_path: Path) -> Path:
    """The files that identify a model, with stand-in contents."""
    folder = tmp_path / "model"
    (folder / "1_Pooling").mkdir(parents=True)
    (folder / "config.json").write_text('{"hidden_size": 384}')
    (folder / "tokenizer.json").write_text("{}")
    (folder / "1_Pooling" / "config.json").write_text("{}")
    (folder / "model.safetensors").write_bytes(b"weights")
    return folder


class FakeExporter:
    """Writes a stand-in model file, or fails, and counts its calls."""

    def __init__(self, fail: bool = False, write: bool = True) -> None:
        self.fail = fail
        self.write = write
        self.calls = 0

    def __call__(self, model_dir: Path, out_dir: Path, variant: str) -> dict[str, object]:
        self.calls += 1
        assert out_dir.name.startswith(".")  # a temporary folder, renamed into place later
        if self.fail:
            raise RuntimeError("exporter exploded")
        if self.write:
            (out_dir / MODEL_FILE).write_bytes(b"not really onnx")
        return {"self_check_min_cosine": 1.0}


def test_exports_once_then_reuses(tmp_path, model_dir):
    cache = ExportCache(tmp_path / "cache")
    exporter = FakeExporter()
    assert cache.find(model_dir, "int8") is None
    statuses: list[str] = []
    path = cache.ensure(model_dir, "int8", exporter, statuses.append)
    assert path.read_bytes() == b"not really onnx"
    assert statuses and exporter.calls == 1
    manifest = json.loads((path.parent / export.MANIFEST_FILE).read_text())
    assert manifest["variant"] == "int8" and manifest["recipe"] == export.RECIPE
    assert cache.ensure(model_dir, "int8", exporter) == path
    assert cache.find(model_dir, "int8") == path
    assert exporter.calls == 1
    # Nothing temporary is left behind.
    assert [p.name for p in (tmp_path / "cache").iterdir() if p.name.startswith(".m")] == []


def test_variants_and_model_changes_get_their_own_export(tmp_path, model_dir):
    cache = ExportCache(tmp_path / "cache")
    exporter = FakeExporter()
    int8 = cache.ensure(model_dir, "int8", exporter)
    fp32 = cache.ensure(model_dir, "fp32", exporter)
    assert int8 != fp32 and exporter.calls == 2
    (model_dir / "config.json").write_text('{"hidden_size": 768}')
    assert cache.find(model_dir, "int8") is None
    assert cache.ensure(model_dir, "int8", exporter) != int8
    assert exporter.calls == 3


def test_a_failed_export_leaves_no_model_and_is_remembered(tmp_path, model_dir, monkeypatch):
    cache = ExportCache(tmp_path / "cache")
    with pytest.raises(ExportError, match="exploded"):
        cache.ensure(model_dir, "int8", FakeExporter(fail=True))
    assert cache.find(model_dir, "int8") is None
    assert "exploded" in (cache.failure(model_dir, "int8") or "")
    # New library versions deserve a new try.
    monkeypatch.setattr(export, "_versions", lambda: {"onnxruntime": "99"})
    assert cache.failure(model_dir, "int8") is None


def test_an_exporter_that_writes_nothing_fails(tmp_path, model_dir):
    cache = ExportCache(tmp_path / "cache")
    with pytest.raises(ExportError, match=r"no model\.onnx"):
        cache.ensure(model_dir, "int8", FakeExporter(write=False))
    assert cache.find(model_dir, "int8") is None


def _auto(tmp_path, model_dir, exporter):
    fallback = HashEmbedder(dim=384)
    auto = AutoEmbedder(
        ExportCache(tmp_path / "cache"),
        model_dir=model_dir,
        exporter=exporter,
        fallback=lambda: fallback,
    )
    return auto, fallback


def test_search_before_prepare_never_exports(tmp_path, model_dir):
    exporter = FakeExporter()
    auto, fallback = _auto(tmp_path, model_dir, exporter)
    assert isinstance(auto, Preparable)
    assert auto.embed_query("a question").shape == (384,)
    assert exporter.calls == 0 and fallback.calls == 1
    assert auto.backend == "torch"


def test_failed_export_falls_back_and_is_not_retried(tmp_path, model_dir):
    exporter = FakeExporter(fail=True)
    auto, fallback = _auto(tmp_path, model_dir, exporter)
    assert auto.prepare() == "torch"
    assert auto.query_backend == "torch"
    assert auto.embed(["text"]).shape == (1, 384) and fallback.calls == 1
    assert exporter.calls == 2  # the passage (int8) and the question (fp32) exports
    again, _ = _auto(tmp_path, model_dir, exporter)
    assert again.prepare() == "torch"
    assert exporter.calls == 2  # the remembered failures are not retried at every run


def test_damaged_export_falls_back_to_the_reference(tmp_path, model_dir):
    exporter = FakeExporter()  # writes bytes that onnxruntime cannot load
    auto, fallback = _auto(tmp_path, model_dir, exporter)
    assert auto.prepare() == "torch"
    assert exporter.calls == 2
    auto.embed(["still works"])
    auto.embed_query("and so do questions")
    assert fallback.calls == 2


# Flags as /proc/cpuinfo gives them (shortened): an AVX2 laptop without VNNI, a Skylake-SP
# server (AVX-512 without VNNI), a Cascade Lake (AVX-512 VNNI), an Alder Lake (AVX-VNNI), a
# Sapphire Rapids (AMX), an ARM board and a CPU whose flags could not be read.
@pytest.mark.parametrize(
    ("flags", "bits"),
    [
        ("fpu sse ssse3 sse4_1 sse4_2 avx avx2 fma f16c", 7),
        ("fpu ssse3 avx avx2 avx512f avx512dq avx512bw avx512vl", 7),
        ("fpu ssse3 avx avx2 avx512f avx512bw avx512_vnni", 8),
        ("fpu ssse3 avx avx2 avx_vnni", 8),
        ("fpu ssse3 avx2 avx512bw avx512_vnni amx_tile amx_int8 amx_bf16", 8),
        ("fp asimd evtstrm aes pmull sha1 sha2 crc32 asimddp i8mm", 8),
        ("", 8),
    ],
)
def test_int8_weights_take_7_bits_only_where_the_cpu_products_saturate(monkeypatch, flags, bits):
    monkeypatch.delenv(cpu.WEIGHT_BITS_ENV, raising=False)
    assert cpu.int8_weight_bits(flags) == bits
    monkeypatch.setenv(cpu.WEIGHT_BITS_ENV, "7")
    assert cpu.int8_weight_bits(flags) == 7
    monkeypatch.setenv(cpu.WEIGHT_BITS_ENV, "8")
    assert cpu.int8_weight_bits(flags) == 8


def test_7_bit_weights_are_a_cache_entry_of_their_own(monkeypatch, model_dir):
    """A 7-bit export is never found where an 8-bit one was asked for, nor the other way."""
    monkeypatch.setenv(cpu.WEIGHT_BITS_ENV, "8")
    eight = export.fingerprint(model_dir, "int8")
    fp32 = export.fingerprint(model_dir, "fp32")
    monkeypatch.setenv(cpu.WEIGHT_BITS_ENV, "7")
    assert export.fingerprint(model_dir, "int8") != eight
    assert export.fingerprint(model_dir, "fp32") == fp32  # fp32 has no int8 weights
