"""Complete answers: the share of answers that end unfinished, before and after, in one run.

"before" is the answer as it was: stopped at the first line break, nothing else watched.
"after" is today's: several lines and lists allowed, stopped by the base model's runaway
patterns (query/runaway.py and the prompt's stop strings), bounded in tokens; with
--continue-lists, also a list the answer announced started for the model when it was cut
before its first item.

Each answer ends one of four ways: complete (a sentence's end, or a refusal), on a colon, on a
list's first item, or mid-sentence. The questions are covid-qa's, about the first --docs
articles, spread over them (as bench/quotes.py picks them), through the answer service with
the real bundled model, as `desktop-rag ask` runs it. Token F1 against the gold answers is
reported beside, to show what the longer answers cost or bring.

Usage: python -m bench.complete [--docs 10] [--questions 20] [--data-dir DIR]
Prints one JSON document; also written to bench/out/complete.json.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.answer_quality import content, f1
from bench.perfutil import emit, machine, say
from bench.quotes import covid
from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.query import answer as answer_module
from desktop_rag.query import prompt
from desktop_rag.query.prompt import MODEL_NOT_FOUND, NOTHING_RELEVANT
from desktop_rag.types import DoneEvent

BEFORE_STOP = ("\n", "Question:", "Sources:", "<end_of_turn>", "<eos>")
_TRAILING_CITATIONS = re.compile(r"(?:\s*\[\d+(?:\s*[,;–-]\s*\d+)*\])+\s*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


class Passthrough:
    """The answer as before: every piece kept, nothing watched."""

    stopped = False

    def __init__(self) -> None:
        self.text = ""

    def feed(self, piece: str) -> str:
        self.text += piece
        return piece

    def resume(self) -> None:
        pass

    def answer(self, hit_limit: bool = False) -> str:
        return self.text.strip()


def ending(answer: str) -> str:
    """complete, colon, first_list_item or mid_sentence."""
    text = answer.strip()
    if not text or text in (NOTHING_RELEVANT, MODEL_NOT_FOUND) or MODEL_NOT_FOUND in text:
        return "complete"
    lines = [line for line in text.splitlines() if line.strip()]
    items = [line for line in lines if _LIST_ITEM.match(line)]
    if _LIST_ITEM.match(lines[-1]):
        # A list of two or more items ends complete even without a full stop.
        return "first_list_item" if len(items) == 1 else "complete"
    bare = _TRAILING_CITATIONS.sub("", text).rstrip()
    if bare.endswith(":"):
        return "colon"
    if re.search(r"[.!?][\"'”)\]]*$", bare):
        return "complete"
    return "mid_sentence"


def run(app: Any, questions: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    rows = []
    for i, q in enumerate(questions, 1):
        done = None
        t0 = time.perf_counter()
        for event in app.answer.ask(q["question"]):
            if isinstance(event, DoneEvent):
                done = event
        assert done is not None
        rows.append(
            {
                "question": q["question"],
                "answer": done.answer,
                "ending": ending(done.answer),
                "lines": len([x for x in done.answer.splitlines() if x.strip()]),
                "tokens": app.answer.llm.last_generation.generated_tokens
                if not done.refused
                else 0,
                "f1": round(max(f1(content(done.answer), g) for g in q["answers"]), 4),
                "total_s": round(time.perf_counter() - t0, 2),
            }
        )
        say(f"{name} {i}/{len(questions)} {rows[-1]['ending']} {done.answer!r}")
    return rows


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    counts = {
        k: sum(r["ending"] == k for r in rows)
        for k in ("complete", "colon", "first_list_item", "mid_sentence")
    }
    return {
        "questions": n,
        "unfinished_share": round(1 - counts["complete"] / n, 4) if n else 0.0,
        "endings": counts,
        "multi_line_answers": sum(r["lines"] > 1 for r in rows),
        "median_tokens": statistics.median(r["tokens"] for r in rows) if rows else 0,
        "max_tokens": max((r["tokens"] for r in rows), default=0),
        "mean_f1": round(statistics.mean(r["f1"] for r in rows), 4) if rows else 0.0,
        "median_total_s": statistics.median(r["total_s"] for r in rows) if rows else 0.0,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=10)
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--data-dir", default="", help="the library goes here (reused)")
    parser.add_argument("--continue-lists", action="store_true")
    parser.add_argument(
        "--configs", default="before,after", help="which to run (both by default, in one run)"
    )
    args = parser.parse_args()
    configs = [c for c in args.configs.split(",") if c]
    # --continue-lists measures the list start the service leaves off (see AnswerService).

    questions = covid(args.docs, args.questions)
    base = Path(args.data_dir) if args.data_dir else Path(tempfile.mkdtemp(prefix="complete-"))
    app = build_app(Settings(data_dir=str(base / "covid")))
    report = app.ingest.index(sorted({q["pdf"] for q in questions}))
    say(f"{report.indexed} indexed, {report.unchanged} unchanged")
    app.answer.warm_up()
    limit = app.answer.answer_tokens

    runs: dict[str, list[dict[str, Any]]] = {}
    if "before" in configs:
        after_stop, guard = prompt.COMPLETION_STOP, answer_module.Runaway
        prompt.COMPLETION_STOP = BEFORE_STOP
        answer_module.Runaway = Passthrough  # type: ignore[misc, assignment]
        app.answer.continue_lists = False
        try:
            runs["before"] = run(app, questions, "before")
        finally:
            prompt.COMPLETION_STOP, answer_module.Runaway = after_stop, guard
            app.answer.continue_lists = True
    if "after" in configs:
        app.answer.continue_lists = args.continue_lists
        runs["after"] = run(app, questions, "after")
    out: dict[str, Any] = {"machine": machine(), "answer_tokens": limit}
    out.update({name: summary(rows) for name, rows in runs.items()})
    out["results"] = [
        {"question": q["question"], **{name: rows[i] for name, rows in runs.items()}}
        for i, q in enumerate(questions)
    ]
    for pair in out["results"]:
        for name in runs:
            pair[name].pop("question", None)
    emit("complete", out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
