"""Library questions at document level: `documents QUERY` against passage search reduced to
its documents, on docugami's 195 questions (relevance per document, `Source Docs` globs).

The 20 10-Qs are indexed once with this tree's app (kept in bench/data/doc_recall). For each
question:
- passages k=5 / k=10: today's passage search (Retriever.search), its passages reduced to
  their documents in order (what a user sees of "which documents" from an answer's sources);
- documents: query/listing.rank_documents, the documents ranked by their best matching
  passages among the DEPTH best, the first 5.
Per question: hit@5 (a relevant document among the first 5 documents listed), recall@5 (the
share of its relevant documents among them, out of at most 5), the first relevant document's
reciprocal rank, and how many documents were listed.

Usage: python -m bench.doc_recall [--data DIR]
Prints one JSON document (also kept in bench/out/doc_recall.json).
"""

from __future__ import annotations

import argparse
import csv
import fnmatch
import os
import sys
import time
from typing import Any

import numpy as np

from bench.perfutil import CORPUS, REPO, emit, machine, say
from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.query.listing import rank_documents

K = 5


def _relevant(globs: list[str], names: list[str]) -> set[str]:
    return {n for n in names if any(fnmatch.fnmatch(n, g) for g in globs)}


def _score(ranked: list[str], relevant: set[str]) -> dict[str, float]:
    top = ranked[:K]
    found = [n for n in top if n in relevant]
    rr = next((1.0 / i for i, n in enumerate(top, start=1) if n in relevant), 0.0)
    return {
        "hit@5": float(bool(found)),
        "recall@5": len(found) / min(len(relevant), K) if relevant else 0.0,
        "mrr@5": rr,
        "listed": float(len(top)),
    }


def _distinct(paths: list[str]) -> list[str]:
    return list(dict.fromkeys(os.path.basename(p) for p in paths))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", default=str(REPO / "bench" / "data" / "doc_recall"))
    args = parser.parse_args()

    folder = CORPUS / "docugami-10q" / "pdf"
    app = build_app(Settings(data_dir=args.data))
    report = app.ingest.index([str(folder)])
    names = sorted(p.name for p in folder.glob("*.pdf"))
    with open(CORPUS / "docugami-10q" / "qna_data.csv", encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    app.embedder.embed_query("warm up")

    sides: dict[str, list[dict[str, float]]] = {
        "passages_k5": [],
        "passages_k10": [],
        "documents": [],
    }
    ms: dict[str, list[float]] = {k: [] for k in sides}
    for i, r in enumerate(rows):
        q = r["Question"]
        relevant = _relevant([g.strip() for g in r["Source Docs"].split(",") if g.strip()], names)
        for side, run in (
            ("passages_k5", lambda q=q: _distinct([h.path for h in app.retriever.search(q, 5)])),
            ("passages_k10", lambda q=q: _distinct([h.path for h in app.retriever.search(q, 10)])),
            (
                "documents",
                lambda q=q: _distinct([d.path for d in rank_documents(app.retriever, q, K)]),
            ),
        ):
            t0 = time.perf_counter()
            ranked = run()
            ms[side].append((time.perf_counter() - t0) * 1000)
            sides[side].append(_score(ranked, relevant))
        if (i + 1) % 25 == 0:
            say(f"{i + 1}/{len(rows)} questions")

    def summary(side: str) -> dict[str, Any]:
        scores = sides[side]
        out: dict[str, Any] = {
            m: round(float(np.mean([s[m] for s in scores])), 4)
            for m in ("hit@5", "recall@5", "mrr@5", "listed")
        }
        out["latency_ms_p50"] = round(float(np.percentile(ms[side], 50)), 1)
        return out

    multi = [
        i
        for i, r in enumerate(rows)
        if len(_relevant([g.strip() for g in r["Source Docs"].split(",")], names)) > 1
    ]
    result = {
        "bench": "doc_recall",
        "machine": machine(),
        "questions": len(rows),
        "documents_indexed": app.store.stats()["documents"],
        "indexed_now": report.indexed,
        "sides": {s: summary(s) for s in sides},
        "multi_document_questions": len(multi),
        "multi_document_recall@5": {
            s: round(float(np.mean([sides[s][i]["recall@5"] for i in multi])), 4) if multi else 0
            for s in sides
        },
    }
    emit("doc_recall", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
