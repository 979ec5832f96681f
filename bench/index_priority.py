"""Time to first token of a question asked while a library is being indexed, against idle.

As in the window: one process, the answer on one thread and indexing on another (its own app
over its own index, with the real embedder and reader processes). Four conditions, each a
few questions, in one run:
- idle: nothing else of ours runs;
- indexing at low priority (the indexing thread, the threads it starts and the reader
  processes at nice 10, idle-class I/O), going on while the question is answered;
- indexing at normal priority (the indexing thread left as it is; the readers stay low);
- indexing at low priority that waits while the answer is written, as the window does
  (gui/session.py holds the index job between batches until the answer is done).
The question's index is a small library built first; the one being indexed is generated.

Usage: python -m bench.index_priority [--files 600] [--questions 3]
Prints one JSON document (also kept in bench/out/index_priority.json).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.perfutil import emit, machine, say

QUESTIONS = [
    "What does the report say about the budget for the coming quarter?",
    "Which supplier handled the delivery schedule?",
    "How is the insurance claim approved?",
]


def _ttft(app: Any, question: str, hold: threading.Event | None = None) -> tuple[float, float]:
    """Time to first token and retrieval's share of it, in seconds."""
    from desktop_rag.types import DoneEvent

    if hold is not None:
        hold.set()
    try:
        for event in app.answer.ask(question):
            if isinstance(event, DoneEvent):
                return float(event.timings.ttft_s), event.timings.retrieval_ms / 1000.0
    finally:
        if hold is not None:
            hold.clear()
    raise RuntimeError("no answer")


def _indexing(
    tmp: Path, library: Path, low: bool, pause: threading.Event
) -> tuple[threading.Thread, threading.Event]:
    from desktop_rag.app import build_app
    from desktop_rag.config import Settings

    data = tmp / f"data-{'low' if low else 'normal'}"
    shutil.rmtree(data, ignore_errors=True)
    app = build_app(Settings(data_dir=str(data)))
    app.ingest.low_priority = low
    cancel = threading.Event()
    started = threading.Event()

    def on_progress(p: Any) -> None:
        if p.stage == "indexing":
            started.set()

    thread = threading.Thread(
        target=app.index,
        args=([str(library)], on_progress, cancel),
        kwargs={"pause": pause},
        daemon=True,
    )
    thread.start()
    started.wait(300)
    time.sleep(3)  # well into embedding
    return thread, cancel


def main() -> int:
    from bench.small_files import make_library
    from desktop_rag.app import build_app
    from desktop_rag.config import Settings

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=600)
    parser.add_argument("--questions", type=int, default=3)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-priority-"))
    result: dict[str, Any] = {"machine": machine()}
    try:
        small = tmp / "small"
        make_library(small, 40, seed=3)
        big = tmp / "big"
        make_library(big, args.files, seed=4)
        asker = build_app(Settings(data_dir=str(tmp / "data-ask")))
        asker.index([str(small)])
        asker.answer.warm_up()
        _ttft(asker, QUESTIONS[0])  # the model's first load is not a time to first token
        questions = (QUESTIONS * args.questions)[: args.questions]
        conditions: dict[str, list[float]] = {}
        retrieval: dict[str, list[float]] = {}
        runs = (
            ("idle", None, False),
            ("indexing_low", True, False),
            ("indexing_normal", False, False),
            ("indexing_low_waiting", True, True),
        )
        for name, low, waits in runs:
            thread = cancel = None
            hold = threading.Event()
            if low is not None:
                thread, cancel = _indexing(tmp, big, low, hold)
            measured = [_ttft(asker, q, hold if waits else None) for q in questions]
            times = [t for t, _ in measured]
            retrieval[name] = [r for _, r in measured]
            still = thread is not None and thread.is_alive()
            if thread is not None and cancel is not None:
                cancel.set()
                thread.join(120)
            conditions[name] = times
            say(name, times, "(indexing still running)" if still else "")
            result[f"{name}_indexing_ran_throughout"] = bool(still) if low is not None else None
        result["ttft_s"] = {k: [round(t, 3) for t in v] for k, v in conditions.items()}
        result["ttft_s_median"] = {k: round(statistics.median(v), 3) for k, v in conditions.items()}
        result["retrieval_s_median"] = {
            k: round(statistics.median(v), 3) for k, v in retrieval.items()
        }
        idle = statistics.median(conditions["idle"])
        result["ratio_to_idle"] = {
            k: round(statistics.median(v) / idle, 2) for k, v in conditions.items() if k != "idle"
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    emit("index_priority", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
