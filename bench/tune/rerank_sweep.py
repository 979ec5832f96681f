"""The first few sources re-ranked by their best sentence, replayed on the tuning halves' lists.

bench/tune/rank_sweep.py's candidate lists (each tuning question searched once, kept in a pickle)
are ranked as the app ranks them (blend, navigation pages demoted, distinct pages first); then
the first `top` sources are re-ordered by blended score + weight × their best sentence's score,
a sentence scored as desktop_rag/query/quote.py scores it (the embedder's cosine to the
question and a BM25 term match over the sentences read). Re-ordering within the first five
cannot change recall@5. Every sentence of the first five sources is embedded once and cached
(--vectors); nothing here reads a held-out question. Prints one JSON document: per variant,
recall@1 / recall@5 / MRR@10 per set, tuning halves only.

    python -m bench.tune.rerank_sweep --lists LISTS.pickle --vectors SENTENCES.pickle
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import time
from pathlib import Path

import numpy as np

from bench import retrieval as bench
from bench.tune import rank_sweep
from desktop_rag.query import quote, retrieve
from desktop_rag.types import Hit

DEPTH = 5  # sources whose sentences are embedded


Ranked = dict[str, list[tuple[object, list[Hit]]]]


def ranked_lists(lists: dict[str, list[rank_sweep.Row]]) -> Ranked:
    """Each tuning question with its sources as the app ranks them."""
    out = {}
    for name, rows in lists.items():
        out[name] = [
            (r[0], retrieve.distinct_pages_first(rank_sweep.rank(r, rank_sweep.APP), bench.K))
            for r in rows
        ]
    return out


def embed_all(ranked: Ranked, cache: Path) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The question vectors and every sentence vector of the first DEPTH sources (cached)."""
    if cache.exists():
        data = pickle.loads(cache.read_bytes())
        return data["questions"], data["sentences"]
    from desktop_rag.app import build_app
    from desktop_rag.config import Settings

    app = build_app(Settings(data_dir=str(bench.cache_folder("covid-qa", "app"))))
    questions: dict[str, np.ndarray] = {}
    texts: set[str] = set()
    for rows in ranked.values():
        for q, hits in rows:
            questions.setdefault(q.text, app.embedder.embed_query(q.text))  # type: ignore[attr-defined]
            for h in hits[:DEPTH]:
                texts.update(quote.split_sentences(h.text))
    order = sorted(texts)
    t0 = time.perf_counter()
    vectors = app.embedder.embed(order)
    print(
        f"embedded {len(order)} sentences in {time.perf_counter() - t0:.0f} s",
        file=sys.stderr,
        flush=True,
    )
    sentences = dict(zip(order, np.asarray(vectors, dtype=np.float32), strict=True))
    cache.write_bytes(pickle.dumps({"questions": questions, "sentences": sentences}))
    return questions, sentences


def best_sentences(
    question: str,
    hits: list[Hit],
    qv: np.ndarray,
    sv: dict[str, np.ndarray],
    v: dict[str, float],
) -> list[float]:
    """Each hit's best sentence score: vector_weight × cosine + (1 − it) × term score, the term
    statistics over all the sentences of these hits; only the `preselect` best by terms are
    embedded (0: all)."""
    per_hit = [quote.split_sentences(h.text) for h in hits]
    flat = [(i, s) for i, ss in enumerate(per_hit) for s in ss]
    if not flat:
        return [0.0] * len(hits)
    terms = quote.term_scores(question, [s for _, s in flat])
    chosen = range(len(flat))
    pre = int(v.get("preselect", 0))
    if pre:
        chosen = sorted(range(len(flat)), key=lambda j: (-terms[j], j))[:pre]  # type: ignore[assignment]
    a = float(v.get("vw", quote.VECTOR_WEIGHT))
    best = [0.0] * len(hits)
    for j in chosen:
        i, s = flat[j]
        c = max(0.0, float(sv[s] @ qv))
        best[i] = max(best[i], a * c + (1 - a) * terms[j])
    return best


def rerank(
    question: str,
    hits: list[Hit],
    qv: np.ndarray,
    sv: dict[str, np.ndarray],
    v: dict[str, float],
) -> list[Hit]:
    top = int(v["top"])
    w = float(v["w"])
    if top < 2 or not w:
        return hits
    head = hits[:top]
    best = best_sentences(question, head, qv, sv, v)
    order = sorted(range(len(head)), key=lambda i: (-(head[i].score + w * best[i]), i))
    return [head[i] for i in order] + hits[top:]


def score(
    ranked: Ranked,
    qvs: dict[str, np.ndarray],
    svs: dict[str, np.ndarray],
    v: dict[str, float],
) -> dict[str, object]:
    row: dict[str, object] = dict(v)
    for name, rows in ranked.items():
        rrs = []
        for q, hits in rows:
            out = rerank(q.text, hits, qvs[q.text], svs, v)  # type: ignore[attr-defined]
            rrs.append(bench.reciprocal_rank([(h.path, h.page) for h in out], q))  # type: ignore[arg-type]
        row[name] = bench.metrics(rrs)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lists", required=True, help="bench/tune/rank_sweep.py's pickle")
    parser.add_argument("--vectors", required=True, help="the sentence vectors (made if missing)")
    parser.add_argument("--grid", default="", help="a JSON list of variants")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    t0 = time.perf_counter()
    lists = pickle.loads(Path(args.lists).read_bytes())
    ranked = ranked_lists(lists)
    qvs, svs = embed_all(ranked, Path(args.vectors))
    if args.grid:
        grid = json.loads(args.grid)
    else:
        grid = [{"top": 1, "w": 0.0}]
        for top in (2, 3, 5):
            for w in (0.1, 0.2, 0.3, 0.5, 1.0):
                grid.append({"top": top, "w": w})
    rows = []
    for v in grid:
        rows.append(score(ranked, qvs, svs, v))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    return rank_sweep.print_variants(rows, t0)


if __name__ == "__main__":
    sys.exit(main())
