"""Speed of the default model through the app, beside llama.cpp's own speed, in the same run.

For a real answer prompt (the app's prompt over six passages of a covid-qa article):
- app: LlamaCppLlm.stream, as the answer service drives it (time to first token, tokens/s);
- raw: the same model and context driven by llama.cpp's C API through llama_cpp's ctypes
  bindings (llama_decode on the prompt in n_batch pieces, then greedy argmax and one
  llama_decode per token), for the same prompt tokens and the same number of new tokens;
- the ratios app/raw (time to first token; tokens per second);
- prefix caching: a second question after the first (its fixed prefix still in the KV cache)
  against the same second question from an empty cache.
Runs alternate app and raw, `--repeats` times; medians are reported, since the machine is
shared and timings are noisy.

Usage: python -m bench.llm_speed [--threads N] [--tokens 64] [--repeats 3] [--model FILE]
Prints one JSON document.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus"
FALLBACK = (
    "The virus binds its receptor on the cell surface, and the envelope protein mediates the "
    "fusion of the viral and cellular membranes. Neutralising antibodies block this step. "
)


def passages(n: int) -> list[str]:
    """n passages of about 180 words from a real article, or a stand-in without the corpus."""
    pdf = CORPUS / "covid-qa" / "pdf" / "630.pdf"
    words: list[str] = []
    if pdf.is_file():
        from pypdf import PdfReader

        for page in PdfReader(str(pdf)).pages:
            words.extend((page.extract_text() or "").split())
    if len(words) < n * 180:
        words = (FALLBACK * (n * 12)).split()
    return [" ".join(words[i * 180 : (i + 1) * 180]) for i in range(n)]


def build(question: str, texts: list[str], llm: Any) -> Any:
    from desktop_rag.query.prompt import build_prompt
    from desktop_rag.types import Hit

    hits = [
        Hit(f"c{i}", "d", "/docs/630.pdf", i + 1, 0, len(t), t, 1.0 / (i + 1), 0.5)
        for i, t in enumerate(texts)
    ]
    return build_prompt(
        question, hits, llm, context_size=llm.context_size, answer_tokens=256
    ).prompt


def clear_cache(model: Any) -> None:
    """Empty the KV cache and tell llama-cpp-python so (its prefix matching starts over)."""
    import llama_cpp

    llama_cpp.llama_memory_clear(llama_cpp.llama_get_memory(model.ctx), True)
    model.reset()


def app_run(llm: Any, prompt: Any, tokens: int, cold: bool) -> dict[str, float]:
    if cold:
        clear_cache(llm.llama)
    t0 = time.perf_counter()
    first = last = 0.0
    for _ in llm.stream(prompt, tokens):
        last = time.perf_counter()
        if not first:
            first = last
    n = llm.last_generation.generated_tokens
    return {
        "ttft_s": first - t0,
        "tokens": n,
        "tokens_per_s": (n - 1) / (last - first) if n > 1 and last > first else 0.0,
        "cached_tokens": llm.last_generation.cached_tokens,
    }


def raw_run(llm: Any, prompt_tokens: list[int], tokens: int) -> dict[str, float]:
    """llama.cpp alone: no sampling chain, no detokenizing, no Python generator."""
    import llama_cpp
    import numpy as np

    model = llm.llama
    clear_cache(model)
    ctx = model.ctx
    n_vocab = model.n_vocab()
    n_batch = model.n_batch

    def decode(ids: list[int]) -> None:
        arr = (llama_cpp.llama_token * len(ids))(*ids)
        if llama_cpp.llama_decode(ctx, llama_cpp.llama_batch_get_one(arr, len(ids))) != 0:
            raise RuntimeError("llama_decode failed")

    def argmax() -> int:
        logits = llama_cpp.llama_get_logits_ith(ctx, -1)
        return int(np.ctypeslib.as_array(logits, shape=(n_vocab,)).argmax())

    t0 = time.perf_counter()
    for i in range(0, len(prompt_tokens), n_batch):
        decode(prompt_tokens[i : i + n_batch])
    token = argmax()
    first = time.perf_counter()
    for _ in range(tokens - 1):
        decode([token])
        token = argmax()
    end = time.perf_counter()
    clear_cache(model)
    return {
        "ttft_s": first - t0,
        "tokens": tokens,
        "tokens_per_s": (tokens - 1) / (end - first) if tokens > 1 else 0.0,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="", help="a GGUF file (default: the bundled model)")
    parser.add_argument("--threads", type=int, default=0, help="default: physical cores")
    parser.add_argument("--tokens", type=int, default=64, help="new tokens per run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-ctx", type=int, default=4096)
    args = parser.parse_args()

    from desktop_rag.config import default_threads
    from desktop_rag.engines.llm import LlamaCppLlm

    threads = args.threads or default_threads()
    llm = LlamaCppLlm(args.model or None, threads=threads, n_ctx=args.n_ctx)
    t0 = time.perf_counter()
    llm.load()
    load_s = time.perf_counter() - t0

    texts = passages(12)
    first_q = build("What is the main cause of HIV-1 infection in children?", texts[:6], llm)
    second_q = build("Which gene variants were studied?", texts[6:12], llm)
    # No stop strings: both paths must produce the same number of tokens.
    from desktop_rag.engines.llm import Prompt

    open_prompt = Prompt(text=first_q.text)
    prompt_tokens = list(llm.llama.tokenize(open_prompt.text.encode(), add_bos=True))

    app_runs: list[dict[str, float]] = []
    raw_runs: list[dict[str, float]] = []
    warm: list[dict[str, float]] = []
    cold_second: list[dict[str, float]] = []
    for i in range(args.repeats):
        print(f"repeat {i + 1}/{args.repeats}", file=sys.stderr)
        app = app_run(llm, open_prompt, args.tokens, cold=True)
        app_runs.append(app)
        raw_runs.append(raw_run(llm, prompt_tokens, max(2, int(app["tokens"]))))
        # Prefix caching: question two right after question one, then from an empty cache.
        app_run(llm, first_q, 16, cold=True)
        warm.append(app_run(llm, second_q, 16, cold=False))
        cold_second.append(app_run(llm, second_q, 16, cold=True))

    def med(runs: list[dict[str, float]], key: str) -> float:
        return round(statistics.median(r[key] for r in runs), 4)

    app_ttft, raw_ttft = med(app_runs, "ttft_s"), med(raw_runs, "ttft_s")
    app_tps, raw_tps = med(app_runs, "tokens_per_s"), med(raw_runs, "tokens_per_s")
    ratios_ttft = [a["ttft_s"] / r["ttft_s"] for a, r in zip(app_runs, raw_runs, strict=True)]
    ratios_tps = [
        a["tokens_per_s"] / r["tokens_per_s"] for a, r in zip(app_runs, raw_runs, strict=True)
    ]
    out = {
        "model": llm.name,
        "threads": threads,
        "n_ctx": llm.context_size,
        "load_s": round(load_s, 3),
        "prompt_tokens": len(prompt_tokens),
        "new_tokens": med(app_runs, "tokens"),
        "repeats": args.repeats,
        "app": {"ttft_s": app_ttft, "tokens_per_s": app_tps},
        "raw_llama_cpp": {"ttft_s": raw_ttft, "tokens_per_s": raw_tps},
        "ratio_app_over_raw": {
            "ttft": round(statistics.median(ratios_ttft), 3),
            "tokens_per_s": round(statistics.median(ratios_tps), 3),
        },
        "prefix_cache": {
            "second_question_prompt_tokens": len(
                llm.llama.tokenize(second_q.text.encode(), add_bos=True)
            ),
            "cached_tokens_warm": med(warm, "cached_tokens"),
            "ttft_cold_s": med(cold_second, "ttft_s"),
            "ttft_warm_s": med(warm, "ttft_s"),
            "warm_over_cold": round(
                statistics.median(
                    w["ttft_s"] / c["ttft_s"] for w, c in zip(warm, cold_second, strict=True)
                ),
                3,
            ),
        },
    }
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
