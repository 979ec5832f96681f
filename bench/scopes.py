"""A scope of one small file among 5,000: does it still get its best passages, and how fast?

The library is the 98 real covid-qa articles (their real chunks and vectors, as in
bench/retrieval_latency.py) plus synthetic documents up to --files documents in all (each of
--per-doc perturbed real chunks with perturbed real vectors), optimised as after an index run
(past ANN_MIN_ROWS chunks the vector search has its approximate index). For covid-qa
questions, the Retriever's hybrid search (k=5) is run:
- unscoped (today's search, the whole library);
- scoped to the question's own article (`Scope(files=...)`, filtered inside both searches;
  the vector search through the approximate index with the filter as its mask);
- the scope applied after the search instead (the unscoped search's 40 candidates, those of
  the article kept): what dropping hits afterwards would give;
- scoped to the covid-qa folder (98 of the documents).
Recall@5 counts a question when its answer page is among the five passages; "in scope" checks
that every passage is from the scope. Latency is of the whole hybrid search, the question's
embedding included (each side has a Retriever of its own, so none reuses another's vector),
on a machine shared with other work (its load average is reported). Apart, the vector search
alone for the article's scope: approximate (as searched) against exact over the scope, with
the overlap of their 10 nearest.

Usage: python -m bench.scopes [--files 5000] [--per-doc 10] [--queries 150] [--keep DIR]
Prints one JSON document (also kept in bench/out/scopes.json).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench import retrieval_latency
from bench.perfutil import CORPUS, emit, machine, say
from desktop_rag.app import default_embedder
from desktop_rag.config import Settings
from desktop_rag.engines.embed import BUNDLED_EMBEDDER_DIM, BUNDLED_EMBEDDER_ID
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.query.retrieve import Retriever
from desktop_rag.query.scope import Scope
from desktop_rag.store import maintenance
from desktop_rag.store.lance import LanceStore
from desktop_rag.store.schema import SCHEMA_VERSION, IndexMeta
from desktop_rag.types import Hit

K = 5


def _pct(values: list[float], q: float) -> float:
    return round(float(np.percentile(values, q)), 1) if values else 0.0


class Side:
    """One way of searching: its recall@5, how many of its passages were in scope, latency."""

    def __init__(self) -> None:
        self.found: list[bool] = []
        self.in_scope: list[float] = []
        self.empty = 0
        self.ms: list[float] = []

    def add(self, hits: list[Hit], gold: tuple[str, int], scope: Scope | None, ms: float) -> None:
        self.found.append(any((os.path.basename(h.path), h.page) == gold for h in hits))
        if scope is not None:
            inside = [scope.contains(h.path) for h in hits]
            self.in_scope.append(sum(inside) / len(inside) if inside else 0.0)
        self.empty += not hits
        self.ms.append(ms)

    def result(self) -> dict[str, Any]:
        n = max(len(self.found), 1)
        out: dict[str, Any] = {
            "recall@5": round(sum(self.found) / n, 4),
            "no_passage": self.empty,
            "latency_ms": {"p50": _pct(self.ms, 50), "p90": _pct(self.ms, 90)},
        }
        if self.in_scope:
            out["share_in_scope"] = round(float(np.mean(self.in_scope)), 4)
        return out


def _timed(fn: Any) -> tuple[list[Hit], float]:
    t0 = time.perf_counter()
    hits = fn()
    return hits, (time.perf_counter() - t0) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--per-doc", type=int, default=10)
    parser.add_argument("--queries", type=int, default=150)
    parser.add_argument("--keep", default="", help="build (or reuse) the library in this folder")
    args = parser.parse_args()

    embedder = default_embedder(Settings())
    backend = embedder.prepare() if hasattr(embedder, "prepare") else "torch"
    docs, chunks, vectors = retrieval_latency._base(embedder)
    folder = str(CORPUS / "covid-qa" / "pdf")
    by_name = {os.path.basename(d.path): d.path for d in docs}
    rows = [
        json.loads(line)
        for line in (CORPUS / "covid-qa" / "questions.jsonl").open(encoding="utf-8")
    ]
    rows = [r for r in rows if r.get("answer_page") and os.path.basename(r["pdf"]) in by_name]
    rng = np.random.default_rng(5)
    picked = [rows[i] for i in rng.choice(len(rows), args.queries + 10, replace=False)]
    warm, questions = picked[:10], picked[10:]

    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-scopes-"))
    meta = IndexMeta(
        SCHEMA_VERSION, BUNDLED_EMBEDDER_ID, BUNDLED_EMBEDDER_DIM, ChunkParams().to_json()
    )
    store = LanceStore(root / "index", meta).open()
    try:
        if store.count_chunks() == 0:
            store.commit(docs, chunks, vectors, replace_doc_ids=[d.doc_id for d in docs])
            # Synthetic documents of per_doc chunks each, up to `files` documents in all.
            retrieval_latency.PER_DOC = args.per_doc
            synth = retrieval_latency.Synth(chunks, vectors)
            want = (args.files - len(docs)) * args.per_doc
            while synth.made < want:
                d, c, v = synth.batch(min(retrieval_latency.BATCH, want - synth.made))
                store.commit(d, c, v)
                say(f"{synth.made} synthetic chunks")
            t0 = time.perf_counter()
            maintenance.optimize(store)
            say(f"optimised in {time.perf_counter() - t0:.1f} s")
        stats = store.stats()
        names = ("unscoped", "file", "file_after", "folder")
        retrievers = {n: Retriever(store, embedder) for n in names}
        for r in warm:
            own = Scope(files=(by_name[os.path.basename(r["pdf"])],))
            for n in names:
                retrievers[n].search(r["question"], K, scope=own if n == "file" else None)

        sides = {n: Side() for n in names}
        covid = Scope(folders=(folder,))
        ann_ms: list[float] = []
        exact_ms: list[float] = []
        overlap: list[float] = []
        for i, r in enumerate(questions):
            q = r["question"]
            gold = (os.path.basename(r["pdf"]), int(r["answer_page"]))
            own = Scope(files=(by_name[gold[0]],))
            hits, ms = _timed(lambda q=q: retrievers["unscoped"].search(q, K))
            sides["unscoped"].add(hits, gold, None, ms)
            hits, ms = _timed(lambda q=q, own=own: retrievers["file"].search(q, K, scope=own))
            sides["file"].add(hits, gold, own, ms)
            hits, ms = _timed(lambda q=q, r=retrievers["file_after"]: r.search(q, r.candidates))
            after = [h for h in hits if own.contains(h.path)][:K]
            sides["file_after"].add(after, gold, own, ms)
            hits, ms = _timed(lambda q=q: retrievers["folder"].search(q, K, scope=covid))
            sides["folder"].add(hits, gold, covid, ms)
            vector, where = embedder.embed_query(q), own.where()
            ann, ms = _timed(lambda v=vector, w=where: store.vector_search(v, 10, where=w))
            ann_ms.append(ms)
            exact, ms = _timed(
                lambda v=vector, w=where: store.vector_search(v, 10, exact=True, where=w)
            )
            exact_ms.append(ms)
            want = {h.chunk_id for h in exact}
            overlap.append(len(want & {h.chunk_id for h in ann}) / len(want) if want else 1.0)
            if (i + 1) % 25 == 0:
                say(f"{i + 1}/{len(questions)} questions")
        result = {
            "bench": "scopes",
            "machine": machine(),
            "embed_backend": backend,
            "documents": stats["documents"],
            "chunks": stats["chunks"],
            "vector_index": maintenance.vector_index_type(store) or "none (exact search)",
            "questions": len(questions),
            "k": K,
            "sides": {n: s.result() for n, s in sides.items()},
            "file_vector_search": {
                "approximate_ms_p50": _pct(ann_ms, 50),
                "exact_ms_p50": _pct(exact_ms, 50),
                "top10_overlap_with_exact": round(float(np.mean(overlap)), 4),
            },
            "loadavg_end": [round(x, 2) for x in os.getloadavg()],
        }
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    emit("scopes", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
