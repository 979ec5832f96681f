"""Ranking variants replayed through the app's whole ranking on the tuning halves' lists.

bench/tune/rank_sweep.py's candidate lists (each tuning question searched once, kept in a pickle;
--bounded --tag bounded for bounded chunks) go through what Retriever.search does after its two
searches: the blend, the navigation demotion, distinct pages first and the re-ranking by best
sentence, with one step changed per variant. The sentence vectors are embedded once per call and
cached (--vectors): int8 vectors depend on the batch they were embedded in, so the cache is keyed
by the whole call, and the replay gives the app's own figures. A variant's extra inputs (each
question word's best BM25 score, the mean vectors of sections and documents, each document's
first line) are read from the libraries under --tag. Nothing here reads a held-out question.
Prints one JSON document: per variant, recall@1 / recall@5 / MRR@10 per set, tuning halves only.

    python -m bench.tune.rank_replay --lists LISTS.pickle --vectors V.pickle --variants app,coverage
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pickle
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from bench import retrieval as bench
from bench.tune import rank_sweep
from desktop_rag.query import quote, retrieve
from desktop_rag.store import lance
from desktop_rag.types import Hit


class Replay:
    """The libraries' stores and embedder, opened once, and the sentence vectors' cache."""

    def __init__(self, tag: str, vectors: Path) -> None:
        self.tag = tag
        self.path = vectors
        self.calls: dict[tuple[str, ...], np.ndarray] = {}
        self.questions: dict[str, np.ndarray] = {}
        if vectors.exists():
            data = pickle.loads(vectors.read_bytes())
            self.calls, self.questions = data["calls"], data["questions"]
        self.apps: dict[str, Any] = {}
        self.extras: dict[str, dict[Any, Any]] = {}

    def app(self, library: str = "manuals") -> Any:
        if library not in self.apps:
            from desktop_rag.app import build_app
            from desktop_rag.config import Settings

            folder = bench.cache_folder(library, self.tag)
            self.apps[library] = build_app(Settings(data_dir=str(folder)))
        return self.apps[library]

    def embed(self, texts: list[str]) -> np.ndarray:
        key = tuple(texts)
        if key not in self.calls:
            self.calls[key] = np.asarray(self.app().embedder.embed(list(texts)), np.float32)
        return self.calls[key]

    def embed_query(self, text: str) -> np.ndarray:
        if text not in self.questions:
            self.questions[text] = np.asarray(self.app().embedder.embed_query(text), np.float32)
        return self.questions[text]

    def save(self) -> None:
        self.path.write_bytes(pickle.dumps({"calls": self.calls, "questions": self.questions}))

    def word_best(self, library: str, question: str) -> float:
        """The sum over the question's words of each one's best single-word BM25 score: what a
        passage holding every word could score."""
        cache = self.extras.setdefault("words", {})
        if (library, question) not in cache:
            store = self.app(library).store
            total = 0.0
            for word in dict.fromkeys(w.lower() for w in lance.fts_terms(question)):
                hits = store.text_search(word, 1)
                total += hits[0].score if hits else 0.0
            cache[(library, question)] = total
        return float(cache[(library, question)])

    def means(self, library: str) -> dict[Any, np.ndarray]:
        """The normalised mean vector of each document and of each (document, section)."""
        cache = self.extras.setdefault("means", {})
        if library not in cache:
            table = (
                self.app(library)
                .store.chunks_table.search()
                .select(["doc_id", "section", "vector"])
                .limit(None)
                .to_arrow()
            )
            vectors = np.asarray(table["vector"].to_pylist(), dtype=np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            groups: dict[Any, list[int]] = {}
            for i, (doc, section) in enumerate(
                zip(table["doc_id"].to_pylist(), table["section"].to_pylist(), strict=True)
            ):
                groups.setdefault(doc, []).append(i)
                groups.setdefault((doc, section), []).append(i)
            out = {}
            for key, rows in groups.items():
                mean = vectors[rows].mean(0)
                out[key] = mean / np.linalg.norm(mean)
            cache[library] = out
        return dict(cache[library])

    def first_lines(self, library: str) -> dict[str, np.ndarray]:
        """Each document's first line of its first page (its title in a manual), embedded."""
        cache = self.extras.setdefault("titles", {})
        if library not in cache:
            rows = (
                self.app(library)
                .store.chunks_table.search()
                .where("page = 1")
                .select(["doc_id", "text", "chunk_id"])
                .limit(None)
                .to_arrow()
                .to_pylist()
            )
            out: dict[str, np.ndarray] = {}
            for row in sorted(rows, key=lambda r: r["chunk_id"]):
                if row["doc_id"] not in out:
                    line = row["text"].strip().split("\n")[0]
                    out[row["doc_id"]] = self.embed_query(line)
            cache[library] = out
        return dict(cache[library])


Variant = dict[str, Any]


def scaled(values: dict[Any, float]) -> dict[Any, float]:
    lo, hi = min(values.values()), max(values.values())
    return {k: (v - lo) / (hi - lo) if hi > lo else 0.0 for k, v in values.items()}


