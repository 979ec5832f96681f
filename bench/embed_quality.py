"""Does the fast embedder keep retrieval quality? Page-level recall on covid-qa per backend.

Extracts and chunks the 98 covid-qa articles once, embeds the chunks with PyTorch fp32 (the
reference), ONNX fp32 and ONNX int8, builds one index per backend and asks all 1,380 questions
(vector-only and hybrid). A hit counts when a top-k passage is on the gold page of the gold
article. Also asks each index with the other backend's question vectors, to decide whether
int8 and fp32 vectors may share an index, and to check the default: int8 passages, fp32
questions. Embedding speed is measured in the same run on the
same chunks, alternating backends, and reported as ratios.

Usage: python -m bench.embed_quality [--questions N] [--speed-sample N]
Prints one JSON document (also kept in bench/out/embed_quality.json).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.perfutil import CORPUS, chunked_library, emit, machine, say
from desktop_rag.config import cache_dir
from desktop_rag.engines import int8_check
from desktop_rag.engines.embed import (
    BUNDLED_EMBEDDER_ID,
    Embedder,
    SentenceTransformerEmbedder,
    bundled_model_dir,
)
from desktop_rag.engines.onnx_embed import OnnxEmbedder
from desktop_rag.engines.onnx_export import ExportCache, export_in_child
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.query.retrieve import Mode, Retriever
from desktop_rag.store import maintenance
from desktop_rag.store.lance import LanceStore
from desktop_rag.store.schema import SCHEMA_VERSION, IndexMeta

GATE = 0.99  # the fast backend must keep at least 99% of the fp32 recall@5


class _Memo:
    """Query vectors computed once per question, so both modes see the same ones."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self._memo: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> np.ndarray:
        if text not in self._memo:
            self._memo[text] = self.inner.embed_query(text)
        return self._memo[text]


