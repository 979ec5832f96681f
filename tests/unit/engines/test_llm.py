"""llama.cpp's CPU code is loaded from llama-cpp-python's own folder before any model loads, and
an x86-64 CPU without AVX2 is told so (engines/llm.py, infra/cpu.py)."""

from __future__ import annotations

import pytest

from desktop_rag.engines import llm
from desktop_rag.infra import cpu


@pytest.mark.parametrize(
    ("flags", "avx2"),
    [
        ("fpu sse4_2 avx avx2 fma f16c bmi2", True),
        ("fpu avx2 avx512f avx512_vnni amx_bf16 amx_tile amx_int8", True),
        ("fpu sse4_2 avx", False),
        ("fp asimd asimddp i8mm", False),
        ("", False),
    ],
)
def test_avx2_is_read_from_the_cpu_flags(flags: str, avx2: bool) -> None:
    assert cpu.has_avx2(flags) is avx2


def test_the_lib_folder_is_llama_cpp_pythons_or_the_one_its_variable_names(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    monkeypatch.delenv("LLAMA_CPP_LIB_PATH", raising=False)
    import llama_cpp

    assert llm.llama_lib_dir() == llm.Path(llama_cpp.__file__).resolve().parent / "lib"
    monkeypatch.setenv("LLAMA_CPP_LIB_PATH", str(tmp_path))
    assert llm.llama_lib_dir() == tmp_path


def test_the_backends_are_registered_from_the_lib_folder() -> None:
    """After load_backends the CPU backend of the folder's best variant is registered (ggml's
    own search looks beside Python's executable and in the working directory, where there is
    none)."""
    import ctypes

    folder = llm.load_backends()
    ggml = ctypes.CDLL(str(llm._shared_library(folder, "ggml")))
    ggml.ggml_backend_reg_count.restype = ctypes.c_size_t
    assert ggml.ggml_backend_reg_count() >= 1
    assert llm.load_backends() == folder  # once per process


def test_a_cpu_without_avx2_gets_a_message_instead_of_a_crash(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    """A folder whose variants this CPU cannot run (here: none at all) registers nothing; on a
    CPU without AVX2 the user reads why. The registration is tried in a fresh process, as a
    real start would: this one has its backends registered already."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from desktop_rag.engines import llm\n"
        "from desktop_rag.errors import ModelError\n"
        "llm.cpu.has_avx2 = lambda flags=None: False\n"
        "llm.cpu.is_x86 = lambda: True\n"
        "try:\n"
        "    llm.load_backends()\n"
        "except ModelError as exc:\n"
        "    print(exc)\n"
        "    sys.exit(3)\n"
    )
    # The folder holds libggml and libllama but none of the CPU variants.
    import shutil

    lib = llm.llama_lib_dir()
    for f in lib.iterdir():
        if "ggml-cpu-" not in f.name:
            shutil.copy2(f, tmp_path / f.name)
    env = dict(__import__("os").environ, LLAMA_CPP_LIB_PATH=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 3, done.stderr
    assert done.stdout.strip() == llm.NO_AVX2
