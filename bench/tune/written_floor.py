"""Which pages a model that writes reads: the words and gold pages a floor keeps, and the answers.

A model the user brings reads the first pages found; `AnswerService.written_floor` leaves out
the pages after the last one that answers (cited by the composed answer, or a sentence the
cross-encoder gives at least the floor). For each floor, over the tune half's questions the
composed answer answers: the words of the pages read against the first four, and the gold pages
among them. With --model, the questions a floor shortens are asked of that model with the floor
at 0 and at `--floor` (the others read the same prompt either way): states the fact, and the
prompt's tokens. Sets: bench/answer_facts.py's manuals (gnuplot left out) and covid-qa on the
articles the reranker never saw.

    python -m bench.tune.written_floor [--floors 0.05,0.1,0.2] [--model QWEN.gguf --floor 0.1
        --limit 10] [--sets manuals,covid] [--split tune]
Prints one JSON document.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from typing import Any

from bench.perfutil import answer_one, open_library, plain, set_mode, set_questions, states


@dataclass(frozen=True)
class Read:
    """What a writing model could read for a question: the first pages (each with its words and
    gold mark filled in later), the composed answer, and the service's page limit."""

    pages: list[dict[str, Any]]
    composed: Any
    most: int | None

    def kept(self, floor: float) -> int:
        """How many of the pages the floor keeps: the service's own rule."""
        from desktop_rag.query.answer import pages_read

        return min(
            len(self.pages),
            pages_read(self.composed, len(self.pages), self.most, floor) or len(self.pages),
        )


def pages_read(app: Any, question: str) -> Read:
    """The first pages a writing model could read for `question`, each with its words (none
    when the composed answer refuses)."""
    from desktop_rag.query import follow_up
    from desktop_rag.query.prompt import number_sources

    service = app.answer
    hits = app.retriever.search(question, k=service.k)
    numbered = number_sources(service.whole_sentences(hits))
    composed = service.compose(follow_up.answer_query(question, ()), numbered)
    if not composed.text:
        return Read([], composed, service.written_sources)
    first = numbered[: service.written_sources or len(numbered)]
    pages = [
        {"page": (os.path.basename(s.path), s.page), "words": len(s.text.split())} for s in first
    ]
    return Read(pages, composed, service.written_sources)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="manuals,covid")
    parser.add_argument("--split", default="tune")
    parser.add_argument("--floors", default="0.05,0.1,0.2")
    parser.add_argument("--model", default="", help="a GGUF that writes (the 0.5B or 1.5B)")
    parser.add_argument("--floor", type=float, default=0.1)
    parser.add_argument("--limit", type=int, default=0, help="ask at most this many questions")
    args = parser.parse_args()
    floors = [float(f) for f in args.floors.split(",")]
    out: dict[str, Any] = {"split": args.split, "sets": {}}
    for name in args.sets.split(","):
        qs, paths = set_questions(name, 300, "held_out")
        qs = [q for q in qs if q["split"] == args.split]
        app = open_library(name, paths, model=args.model)
        rows = []
        for q in qs:
            gold = {(os.path.basename(p), int(n)) for p, n in q["gold_pages"]}
            read = pages_read(app, q["question"])
            rows.append((q, read, [tuple(p["page"]) in gold for p in read.pages]))
        answered = [r for r in rows if r[1].pages]
        every = sum(p["words"] for _, read, _ in answered for p in read.pages)
        result: dict[str, Any] = {"questions": len(qs), "answered": len(answered), "floors": {}}
        for floor in floors:
            n_kept = [read.kept(floor) for _, read, _ in answered]
            words = sum(
                sum(p["words"] for p in read.pages[:k])
                for (_, read, _), k in zip(answered, n_kept, strict=True)
            )
            gold_lost = sum(
                1
                for (_, _, golds), k in zip(answered, n_kept, strict=True)
                if any(golds) and not any(golds[:k])
            )
            result["floors"][str(floor)] = {
                "shortened": sum(
                    1
                    for (_, read, _), k in zip(answered, n_kept, strict=True)
                    if k < len(read.pages)
                ),
                "words_read_share": round(words / every, 3) if every else 1.0,
                "gold_page_lost": gold_lost,
            }
        if args.model:
            result["asked"] = ask(app, name, answered, args.floor, args.limit)
        out["sets"][name] = result
        print(json.dumps({name: result}), file=sys.stderr)
    print(json.dumps(out, indent=1))
    return 0


def ask(app: Any, name: str, answered: list[Any], floor: float, limit: int) -> dict[str, Any]:
    """The questions the floor shortens, asked with the floor at 0 and at `floor`."""
    set_mode(app, "written")
    llm = app.answer.llm
    llm.load()
    shortened = [q for q, read, _ in answered if read.kept(floor) < len(read.pages)]
    if limit:
        shortened = shortened[:limit]
    real = llm.stream
    read: dict[str, int] = {}

    def counting(prompt: Any, max_tokens: int, cancel: Any = None) -> Any:
        text = "\n".join(c for _, c in prompt.messages) if prompt.is_chat else prompt.text
        read["tokens"] = llm.count_tokens(text)
        return real(prompt, max_tokens, cancel)

    llm.stream = counting
    rows = []
    for q in shortened:
        row: dict[str, Any] = {"question": q["question"]}
        for f in (0.0, floor):
            app.answer.written_floor = f
            read["tokens"] = 0
            r = answer_one(app, q["question"])
            said = (not r["refused"]) and states(name, plain(r["answer"]), q)
            row[str(f)] = {"states": said, "mode": r["mode"], "prompt_tokens": read["tokens"]}
        rows.append(row)
        print(name, len(rows), len(shortened), row, file=sys.stderr, flush=True)
    app.answer.written_floor = floor
    return {
        "questions": len(rows),
        "states_at_0": sum(r["0.0"]["states"] for r in rows),
        f"states_at_{floor}": sum(r[str(floor)]["states"] for r in rows),
        "prompt_tokens_at_0": sum(r["0.0"]["prompt_tokens"] for r in rows),
        f"prompt_tokens_at_{floor}": sum(r[str(floor)]["prompt_tokens"] for r in rows),
        "rows": rows,
    }


if __name__ == "__main__":
    sys.exit(main())
