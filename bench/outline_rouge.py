"""Outlines against their authors' abstracts: ROUGE-1 and ROUGE-L on the covid-qa articles.

Each covid-qa PDF opens with a header (title, URL, authors, DOI), its abstract after
"Abstract:", and its text after "Text:". The outline's gist (query/outline.py) is built from the
text alone: chunks before "Text:" are dropped, the chunk holding it is cut there and embedded
again (every other chunk keeps its stored vector), so nothing of the abstract reaches the
summary. It is scored against the abstract with `rouge-score` (stemmed), beside a baseline of
the text's first words (lead: its first sentences, cut to the gist's word count). Two gist
lengths: the outline's own (GIST_SENTENCES) and as many sentences as the abstract has words
for ("matched"), each with its own lead.

    python -m bench.outline_rouge [--limit N]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import time
from pathlib import Path
from typing import Any

from bench.perfutil import emit, machine, say

ROOT = Path(__file__).resolve().parents[1]
CORPUS = (ROOT / ".." / "shared" / "corpus").resolve()
DATA = ROOT / "bench" / "data" / "outline-covid"
MIN_ABSTRACT_WORDS = 20  # a shorter "abstract" is a stub ("Abstract: nan", a one-line note)
_ABSTRACT = re.compile(r"(?m)^Abstract:\s*")
_TEXT = re.compile(r"(?m)^Text:\s*")


def page_texts(rows: list[dict[str, Any]]) -> dict[int, str]:
    """Each page's text, laid back together from its chunks (text == page[start:end])."""
    out: dict[int, list[str]] = {}
    for row in rows:
        chars = out.setdefault(int(row["page"]), [])
        end = int(row["end"])
        if len(chars) < end:
            chars.extend(" " * (end - len(chars)))
        chars[int(row["start"]) : end] = list(row["text"])
    return {page: "".join(chars) for page, chars in sorted(out.items())}


def split_article(rows: list[dict[str, Any]]) -> tuple[str, str, tuple[int, int]] | None:
    """(abstract, text, (page, offset) where the text starts), or None without both labels."""
    pages = page_texts(rows)
    abstract: list[str] = []
    in_abstract = False
    for page, text in pages.items():
        start = 0
        if not in_abstract:
            found = _ABSTRACT.search(text)
            if found is None:
                continue
            in_abstract, start = True, found.end()
        body = _TEXT.search(text, start)
        if body is None:
            abstract.append(text[start:])
            continue
        abstract.append(text[start : body.start()])
        rest = [text[body.end() :], *(t for p, t in pages.items() if p > page)]
        return (
            " ".join(" ".join(abstract).split()),
            " ".join(" ".join(rest).split()),
            (
                page,
                body.end(),
            ),
        )
    return None


def without_abstract(
    rows: list[dict[str, Any]], cut: tuple[int, int], app: Any
) -> tuple[list[dict[str, Any]], int]:
    """The chunks of the article's text alone, and how many had to be embedded again."""
    from desktop_rag.ingest.chunk import embedded_text
    from desktop_rag.store.schema import chunk_from_row

    page, offset = cut
    kept: list[dict[str, Any]] = []
    redo: list[dict[str, Any]] = []
    for row in rows:
        if int(row["page"]) < page or (int(row["page"]) == page and int(row["end"]) <= offset):
            continue
        if int(row["page"]) == page and int(row["start"]) < offset:
            row = {**row, "text": row["text"][offset - int(row["start"]) :], "start": offset}
            redo.append(row)
        kept.append(row)
    if redo:
        texts = [embedded_text(chunk_from_row(r), app.ingest.params) for r in redo]
        for row, vector in zip(redo, app.embedder.embed(texts), strict=True):
            row["vector"] = vector
    return kept, len(redo)


