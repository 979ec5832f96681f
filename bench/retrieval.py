"""Page-level retrieval quality on covid-qa: recall@1, recall@5 and MRR@10 per retrieval mode.

All 98 articles go into one library (pooled), then every question is asked. A hit counts when
it is the question's PDF and its gold page. Prints one JSON document.

Usage: python bench/retrieval.py [--corpus DIR] [--data-dir DIR] [--limit N]
       [--max-tokens 200 --overlap 40] [--modes hybrid,vector,text]
The index in --data-dir is reused when it exists (delete it to re-index).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.query.retrieve import Mode

DEFAULT_CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus"


def load_questions(corpus: Path, limit: int = 0) -> list[dict[str, object]]:
    rows = []
    with open(corpus / "covid-qa" / "questions.jsonl", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row.get("is_impossible") or row.get("answer_page") is None:
                continue  # one question has no gold page
            rows.append(row)
    return rows[:limit] if limit else rows


def score(ranked: list[tuple[str, int]], gold_pdf: str, gold_page: int) -> tuple[bool, bool, float]:
    """(hit@1, hit@5, reciprocal rank within 10) for one question."""
    rr = 0.0
    for rank, (path, page) in enumerate(ranked[:10], start=1):
        if os.path.basename(path) == gold_pdf and page == gold_page:
            rr = 1.0 / rank
            break
    return rr == 1.0, rr >= 1 / 5, rr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", default=str(DEFAULT_CORPUS))
    parser.add_argument("--data-dir", default="")
    parser.add_argument("--limit", type=int, default=0, help="questions (0: all)")
    parser.add_argument("--max-tokens", type=int, default=ChunkParams().max_tokens)
    parser.add_argument("--overlap", type=int, default=ChunkParams().overlap)
    parser.add_argument("--modes", default="hybrid,vector,text")
    args = parser.parse_args()
    corpus = Path(args.corpus).resolve()
    data_dir = args.data_dir or tempfile.mkdtemp(prefix="bench-retrieval-")
    params = ChunkParams(args.max_tokens, args.overlap)
    app = build_app(Settings(data_dir=data_dir), params=params)
    t0 = time.perf_counter()
    report = app.ingest.index([str(corpus / "covid-qa" / "pdf")])
    index_s = time.perf_counter() - t0
    print(f"indexed in {index_s:.1f}s: {report.to_json()}", file=sys.stderr)
    questions = load_questions(corpus, args.limit)
    out: dict[str, object] = {
        "corpus": "covid-qa",
        "questions": len(questions),
        "documents": app.store.stats()["documents"],
        "chunks": app.store.count_chunks(),
        "chunking": params.to_json(),
        "embedder": app.embedder.model_id,
        "index_seconds": round(index_s, 1),
        "modes": {},
    }
    modes: dict[str, object] = {}
    for name in args.modes.split(","):
        mode = Mode(name)
        h1 = h5 = 0
        mrr = 0.0
        t1 = time.perf_counter()
        for q in questions:
            hits = app.retriever.search(str(q["question"]), k=10, mode=mode)
            a, b, rr = score(
                [(h.path, h.page) for h in hits],
                os.path.basename(str(q["pdf"])),
                int(q["answer_page"]),  # type: ignore[call-overload]
            )
            h1 += a
            h5 += b
            mrr += rr
        n = max(len(questions), 1)
        modes[name] = {
            "recall@1": round(h1 / n, 4),
            "recall@5": round(h5 / n, 4),
            "mrr@10": round(mrr / n, 4),
            "ms_per_query": round(1000 * (time.perf_counter() - t1) / n, 1),
        }
        print(f"{name}: {modes[name]}", file=sys.stderr)
    out["modes"] = modes
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
