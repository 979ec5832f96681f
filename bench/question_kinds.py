"""How often the question router (desktop_rag/query/kind.py) picks the right kind.

Questions of three kinds:
- passage: every question of the corpus written by others (covid-qa's 1,380, financebench's
  150, docugami's 195), this project's manual questions (facts, paraphrases, section titles),
  and 40 passage questions written here to look like the other kinds ("How many days are in a
  leap year?", "Which files does apt keep in /var/cache?");
- document and library: bench/questions/kinds.jsonl, written here (110 and 107).

Each question is on the tune or the report half by a hash of its text; the rules were written
looking at the tune half's errors only. The target (issue 33): no passage question routed
elsewhere in more than 2%.

    python -m bench.question_kinds [--show tune|report]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
from collections import Counter
from pathlib import Path

from bench.perfutil import CORPUS, read_jsonl
from desktop_rag.query.kind import KINDS, PASSAGE, route

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "questions"


def half(question: str) -> str:
    digest = hashlib.sha256(question.strip().lower().encode("utf-8")).digest()
    return "tune" if digest[0] % 2 == 0 else "report"


def questions() -> list[tuple[str, str, str]]:
    """(question, kind, where it comes from)."""
    rows = [
        (str(r["question"]), str(r["kind"]), "written")
        for r in read_jsonl(QUESTIONS / "kinds.jsonl")
    ]
    for name in ("manuals-facts", "manuals-paraphrases", "manuals-titles"):
        rows += [
            (str(r["question"]), PASSAGE, name) for r in read_jsonl(QUESTIONS / f"{name}.jsonl")
        ]
    rows += [
        (str(r["question"]), PASSAGE, "covid-qa")
        for r in read_jsonl(CORPUS / "covid-qa" / "questions.jsonl")
    ]
    rows += [
        (str(r["question"]), PASSAGE, "financebench")
        for r in read_jsonl(CORPUS / "financebench" / "financebench_open_source.jsonl")
    ]
    with (CORPUS / "docugami-10q" / "qna_data.csv").open(encoding="utf-8-sig") as f:
        rows += [(r["Question"], PASSAGE, "docugami") for r in csv.DictReader(f)]
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", choices=("tune", "report"), help="print that half's errors")
    args = parser.parse_args()
    rows = questions()
    result: dict[str, object] = {}
    for which in ("tune", "report"):
        seen = [(q, kind, src) for q, kind, src in rows if half(q) == which]
        per_kind: dict[str, dict[str, object]] = {}
        for kind in KINDS:
            mine = [(q, src) for q, k, src in seen if k == kind]
            routed = Counter(route(q).kind for q, _ in mine)
            per_kind[kind] = {
                "questions": len(mine),
                "right": round(routed[kind] / len(mine), 4) if mine else None,
                "routed": dict(routed),
            }
            if args.show == which:
                for q, src in mine:
                    got = route(q)
                    if got.kind != kind:
                        print(f"{kind} -> {got.kind} ({got.rule}) [{src}]: {q}", file=sys.stderr)
        passages = [q for q, k, _ in seen if k == PASSAGE]
        sent_away = sum(route(q).kind != PASSAGE for q in passages)
        per_kind["passage_sent_elsewhere"] = {
            "count": sent_away,
            "share": round(sent_away / len(passages), 4),
        }
        result[which] = per_kind
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
