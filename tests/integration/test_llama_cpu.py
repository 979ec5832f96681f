"""The llama.cpp that `make venv` builds runs the bundled model on this CPU, whichever it is, with
llama-cpp-python's defaults; and it carries no CPU code a supported laptop cannot run."""

from __future__ import annotations

import subprocess
import sys

import pytest

from desktop_rag.engines import llm

pytestmark = pytest.mark.slow

# In a child process: a crash in llama.cpp (Error 139 on an Intel Xeon with AMX, where GCC 12
# miscompiled ggml's AMX kernels: packaging/llama.py) must fail this test, not end the run.
_EVAL = """
from llama_cpp import Llama
from desktop_rag.engines.llm import LlamaCppLlm, load_backends
load_backends()
model = Llama(model_path=str(LlamaCppLlm().path), n_ctx=64, verbose=False)
tokens = model.tokenize(
    b"Question: What is the capital of France? Answer: Paris is the capital and largest city",
    add_bos=True,
)
assert len(tokens) >= 16, len(tokens)
model.eval(tokens)
out = model("The capital of France is", max_tokens=4)
print(len(tokens), out["usage"]["completion_tokens"])
"""


def test_a_multi_token_prompt_evaluates_with_llama_cpp_pythons_defaults() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _EVAL], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-2000:]}"
    prompt, generated = (int(x) for x in done.stdout.split())
    assert prompt >= 16 and generated >= 1


def test_the_cpu_code_shipped_is_avx2_and_up_without_amx() -> None:
    """One library per CPU generation from Haswell up, chosen at run time; no build for the
    machine it was made on (a plain libggml-cpu) and no AMX variant."""
    names = sorted(p.name for p in llm.llama_lib_dir().iterdir() if "ggml-cpu" in p.name)
    variants = {n.split("ggml-cpu-", 1)[1].split(".", 1)[0] for n in names if "-cpu-" in n}
    assert "haswell" in variants and "zen4" in variants
    assert not any(n.startswith("libggml-cpu.") for n in names), names
    assert "sapphirerapids" not in variants
    assert not variants & {"x64", "sse42", "sandybridge", "ivybridge", "piledriver"}
