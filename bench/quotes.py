"""Quote first: time from question to quotes, and how often the top quote holds the answer.

A covid-qa library (the first --docs articles of questions.jsonl, indexed with the real
embedder through the app's own pipeline) and the questions about those articles. Each question
goes through the answer service as `desktop-rag ask` does, with the model loaded beforehand (as
the window warms it up), and is stopped right after its QuotesEvent: the figure is the time
from the question to the quotes on screen, retrieval and prompt fitting included. Picking the
quotes alone (query/quote.py) is timed apart, and so is the CPU time of the whole step.

Quality: the share of questions whose top quote (and whose one or two quotes) contains a gold
answer, against taking the first sentence of source [1]; over questions whose gold page is
among the sources. --weights sweeps the quote score's vector weight (term weight = 1 - it).

With --while-indexing, financebench filings are indexed into a second library in a
background thread during the measurement (what a user sees while adding documents).

Usage: python bench/quotes.py [--docs 10] [--questions 60] [--data-dir DIR] [--while-indexing]
Prints one JSON document; also written to bench/out/quotes.json.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.perfutil import CORPUS, emit, machine, say
from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.query import quote
from desktop_rag.types import QuotesEvent, Source, SourcesEvent


def covid(docs: int, limit: int) -> list[dict[str, Any]]:
    folder = CORPUS / "covid-qa"
    rows = [json.loads(line) for line in (folder / "questions.jsonl").open(encoding="utf-8")]
    order: list[str] = []
    chosen = []
    for row in rows:
        if row["pdf"] not in order:
            order.append(row["pdf"])
        if order.index(row["pdf"]) < docs:
            chosen.append({**row, "pdf": str(folder / row["pdf"])})
    # Spread over the articles rather than the first article's questions only.
    seen: dict[str, int] = {}
    ranked = []
    for row in chosen:
        seen[row["pdf"]] = seen.get(row["pdf"], 0) + 1
        ranked.append((seen[row["pdf"]], len(ranked), row))
    return [row for _, _, row in sorted(ranked, key=lambda x: x[:2])][:limit]


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w%.]+", " ", text.lower()).split())


def holds(text: str, answers: list[str]) -> bool:
    t = _norm(text)
    return any(_norm(a) and _norm(a) in t for a in answers)


def first_sentence(sources: tuple[Source, ...]) -> str:
    for s in sources:
        sentences = quote.split_sentences(s.text)
        if sentences:
            return sentences[0]
    return ""


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))], 4)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=10)
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--data-dir", default="", help="the library goes here (reused)")
    parser.add_argument("--weights", default="0,0.3,0.6,0.8,1")
    parser.add_argument("--while-indexing", action="store_true")
    args = parser.parse_args()

    questions = covid(args.docs, args.questions)
    base = Path(args.data_dir) if args.data_dir else Path(tempfile.mkdtemp(prefix="quotes-"))
    app = build_app(Settings(data_dir=str(base / "covid")))
    t0 = time.perf_counter()
    report = app.ingest.index(sorted({q["pdf"] for q in questions}))
    took = time.perf_counter() - t0
    say(f"{report.indexed} indexed, {report.unchanged} unchanged in {took:.0f} s")
    app.answer.warm_up()
    for q in questions[:3]:  # warm caches: the first searches open and page in index files
        list(_until_quotes(app, q["question"]))

    busy: threading.Thread | None = None
    if args.while_indexing:
        other = build_app(Settings(data_dir=str(base / "finance-while")))
        filings = sorted((CORPUS / "financebench" / "pdfs").glob("*.pdf"))[:6]
        busy = threading.Thread(target=other.ingest.index, args=([str(p) for p in filings],))
        busy.start()
        time.sleep(5)  # let the indexer get going

    rows = []
    for q in questions:
        c0 = time.process_time()
        t0 = time.perf_counter()
        sources: tuple[Source, ...] = ()
        quotes: tuple[quote.Quote, ...] = ()
        for event, at in _until_quotes(app, q["question"]):
            if isinstance(event, SourcesEvent):
                sources = event.sources
                sources_s = at - t0
            elif isinstance(event, QuotesEvent):
                quotes = event.quotes
                quotes_s = at - t0
        cpu_s = time.process_time() - c0
        p0 = time.perf_counter()
        quote.pick_quotes(q["question"], sources, app.embedder)
        pick_s = time.perf_counter() - p0
        gold_page = (Path(q["pdf"]).name, q["answer_page"])
        rows.append(
            {
                "question": q["question"],
                "answers": q["answers"],
                "sources_s": round(sources_s, 4),
                "quotes_s": round(quotes_s, 4),
                "pick_s": round(pick_s, 4),
                "cpu_s": round(cpu_s, 4),
                "gold_page_in_sources": any(
                    (Path(s.path).name, s.page) == gold_page for s in sources
                ),
                "quotes": [{"n": x.n, "page": x.page, "text": x.text} for x in quotes],
                "top_holds": bool(quotes) and holds(quotes[0].text, q["answers"]),
                "any_holds": any(holds(x.text, q["answers"]) for x in quotes),
                "first_sentence_holds": holds(first_sentence(sources), q["answers"]),
                "_sources": sources,
            }
        )
    indexing_alive = busy is not None and busy.is_alive()
    if busy is not None:
        busy.join()

    found = [r for r in rows if r["gold_page_in_sources"]]
    sweep = {}
    for w in [float(x) for x in args.weights.split(",") if x]:
        quote.VECTOR_WEIGHT, quote.TERM_WEIGHT = w, 1.0 - w
        hits = [
            holds(qs[0].text, r["answers"])
            for r in found
            if (qs := quote.pick_quotes(r["question"], r["_sources"], app.embedder))
        ]
        sweep[f"vector={w:g}"] = round(sum(hits) / len(found), 4) if found else 0.0
    for r in rows:
        del r["_sources"]

    def share(key: str, of: list[dict[str, Any]]) -> float:
        return round(sum(bool(r[key]) for r in of) / len(of), 4) if of else 0.0

    quotes_s = [r["quotes_s"] for r in rows]
    out = {
        "machine": machine(),
        "library": {"documents": args.docs, "chunks": app.store.count_chunks()},
        "questions": len(rows),
        "while_indexing": bool(args.while_indexing),
        "indexing_ran_throughout": indexing_alive if args.while_indexing else None,
        "target_quotes_s": 0.3,
        "question_to_quotes_s": {
            "p50": pct(quotes_s, 50),
            "p90": pct(quotes_s, 90),
            "max": round(max(quotes_s), 4),
            "mean": round(statistics.mean(quotes_s), 4),
        },
        "question_to_sources_s_p50": pct([r["sources_s"] for r in rows], 50),
        "pick_quotes_s_p50": pct([r["pick_s"] for r in rows], 50),
        "cpu_s_p50": pct([r["cpu_s"] for r in rows], 50),
        "share_within_target": round(sum(1 for s in quotes_s if s <= 0.3) / len(rows), 4),
        "gold_page_in_sources": share("gold_page_in_sources", rows),
        # Over the questions whose gold page is among the sources:
        "top_quote_holds_answer": share("top_holds", found),
        "a_quote_holds_answer": share("any_holds", found),
        "first_sentence_of_1_holds_answer": share("first_sentence_holds", found),
        "top_quote_holds_answer_by_vector_weight": sweep,
        "results": rows,
    }
    emit("quotes-indexing" if args.while_indexing else "quotes", out)
    return 0


def _until_quotes(app: Any, question: str) -> Any:
    """The answer's events up to its quotes, each with the time it arrived; then the answer
    is dropped before the model writes."""
    events = app.answer.ask(question)
    try:
        for event in events:
            yield event, time.perf_counter()
            if isinstance(event, QuotesEvent):
                return
    finally:
        events.close()


if __name__ == "__main__":
    sys.exit(main())
