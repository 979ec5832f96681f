"""Time from a question to the first words of its answer, idle and while indexing runs.

The composed answer (the bundled model's) needs no model: retrieval, the gate and one batch of
sentence embeddings. The written one waits for the model to read its prompt. Both are timed on
covid-qa's library (bench/answer_facts.py builds it), over the same questions, first idle,
then while `desktop-rag index` reads financebench filings into another library in a second
process (the user dropped a folder and asked at once).

Usage: python -m bench.answer_latency [--questions 30] [--written 10] [--filings 6]
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

from bench.answer_facts import DATA, open_library, set_mode, set_questions
from bench.perfutil import CORPUS, machine


def first_words(app: Any, question: str) -> float:
    from desktop_rag.types import TokenEvent

    t0 = time.perf_counter()
    first = 0.0
    for event in app.answer.ask(question):
        if isinstance(event, TokenEvent) and not first:
            first = time.perf_counter() - t0
    return first


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
        out["written"] = figures([first_words(app, q) for q in questions[:written]])
        set_mode(app, "composed")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--written", type=int, default=10)
    parser.add_argument("--filings", type=int, default=6)
    args = parser.parse_args()
    qs, paths = set_questions("covid", args.questions)
    app = open_library("covid", paths)
    questions = [q["question"] for q in qs]
    first_words(app, questions[0])  # load the embedder and warm the caches, as the window does
    result: dict[str, Any] = {"machine": machine(), "library": str(DATA / "covid")}
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
