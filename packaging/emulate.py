"""The bundle's native code run as older laptops would run it: qemu-user emulating their CPUs.

Usage: python packaging/emulate.py [dist/desktop-rag] [--cpus Haswell,Skylake-Client]
       [--json-out FILE]

The bundle's own executable cannot be used for this: its work escapes the emulator (a frozen
app's reader processes and the like start outside it), so a run "succeeds" without running the
code in question on the emulated CPU. Instead, this project's Python runs inside
`qemu-x86_64 -cpu CPU`, with LLAMA_CPP_LIB_PATH pointing at the bundle's llama.cpp libraries:
it loads the CPU code that llama.cpp chooses for that CPU, generates a few tokens with the
bundle's GGUF, embeds a sentence with the bundle's int8 embedder, scores a passage with the
bundle's cross-encoder and embeds a German and an English question with the multilingual
embedder's export (their cosine printed beside this machine's own), all in the emulated
process. A library built for a newer CPU than the emulated one dies there with SIGILL (exit
132), as it would on the laptop. Emulation is slow: the times are printed, never checked.
qemu-x86_64 comes from Debian's qemu-user package.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CPUS = ("Haswell", "Skylake-Client")

# Run inside the emulator: what a first answer and a first index need of the native code.
_CODE = r"""
import json, sys, time
lib, gguf, embedder, reranker, multilingual = sys.argv[1:6]
t0 = time.perf_counter()
from desktop_rag.engines.llm import LlamaCppLlm, Prompt, load_backends
load_backends()
variant = ""
with open("/proc/self/maps") as maps:
    for line in maps:
        if "ggml-cpu-" in line:
            variant = line.split()[-1].rsplit("ggml-cpu-", 1)[1].split(".")[0]
llm = LlamaCppLlm(gguf, threads=1, n_ctx=256)
text = "".join(llm.stream(Prompt(text="Question: What is the capital of France?\nAnswer:"), 4))
t1 = time.perf_counter()
import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer
from pathlib import Path
folder = Path(embedder)
tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
tok.no_padding()
enc = tok.encode("Octopus blood is blue because of hemocyanin.")
session = ort.InferenceSession(str(folder / "model.onnx"), providers=["CPUExecutionProvider"])
feed = {
    "input_ids": np.array([enc.ids], dtype=np.int64),
    "attention_mask": np.array([enc.attention_mask], dtype=np.int64),
    "token_type_ids": np.zeros((1, len(enc.ids)), dtype=np.int64),
}
names = {i.name for i in session.get_inputs()}
vector = session.run(None, {k: v for k, v in feed.items() if k in names})[0][0]
t2 = time.perf_counter()
from desktop_rag.engines.rerank import OnnxReranker
p = OnnxReranker(Path(reranker), threads=1).score(
    "Why is octopus blood blue?", ["Octopus blood is blue because of hemocyanin."]
)[0]
t3 = time.perf_counter()
same = None
if multilingual:
    from desktop_rag.engines.multilingual import OnnxE5
    e5 = OnnxE5(Path(multilingual), threads=1).embed(
        ["Wie installiere ich ein Paket?", "How do I install a package?"]
    )
    same = round(float(e5[0] @ e5[1]), 4)
t4 = time.perf_counter()
print(json.dumps({
    "variant": variant,
    "generated": text,
    "embedding_norm": round(float(np.linalg.norm(vector)), 4),
    "answers": round(p, 4),
    "llm_s": round(t1 - t0, 1),
    "embed_s": round(t2 - t1, 1),
    "rerank_s": round(t3 - t2, 1),
    "multilingual_cos_de_en": same,
    "multilingual_s": round(t4 - t3, 1),
}))
"""


def find(bundle: Path, pattern: str) -> Path:
    found = sorted(bundle.rglob(pattern))
    if not found:
        raise SystemExit(f"{bundle} has no {pattern}: build it with `make package` first")
    return found[0]


def parts(bundle: Path) -> dict[str, Path]:
    """Where the bundle keeps llama.cpp's libraries, the GGUF, the int8 embedder and the
    cross-encoder."""
    embedder = next(
        (p.parent for p in sorted(bundle.rglob("model.onnx")) if "int8" in str(p.parent)), None
    )
    if embedder is None:
        raise SystemExit(f"{bundle} has no int8 embedder export")
    if not (embedder / "tokenizer.json").exists():
        # The export keeps the graph; the tokenizer is the embedder's own, beside the exports.
        tokenizers = [embedder.parent / "tokenizer.json"]
        if not tokenizers[0].exists():
            raise SystemExit(f"{bundle} has no embedder tokenizer.json beside {embedder}")
        staged = Path(tempfile.mkdtemp(prefix="emulate-embedder-"))
        shutil.copy2(embedder / "model.onnx", staged / "model.onnx")
        shutil.copy2(tokenizers[0], staged / "tokenizer.json")
        embedder = staged
    return {
        # llama-cpp-python's own folder (PyInstaller also puts copies of libllama.so.0 at
        # the bundle's top, without the libllama.so that llama-cpp-python loads by name).
        "lib": find(bundle, "llama_cpp/lib/libllama.so").parent,
        "gguf": find(bundle, "*.gguf"),
        "embedder": embedder,
        "reranker": find(bundle, "reranker/model.onnx").parent,
        # The multilingual embedder's export, where the bundle has one (a Linux x86-64 build).
        "multilingual": next(
            (p.parent for p in sorted(bundle.rglob("multilingual/onnx-fp32/model.onnx"))), Path()
        ),
    }


def run(cpu: str, where: dict[str, Path]) -> dict[str, Any]:
    env = dict(
        os.environ,
        LLAMA_CPP_LIB_PATH=str(where["lib"]),
        PYTHONPATH=str(REPO),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
    )
    qemu = shutil.which("qemu-x86_64")
    if qemu is None:
        raise SystemExit("qemu-x86_64 is missing: install Debian's qemu-user")
    args = [str(where[k]) for k in ("lib", "gguf", "embedder", "reranker")]
    args.append(str(where["multilingual"]) if where["multilingual"] != Path() else "")
    t0 = time.perf_counter()
    done = subprocess.run(
        [qemu, "-cpu", cpu, sys.executable, "-c", _CODE, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    seconds = round(time.perf_counter() - t0, 1)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-15:])
        raise SystemExit(f"under -cpu {cpu}: exit {done.returncode} after {seconds} s\n{tail}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["seconds"] = seconds
    if not result["generated"].strip() or result["embedding_norm"] < 0.5:
        raise SystemExit(f"under -cpu {cpu}: nothing came out: {result}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle", nargs="?", type=Path, default=REPO / "dist" / "desktop-rag")
    parser.add_argument("--cpus", default=",".join(CPUS))
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    where = parts(args.bundle)
    results: dict[str, Any] = {}
    if where["multilingual"] != Path():
        from desktop_rag.engines.multilingual import OnnxE5

        e5 = OnnxE5(where["multilingual"], threads=1).embed(
            ["Wie installiere ich ein Paket?", "How do I install a package?"]
        )
        results["native_multilingual_cos_de_en"] = round(float(e5[0] @ e5[1]), 4)
    for cpu in args.cpus.split(","):
        results[cpu] = run(cpu, where)
        print(f"{cpu}: {json.dumps(results[cpu])}", file=sys.stderr, flush=True)
    out = json.dumps(results, indent=1)
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(out)
    print(out)


if __name__ == "__main__":
    main()
