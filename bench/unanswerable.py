"""Questions on a library's subjects that none of its documents answers: is each one refused?

bench/questions/unanswerable.jsonl holds questions asked the way users ask, on the subjects of
bench/answer_facts.py's manuals and covid-qa libraries, each with the key terms whose absence
makes it unanswerable there. Before asking, every term is looked for in the full text of the
library's passages (whole words, any case): a question whose term is there is set aside and
listed, not counted. Each remaining question is asked in the composed mode; a refusal ("your
documents don't seem to say" or "nothing about this") counts as right. Halves by question hash
(bench/perfutil.half): tune chose the threshold, report is what the README quotes.

    python -m bench.unanswerable [--rerank on|off] [--tag NAME]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from bench import perfutil
from bench.perfutil import half

QUESTIONS = Path(__file__).resolve().parent / "questions" / "unanswerable.jsonl"


def library_text(app: Any) -> str:
    table = app.store.chunks_table.to_arrow().select(["text"])
    return "\n".join(t.lower() for t in table.column("text").to_pylist())


def present(text: str, term: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(term.lower())}(?![\w])", text) is not None


def refused(part: list[dict[str, Any]]) -> dict[str, Any]:
    """How many questions, and the share refused."""
    return {
        "questions": len(part),
        "refused": round(sum(a["refused"] for a in part) / len(part), 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rerank", choices=("on", "off"), default="on")
    parser.add_argument("--tag", default="")
    parser.add_argument(
        "--answerable", type=float, default=None, help="the refusal threshold (0: never refuse)"
    )
    parser.add_argument(
        "--named-answerable",
        type=float,
        default=None,
        help="the threshold for questions about a name no passage mentions (0: never refuse)",
    )
    args = parser.parse_args()
    rows = [json.loads(line) for line in QUESTIONS.open() if line.strip()]
    out: dict[str, Any] = {"rerank": args.rerank}
    answers = []
    for name in sorted({r["set"] for r in rows}):
        _, paths = perfutil.set_questions(name, 1)
        app = perfutil.open_library(name, paths, rerank=args.rerank == "on")
        if args.answerable is not None:
            app.answer.answerable = args.answerable
        if args.named_answerable is not None:
            app.answer.named_answerable = args.named_answerable
        text = library_text(app)
        asked = []
        for r in (r for r in rows if r["set"] == name):
            found = [t for t in r["terms"] if present(text, t)]
            if found:
                out.setdefault("set_aside", []).append({"question": r["question"], "found": found})
                continue
            row = perfutil.answer_one(app, r["question"])
            row.update(question=r["question"], set=name, split=half(r["question"]))
            asked.append(row)
            print(f"{name}: {row['refused']} {r['question']}", file=sys.stderr)
        answers += asked
        for split in ("tune", "report"):
            part = [a for a in asked if a["split"] == split]
            if part:
                out[f"{name}/{split}"] = refused(part)
    for split in ("tune", "report"):
        part = [a for a in answers if a["split"] == split]
        if part:
            out[f"all/{split}"] = refused(part)
            if all(a.get("answerable") is not None or a["refused"] for a in part):
                # Refused at each threshold, from a run that refuses nothing (--answerable 0).
                out[f"all/{split}"]["by_threshold"] = {
                    f"{t:.2f}": round(
                        sum(a["refused"] or (a.get("answerable") or 0.0) < t for a in part)
                        / len(part),
                        3,
                    )
                    for t in (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7)
                }
    tag = f"-{args.tag}" if args.tag else ""
    dump = perfutil.ANSWER_DATA / f"unanswerable-{args.rerank}{tag}.json"
    dump.write_text(json.dumps(answers, indent=1))
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
