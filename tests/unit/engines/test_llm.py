"""On a CPU with AMX the model loads without llama.cpp's extra buffer types (engines/llm.py)."""

from __future__ import annotations

import threading

import pytest
from llama_cpp import llama_cpp as lib

from desktop_rag.engines import llm
from desktop_rag.infra import cpu


@pytest.mark.parametrize(
    ("flags", "amx"),
    [
        ("fpu avx2 avx512f avx512_vnni amx_bf16 amx_tile amx_int8", True),
        ("fpu avx2 avx512f avx512_vnni avx_vnni", False),
        ("fp asimd asimddp i8mm", False),
        ("", False),
    ],
)
def test_amx_is_read_from_the_cpu_flags(flags, amx):
    assert cpu.has_amx(flags) is amx


def test_models_loaded_inside_get_no_extra_buffers_and_the_default_comes_back():
    default = lib.llama_model_default_params
    assert lib.llama_model_default_params().use_extra_bufts  # llama.cpp's default
    with llm._without_extra_buffers(True):
        assert not lib.llama_model_default_params().use_extra_bufts
    assert lib.llama_model_default_params is default
    with llm._without_extra_buffers(False):
        assert lib.llama_model_default_params().use_extra_bufts
    with pytest.raises(RuntimeError), llm._without_extra_buffers(True):
        raise RuntimeError("the load failed")
    assert lib.llama_model_default_params is default  # restored after a failed load too


def test_two_loads_at_once_take_turns():
    inside: list[int] = []
    seen: list[int] = []

    def load() -> None:
        with llm._without_extra_buffers(True):
            inside.append(1)
            seen.append(len(inside))
            inside.pop()

    threads = [threading.Thread(target=load) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [1] * 8
    assert lib.llama_model_default_params().use_extra_bufts
