"""Finding the GGUF models of LM Studio, Ollama, GPT4All, Jan and llama.cpp in fake homes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from desktop_rag.engines import discover
from desktop_rag.engines.discover import find_models, read_header
from tests.helpers.gguf import write_gguf

gguf = pytest.importorskip("gguf")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "LLAMA_CACHE", "OLLAMA_MODELS"):
        monkeypatch.delenv(var, raising=False)
    # Ollama's system-wide folder is outside the fake home: keep this machine's out of it.
    monkeypatch.setattr(discover, "ollama_folders", _home_ollama)
    return home


def _home_ollama(home: Path | None = None, env: object = None) -> list[Path]:
    import os

    return [Path(os.environ["HOME"]) / ".ollama" / "models"]


def test_header_gives_name_architecture_and_file_type_after_the_vocabulary(tmp_path):
    path = write_gguf(tmp_path / "m.gguf", name="Qwen Tiny", arch="qwen2", file_type=7, vocab=5000)
    info = read_header(path)
    assert (info.name, info.architecture, info.file_type) == ("Qwen Tiny", "qwen2", 7)
    assert discover.quantisation_name(info.file_type) == "Q8_0"
    assert discover.quantisation_name(15) == "Q4_K_M"
    assert discover.quantisation_name(None) == "" and discover.quantisation_name(999) == ""


def test_the_file_type_names_are_llama_cpps() -> None:
    ours = discover.FILE_TYPES
    theirs = {
        t.value: t.name.removeprefix("MOSTLY_").removeprefix("ALL_")
        for t in gguf.LlamaFileType
        if t.name != "GUESSED"
    }
    assert ours == theirs


@pytest.mark.parametrize(
    "data", [b"", b"GGUF", b"GGUF\x03\x00\x00\x00" + b"\xff" * 40, b"PK\x03\x04"]
)
def test_a_damaged_or_foreign_header_is_a_value_error(tmp_path, data):
    path = tmp_path / "bad.gguf"
    path.write_bytes(data)
    with pytest.raises(ValueError):
        read_header(path)


def test_a_truncated_model_file_is_a_value_error(tmp_path):
    good = write_gguf(tmp_path / "good.gguf", vocab=2000)
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(good.read_bytes()[:600])
    with pytest.raises(ValueError):
        read_header(cut)


@pytest.mark.skipif(sys.platform != "linux", reason="Linux folder layout")
def test_every_app_folder_is_found_in_a_fake_home(home, monkeypatch):
    lm = write_gguf(home / ".lmstudio/models/lmstudio-community/Qwen-GGUF/qwen-Q4_K_M.gguf")
    lm_old = write_gguf(home / ".cache/lm-studio/models/TheBloke/x/old.gguf", name="Old One")
    gpt = write_gguf(home / ".local/share/nomic.ai/GPT4All/orca-mini.gguf", name=None, file_type=2)
    jan_old = write_gguf(home / "jan/models/tinyllama/model.gguf", name="Jan Tiny")
    jan = write_gguf(home / ".local/share/Jan/data/llamacpp/models/phi/model.gguf", name="Phi")
    cache = write_gguf(home / ".cache/llama.cpp/ggml-org_gemma-GGUF_gemma-Q8_0.gguf", name="G")
    # Not models that answer questions: an embedder, a vision projector, not a GGUF at all.
    write_gguf(home / ".lmstudio/models/nomic/embed/nomic-embed.gguf", arch="nomic-bert")
    write_gguf(home / ".lmstudio/models/x/vision/mmproj-model-f16.gguf", arch="clip")
    (home / ".lmstudio/models/x/notes.gguf").write_bytes(b"not a model")

    found = {Path(m.path): m for m in find_models()}
    assert set(found) == {lm, lm_old, gpt, jan_old, jan, cache}
    assert found[lm].app == "LM Studio" and found[lm].name == "Tiny Test"
    assert found[lm].quantisation == "Q4_K_M" and found[lm].size == lm.stat().st_size
    assert found[gpt].app == "GPT4All" and found[gpt].name == "orca-mini"  # no name: the file's
    assert found[gpt].quantisation == "Q4_0"
    assert {found[jan].app, found[jan_old].app} == {"Jan"}
    assert found[cache].app == "llama.cpp"
    assert all(m.fits for m in found.values())  # a few kilobytes fit anywhere


@pytest.mark.skipif(sys.platform != "linux", reason="Linux folder layout")
def test_xdg_and_llama_cache_variables_move_the_folders(home, tmp_path, monkeypatch):
    data, cache = tmp_path / "xdg-data", tmp_path / "llama-cache"
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    monkeypatch.setenv("LLAMA_CACHE", str(cache))
    gpt = write_gguf(data / "nomic.ai/GPT4All/a.gguf")
    cached = write_gguf(cache / "b.gguf")
    write_gguf(home / ".local/share/nomic.ai/GPT4All/ignored.gguf")  # XDG_DATA_HOME wins
    assert {Path(m.path) for m in find_models()} == {gpt, cached}


def _ollama_blob(root: Path, namespace: str, model: str, tag: str, **kw: object) -> Path:
    digest = f"{abs(hash((namespace, model, tag))):064x}"[:64]
    blob = write_gguf(root / "blobs" / f"sha256-{digest}", **kw)
    manifest = root / "manifests/registry.ollama.ai" / namespace / model / tag
    manifest.parent.mkdir(parents=True, exist_ok=True)
    layers = [
        {"mediaType": "application/vnd.ollama.image.template", "digest": "sha256:" + "0" * 64},
        {"mediaType": "application/vnd.ollama.image.model", "digest": f"sha256:{digest}"},
    ]
    manifest.write_text(json.dumps({"schemaVersion": 2, "layers": layers}))
    return blob


def test_ollama_blobs_are_named_by_their_manifests(home):
    root = home / ".ollama/models"
    llama = _ollama_blob(root, "library", "llama3.2", "1b", file_type=7)
    mine = _ollama_blob(root, "someone", "custom", "latest", name="Custom")
    (root / "manifests/registry.ollama.ai/library/broken").mkdir(parents=True)
    (root / "manifests/registry.ollama.ai/library/broken/latest").write_text("{not json")
    gone = root / "manifests/registry.ollama.ai/library/gone/latest"
    gone.parent.mkdir(parents=True)
    layer = {"mediaType": "application/vnd.ollama.image.model", "digest": "sha256:" + "f" * 64}
    gone.write_text(json.dumps({"layers": [layer]}))  # its blob was deleted

    found = {m.name: m for m in find_models()}
    assert set(found) == {"llama3.2:1b", "someone/custom:latest"}
    assert found["llama3.2:1b"].path == str(llama) and found["llama3.2:1b"].app == "Ollama"
    assert found["llama3.2:1b"].quantisation == "Q8_0"
    assert found["someone/custom:latest"].path == str(mine)


def test_a_model_too_large_for_the_memory_left_does_not_fit(home, monkeypatch):
    path = write_gguf(home / ".lmstudio/models/a/b/big-Q4_K_M.gguf")
    monkeypatch.setattr(discover, "_available_memory", lambda: 100 * 2**20)  # 100 MB free
    (model,) = find_models()
    assert model.path == str(path) and not model.fits
    assert model.needed > model.available


def test_a_split_model_is_listed_once_with_all_its_parts(home):
    folder = home / ".lmstudio/models/big/model"
    first = write_gguf(folder / "big-Q4_K_M-00001-of-00002.gguf")
    second = write_gguf(folder / "big-Q4_K_M-00002-of-00002.gguf")
    (model,) = find_models()
    assert model.path == str(first)
    assert model.size == first.stat().st_size + second.stat().st_size


def test_the_same_file_reached_twice_is_listed_once(home):
    real = write_gguf(home / ".cache/llama.cpp/one.gguf")
    link = home / ".lmstudio/models/me/one/one.gguf"
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    assert len(find_models()) == 1


def test_the_walk_is_bounded_in_depth_and_entries(home, monkeypatch):
    deep = home / ".lmstudio/models" / "/".join(f"d{i}" for i in range(10)) / "deep.gguf"
    write_gguf(deep)
    shallow = write_gguf(home / ".lmstudio/models/a/b/shallow.gguf")
    assert [m.path for m in find_models()] == [str(shallow)]
    monkeypatch.setattr(discover, "MAX_ENTRIES", 1)
    assert find_models() == []


def test_the_bundled_gemma_in_an_lm_studio_tree(home):
    from desktop_rag.engines.llm import bundled_model_path

    gemma = bundled_model_path()
    target = home / ".lmstudio/models/lmstudio-community/gemma-3-270m-GGUF" / gemma.name
    target.parent.mkdir(parents=True)
    target.symlink_to(gemma)
    (model,) = find_models()
    assert model.app == "LM Studio" and model.path == str(target)
    assert model.name == "Gemma 3 270m"
    assert model.quantisation == "Q4_K_M"
    assert model.size == gemma.stat().st_size
    assert model.fits  # 250 MB fits this machine
