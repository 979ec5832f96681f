"""How much of a passage's rank the cross-encoder should decide: page@1 and page@5 on the tune
halves for answer weights 0 (the blend alone) to 1 (the cross-encoder alone), and candidates.

Each question's candidates are retrieved once (the first `--candidates`, one per page first, as
Retriever.search takes them) and scored once by the shipped cross-encoder; every weight is then
a re-sort. Sets: bench/answer_facts.py's manuals (tune half, gnuplot left out) and covid-qa on
the articles the reranker never saw (tune half).

    python -m bench.tune.cross_weight [--split tune]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bench import perfutil

WEIGHTS = (0.0, 0.2, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def main() -> int:
    from desktop_rag.engines.rerank import passage_text
    from desktop_rag.query.retrieve import distinct_pages_first

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="tune")
    parser.add_argument("--candidates", type=int, default=20)
    parser.add_argument("--covid", type=int, default=300)
    args = parser.parse_args()
    out: dict[str, Any] = {}
    for name in ("manuals", "covid"):
        qs, paths = perfutil.set_questions(name, args.covid, "held_out")
        qs = [q for q in qs if q["split"] == args.split]
        app = perfutil.open_library(name, paths, rerank=True)
        reranker = app.retriever.reranker
        app.retriever.reranker = None  # the blend's own candidates, in its order
        rows = []
        for q in qs:
            pool = app.retriever.search(q["question"], args.candidates)
            probs = reranker.score(q["question"], [passage_text(h.text, h.section) for h in pool])
            gold = {(Path(p).name, int(n)) for p, n in q["gold_pages"]}
            rows.append((pool, probs, gold))
        result = {}
        for w in WEIGHTS:
            at1 = in5 = 0
            for pool, probs, gold in rows:
                top = max((h.score for h in pool), default=0.0) or 1.0
                order = sorted(
                    range(len(pool)),
                    key=lambda i, pool=pool, probs=probs, top=top: (
                        -(w * probs[i] + (1 - w) * pool[i].score / top)
                    ),
                )
                ranked = distinct_pages_first([pool[i] for i in order], 5)
                pages = [(Path(h.path).name, h.page) for h in ranked]
                at1 += bool(pages) and pages[0] in gold
                in5 += any(p in gold for p in pages[:5])
            result[f"{w:.1f}"] = {
                "page_at_1": round(at1 / len(rows), 3),
                "page_in_5": round(in5 / len(rows), 3),
            }
        out[name] = {"questions": len(rows), "split": args.split, "by_weight": result}
        print(json.dumps(out[name]), file=sys.stderr)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
