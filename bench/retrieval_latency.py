"""Retrieval latency (question embedding + hybrid search) on large synthetic libraries.

The library starts with the real covid-qa chunks and their real vectors; it grows to each size
with synthetic chunks written through LanceStore in large batches: text is a real chunk with
a third of its words swapped for words drawn from the corpus vocabulary (so BM25 sees a
realistic, Zipfian vocabulary), the vector is that chunk's vector plus noise, renormalised.
At each size the store is optimised exactly as after an index run (which builds the ANN index
past its threshold), then real covid-qa questions are asked through the Retriever, timing each
part; where an ANN index exists its recall@10 is checked against exact search.

Usage: python -m bench.retrieval_latency [--sizes 20000,50000,500000] [--queries 200] [--keep DIR]
Prints one JSON document (also kept in bench/out/retrieval_latency.json).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.memory import TreeMemory
from bench.perfutil import CORPUS, OUT, chunked_library, emit, machine, say
from desktop_rag.app import default_embedder
from desktop_rag.config import Settings
from desktop_rag.engines.embed import BUNDLED_EMBEDDER_DIM, BUNDLED_EMBEDDER_ID, Embedder
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.query.retrieve import Mode, Retriever
from desktop_rag.store import lance, maintenance
from desktop_rag.store.lance import LanceStore
from desktop_rag.store.schema import SCHEMA_VERSION, IndexMeta
from desktop_rag.types import Chunk, DocumentRecord, Status

BATCH = 25_000  # chunks per commit while growing the library
PER_DOC = 50  # synthetic chunks per synthetic document
TARGETS_MS = {50_000: 50.0, 500_000: 150.0}  # p50 of the whole hybrid search


def _base(embedder: Embedder) -> tuple[list[DocumentRecord], list[Chunk], np.ndarray]:
    """The real covid-qa library (chunks and vectors), cached in bench/out between runs."""
    cache = OUT / "latency_base.npz"
    docs, chunks, _pages = chunked_library(CORPUS / "covid-qa" / "pdf")
    if cache.is_file():
        vectors = np.load(cache)["vectors"]
        if len(vectors) == len(chunks):
            return docs, chunks, vectors
    say(f"embedding {len(chunks)} real chunks once (kept in {cache})")
    vectors = embedder.embed([c.text for c in chunks])
    OUT.mkdir(parents=True, exist_ok=True)
    np.savez(cache, vectors=vectors)
    return docs, chunks, vectors


class Synth:
    """Real-ish chunks: perturbed real text and perturbed real vectors."""

    def __init__(self, chunks: list[Chunk], vectors: np.ndarray, seed: int = 7) -> None:
        self.rng = np.random.default_rng(seed)
        self.words = [c.text.split() for c in chunks]
        vocab, counts = np.unique(
            np.concatenate([np.array(w) for w in self.words]), return_counts=True
        )
        self.vocab = vocab
        self.p = counts / counts.sum()
        self.vectors = vectors
        self.made = 0

    def batch(self, n: int) -> tuple[list[DocumentRecord], list[Chunk], np.ndarray]:
        rng = self.rng
        base = rng.integers(0, len(self.words), size=n)
        noise = rng.normal(0.0, 0.03, size=(n, self.vectors.shape[1])).astype(np.float32)
        vecs = self.vectors[base] + noise
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        swaps = rng.choice(self.vocab, size=n * 80, p=self.p)
        docs: list[DocumentRecord] = []
        chunks: list[Chunk] = []
        used = 0
        for i, b in enumerate(base):
            words = list(self.words[b])
            k = len(words) // 3
            pos = rng.integers(0, max(1, len(words)), size=k)
            for j, p in enumerate(pos):
                words[p] = swaps[(used + j) % len(swaps)]
            used += k
            text = " ".join(words)
            n_doc = (self.made + i) // PER_DOC
            doc_id = f"synthetic-{n_doc:07d}"
            path = f"/synthetic/library/{doc_id}.pdf"
            chunks.append(
                Chunk(f"{doc_id}:{(self.made + i) % PER_DOC:06d}", doc_id, path, 1 + i % 9, 0,
                      len(text), text)
            )  # fmt: skip
            if (self.made + i) % PER_DOC == 0 or i == 0:
                docs.append(
                    DocumentRecord(doc_id, path, 1, 1, "", 9, PER_DOC, Status.INDEXED, "", "", 0.0)
                )
        self.made += n
        return docs, chunks, vecs


def _pct(values: list[float], q: float) -> float:
    return round(float(np.percentile(values, q)), 2)


def _measure(
    store: LanceStore, embedder: Embedder, questions: list[str], warm: list[str]
) -> dict[str, Any]:
    retriever = Retriever(store, embedder)
    for q in warm:  # warm caches: the first searches open and page in index files
        retriever.search(q, k=5)
    totals, cpus, embeds, vecs, texts = [], [], [], [], []
    for q in questions:
        c0 = time.process_time()
        t0 = time.perf_counter()
        retriever.search(q, k=5, mode=Mode.HYBRID)
        totals.append((time.perf_counter() - t0) * 1000)
        # CPU time of every thread of this process: what the search costs whatever else runs
        # on the machine; on idle cores the latency is at most about this.
        cpus.append((time.process_time() - c0) * 1000)
        t0 = time.perf_counter()
        v = embedder.embed_query(q)
        t1 = time.perf_counter()
        store.vector_search(v, retriever.candidates)
        t2 = time.perf_counter()
        store.text_search(q, retriever.candidates)
        t3 = time.perf_counter()
        embeds.append((t1 - t0) * 1000)
        vecs.append((t2 - t1) * 1000)
        texts.append((t3 - t2) * 1000)
    return {
        "hybrid_ms": {"p50": _pct(totals, 50), "p90": _pct(totals, 90), "p99": _pct(totals, 99)},
        "hybrid_cpu_ms_p50": _pct(cpus, 50),
        "embed_query_ms_p50": _pct(embeds, 50),
        "vector_search_ms_p50": _pct(vecs, 50),
        "text_search_ms_p50": _pct(texts, 50),
        "sum_of_parts_ms_p50": round(
            statistics.median(embeds) + statistics.median(vecs) + statistics.median(texts), 2
        ),
    }


def _ann_check(store: LanceStore, embedder: Embedder, questions: list[str]) -> dict[str, Any]:
    """ANN against exact search: recall@10 and latency, at the store's settings and a few
    others (the sweep that chose them); exact search's own latency for comparison."""
    vectors = [embedder.embed_query(q) for q in questions]
    exact, exact_ms = [], []
    for v in vectors:
        t0 = time.perf_counter()
        exact.append({h.chunk_id for h in store.vector_search(v, 10, exact=True)})
        exact_ms.append((time.perf_counter() - t0) * 1000)
    chosen = (lance.ANN_EF, lance.ANN_REFINE)
    sweep = {}
    try:
        for ef, refine in [chosen, (60, 1), (120, 1), (200, 3), (120, 10)]:
            lance.ANN_EF, lance.ANN_REFINE = ef, refine
            recalls, ms = [], []
            for v, want in zip(vectors, exact, strict=True):
                t0 = time.perf_counter()
                hits = store.vector_search(v, 40)  # k as hybrid search asks
                ms.append((time.perf_counter() - t0) * 1000)
                recalls.append(len({h.chunk_id for h in hits[:10]} & want) / 10)
            sweep[f"ef={ef},refine={refine}"] = {
                "recall@10_vs_exact": round(float(np.mean(recalls)), 4),
                "vector_search_ms_p50": _pct(ms, 50),
            }
    finally:
        lance.ANN_EF, lance.ANN_REFINE = chosen
    key = f"ef={chosen[0]},refine={chosen[1]}"
    return {
        "recall@10_vs_exact": sweep[key]["recall@10_vs_exact"],
        "exact_vector_search_ms_p50": _pct(exact_ms, 50),
        "ann_settings": key,
        "ann_sweep": sweep,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="20000,50000,500000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--keep", default="", help="build (or reuse) the library in this folder")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))

    embedder = default_embedder(Settings())
    backend = embedder.prepare() if hasattr(embedder, "prepare") else "torch"
    docs, chunks, vectors = _base(embedder)
    questions = [
        json.loads(line)["question"]
        for line in (CORPUS / "covid-qa" / "questions.jsonl").open(encoding="utf-8")
    ]
    rng = np.random.default_rng(3)
    picked = rng.choice(len(questions), args.queries + 20, replace=False)
    questions = [questions[i] for i in picked]  # the last 20 only warm up

    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-latency-"))
    meta = IndexMeta(
        SCHEMA_VERSION, BUNDLED_EMBEDDER_ID, BUNDLED_EMBEDDER_DIM, ChunkParams().to_json()
    )
    store = LanceStore(root / "index", meta).open()
    result: dict[str, Any] = {
        "bench": "retrieval_latency",
        "machine": machine(),
        "embed_backend": backend,
        "ann_min_rows": maintenance.ANN_MIN_ROWS,
        "queries": len(questions),
        "sizes": {},
    }
    synth = Synth(chunks, vectors)
    try:
        have = store.count_chunks()
        if have == 0:
            store.commit(docs, chunks, vectors, replace_doc_ids=[d.doc_id for d in docs])
            have = store.count_chunks()
        synth.made = max(0, have - len(chunks))
        for size in sizes:
            if have > size:
                say(f"the kept library already holds {have} chunks; skipping size {size}")
                continue
            t0 = time.perf_counter()
            while have < size:
                n = min(BATCH, size - have)
                d, c, v = synth.batch(n)
                store.commit(d, c, v)
                have += n
                say(f"{have} chunks")
            grow_s = time.perf_counter() - t0
            with TreeMemory(series_s=None, children_s=0.0) as rss:
                t0 = time.perf_counter()
                maintenance.optimize(store)
                optimize_s = time.perf_counter() - t0
            got = _measure(store, embedder, questions[: args.queries], questions[args.queries :])
            got["rows"] = store.count_chunks()
            got["grow_s"] = round(grow_s, 1)
            got["optimize_s"] = round(optimize_s, 1)
            got["optimize_peak_rss_mb"] = rss.peak_mb
            got["vector_index"] = maintenance.vector_index_type(store) or "none (exact search)"
            if maintenance.vector_index_type(store):
                got.update(_ann_check(store, embedder, questions[:100]))
            else:
                got["exact_vector_search_ms_p50"] = got["vector_search_ms_p50"]
            got["loadavg_1m"] = round(os.getloadavg()[0], 2)
            target = TARGETS_MS.get(size)
            if target is not None:
                got["target_p50_ms"] = target
                got["meets_target"] = got["hybrid_ms"]["p50"] < target
            result["sizes"][str(size)] = got
            say(json.dumps(got))
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    emit("retrieval_latency", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
