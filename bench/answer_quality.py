"""Answer quality of the default model over whole libraries, with honest measures.

Libraries (each built once and cached under bench/data/quality/, git-ignored):
- covid-qa: all 98 articles (363 pages).
- financebench: 20 of the 74 filings drawn at random (seed 0); embedding all 10,206 pages
  on two shared cores takes hours. Every one of its questions whose filing is drawn is asked.
Questions: covid-qa, a sample of --covid questions (seed 0) over all articles; financebench,
all questions on the drawn filings. Each set's questions are split in two halves, fixed by a
hash of the question: the claim check's threshold (query/claims.py REFUSE_BELOW) is chosen on
the "tune" half (the highest that refuses at most 5% of its on-topic questions) and every
figure is reported for the "report" half at that threshold (the tune half's figures are shown
too, marked). Off topic: 30 everyday questions (none of bench/relevance.py's, which tuned the
retrieval threshold), asked alone and as follow-ups of the set's on-topic questions (the
follow-up of question i comes after question i and its answer, as `ask -` would).

Measures, per half:
- citation accuracy: of the answers that cite a source, the share whose cited sources include
  a gold page; and the gold page among the sources at all (retrieval);
- correctness: financebench, a number of the answer within 1% of the gold figure (questions
  with a figure); covid-qa, the gold answer contained in the answer, and separately in the top
  quote (the sentence shown before the model writes); token F1 (SQuAD style) for both;
- refusals: on-topic refused, off-topic refused, off-topic follow-ups refused, and the
  off-topic follow-ups answered with a citation (the target is none);
- answers flagged "check this answer" (a name, term or figure not in the sources cited).
The service runs with the claim check's refusal off (it records each answer's support), so the
threshold can be applied afterwards: the service's decision depends on that number alone.

Usage: python bench/answer_quality.py [--sets covid,finance] [--covid 60] [--data DIR]
Prints one JSON document (summary per set and half, then every question).
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import random
import re
import string
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / ".." / "shared" / "corpus"
DATA = REPO / "bench" / "data" / "quality"
FILINGS = 20
SEED = 0
MAX_REFUSED = 0.05
THRESHOLDS = [round(0.05 * i, 2) for i in range(0, 13)]

OFF_TOPIC = [
    "What is the capital of France?",
    "Who painted the Mona Lisa?",
    "How many players are on a rugby union team?",
    "What is the boiling point of water at sea level in Fahrenheit?",
    "Who was the first person to walk on the moon?",
    "What language is spoken in Brazil?",
    "How do I make a cheese omelette?",
    "What year did the Berlin Wall fall?",
    "Who composed the Four Seasons?",
    "What is the tallest mountain in Africa?",
    "How many strings does a violin have?",
    "What is the chemical symbol for gold?",
    "Who wrote Pride and Prejudice?",
    "What is the longest river in South America?",
    "How do I knit a scarf?",
    "Which ocean lies between Africa and Australia?",
    "What is the national animal of Scotland?",
    "Who directed the film Jaws?",
    "How many keys does a standard piano have?",
    "What is the currency of Japan?",
    "Which city hosted the 2012 Summer Olympics?",
    "How do I grow tomatoes on a balcony?",
    "What is the speed of sound in air?",
    "Who invented the telephone?",
    "What are the rules of chess castling?",
    "Which desert is the largest in Asia?",
    "What is the main ingredient of guacamole?",
    "Who is the author of the Harry Potter books?",
    "How long is a marathon in kilometres?",
    "What colour is a ripe banana?",
]

_NUMBER = re.compile(
    r"(?<![\w.])[-−(]?\$?\s?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s*(%|percent|million|billion|"
    r"thousand|mn|bn)?",
    re.I,
)
_SCALE = {"thousand": 1e3, "million": 1e6, "mn": 1e6, "billion": 1e9, "bn": 1e9}
_CITATION = re.compile(r"\[\d+(?:\s*[,;–-]\s*\d+)*\]")
_LEAD = re.compile(r"^\s*According to \[\d+\],?\s*", re.I)


def numbers(text: str) -> list[tuple[float, float]]:
    """(value, scale) for every number in text, years such as FY2022 or 2019 left out."""
    text = re.sub(r"\b(?:FY|Q[1-4]\s?)?(?:19|20)\d\d\b", " ", text)
    found = []
    for m in _NUMBER.finditer(text):
        value = float(m.group(1).replace(",", "") + (m.group(2) or ""))
        if m.group(0).lstrip().startswith(("-", "−", "(")):
            value = -value
        found.append((value, _SCALE.get((m.group(3) or "").lower(), 1.0)))
    return found


def content(answer: str) -> str:
    """The answer without its citations and the "According to [n]," lead every answer has."""
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
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    return re.sub(r"\b(a|an|the)\b", " ", text).split()


def f1(answer: str, gold: str) -> float:
    a, g = normalise(answer), normalise(gold)
    same = sum((collections.Counter(a) & collections.Counter(g)).values())
    if not same:
        return 0.0
    precision, recall = same / len(a), same / len(g)
    return 2 * precision * recall / (precision + recall)


def contains(text: str, gold: str) -> bool:
    g = " ".join(normalise(gold))
    return bool(g) and g in " ".join(normalise(text))


def half(question: str) -> str:
    return "tune" if hashlib.sha1(question.encode()).digest()[0] % 2 == 0 else "report"


def finance_filings(corpus: Path) -> list[Path]:
    folder = corpus / "financebench" / "pdfs"
    rows = _finance_rows(corpus)
    docs = sorted({r["doc_name"] for r in rows if (folder / f"{r['doc_name']}.pdf").is_file()})
    return [folder / f"{d}.pdf" for d in sorted(random.Random(SEED).sample(docs, FILINGS))]


def _finance_rows(corpus: Path) -> list[dict[str, Any]]:
    path = corpus / "financebench" / "financebench_open_source.jsonl"
    return [json.loads(line) for line in path.open()]


def finance_questions(corpus: Path) -> list[dict[str, Any]]:
    names = {p.stem: p for p in finance_filings(corpus)}
    out = []
    for row in _finance_rows(corpus):
        if row["doc_name"] in names:
            evidence = row["evidence"]
            gold_pages = {(f"{e['doc_name']}.pdf", e["evidence_page_num"] + 1) for e in evidence}
            out.append(
                {
                    "question": row["question"],
                    "gold": row["answer"],
                    "golds": [row["answer"]],
                    "figures": numbers(row["answer"]),
                    "gold_pages": sorted(gold_pages),
                }
            )
    return out


def covid_questions(corpus: Path, n: int) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (corpus / "covid-qa" / "questions.jsonl").open()]
    out = []
    for row in random.Random(SEED).sample(rows, n):
        out.append(
            {
                "question": row["question"],
                "gold": row["answers"][0],
                "golds": list(row["answers"]),
                "gold_pages": [(Path(row["pdf"]).name, row["answer_page"])],
            }
        )
    return out


def ask(app: Any, question: str, history: list[Any]) -> dict[str, Any]:
    from desktop_rag.types import DoneEvent, QuotesEvent, SourcesEvent

    sources: tuple[Any, ...] = ()
    quotes: tuple[Any, ...] = ()
    done = None
    for event in app.answer.ask(question, history):
        if isinstance(event, SourcesEvent):
            sources = event.sources
        elif isinstance(event, QuotesEvent):
            quotes = event.quotes
        elif isinstance(event, DoneEvent):
            done = event
    assert done is not None
    return {
        "question": question,
        "answer": done.answer,
        "cited": list(done.cited),
        "refused": done.refused,  # by retrieval or by the model (the claim check is off)
        "support": round(done.support, 4),
        "unsupported": list(done.unsupported),
        "sources": [(Path(s.path).name, s.page) for s in sources],
        "cited_pages": [(Path(s.path).name, s.page) for s in sources if s.n in done.cited],
        "top_quote": quotes[0].text if quotes else "",
        "ttft_s": round(done.timings.ttft_s, 3),
        "total_s": round(done.timings.total_s, 3),
    }


def refused_at(row: dict[str, Any], threshold: float) -> bool:
    """Whether the service refuses this answer with the claim check at this threshold."""
    return row["refused"] or (row["support"] < threshold and bool(content(row["answer"])))


def build(name: str, paths: list[Path], data: Path) -> Any:
    from desktop_rag.app import build_app
    from desktop_rag.config import Settings

    app = build_app(Settings(data_dir=str(data / name)))
    t0 = time.perf_counter()
    report = app.ingest.index([str(p) for p in paths])
    print(
        f"{name}: {report.indexed} indexed, {report.unchanged} unchanged, "
        f"{app.store.count_chunks()} chunks, {time.perf_counter() - t0:.0f} s",
        file=sys.stderr,
    )
    return app


def run_set(name: str, app: Any, questions: list[dict[str, Any]]) -> dict[str, Any]:
    from desktop_rag.types import Turn

    app.answer.refuse_below = 0.0  # applied afterwards, from each answer's support
    app.answer.warm_up()
    on: list[dict[str, Any]] = []
    for i, q in enumerate(questions, 1):
        row = ask(app, q["question"], [])
        row.update(half=half(q["question"]), gold=q["gold"], gold_pages=q["gold_pages"])
        gold_pages = {tuple(p) for p in q["gold_pages"]}
        row["gold_retrieved"] = any(tuple(p) in gold_pages for p in row["sources"])
        row["gold_cited"] = any(tuple(p) in gold_pages for p in row["cited_pages"])
        said = content(row["answer"])
        row["f1"] = round(max(f1(said, g) for g in q["golds"]), 4)
        if name == "finance":
            figures = q["figures"]
            row["has_figure"] = bool(figures)
            scale = question_scale(q["question"])
            row["correct"] = any(number_match(said, g, scale) for g in figures)
        else:
            row["contained"] = any(contains(said, g) for g in q["golds"])
            row["in_top_quote"] = any(contains(row["top_quote"], g) for g in q["golds"])
        on.append(row)
        print(f"{name} {i}/{len(questions)} {row['answer'][:90]!r}", file=sys.stderr)
    alone = [ask(app, q, []) for q in OFF_TOPIC]
    follow = []
    for q, first in zip(OFF_TOPIC, on, strict=False):
        history = [Turn(first["question"], first["answer"])] if not first["refused"] else []
        row = ask(app, q, history)
        row["after"] = first["question"]
        follow.append(row)
    for row in alone + follow:
        row["half"] = half(row["question"])

    tune = [r for r in on if r["half"] == "tune"]
    # The highest threshold that keeps on-topic refusals within MAX_REFUSED on the tune half;
    # when even the claim check off (0) refuses more than that, the others do: 0, and it says so.
    within = [t for t in THRESHOLDS if _share(tune, lambda r, t=t: refused_at(r, t)) <= MAX_REFUSED]
    threshold = max(within, default=0.0)
    summary = {
        "threshold_chosen_on_tune_half": threshold,
        "refusals_within_target_on_tune_half": bool(within),
        "questions": len(on),
        "chunks": app.store.count_chunks(),
        "documents": len(app.store.documents()),
    }
    for part in ("report", "tune"):
        rows = [r for r in on if r["half"] == part]
        summary[part] = _figures(name, rows, threshold)
    # Off-topic questions are not split: none of them tuned anything.
    summary["off_topic"] = {
        "questions": len(alone),
        "refused": _share(alone, lambda r: refused_at(r, threshold)),
        "follow_ups": len(follow),
        "follow_ups_refused": _share(follow, lambda r: refused_at(r, threshold)),
        "follow_ups_citing_a_source": sum(
            bool(r["cited"]) and not refused_at(r, threshold) for r in follow
        ),
        "follow_ups_citing_with_the_check_off": sum(
            bool(r["cited"]) and not r["refused"] for r in follow
        ),
        "alone_citing_a_source": sum(
            bool(r["cited"]) and not refused_at(r, threshold) for r in alone
        ),
    }
    return {"summary": summary, "on_topic": on, "off_topic": alone, "off_topic_follow_ups": follow}


def _figures(name: str, rows: list[dict[str, Any]], threshold: float) -> dict[str, Any]:
    answered = [r for r in rows if not refused_at(r, threshold)]
    citing = [r for r in answered if r["cited"]]
    out: dict[str, Any] = {
        "questions": len(rows),
        "on_topic_refused": _share(rows, lambda r: refused_at(r, threshold)),
        "on_topic_refused_with_the_check_off": _share(rows, lambda r: r["refused"]),
        "citation_accuracy": _share(citing, lambda r: r["gold_cited"]),
        "answers_citing": len(citing),
        "gold_page_among_sources": _share(rows, lambda r: r["gold_retrieved"]),
        "flagged_check_this_answer": _share(answered, lambda r: bool(r["unsupported"])),
        # A refused answer scores 0: the measure is of what the user is given.
        "token_f1": _mean([r["f1"] if r in answered else 0.0 for r in rows]),
        "median_ttft_s": _median([r["ttft_s"] for r in rows]),
        "median_total_s": _median([r["total_s"] for r in rows]),
    }
    if name == "finance":
        numeric = [r for r in rows if r["has_figure"]]
        out["questions_with_a_figure"] = len(numeric)
        out["figure_within_1pct"] = _share(numeric, lambda r: r["correct"] and r in answered)
    else:
        out["gold_in_answer"] = _share(rows, lambda r: r["contained"] and r in answered)
        out["gold_in_top_quote"] = _share(rows, lambda r: r["in_top_quote"])
    return out


def _share(rows: list[dict[str, Any]], test: Any) -> float:
    return round(sum(bool(test(r)) for r in rows) / len(rows), 4) if rows else 0.0


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if ordered else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", default=str(CORPUS))
    parser.add_argument("--sets", default="covid,finance")
    parser.add_argument("--covid", type=int, default=60, help="covid-qa questions sampled")
    parser.add_argument("--data", default=str(DATA), help="the cached libraries")
    parser.add_argument("--build-only", action="store_true", help="build the libraries, stop")
    args = parser.parse_args()
    corpus = Path(args.corpus)
    data = Path(args.data)
    out: dict[str, Any] = {"load_average_at_start": list(os.getloadavg())}
    for name in [s for s in args.sets.split(",") if s]:
        if name == "covid":
            paths = sorted((corpus / "covid-qa" / "pdf").glob("*.pdf"))
            questions = covid_questions(corpus, args.covid)
        else:
            paths = finance_filings(corpus)
            questions = finance_questions(corpus)
        app = build(name, paths, data)
        if not args.build_only:
            out[name] = run_set(name, app, questions)
    out["load_average_at_end"] = list(os.getloadavg())
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
