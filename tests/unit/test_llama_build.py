"""packaging/llama.py: the wheel keeps llama.cpp's CPU variants from AVX2 up beside libggml, drops
the AMX one and the stray top-level folders, and its RECORD says exactly what it holds."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import platform
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _llama_build():
    spec = importlib.util.spec_from_file_location("llama_build", REPO / "packaging" / "llama.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _built_wheel(path: Path) -> Path:
    """A wheel laid out as llama-cpp-python's GGML_BACKEND_DL build lays it out."""
    wheel = path / "llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl"
    names = [
        "llama_cpp/__init__.py",
        "llama_cpp/lib/libllama.so",
        "llama_cpp/lib/libggml.so.0",
        "bin/libggml-cpu-haswell.so",
        "bin/libggml-cpu-zen4.so",
        "bin/libggml-cpu-sapphirerapids.so",
        "bin/libggml-cpu-sse42.so",
        "bin/libggml-cpu-x64.so",
        "lib/libggml.so.0",
        "include/ggml.h",
        "llama_cpp_python-0.3.36.dist-info/METADATA",
    ]
    with zipfile.ZipFile(wheel, "w") as zf:
        for name in names:
            zf.writestr(name, f"contents of {name}")
        zf.writestr("llama_cpp_python-0.3.36.dist-info/RECORD", "stale\n")
    return wheel


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the x86-64 variant list")
def test_the_repacked_wheel_holds_the_avx2_variants_beside_libggml(tmp_path: Path) -> None:
    build = _llama_build()
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = build.repack(_built_wheel(tmp_path), out_dir)
    with zipfile.ZipFile(out) as zf:
        names = set(zf.namelist())
        assert "llama_cpp/lib/libggml-cpu-haswell.so" in names
        assert "llama_cpp/lib/libggml-cpu-zen4.so" in names
        assert not any("sapphirerapids" in n or "sse42" in n or "x64" in n for n in names)
        assert not any(n.split("/")[0] in ("bin", "lib", "include") for n in names)
        record = zf.read("llama_cpp_python-0.3.36.dist-info/RECORD").decode().splitlines()
        listed = {}
        for line in record:
            name, digest, size = line.rsplit(",", 2)
            listed[name] = (digest, size)
        assert set(listed) == names
        for name in names - {"llama_cpp_python-0.3.36.dist-info/RECORD"}:
            data = zf.read(name)
            want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert listed[name] == (f"sha256={want}", str(len(data)))


def test_the_cache_name_changes_with_the_recipe(monkeypatch: pytest.MonkeyPatch) -> None:
    build = _llama_build()
    before = build.recipe_key()
    monkeypatch.setattr(build, "CMAKE_ARGS", build.CMAKE_ARGS + " -DGGML_NATIVE=ON")
    assert build.recipe_key() != before
