"""Choose the ranking constants on the tuning split only: fusion weights, heading boost, demotion.

Searches the indexes bench/retrieval.py built (this tree's, tag app) with every combination of
a small grid and prints, per combination, recall@1 / recall@5 / MRR@10 on the tuning questions
of each set given. Nothing here reads a held-out question.

    python -m bench.tune.retrieval_tune --sets manuals-titles,manuals-paraphrases,financebench
    python -m bench.tune.retrieval_tune --sets manuals-paraphrases,financebench,covid-qa \
        --blend 0.3,0.4,0.5,0.6 --nav 0.35 --section 1     # the score blend's text share
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from bench import retrieval as bench
from desktop_rag.query import retrieve
from desktop_rag.types import Hit


def fuse(
    rankings: Sequence[Sequence[Hit]],
    k: int = 10,
    weights: Sequence[float] | None = None,
) -> list[Hit]:
    """Weighted reciprocal rank fusion: score = sum of weight / (k + rank), rank from 1. The
    app blends scores instead (retrieve.blend); this is what the blend was measured against."""
    scores: dict[str, float] = {}
    best: dict[str, Hit] = {}
    weights = weights or [1.0] * len(rankings)
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, hit in enumerate(ranking, start=1):
            scores[hit.chunk_id] = scores.get(hit.chunk_id, 0.0) + weight / (k + rank)
            seen = best.get(hit.chunk_id)
            if seen is None or hit.similarity > seen.similarity:
                best[hit.chunk_id] = hit
    fused = [replace(best[cid], score=score) for cid, score in scores.items()]
    # Ties (a passage ranked the same in both lists) break by similarity, then id for stability.
    fused.sort(key=lambda h: (-h.score, -h.similarity, h.chunk_id))
    return fused


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="manuals-titles,manuals-paraphrases,financebench")
    parser.add_argument("--nav", default="1,0.5,0.35,0.2")
    parser.add_argument("--section", default="0,0.5,1,2")
    parser.add_argument("--text-weight", default="1.0,0.75,0.5")
    parser.add_argument("--rrf-k", default="10,60")
    parser.add_argument(
        "--blend", default="", help="text shares of retrieve.blend to try instead of RRF"
    )
    args = parser.parse_args()
    corpus = Path(bench.CORPUS).resolve()
    sets = args.sets.split(",")
    searchers = {}
    apps = {}
    for name in sets:
        library = bench.LIBRARY[name]
        if library not in apps:
            from desktop_rag.app import build_app
            from desktop_rag.config import Settings

            apps[library] = build_app(Settings(data_dir=str(bench.cache_folder(library, "app"))))
        searchers[name] = apps[library]
    questions = {n: [q for q in bench.load_questions(n, corpus) if q.split == "tune"] for n in sets}
    navs = [float(x) for x in args.nav.split(",")]
    boosts = [float(x) for x in args.section.split(",")]
    text_weights = [float(x) for x in args.text_weight.split(",")]
    ks = [int(x) for x in args.rrf_k.split(",")]
    # The two lists are searched once per question (BM25 once per heading boost); fusion and
    # demotion, which are cheap, are then replayed for every combination.
    lists: dict[str, list[tuple[bench.Question, list[Hit], dict[float, list[Hit]]]]] = {}
    for name in sets:
        app = searchers[name]
        n = app.retriever.candidates
        rows_for_set = []
        for q in questions[name]:
            vector = app.store.vector_search(app.embedder.embed_query(q.text), n)
            texts = {}
            qv = app.embedder.embed_query(q.text)
            for boost in boosts:
                app.store.section_boost = boost
                hits, vectors = app.store.text_search_vectors(q.text, n)
                texts[boost] = retrieve.with_similarity(hits, vectors, qv)
            rows_for_set.append((q, vector, texts))
        lists[name] = rows_for_set
        print(f"searched {name}", file=sys.stderr, flush=True)
    rows = []
    if args.blend:
        text_weights, ks = [float(x) for x in args.blend.split(",")], [0]
    for nav, boost, text_weight, rrf_k in itertools.product(navs, boosts, text_weights, ks):
        row: dict[str, object] = {"nav": nav, "section": boost}
        if args.blend:
            row["text_share"] = text_weight
        else:
            row.update(text_weight=text_weight, vector_weight=0.5, rrf_k=rrf_k)
        for name in sets:
            rrs = []
            for q, vector, texts in lists[name]:
                if args.blend:
                    fused = retrieve.blend(vector, texts[boost], text_weight)
                else:
                    fused = fuse([vector, texts[boost]], k=rrf_k, weights=[0.5, text_weight])
                ranked = retrieve.demote(fused, nav)[: bench.K]
                rrs.append(bench.reciprocal_rank([(h.path, h.page) for h in ranked], q))
            row[name] = bench.metrics(rrs)
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    json.dump({"load_average": os.getloadavg(), "grid": rows}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
