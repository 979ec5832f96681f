"""A frozen build finds its prepared models in the bundle first, and never exports or assembles."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from desktop_rag.app import default_embedder
from desktop_rag.config import Settings
from desktop_rag.engines import onnx_embed
from desktop_rag.engines.embed import SentenceTransformerEmbedder, bundled_model_dir
from desktop_rag.engines.int8_check import VERDICTS_FILE, Agreement
from desktop_rag.engines.llm import bundled_model_path
from desktop_rag.engines.onnx_embed import AutoEmbedder
from desktop_rag.errors import ModelError
from desktop_rag.infra import cpu
from desktop_rag.infra import frozen as bundle

GGUF = "gemma-3-270m-q4_k_m.gguf"


def _layout(base: Path, *, exports: tuple[str, ...] = ("int8", "fp32")) -> Path:
    """The folder packaging/prebuild.py writes, with stand-in files."""
    root = base / bundle.FOLDER
    (root / bundle.LLM).mkdir(parents=True)
    (root / bundle.LLM / GGUF).write_bytes(b"GGUF stand-in")
    embedder = root / bundle.EMBEDDER
    embedder.mkdir()
    (embedder / "tokenizer.json").write_text("{}")
    for variant in exports:
        (embedder / f"onnx-{variant}").mkdir()
        (embedder / f"onnx-{variant}" / bundle.EXPORT_FILE).write_bytes(b"onnx stand-in")
    return root


@pytest.fixture
def frozen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Pretend to run from a PyInstaller bundle whose _MEIPASS is tmp_path/bundle."""
    base = tmp_path / "bundle"
    base.mkdir()
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(base), raising=False)
    monkeypatch.setenv("DESKTOP_RAG_CACHE_DIR", str(tmp_path / "cache"))
    return base


def test_outside_a_frozen_build_nothing_is_looked_up(tmp_path, monkeypatch):
    _layout(tmp_path)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)  # but not frozen
    assert not bundle.is_frozen()
    assert bundle.root() is None and bundle.llm() is None
    assert bundle.embedder_dir() is None and bundle.embedder_export("int8") is None


def test_the_bundled_gguf_is_used_as_shipped(frozen, tmp_path):
    root = _layout(frozen)
    assert bundled_model_path() == root / bundle.LLM / GGUF
    assert not (tmp_path / "cache").exists()  # nothing assembled, nothing written


def test_the_tokenizer_comes_from_the_bundle(frozen):
    root = _layout(frozen)
    assert bundled_model_dir() == root / bundle.EMBEDDER


def test_a_frozen_build_embeds_with_its_exports_and_never_exports(frozen, tmp_path, monkeypatch):
    root = _layout(frozen)
    loaded: list[Path] = []
    monkeypatch.setattr(
        onnx_embed.OnnxEmbedder, "load", lambda self: loaded.append(self.model_file)
    )
    # The int8 check runs on the user's machine, not at build time: here it agrees.
    monkeypatch.setattr(onnx_embed, "measure", lambda int8, fp32: Agreement(0.995, 0.98, 51))
    embedder = default_embedder(Settings(embed_backend="torch"))  # not in this build: ignored
    assert isinstance(embedder, AutoEmbedder)
    assert embedder.cache is None  # no cache to export into
    assert embedder.prepare() == "onnx-int8"
    assert embedder.query_backend == "onnx-fp32"
    assert loaded == [
        root / bundle.EMBEDDER / "onnx-int8" / bundle.EXPORT_FILE,
        root / bundle.EMBEDDER / "onnx-fp32" / bundle.EXPORT_FILE,
    ]
    # Nothing exported; only this machine's int8 verdict is kept in the cache.
    kept = [p.relative_to(tmp_path / "cache") for p in (tmp_path / "cache").rglob("*")]
    assert kept == [Path("embedders"), Path("embedders") / VERDICTS_FILE]


def test_a_search_before_prepare_also_uses_the_exports(frozen, monkeypatch):
    _layout(frozen)
    monkeypatch.setattr(onnx_embed.OnnxEmbedder, "load", lambda self: None)
    embedder = default_embedder(Settings())
    assert isinstance(embedder, AutoEmbedder)
    session = embedder._for("fp32")
    assert isinstance(session, onnx_embed.OnnxEmbedder)
    assert session.model_file.parent.name == "onnx-fp32"


def test_missing_exports_and_no_torch_give_a_clear_message(frozen, monkeypatch):
    _layout(frozen, exports=())
    monkeypatch.setitem(sys.modules, "torch", None)  # as in the bundle: import fails
    embedder = default_embedder(Settings())
    assert embedder.prepare() == "torch"  # type: ignore[attr-defined]
    with pytest.raises(ModelError, match="Reinstall Desktop RAG"):
        embedder.embed(["a passage"])


def test_the_reference_embedder_without_torch_says_what_to_do(monkeypatch):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(ModelError, match="prepared ONNX models"):
        SentenceTransformerEmbedder().load()


def test_the_bundle_gives_its_7_bit_int8_export_to_a_cpu_whose_products_saturate(
    frozen, monkeypatch
):
    root = _layout(frozen, exports=("int8", "int8-w7", "fp32"))
    eight = root / bundle.EMBEDDER / "onnx-int8" / bundle.EXPORT_FILE
    seven = root / bundle.EMBEDDER / bundle.SEVEN_BIT_INT8 / bundle.EXPORT_FILE
    monkeypatch.setenv(cpu.WEIGHT_BITS_ENV, "8")  # a VNNI CPU
    assert bundle.embedder_export("int8") == eight
    monkeypatch.setenv(cpu.WEIGHT_BITS_ENV, "7")  # an AVX2 CPU without VNNI
    assert bundle.embedder_export("int8") == seven
    assert bundle.embedder_export("fp32") == root / bundle.EMBEDDER / "onnx-fp32" / "model.onnx"
    # An older bundle without the 7-bit export: its 8-bit one (the int8 rule still decides).
    seven.unlink()
    assert bundle.embedder_export("int8") == eight


def test_a_frozen_build_embeds_several_languages_with_its_shipped_export(frozen, tmp_path):
    from desktop_rag.engines.multilingual import MULTILINGUAL_EMBEDDER_ID, E5Embedder

    root = _layout(frozen)
    assert bundle.multilingual_export() is None
    missing = default_embedder(Settings(multilingual=True))
    assert isinstance(missing, E5Embedder) and missing.cache is None
    with pytest.raises(ModelError, match="no multilingual embedder"):
        missing.embed(["Guten Tag"])
    export = root / bundle.MULTILINGUAL / "onnx-fp32"
    export.mkdir(parents=True)
    (export / bundle.EXPORT_FILE).write_bytes(b"onnx stand-in")
    assert bundle.multilingual_export() == export
    shipped = default_embedder(Settings(multilingual=True))
    assert isinstance(shipped, E5Embedder) and shipped.model_id == MULTILINGUAL_EMBEDDER_ID
    # One export for passages and questions; nothing exported, no cache written.
    assert shipped.variant == shipped.query_variant == "fp32"
    assert shipped.cache is None and not (tmp_path / "cache").exists()