def lead(text: str, words: int) -> str:
    """The text's first sentences, cut to `words` words."""
    return " ".join(text.split()[:words])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=0, help="only the first N articles")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from rouge_score import rouge_scorer

    from desktop_rag.app import build_app
    from desktop_rag.config import Settings
    from desktop_rag.query import outline as outline_mod
    from desktop_rag.query.outline import build_outline
    from desktop_rag.query.quote import split_sentences

    result: dict[str, Any] = {"machine": machine()}
    app = build_app(Settings(data_dir=str(DATA)))
    folder = CORPUS / "covid-qa" / "pdf"
    say(f"indexing {folder} into {DATA} (kept between runs)")
    report = app.ingest.index([str(folder)])
    result["index"] = {"indexed": report.indexed, "seconds": round(report.seconds, 1)}
    app.embedder.embed_query("warm up")
    scorer = rouge_scorer.RougeScorer(["rouge1", "rougeL"], use_stemmer=True)
    docs = sorted(
        (d for d in app.store.documents() if d.path.startswith(str(folder)) and d.chunks),
        key=lambda d: d.path,
    )
    if args.limit:
        docs = docs[: args.limit]
    systems = ("gist", "lead", "matched", "matched_lead")
    scores: dict[str, dict[str, list[float]]] = {
        s: {m: [] for m in ("rouge1_f", "rouge1_r", "rougeL_f")} for s in systems
    }
    articles: list[dict[str, Any]] = []
    skipped: dict[str, int] = {"no abstract or text label": 0, "abstract too short": 0}
    build_s: list[float] = []
    for n, doc in enumerate(docs, start=1):
        rows = app.store.chunk_rows(doc.doc_id)
        rows.sort(key=lambda r: (int(r["page"]), int(r["start"])))
        parts = split_article(rows)
        if parts is None:
            skipped["no abstract or text label"] += 1
            continue
        abstract, body, cut = parts
        if len(abstract.split()) < MIN_ABSTRACT_WORDS:
            skipped["abstract too short"] += 1
            continue
        kept, redone = without_abstract(rows, cut, app)
        t0 = time.perf_counter()
        gist = build_outline(kept, app.embedder, path=doc.path, pages=doc.pages).gist
        build_s.append(time.perf_counter() - t0)
        # As many sentences as the abstract has words for, at the text's mean sentence length.
        lengths = [len(s.split()) for s in split_sentences(body) if outline_mod.usable(s)]
        per = statistics.mean(lengths) if lengths else 20.0
        count = max(1, round(len(abstract.split()) / per))
        matched = build_outline(kept, app.embedder, gist_sentences=count).gist
        texts = {
            "gist": " ".join(s.text for s in gist),
            "matched": " ".join(s.text for s in matched),
        }
        texts["lead"] = lead(body, len(texts["gist"].split()))
        texts["matched_lead"] = lead(body, len(texts["matched"].split()))
        row: dict[str, Any] = {
            "document": os.path.basename(doc.path),
            "abstract_words": len(abstract.split()),
            "chunks_embedded_again": redone,
        }
        for system, text in texts.items():
            s = scorer.score(abstract, text)
            scores[system]["rouge1_f"].append(s["rouge1"].fmeasure)
            scores[system]["rouge1_r"].append(s["rouge1"].recall)
            scores[system]["rougeL_f"].append(s["rougeL"].fmeasure)
            row[system] = {
                "words": len(text.split()),
                "rouge1_f": round(s["rouge1"].fmeasure, 4),
                "rougeL_f": round(s["rougeL"].fmeasure, 4),
            }
        articles.append(row)
        if n % 10 == 0:
            say(f"{n}/{len(docs)} articles")

    def mean(values: list[float]) -> float:
        return round(statistics.mean(values), 4) if values else 0.0

    def wins(a: str, b: str, metric: str) -> float:
        pairs = zip(scores[a][metric], scores[b][metric], strict=True)
        return round(sum(x > y for x, y in pairs) / max(len(articles), 1), 3)

    result.update(
        {
            "articles": len(articles),
            "skipped": skipped,
            "gist_sentences": outline_mod.GIST_SENTENCES,
            "summary": {
                s: {
                    **{m: mean(v) for m, v in scores[s].items()},
                    "words": mean([float(a[s]["words"]) for a in articles]),
                }
                for s in systems
            },
            "share_gist_beats_lead": {m: wins("gist", "lead", m) for m in ("rouge1_f", "rougeL_f")},
            "share_matched_beats_lead": {
                m: wins("matched", "matched_lead", m) for m in ("rouge1_f", "rougeL_f")
            },
            "outline_build_s": {
                "median": round(statistics.median(build_s), 3) if build_s else 0.0,
                "max": round(max(build_s), 3) if build_s else 0.0,
            },
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
            "per_article": articles,
        }
    )
    emit("outline_rouge", result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