def blend(
    r: Replay,
    library: str,
    q: bench.Question,
    vector: list[Hit],
    text: list[Hit],
    v: Variant,
) -> list[Hit]:
    """retrieve.blend, with BM25 as a share of what a passage holding every question word could
    score (`coverage`: 0 the app's share of the best, 1 wholly of that sum) and its credit
    scaled by the passage's scaled cosine to the power `gate` (absent: not scaled)."""
    share = float(v.get("share", retrieve.TEXT_SHARE))
    if not v.get("coverage") and "gate" not in v:
        return retrieve.blend(vector, text, share)  # the app's own
    best, bm25 = retrieve.candidates(vector, text)
    if not best:
        return []
    top = max(bm25.values(), default=0.0)
    denom = top
    if v.get("coverage") and top > 0:
        denom = top * (max(r.word_best(library, q.text), top) / top) ** float(v["coverage"])
    sims = [h.similarity for h in best.values()]
    lo, span = min(sims), max(sims) - min(sims)
    out = []
    for cid, hit in best.items():
        lexical = bm25.get(cid, 0.0) / denom if denom > 0 else 0.0
        meaning = max(0.0, (hit.similarity - lo) / span) if span > 0 else 0.0
        if "gate" in v:
            lexical *= meaning ** float(v["gate"])
        out.append(replace(hit, score=share * lexical + (1 - share) * meaning))
    out.sort(key=lambda h: (-h.score, -h.similarity, h.chunk_id))
    return out


def bonus(r: Replay, library: str, q: bench.Question, ranked: list[Hit], v: Variant) -> list[Hit]:
    """A bonus of `weight` × a group signal: `group` "section" or "chapter" (the other
    candidates of the same section or top heading: `signal` max, sum2 or count), "section-mean"
    or "doc-mean" (the question's cosine to the group's mean vector, scaled over the
    candidates), "title" (to the document's first line, scaled)."""
    group, w = v.get("group"), float(v.get("weight", 0.0))
    if not group or not w:
        return ranked
    extra: dict[str, float] = {}
    if group in ("section", "chapter"):

        def key(h: Hit) -> Any:
            head = h.section if group == "section" else h.section.split(" › ")[0]
            return (h.doc_id, head)

        members: dict[Any, list[float]] = {}
        for h in ranked:
            members.setdefault(key(h), []).append(h.score)
        for h in ranked:
            others = sorted(members[key(h)], reverse=True)
            others.remove(h.score)
            signal = v.get("signal", "max")
            if signal == "max":
                extra[h.chunk_id] = others[0] if others else 0.0
            elif signal == "sum2":
                extra[h.chunk_id] = sum(others[:2])
            else:
                extra[h.chunk_id] = min(len(others), 5) / 5
    else:
        qv = r.embed_query(q.text)
        qv = qv / np.linalg.norm(qv)
        if group == "title":
            vecs = r.first_lines(library)
            cos = {
                h.doc_id: float(vecs[h.doc_id] @ qv / np.linalg.norm(vecs[h.doc_id]))
                if h.doc_id in vecs
                else 0.0  # no text on its first page
                for h in ranked
            }
            extra = {h.chunk_id: scaled(cos)[h.doc_id] for h in ranked}
        else:
            means = r.means(library)
            keys = {
                h.chunk_id: h.doc_id if group == "doc-mean" else (h.doc_id, h.section)
                for h in ranked
            }
            cos = {k: float(means[k] @ qv) for k in set(keys.values())}
            extra = {cid: scaled(cos)[k] for cid, k in keys.items()}
    out = [replace(h, score=h.score + w * extra[h.chunk_id]) for h in ranked]
    out.sort(key=lambda h: (-h.score, -h.similarity, h.chunk_id))
    return out


