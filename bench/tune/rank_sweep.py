"""Variants of the score blend replayed on the tuning halves' candidate lists, searched once.

Each tuning question of each set is searched once on the indexes bench/retrieval.py built
(this tree's, tag app): the vector list and the BM25 list (headings counted at each boost
given), `--candidates` deep, kept in a pickle. Every variant is then scored offline on those
lists: how the cosine is scaled, how many candidates each list gives, the text share, BM25 over
text and heading or text alone, and a document's title matched against the question. Nothing
here reads a held-out question. Prints one JSON document: per variant, recall@1 / recall@5 /
MRR@10 per set, tuning halves only.

    python -m bench.tune.rank_sweep --sets manuals-paraphrases,manuals-titles,financebench,covid-qa
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from bench import retrieval as bench
from desktop_rag.query import retrieve
from desktop_rag.types import Hit

Row = tuple[bench.Question, list[Hit], dict[float, list[Hit]]]


def search_lists(
    sets: list[str], depth: int, boosts: list[float], tag: str, bounded: bool
) -> dict[str, list[Row]]:
    """Each tuning question's vector list and BM25 list per heading boost, depth deep, on the
    libraries cached under `tag` (indexed first if missing: with `bounded`, chunks that never
    span two sections)."""
    from desktop_rag.app import build_app
    from desktop_rag.config import Settings
    from desktop_rag.ingest.chunk import ChunkParams

    corpus = Path(bench.CORPUS).resolve()
    params = ChunkParams(bounded=1) if bounded else None
    apps = {}
    out: dict[str, list[Row]] = {}
    for name in sets:
        library = bench.LIBRARY[name]
        if library not in apps:
            folder = bench.cache_folder(library, tag)
            if tag == "app" and bounded:
                raise SystemExit("bounded chunks need a cache of their own: give --tag")
            app = build_app(Settings(data_dir=str(folder)), params=params)
            t0 = time.perf_counter()
            paths = bench.library_paths(library, corpus)
            report = app.ingest.index(paths)
            bench.keep_only(app, paths)
            if report.indexed:
                print(
                    f"indexed {library} ({tag}): {report.indexed} files, "
                    f"{app.store.count_chunks()} chunks, {time.perf_counter() - t0:.0f} s, "
                    f"load {os.getloadavg()}",
                    file=sys.stderr,
                    flush=True,
                )
            apps[library] = app
        app = apps[library]
        rows = []
        for q in bench.load_questions(name, corpus):
            if q.split != "tune":
                continue
            qv = app.embedder.embed_query(q.text)
            vector = app.store.vector_search(qv, depth)
            texts = {}
            for boost in boosts:
                app.store.section_boost = boost
                hits, vectors = app.store.text_search_vectors(q.text, depth)
                texts[boost] = retrieve.with_similarity(hits, vectors, qv)
            rows.append((q, vector, texts))
        out[name] = rows
        print(f"searched {name}: {len(rows)} tuning questions", file=sys.stderr, flush=True)
    return out


def _squash(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def title_match(path: str, question: str) -> float:
    """The share of a document title's words (of 3 characters or more, by characters) that the
    question holds, spaces and case aside ("AMERICANEXPRESS 2022 10K" in "American Express'
    ... FY2022": 0.8)."""
    from desktop_rag.ingest.chunk import document_title

    words = [w for w in (_squash(w) for w in document_title(path).split()) if len(w) >= 3]
    if not words:
        return 0.0
    q = _squash(question)
    return sum(len(w) for w in words if w in q) / sum(len(w) for w in words)


def blend(
    vector: Sequence[Hit],
    text: Sequence[Hit],
    share: float,
    cosine: str,
    lexical: str,
    missing: float = 0.0,
    full: bool = False,
) -> list[Hit]:
    """retrieve.blend with the cosine's scaling and BM25's normalisation as choices:
    cosine "range" (over all candidates: the app's), "vector-range" (over the vector list's),
    "best" (a share of the best), "absolute"; lexical "best" (the app's) or "range"; missing:
    a passage the BM25 list did not reach scores this share of the list's last score there
    (0: nothing, the app's before; 1: the most it can have), when the list was cut (full)."""
    from desktop_rag.query.retrieve import candidates

    best, bm25 = candidates(vector, text)
    if not best:
        return []
    top = max(bm25.values(), default=0.0)
    low = min(bm25.values(), default=0.0)
    sims = [h.similarity for h in best.values()]
    if cosine == "vector-range" and vector:
        sims = [h.similarity for h in vector]
    lo, hi = min(sims), max(sims)
    out = []
    for cid, hit in best.items():
        if top <= 0:
            lex = 0.0
        elif cid not in bm25:
            lex = missing * low / top if full else 0.0
        elif lexical == "range":
            lex = (bm25[cid] - low) / (top - low) if top > low else 1.0
        else:
            lex = bm25[cid] / top
        s = hit.similarity
        if cosine in ("range", "vector-range"):
            meaning = max(0.0, (s - lo) / (hi - lo)) if hi > lo else 0.0
        elif cosine == "best":
            meaning = max(0.0, s / hi) if hi > 0 else 0.0
        else:
            meaning = max(0.0, s)
        out.append(replace(hit, score=share * lex + (1 - share) * meaning))
    out.sort(key=lambda h: (-h.score, -h.similarity, h.chunk_id))
    return out


def rank(row: Row, v: dict[str, object]) -> list[Hit]:
    q, vector, texts = row
    n = int(v["n"])  # type: ignore[call-overload]
    text = texts[float(v["boost"])][:n]  # type: ignore[arg-type]
    ranked = blend(
        vector[:n],
        text,
        float(v["share"]),  # type: ignore[arg-type]
        str(v["cosine"]),
        str(v["lexical"]),
        float(v.get("missing", 0.0)),  # type: ignore[arg-type]
        len(text) >= n,
    )
    d = float(v.get("doc", 0.0))  # type: ignore[arg-type]
    if d and ranked:
        # A document prior: the blended mass of its passages among the first ten.
        mass: dict[str, float] = {}
        for h in ranked[:10]:
            mass[h.doc_id] = mass.get(h.doc_id, 0.0) + h.score
        top = max(mass.values()) or 1.0
        ranked = [replace(h, score=h.score + d * mass.get(h.doc_id, 0.0) / top) for h in ranked]
        ranked.sort(key=lambda h: (-h.score, -h.similarity, h.chunk_id))
    w = float(v["title"])  # type: ignore[arg-type]
    if w:
        ranked = [replace(h, score=h.score + w * title_match(h.path, q.text)) for h in ranked]
        ranked.sort(key=lambda h: (-h.score, -h.similarity, h.chunk_id))
    return retrieve.demote(ranked, retrieve.NAV_FACTOR)


def distinct_pages_first(hits: Sequence[Hit], k: int) -> list[Hit]:
    """The first passage of each page in order, then the rest: k distinct pages where there are."""
    seen: set[tuple[str, int]] = set()
    first, later = [], []
    for h in hits:
        (later if (h.path, h.page) in seen else first).append(h)
        seen.add((h.path, h.page))
    return (first + later)[:k]


def score(
    lists: dict[str, list[Row]], v: dict[str, object], after: Callable[[list[Hit]], list[Hit]]
) -> dict[str, object]:
    row: dict[str, object] = dict(v)
    for name, rows in lists.items():
        rrs = []
        for r in rows:
            ranked = after(rank(r, v))[: bench.K]
            rrs.append(bench.reciprocal_rank([(h.path, h.page) for h in ranked], r[0]))
        row[name] = bench.metrics(rrs)
    return row


def misses(lists: dict[str, list[Row]], v: dict[str, object], sets: list[str]) -> None:
    """Each tuning question missed at rank 1 by variant v: its gold pages and the first three
    passages with their ranks in each list (to stderr)."""
    for name in sets:
        for r in lists[name]:
            q, vector, texts = r
            ranked = rank(r, v)[: bench.K]
            if bench.reciprocal_rank([(h.path, h.page) for h in ranked], q) == 1.0:
                continue
            at_v = {h.chunk_id: i for i, h in enumerate(vector, 1)}
            at_t = {h.chunk_id: i for i, h in enumerate(texts[float(v["boost"])], 1)}  # type: ignore[arg-type]
            print(f"\n[{name}] {q.text}\n  gold {sorted(q.pages) or q.globs}", file=sys.stderr)
            for h in ranked[:3]:
                print(
                    f"  {os.path.basename(h.path)} p{h.page} {h.score:.3f} "
                    f"v#{at_v.get(h.chunk_id)} t#{at_t.get(h.chunk_id)} sim {h.similarity:.3f} "
                    f"§ {h.section[:60]!r} {h.text[:80]!r}",
                    file=sys.stderr,
                )
            gold = [
                (i, h)
                for i, h in enumerate(rank(r, v), 1)
                if (os.path.basename(h.path), h.page) in q.pages
            ]
            if gold:
                i, h = gold[0]
                print(
                    f"  gold first at #{i}: {h.score:.3f} v#{at_v.get(h.chunk_id)} "
                    f"t#{at_t.get(h.chunk_id)} sim {h.similarity:.3f} § {h.section[:60]!r}",
                    file=sys.stderr,
                )


APP = {"share": 0.5, "n": 40, "boost": 1.0, "cosine": "range", "lexical": "best", "title": 0.0}


def variants() -> list[dict[str, object]]:
    """The app's constants, then each choice changed on its own."""
    out = [dict(APP)]
    for key, values in (
        ("cosine", ["vector-range", "best", "absolute"]),
        ("lexical", ["range"]),
        ("n", [20, 30, 60, 80]),
        ("share", [0.4, 0.45, 0.55, 0.6]),
        ("boost", [0.0, 0.5]),
        ("title", [0.05, 0.1, 0.2, 0.3]),
        ("doc", [0.05, 0.1, 0.2]),
    ):
        for value in values:
            out.append({**APP, key: value})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sets", default="manuals-paraphrases,manuals-titles,financebench,covid-qa"
    )
    parser.add_argument("--depth", type=int, default=80, help="candidates searched per list")
    parser.add_argument("--lists", default="", help="a pickle of the lists (made if missing)")
    parser.add_argument(
        "--grid", default="", help="a JSON list of variants (keys of APP) instead of the default"
    )
    parser.add_argument("--distinct", action="store_true", help="also: distinct pages first")
    parser.add_argument("--misses", default="", help="sets whose tuning misses to print")
    parser.add_argument("--tag", default="app", help="the libraries' cache folder suffix")
    parser.add_argument("--bounded", action="store_true", help="chunks bounded by sections")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    sets = args.sets.split(",")
    cache = Path(args.lists) if args.lists else None
    t0 = time.perf_counter()
    if cache is not None and cache.exists():
        lists = pickle.loads(cache.read_bytes())
        lists = {n: lists[n] for n in sets}
    else:
        lists = search_lists(sets, args.depth, [0.0, 0.5, 1.0], args.tag, args.bounded)
        if cache is not None:
            cache.write_bytes(pickle.dumps(lists))
    grid = [{**APP, **v} for v in json.loads(args.grid)] if args.grid else variants()
    if args.misses:
        misses(lists, grid[0], args.misses.split(","))
        return 0
    rows = []
    for v in grid:
        rows.append(score(lists, v, lambda h: h))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
        if args.distinct:
            rows.append(
                {**score(lists, v, lambda h: distinct_pages_first(h, bench.K)), "distinct": True}
            )
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    return print_variants(rows, t0)


def print_variants(rows: list[dict[str, object]], t0: float) -> int:
    """The variants, the load and the time taken, as JSON on stdout (rerank_sweep.py too)."""
    out = {
        "load_average": os.getloadavg(),
        "seconds": round(time.perf_counter() - t0, 1),
        "variants": rows,
    }
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