def _recall(
    store: LanceStore, embedder: Embedder, questions: list[dict[str, Any]], folder: Path
) -> dict[str, Any]:
    retriever = Retriever(store, embedder)
    out: dict[str, Any] = {}
    for mode in (Mode.VECTOR, Mode.HYBRID):
        at1 = at5 = 0
        rr = 0.0
        for q in questions:
            gold = (str(folder / Path(q["pdf"]).name), int(q["answer_page"]))
            hits = retriever.search(q["question"], k=5, mode=mode)
            ranks = [i for i, h in enumerate(hits, 1) if (h.path, h.page) == gold]
            if ranks:
                at5 += 1
                at1 += ranks[0] == 1
                rr += 1.0 / ranks[0]
        n = len(questions)
        out[mode.value] = {
            "recall@1": round(at1 / n, 4),
            "recall@5": round(at5 / n, 4),
            "mrr@5": round(rr / n, 4),
        }
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", default=str(CORPUS))
    parser.add_argument("--questions", type=int, default=0, help="first N questions (0: all)")
    parser.add_argument("--speed-sample", type=int, default=600, help="chunks timed per backend")
    parser.add_argument("--threads", type=int, default=0, help="0: one per physical core")
    args = parser.parse_args()
    from desktop_rag.config import default_threads

    threads = args.threads or default_threads()
    folder = Path(args.corpus) / "covid-qa" / "pdf"
    questions = [
        q
        for q in map(json.loads, (folder.parent / "questions.jsonl").open(encoding="utf-8"))
        if q.get("answer_page")
    ]
    if args.questions:
        questions = questions[: args.questions]
    say(f"extracting and chunking {folder}")
    docs, chunks, pages = chunked_library(folder)
    say(f"{len(docs)} documents, {pages} pages, {len(chunks)} chunks; {len(questions)} questions")

    model_dir = bundled_model_dir()
    cache = ExportCache(cache_dir() / "embedders")
    embedders: dict[str, Embedder] = {
        "torch-fp32": SentenceTransformerEmbedder(threads=threads, batch_size=32)
    }
    for variant in ("fp32", "int8"):
        t0 = time.perf_counter()
        path = cache.ensure(model_dir, variant, export_in_child, say)
        say(f"onnx-{variant} ready in {time.perf_counter() - t0:.1f}s: {path}")
        embedders[f"onnx-{variant}"] = OnnxEmbedder(
            path, model_dir / "tokenizer.json", threads=threads, batch_size=32
        )
    for emb in embedders.values():
        emb.embed(["warm up"])

    # Speed: the same sample for every backend, two alternating rounds, best round kept.
    rng = np.random.default_rng(0)
    sample_idx = rng.choice(len(chunks), size=min(args.speed_sample, len(chunks)), replace=False)
    sample = [chunks[i].text for i in sample_idx]
    best: dict[str, float] = {}
    for round_ in range(2):
        for name, emb in embedders.items():
            t0 = time.perf_counter()
            emb.embed(sample)
            dt = time.perf_counter() - t0
            best[name] = min(best.get(name, dt), dt)
            say(f"speed round {round_}: {name} {len(sample) / dt:.1f} chunks/s")

    texts = [c.text for c in chunks]
    vectors: dict[str, np.ndarray] = {}
    for name, emb in embedders.items():
        t0 = time.perf_counter()
        vectors[name] = emb.embed(texts)
        say(f"embedded {len(texts)} chunks with {name} in {time.perf_counter() - t0:.1f}s")
    ref = vectors["torch-fp32"]
    cosine = {
        name: {
            "mean": round(float(np.mean(np.sum(v * ref, axis=1))), 5),
            "min": round(float(np.min(np.sum(v * ref, axis=1))), 5),
        }
        for name, v in vectors.items()
        if name != "torch-fp32"
    }

    # The app's int8 rule on this CPU (engines/int8_check.py): int8 against the fp32 export on
    # the shipped probe texts decides; the same comparison on every covid-qa chunk shows how
    # representative the probe is.
    probe = int8_check.measure(embedders["onnx-int8"], embedders["onnx-fp32"])
    on_chunks = np.sum(vectors["onnx-int8"] * vectors["onnx-fp32"], axis=1)
    int8_rule = {
        "cpu": int8_check.cpu_signature(),
        "probe": {"mean": round(probe.mean, 5), "min": round(probe.worst, 5), "texts": probe.texts},
        "covid_qa_chunks": {
            "mean": round(float(on_chunks.mean()), 5),
            "min": round(float(on_chunks.min()), 5),
            "texts": len(on_chunks),
        },
        "thresholds": {"mean": int8_check.MIN_MEAN_COSINE, "min": int8_check.MIN_ANY_COSINE},
        "passages_embedded_with": "onnx-int8" if probe.ok else "onnx-fp32",
    }
    say(f"int8 rule on this CPU: {json.dumps(int8_rule)}")

    result: dict[str, Any] = {
        "bench": "embed_quality",
        "machine": machine(),
        "corpus": "covid-qa",
        "documents": len(docs),
        "pages": pages,
        "chunks": len(chunks),
        "questions": len(questions),
        "threads": threads,
        "speed_chunks_per_s": {k: round(len(sample) / v, 1) for k, v in best.items()},
        "speed_ratio_vs_torch_fp32": {k: round(best["torch-fp32"] / v, 2) for k, v in best.items()},
        "cosine_vs_torch_fp32": cosine,
        "int8_rule": int8_rule,
        "retrieval": {},
        "mixed": {},
    }
    with tempfile.TemporaryDirectory(prefix="embed-quality-") as tmp:
        stores: dict[str, LanceStore] = {}
        meta = IndexMeta(SCHEMA_VERSION, BUNDLED_EMBEDDER_ID, 384, ChunkParams().to_json())
        for name, vecs in vectors.items():
            store = LanceStore(Path(tmp) / name, meta).open()
            store.commit(docs, chunks, vecs, replace_doc_ids=[d.doc_id for d in docs])
            maintenance.optimize(store)
            stores[name] = store
        memo = {name: _Memo(emb) for name, emb in embedders.items()}
        for name in embedders:
            say(f"asking {len(questions)} questions, {name}")
            result["retrieval"][name] = _recall(stores[name], memo[name], questions, folder)
            say(json.dumps(result["retrieval"][name]))
        # Mixed: an index of one backend's vectors asked with the other's question vectors.
        # The default is int8 passages with fp32 questions (AutoEmbedder).
        pairs = (
            ("onnx-int8", "onnx-fp32"),
            ("torch-fp32", "onnx-int8"),
            ("onnx-int8", "torch-fp32"),
        )
        for index_name, query_name in pairs:
            key = f"index {index_name}, queries {query_name}"
            say(f"asking: {key}")
            result["mixed"][key] = _recall(stores[index_name], memo[query_name], questions, folder)

    ref5 = result["retrieval"]["torch-fp32"]
    gate: dict[str, Any] = {}
    for name in ("onnx-fp32", "onnx-int8"):
        got = result["retrieval"][name]
        ratios = {m: round(got[m]["recall@5"] / ref5[m]["recall@5"], 4) for m in got}
        gate[name] = {"recall@5_ratio": ratios, "passes": all(r >= GATE for r in ratios.values())}
    for key, got in result["mixed"].items():
        ratios = {m: round(got[m]["recall@5"] / ref5[m]["recall@5"], 4) for m in got}
        gate[key] = {"recall@5_ratio": ratios, "passes": all(r >= GATE for r in ratios.values())}
    result["gate"] = {"threshold": GATE, **gate}
    result["default_passes"] = gate["index onnx-int8, queries onnx-fp32"]["passes"]
    emit("embed_quality", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