def term_scores(question: str, texts: list[str], whole: bool) -> list[float]:
    """quote.term_scores, or (whole) each text's BM25 as a share of the question's whole IDF
    over these texts instead of the best text's."""
    if not whole:
        return quote.term_scores(question, texts)
    terms = set(quote.content_words(question))
    docs = [Counter(quote.content_words(t)) for t in texts]
    if not terms or not docs:
        return [0.0] * len(texts)
    n = len(docs)
    avg = sum(sum(d.values()) for d in docs) / n or 1.0
    df = {t: sum(1 for d in docs if t in d) for t in terms}
    idf = {t: math.log(1.0 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in terms}
    k1, b = quote.BM25_K1, quote.BM25_B
    out = []
    for d in docs:
        length = sum(d.values())
        s = sum(
            idf[t] * d[t] * (k1 + 1) / (d[t] + k1 * (1 - b + b * length / avg))
            for t in terms
            if d.get(t)
        )
        out.append(min(1.0, s / sum(idf.values())))
    return out


def rerank(r: Replay, q: bench.Question, ranked: list[Hit], v: Variant) -> list[Hit]:
    """retrieve.rerank_by_sentence, with the sentence's cosine weighted `vw` (the app's 0.6),
    its word score over the question's whole IDF (`whole`), each passage's own `per` best
    sentences by words embedded beside the 12 best of all, and + `u` × the passage cosine's
    distance to the best of the five."""
    top, w = int(v.get("top", retrieve.RERANK_TOP)), float(v.get("w", retrieve.SENTENCE_WEIGHT))
    if top < 2 or w <= 0:
        return ranked
    qv = r.embed_query(q.text)
    head = ranked[:top]
    if not any(k in v for k in ("vw", "whole", "per", "u")):
        return retrieve.rerank_by_sentence(ranked, q.text, qv, r, top, w)  # type: ignore[arg-type]
    sentences, owner = [], []
    for n, h in enumerate(head):
        for s in quote.split_sentences(h.text):
            sentences.append(s)
            owner.append(n)
    best = [0.0] * len(head)
    if sentences:
        words = quote.term_scores(q.text, sentences)
        scores = term_scores(q.text, sentences, bool(v.get("whole")))
        order = sorted(range(len(sentences)), key=lambda i: (-words[i], i))
        chosen = set(order[: quote.RERANK_PRESELECT])
        for n in range(len(head)):
            chosen.update([i for i in order if owner[i] == n][: int(v.get("per", 0))])
        picked = sorted(chosen, key=lambda i: (-words[i], i))
        cosine = r.embed([sentences[i] for i in picked]) @ qv
        vw = float(v.get("vw", quote.VECTOR_WEIGHT))
        for i, c in zip(picked, cosine, strict=True):
            best[owner[i]] = max(best[owner[i]], vw * max(0.0, float(c)) + (1 - vw) * scores[i])
    hi = max(h.similarity for h in head)
    u = float(v.get("u", 0.0))

    def key(i: int) -> float:
        return head[i].score + w * best[i] + u * (head[i].similarity - hi)

    order2 = sorted(range(len(head)), key=lambda i: (-key(i), i))
    return [head[i] for i in order2] + ranked[top:]


def rank(r: Replay, library: str, row: rank_sweep.Row, v: Variant) -> list[Hit]:
    q, vector, texts = row
    n = int(v.get("n", 40))
    ranked = blend(r, library, q, vector[:n], texts[float(v.get("boost", 1.0))][:n], v)
    ranked = bonus(r, library, q, ranked, v)
    ranked = retrieve.demote(ranked, retrieve.NAV_FACTOR)
    top = int(v.get("top", retrieve.RERANK_TOP))
    ranked = retrieve.distinct_pages_first(ranked, max(bench.K, top))
    return rerank(r, q, ranked, v)[: bench.K]


VARIANTS: dict[str, Variant] = {
    "app": {},
    "no-rerank": {"top": 1},
    **{
        f"coverage{c}-share{s}": {"coverage": c, "share": s}
        for c in (0.5, 1)
        for s in (0.5, 0.6, 0.7)
    },
    **{f"gate{p}-share{s}": {"gate": p, "share": s} for p in (0.5, 1) for s in (0.5, 0.6)},
    **{
        f"{g}-{sig}-{w}": {"group": g, "signal": sig, "weight": w}
        for g in ("section", "chapter")
        for sig in ("max", "sum2", "count")
        for w in (0.1, 0.2)
    },
    **{
        f"{g}-{w}": {"group": g, "weight": w}
        for g in ("section-mean", "doc-mean", "title")
        for w in (0.05, 0.1, 0.2)
    },
    **{f"rerank-u{u}": {"u": u} for u in (0.5, 1, 2)},
    "rerank-cosine-only": {"vw": 1.0},
    **{f"rerank-per{p}": {"per": p} for p in (2, 3)},
    **{f"rerank-whole-vw{vw}": {"whole": True, "vw": vw} for vw in (0.5, 0.6)},
    **{
        f"rerank-top{t}-w{w}": {"top": t, "w": w}
        for t in (3, 8, 10, 15, 20)
        for w in (0.2, 0.3, 0.4)
    },
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lists", required=True, help="rank_sweep.py pickles, comma-separated")
    parser.add_argument("--vectors", required=True, help="the sentence vectors (made if missing)")
    parser.add_argument("--tag", default="app", help="the libraries the lists were searched on")
    parser.add_argument("--variants", default="app", help=f"of: {', '.join(VARIANTS)}")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    t0 = time.perf_counter()
    lists: dict[str, list[rank_sweep.Row]] = {}
    for path in args.lists.split(","):
        lists.update(pickle.loads(Path(path).read_bytes()))
    replay = Replay(args.tag, Path(args.vectors))
    rows = []
    for name in args.variants.split(","):
        v = VARIANTS[name]
        out: dict[str, object] = {"variant": name, **v}
        for set_name, questions in lists.items():
            library = bench.LIBRARY[set_name]
            rrs = []
            for row in questions:
                ranked = rank(replay, library, row, v)
                rrs.append(bench.reciprocal_rank([(h.path, h.page) for h in ranked], row[0]))
            out[set_name] = bench.metrics(rrs)
        rows.append(out)
        replay.save()
        print(json.dumps(out), file=sys.stderr, flush=True)
    return rank_sweep.print_variants(rows, t0)


if __name__ == "__main__":
    sys.exit(main())
