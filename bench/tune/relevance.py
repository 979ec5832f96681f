"""Where "nothing relevant" begins: best cosine similarity of on-topic vs off-topic questions.

Indexes a few covid-qa articles, then retrieves (as the answer service does, k=6) for the
covid-qa questions about them (on topic) and for questions they cannot answer: financebench
questions and everyday questions (off topic). Prints the distributions, and for each candidate
threshold the share of on-topic questions kept and of off-topic ones refused.

Usage: python -m bench.tune.relevance [--data-dir DIR] [--docs 10]
Prints one JSON document.
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

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"

EVERYDAY = [
    "How do I bake sourdough bread?",
    "Who won the football World Cup in 2018?",
    "What is the capital of Australia?",
    "How do I change a flat tyre on a bicycle?",
    "What time does the train to Paris leave?",
    "Recommend a good science fiction novel.",
    "How tall is the Eiffel Tower?",
    "What is the best way to learn to play the guitar?",
    "How many legs does a spider have?",
    "When was the printing press invented?",
    "What's the weather like tomorrow?",
    "How do I reset my router password?",
    "Which planet is closest to the sun?",
    "What is the plot of Hamlet?",
    "How much does a new car cost?",
    "What are the rules of chess castling?",
    "How do I cook rice in a pan?",
    "Who painted the Mona Lisa?",
    "What is a good name for a cat?",
    "How long should I boil an egg?",
]


class _StandIn:
    """Constant vectors: searching by words only never reads them."""

    model_id = "bench/stand-in"
    dim = 8

    def embed(self, texts: Sequence[str]) -> Any:
        import numpy as np

        return np.ones((len(texts), self.dim), dtype=np.float32) / self.dim**0.5

    def embed_query(self, text: str) -> Any:
        return self.embed([text])[0]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    i = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[i]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", default=str(CORPUS))
    parser.add_argument("--data-dir", default="", help="index here (default: a temporary dir)")
    parser.add_argument("--docs", type=int, default=10, help="covid-qa articles to index")
    parser.add_argument("-k", type=int, default=6)
    parser.add_argument(
        "--words-only",
        action="store_true",
        help="judge as the app does on an index of another embedder: by the share of the "
        "question's rarer words the best passage holds (the vectors are not used, so the "
        "library is embedded by a stand-in)",
    )
    args = parser.parse_args()
    corpus = Path(args.corpus)

    from desktop_rag.app import build_app
    from desktop_rag.config import Settings
    from desktop_rag.query.answer import word_relevance

    questions = [json.loads(line) for line in (corpus / "covid-qa/questions.jsonl").open()]
    docs: list[str] = []
    for q in questions:
        if q["pdf"] not in docs:
            docs.append(q["pdf"])
    docs = docs[: args.docs]
    on_topic = [q["question"] for q in questions if q["pdf"] in docs]
    finance = [
        json.loads(line)["question"]
        for line in (corpus / "financebench/financebench_open_source.jsonl").open()
    ][:30]

    data_dir = args.data_dir or tempfile.mkdtemp(prefix="relevance-")
    app = build_app(Settings(data_dir=data_dir), embedder=_StandIn() if args.words_only else None)
    app.retriever.text_only = args.words_only
    t0 = time.perf_counter()
    report = app.ingest.index([str(corpus / "covid-qa" / d) for d in docs])
    print(f"indexed {report.chunks} chunks in {time.perf_counter() - t0:.0f} s", file=sys.stderr)

    def best(question: str) -> float:
        hits = app.retriever.search(question, args.k)
        if args.words_only:
            return word_relevance(app.store, question, hits)
        return max((h.similarity for h in hits), default=0.0)

    groups = {
        "on_topic_covid": [best(q) for q in on_topic],
        "off_topic_finance": [best(q) for q in finance],
        "off_topic_everyday": [best(q) for q in EVERYDAY],
    }
    off = groups["off_topic_finance"] + groups["off_topic_everyday"]
    on = groups["on_topic_covid"]
    thresholds = {}
    candidates = (0.3, 0.35, 0.4, 0.45, 0.5, 0.6) if args.words_only else (0.15, 0.2, 0.25, 0.3)
    for t in candidates if args.words_only else (*candidates, 0.35, 0.4, 0.45):
        thresholds[str(t)] = {
            "on_topic_kept": round(sum(v >= t for v in on) / len(on), 3),
            "off_topic_refused": round(sum(v < t for v in off) / len(off), 3),
        }
    out = {
        "judged_by": "words (IDF share)" if args.words_only else "cosine similarity",
        "docs": len(docs),
        "k": args.k,
        "groups": {
            name: {
                "n": len(values),
                "min": round(min(values), 3),
                "p05": round(percentile(values, 0.05), 3),
                "median": round(percentile(values, 0.5), 3),
                "p95": round(percentile(values, 0.95), 3),
                "max": round(max(values), 3),
            }
            for name, values in groups.items()
        },
        "thresholds": thresholds,
    }
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
