"""Choose the ranking constants on the tuning split only: fusion weights, heading boost, demotion.

Searches the indexes bench/retrieval.py built (this tree's, tag app) with every combination of
a small grid and prints, per combination, recall@1 / recall@5 / MRR@10 on the tuning questions
of each set given. Nothing here reads a held-out question.

    python bench/retrieval_tune.py --sets manuals-titles,manuals-paraphrases,financebench
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import retrieval as bench

from desktop_rag.query import retrieve


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="manuals-titles,manuals-paraphrases,financebench")
    parser.add_argument("--nav", default="1,0.5,0.35,0.2")
    parser.add_argument("--section", default="0,0.5,1,2")
    parser.add_argument("--text-weight", default="1.0,0.75,0.5")
    parser.add_argument("--rrf-k", default="10,60")
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
    rows = []
    grid = itertools.product(
        map(float, args.nav.split(",")),
        map(float, args.section.split(",")),
        map(float, args.text_weight.split(",")),
        map(int, args.rrf_k.split(",")),
    )
    for nav, section, text_weight, rrf_k in grid:
        retrieve.TEXT_WEIGHT = text_weight
        retrieve.VECTOR_WEIGHT = 0.5  # only the ratio matters to the ranking
        retrieve.RRF_K = rrf_k
        row: dict[str, object] = {
            "nav": nav,
            "section": section,
            "text_weight": text_weight,
            "vector_weight": retrieve.VECTOR_WEIGHT,
            "rrf_k": rrf_k,
        }
        for name in sets:
            app = searchers[name]
            app.retriever.nav_factor = nav
            app.store.section_boost = section
            rrs = [
                bench.reciprocal_rank(
                    [(h.path, h.page) for h in app.retriever.search(q.text, k=bench.K)], q
                )
                for q in questions[name]
            ]
            row[name] = bench.metrics(rrs)
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    json.dump({"load_average": os.getloadavg(), "grid": rows}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
