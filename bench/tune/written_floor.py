"""Which pages a model that writes reads: the words and gold pages a floor keeps, and the answers.

A model the user brings reads the first pages found; `AnswerService.written_floor` leaves out
the pages after the last one that answers (cited by the composed answer, or a sentence the
cross-encoder gives at least the floor). For each floor, over the tune half's questions the
composed answer answers: the words of the pages read against the first four, and the gold pages
among them. With --model, the questions a floor shortens are asked of that model with the floor
at 0 and at `--floor` (the others read the same prompt either way): states the fact, and the
prompt's tokens. Sets: bench/answer_facts.py's manuals (gnuplot left out) and covid-qa on the
articles the reranker never saw.

With --brief, the same for `AnswerService.written_brief` (the service's floor kept): a page read
that the composed answer does not cite and whose best sentence is below the value is given by
that sentence alone; "gold_page_briefed" counts the questions whose every gold page read is so
given, and --model asks those it changes at 0 and at `--floor`.

    python -m bench.tune.written_floor [--floors 0.05,0.1,0.2] [--model QWEN.gguf --floor 0.1
        --limit 10] [--sets manuals,covid] [--split tune] [--brief]
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
    floor: float = 0.0  # the service's, for the brief

    def kept(self, floor: float) -> int:
        """How many of the pages the floor keeps: the service's own rule."""
        from desktop_rag.query.answer import pages_read

        return min(
            len(self.pages),
            pages_read(self.composed, len(self.pages), self.most, floor) or len(self.pages),
        )

    def briefed(self, below: float) -> set[int]:
        """The numbers of the pages read (at the service's floor) given by their best sentence
        alone: the service's own rule."""
        from desktop_rag.query.answer import briefs

        kept = self.kept(self.floor)
        return {n for n in briefs(self.composed, below) if n <= kept}

    def words(self, knob: str, value: float) -> int:
        """The words the model reads with the floor, or the brief, at `value`."""
        if knob == "floor":
            return sum(p["words"] for p in self.pages[: self.kept(value)])
        short = self.briefed(value)
        leads = dict(self.composed.leads)
        return sum(
            len(leads[n].split()) if n in short else p["words"]
            for n, p in enumerate(self.pages[: self.kept(self.floor)], 1)
        )

    def changed(self, knob: str, value: float) -> bool:
        if knob == "floor":
            return self.kept(value) < len(self.pages)
        return bool(self.briefed(value))

    def gold_lost(self, knob: str, value: float, golds: list[bool]) -> bool:
        """Whether every gold page among the first is left out (floor) or briefed (brief)."""
        if not any(golds):
            return False
        if knob == "floor":
            return not any(golds[: self.kept(value)])
        short = self.briefed(value)
        kept = self.kept(self.floor)
        return not any(g and n not in short for n, g in enumerate(golds[:kept], 1))


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
        return Read([], composed, service.written_sources, service.written_floor)
    first = numbered[: service.written_sources or len(numbered)]
    pages = [
        {"page": (os.path.basename(s.path), s.page), "words": len(s.text.split())} for s in first
    ]
    return Read(pages, composed, service.written_sources, service.written_floor)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="manuals,covid")
    parser.add_argument("--split", default="tune")
    parser.add_argument("--floors", default="0.05,0.1,0.2")
    parser.add_argument("--model", default="", help="a GGUF that writes (the 0.5B or 1.5B)")
    parser.add_argument("--floor", type=float, default=0.1)
    parser.add_argument("--limit", type=int, default=0, help="ask at most this many questions")
    parser.add_argument("--brief", action="store_true", help="the brief, not the floor")
    args = parser.parse_args()
    floors = [float(f) for f in args.floors.split(",")]
    knob = "brief" if args.brief else "floor"
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
            words = sum(read.words(knob, floor) for _, read, _ in answered)
            result["floors"][str(floor)] = {
                "shortened": sum(1 for _, read, _ in answered if read.changed(knob, floor)),
                "words_read_share": round(words / every, 3) if every else 1.0,
                f"gold_page_{'lost' if knob == 'floor' else 'briefed'}": sum(
                    1 for _, read, golds in answered if read.gold_lost(knob, floor, golds)
                ),
            }
        if args.model:
            result["asked"] = ask(app, name, answered, args.floor, args.limit, knob)
        out["sets"][name] = result
        print(json.dumps({name: result}), file=sys.stderr)
    print(json.dumps(out, indent=1))
    return 0


def ask(
    app: Any, name: str, answered: list[Any], floor: float, limit: int, knob: str = "floor"
) -> dict[str, Any]:
    """The questions the floor (or the brief) shortens, asked with it at 0 and at `floor`."""
    set_mode(app, "written")
    llm = app.answer.llm
    llm.load()
    setting = f"written_{knob}"
    kept = getattr(app.answer, setting)
    shortened = [q for q, read, _ in answered if read.changed(knob, floor)]
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
            setattr(app.answer, setting, f)
            read["tokens"] = 0
            r = answer_one(app, q["question"])
            said = (not r["refused"]) and states(name, plain(r["answer"]), q)
            row[str(f)] = {"states": said, "mode": r["mode"], "prompt_tokens": read["tokens"]}
        rows.append(row)
        print(name, len(rows), len(shortened), row, file=sys.stderr, flush=True)
    setattr(app.answer, setting, kept)
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
