"""What re-ranking the first sources by their best sentence costs a question, and the quotes after.

On the covid-qa library bench/retrieval.py cached (tag app), each question is searched twice in
turn, with the re-ranking off and on (so both see the same load), then the quotes are picked
from the re-ranked first five as an answer picks them, with the vectors the search made and
without. Prints one JSON document: median and 90th
percentile milliseconds of each, and the load average.

    python bench/rerank_latency.py [--queries 200]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import retrieval as bench

from desktop_rag.engines.embed import RecentVectors
from desktop_rag.query.quote import pick_quotes
from desktop_rag.types import Source


def summary(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    return {
        "median_ms": round(statistics.median(ordered), 1),
        "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))], 1),
        "max_ms": round(ordered[-1], 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from desktop_rag.app import build_app
    from desktop_rag.config import Settings

    corpus = Path(bench.CORPUS).resolve()
    app = build_app(Settings(data_dir=str(bench.cache_folder("covid-qa", "app"))))
    retriever = app.retriever
    top = retriever.rerank_top
    questions = bench.load_questions("covid-qa", corpus)[: args.queries]
    retriever.search("warm up", k=5)
    off: list[float] = []
    on: list[float] = []
    quotes: list[float] = []
    load = [os.getloadavg()[0]]
    fresh: list[float] = []
    for q in questions:
        retriever.recent = RecentVectors(app.embedder)  # nothing remembered from before
        retriever.rerank_top = 0
        t0 = time.perf_counter()
        retriever.search(q.text, k=5)
        off.append(1000 * (time.perf_counter() - t0))
        retriever.recent = RecentVectors(app.embedder)
        retriever.rerank_top = top
        t0 = time.perf_counter()
        hits = retriever.search(q.text, k=5)
        on.append(1000 * (time.perf_counter() - t0))
        sources = [Source(n, h.path, h.page, h.score, h.text) for n, h in enumerate(hits, 1)]
        t0 = time.perf_counter()
        pick_quotes(q.text, sources, retriever.recent)
        quotes.append(1000 * (time.perf_counter() - t0))
        t0 = time.perf_counter()
        pick_quotes(q.text, sources, RecentVectors(app.embedder))
        fresh.append(1000 * (time.perf_counter() - t0))
    load.append(os.getloadavg()[0])
    extra = [b - a for a, b in zip(off, on, strict=True)]
    out = {
        "questions": len(questions),
        "rerank_top": top,
        "search_without_rerank": summary(off),
        "search_with_rerank": summary(on),
        "rerank_extra": summary(extra),
        "quotes_after": summary(quotes),
        "quotes_after_without_reuse": summary(fresh),
        "load_average_start_end": load,
    }
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
