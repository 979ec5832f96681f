"""Answer quality of the default model: financebench (numbers within 1%) and covid-qa (token F1).

financebench: the 30 questions with PDFs here whose gold answer holds exactly one number (years
aside), taken document by document, fewest pages per such question first, so that as few pages
as possible need indexing (about 1,400 pages, 18 filings). A question scores 1 when any number
in the answer is within 1% of the gold number (units "million"/"billion", in the answer or
asked for in the question, are applied both ways).
covid-qa: the first 3 questions of each of the first 10 articles in questions.jsonl; token F1
(SQuAD style: lower case, no punctuation or articles) against the best of the gold answers.
Both score the answer without its citations (see `content`).

Each set gets its own library holding only the documents its questions need; every question
goes through the answer service exactly as `desktop-rag ask` does (default model, k=6).

Usage: python bench/answer_quality.py [--sets covid,finance] [--data-dir DIR] [--limit N]
Prints one JSON document (summary, then every question with its answer).
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import string
import sys
import time
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus"

_NUMBER = re.compile(
    r"(?<![\w.])[-−(]?\$?\s?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s*(%|percent|million|billion|"
    r"thousand|mn|bn)?",
    re.I,
)
_SCALE = {"thousand": 1e3, "million": 1e6, "mn": 1e6, "billion": 1e9, "bn": 1e9}


def numbers(text: str) -> list[tuple[float, float]]:
    """(value, scale) for every number in text, years such as FY2022 or 2019 left out."""
    text = re.sub(r"\b(?:FY|Q[1-4]\s?)?(?:19|20)\d\d\b", " ", text)
    found = []
    for m in _NUMBER.finditer(text):
        raw = m.group(1).replace(",", "") + (m.group(2) or "")
        value = float(raw)
        if m.group(0).lstrip().startswith(("-", "−", "(")):
            value = -value
        unit = (m.group(3) or "").lower()
        found.append((value, _SCALE.get(unit, 1.0)))
    return found


_CITATION = re.compile(r"\[\d+(?:\s*[,;–-]\s*\d+)*\]")
_LEAD = re.compile(r"^\s*According to \[\d+\],?\s*", re.I)


def content(answer: str) -> str:
    """The answer without its citations: "[1]" is not a number of the answer, and the
    "According to [n]," lead the prompt starts every answer with is not a word of it."""
    return _CITATION.sub(" ", _LEAD.sub("", answer)).strip()


def question_scale(question: str) -> float:
    q = question.lower()
    if re.search(r"usd billions|in billions|\$ ?billions", q):
        return 1e9
    if re.search(r"usd millions|in millions|\$ ?millions", q):
        return 1e6
    return 1.0


def close(a: float, b: float) -> bool:
    return abs(a - b) <= 0.01 * abs(b) if b else abs(a) < 1e-9


def number_match(answer: str, gold: tuple[float, float], asked_scale: float) -> bool:
    g, g_scale = gold
    g_full = g * (g_scale if g_scale != 1.0 else asked_scale)
    for a, a_scale in numbers(answer):
        for a_value in (a, -a):  # "a loss of 3.7" vs a gold of -3.7
            if close(a_value, g) or close(a_value * a_scale, g_full):
                return True
    return False


def normalise(text: str) -> list[str]:
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return text.split()


def f1(answer: str, gold: str) -> float:
    a, g = normalise(answer), normalise(gold)
    common = collections.Counter(a) & collections.Counter(g)
    same = sum(common.values())
    if not same:
        return 0.0
    precision, recall = same / len(a), same / len(g)
    return 2 * precision * recall / (precision + recall)


def finance_questions(corpus: Path, n: int) -> list[dict[str, Any]]:
    folder = corpus / "financebench"
    rows = [json.loads(line) for line in (folder / "financebench_open_source.jsonl").open()]
    usable = []
    for row in rows:
        pdf = folder / "pdfs" / f"{row['doc_name']}.pdf"
        found = numbers(row["answer"])
        if pdf.is_file() and len(found) == 1:
            usable.append({**row, "pdf": str(pdf), "gold": found[0]})
    from pypdf import PdfReader

    per_doc = collections.Counter(r["doc_name"] for r in usable)
    pdfs = {r["doc_name"]: r["pdf"] for r in usable}
    pages = {doc: len(PdfReader(pdf).pages) for doc, pdf in pdfs.items()}
    usable.sort(key=lambda r: (pages[r["doc_name"]] / per_doc[r["doc_name"]], r["doc_name"]))
    return usable[:n]


def covid_questions(corpus: Path, docs: int, per_doc: int) -> list[dict[str, Any]]:
    folder = corpus / "covid-qa"
    rows = [json.loads(line) for line in (folder / "questions.jsonl").open()]
    order: list[str] = []
    taken: dict[str, int] = collections.Counter()
    chosen = []
    for row in rows:
        if row["pdf"] not in order:
            order.append(row["pdf"])
        if order.index(row["pdf"]) < docs and taken[row["pdf"]] < per_doc:
            taken[row["pdf"]] += 1
            chosen.append({**row, "pdf": str(folder / row["pdf"])})
    return chosen


def run_set(name: str, questions: list[dict[str, Any]], data_dir: Path) -> dict[str, Any]:
    from desktop_rag.app import build_app
    from desktop_rag.config import Settings
    from desktop_rag.types import DoneEvent, SourcesEvent

    app = build_app(Settings(data_dir=str(data_dir)))
    t0 = time.perf_counter()
    report = app.ingest.index(sorted({q["pdf"] for q in questions}))
    index_s = time.perf_counter() - t0
    print(
        f"{name}: {report.indexed} indexed, {report.unchanged} unchanged, {report.chunks} chunks "
        f"in {index_s:.0f} s",
        file=sys.stderr,
    )
    app.answer.warm_up()
    results = []
    for i, q in enumerate(questions, 1):
        sources = ()
        done = None
        for event in app.answer.ask(q["question"]):
            if isinstance(event, SourcesEvent):
                sources = event.sources
            elif isinstance(event, DoneEvent):
                done = event
        assert done is not None
        cited_pages = [(Path(s.path).name, s.page) for s in sources if s.n in done.cited]
        row: dict[str, Any] = {
            "question": q["question"],
            "answer": done.answer,
            "cited": list(done.cited),
            "refused": done.refused,
            "unsupported": list(done.unsupported),
            "ttft_s": round(done.timings.ttft_s, 3),
            "tokens_per_s": round(done.timings.tokens_per_s, 1),
            "total_s": round(done.timings.total_s, 3),
        }
        if name == "finance":
            gold_pages = {(Path(q["pdf"]).name, e["evidence_page_num"] + 1) for e in q["evidence"]}
            row["gold"] = q["answer"]
            row["correct"] = number_match(
                content(done.answer), q["gold"], question_scale(q["question"])
            )
            row["gold_page_retrieved"] = any(
                (Path(s.path).name, s.page) in gold_pages for s in sources
            )
            row["gold_page_cited"] = any(p in gold_pages for p in cited_pages)
        else:
            gold_page = (Path(q["pdf"]).name, q["answer_page"])
            row["gold"] = q["answers"][0]
            row["f1"] = round(max(f1(content(done.answer), g) for g in q["answers"]), 4)
            row["gold_page_retrieved"] = any(
                (Path(s.path).name, s.page) == gold_page for s in sources
            )
            row["gold_page_cited"] = gold_page in cited_pages
        results.append(row)
        score = row.get("f1", row.get("correct"))
        print(f"{name} {i}/{len(questions)} {score} {done.answer!r}", file=sys.stderr)

    def mean(key: str) -> float:
        return round(sum(float(r[key]) for r in results) / len(results), 4) if results else 0.0

    summary: dict[str, Any] = {
        "questions": len(results),
        "documents": len({q["pdf"] for q in questions}),
        "chunks": app.store.count_chunks(),
        "cited_any": mean_bool(results, lambda r: bool(r["cited"])),
        "refused": mean_bool(results, lambda r: r["refused"]),
        # Answers the app marks "check this answer" (a figure missing from the sources).
        "flagged": mean_bool(results, lambda r: bool(r["unsupported"])),
        "gold_page_retrieved": mean("gold_page_retrieved"),
        "gold_page_cited": mean("gold_page_cited"),
        "median_ttft_s": median([r["ttft_s"] for r in results]),
        "median_tokens_per_s": median([r["tokens_per_s"] for r in results]),
        "median_total_s": median([r["total_s"] for r in results]),
    }
    if name == "finance":
        summary["accuracy_within_1pct"] = mean("correct")
        wrong = [r for r in results if not r["refused"] and not r["correct"]]
        summary["wrong_answers_flagged"] = mean_bool(wrong, lambda r: bool(r["unsupported"]))
    else:
        summary["mean_f1"] = mean("f1")
    return {"summary": summary, "results": results}


def mean_bool(rows: list[dict[str, Any]], test: Any) -> float:
    return round(sum(bool(test(r)) for r in rows) / len(rows), 4) if rows else 0.0


def median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if ordered else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", default=str(CORPUS))
    parser.add_argument("--sets", default="covid,finance")
    parser.add_argument("--data-dir", default="", help="libraries go under here (reused)")
    parser.add_argument("--limit", type=int, default=30, help="questions per set")
    parser.add_argument("--list", action="store_true", help="only list the questions chosen")
    args = parser.parse_args()
    corpus = Path(args.corpus)
    chosen = {
        "covid": covid_questions(corpus, docs=10, per_doc=3)[: args.limit],
        "finance": finance_questions(corpus, args.limit),
    }
    sets = [s for s in args.sets.split(",") if s]
    if args.list:
        listing = {
            s: [{"doc": Path(q["pdf"]).name, "question": q["question"][:100]} for q in chosen[s]]
            for s in sets
        }
        json.dump(listing, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    import tempfile

    base = Path(args.data_dir) if args.data_dir else Path(tempfile.mkdtemp(prefix="quality-"))
    out = {name: run_set(name, chosen[name], base / name) for name in sets}
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
