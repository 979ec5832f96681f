"""Time from a question to the first words of its answer, idle and while indexing runs.

The composed answer (the bundled model's) needs no model: retrieval, the gate and one batch of
sentence embeddings. The written one waits for the model to read its prompt. Both are timed on
covid-qa's library (bench/answer_facts.py builds it), over the same questions, first idle,
then while `desktop-rag index` reads financebench filings into another library in a second
process (the user dropped a folder and asked at once).

With --model, the written answers are a model's the user brings (the answers issue's 0.5B and
1.5B teachers stand in), and their tokens per second are reported too; the composed answers
and refusals it never reads a prompt for are timed apart from those it writes.

Usage: python -m bench.answer_latency [--questions 30] [--written 10] [--filings 6]
           [--model FILE.gguf]
Prints one JSON document: per condition and mode, the median, 90th percentile and worst.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.perfutil import ANSWER_DATA as DATA
from bench.perfutil import CORPUS, machine, open_library, set_mode, set_questions


def first_words(app: Any, question: str) -> float:
    return answer_times(app, question)[0]


def answer_times(app: Any, question: str) -> tuple[float, float, str]:
    """Seconds to the first words, the model's tokens per second (0 when it wrote nothing),
    and who wrote the answer ("written", "composed", or "refused")."""
    from desktop_rag.types import DoneEvent, TokenEvent

    t0 = time.perf_counter()
    first = 0.0
    rate, mode = 0.0, ""
    for event in app.answer.ask(question):
        if isinstance(event, TokenEvent) and not first:
            first = time.perf_counter() - t0
        elif isinstance(event, DoneEvent):
            rate = event.timings.tokens_per_s
            mode = "refused" if event.refused else event.mode
            if event.withheld:
                mode = "written"  # the model wrote; what is shown was chosen after
    return first, rate, mode


def figures(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "n": len(values),
        "median_s": round(statistics.median(ordered), 3),
        "p90_s": round(ordered[int(0.9 * (len(ordered) - 1))], 3),
        "max_s": round(ordered[-1], 3),
    }


def measure(app: Any, questions: list[str], written: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    set_mode(app, "composed")
    out["composed"] = figures([first_words(app, q) for q in questions])
    if written:
        set_mode(app, "written")
        app.answer.llm.load()
        runs = [answer_times(app, q) for q in questions[:written]]
        wrote = [r for r in runs if r[2] == "written"]
        out["written"] = figures([r[0] for r in wrote]) if wrote else {"n": 0}
        if wrote:
            out["written"]["tokens_per_s"] = round(statistics.median(r[1] for r in wrote), 2)
        out["written"]["not_written"] = (
            figures([r[0] for r in runs if r[2] != "written"])
            if (len(wrote) < len(runs))
            else {"n": 0}
        )
        set_mode(app, "composed")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--written", type=int, default=10)
    parser.add_argument("--filings", type=int, default=6)
    parser.add_argument("--model", default="", help="a GGUF the user brings, for the written")
    args = parser.parse_args()
    qs, paths = set_questions("covid", args.questions)
    app = open_library("covid", paths, model=args.model)
    questions = [q["question"] for q in qs]
    first_words(app, questions[0])  # load the embedder and warm the caches, as the window does
    result: dict[str, Any] = {"machine": machine(), "library": str(DATA / "covid")}
    result["model"] = app.answer.llm.name
    result["idle"] = measure(app, questions, args.written)

    filings = sorted((CORPUS / "financebench" / "pdfs").glob("*.pdf"))[: args.filings]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "drop"
        folder.mkdir()
        for f in filings:
            os.symlink(f, folder / f.name)
        job = subprocess.Popen(
            [sys.executable, "-m", "desktop_rag", "index", str(folder), "--data-dir", tmp + "/d"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(8)  # past its imports: reading and embedding
        try:
            result["while_indexing"] = measure(app, questions, args.written)
            result["while_indexing"]["index_still_running"] = job.poll() is None
        finally:
            job.terminate()
            job.wait(timeout=60)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
