"""Does the answer a user reads state the fact? Scored on the answer's own words, per mode.

Sets (each library built once under bench/data/facts/, git-ignored):
- manuals: bench/questions/manuals-facts.jsonl, questions written the way users ask about the
  manuals of bench/manuals.py (the Debian FAQ and the R FAQ left out), each with its page and
  the must-words of its fact; states the fact = at least half of the must-words in the text.
  The library is every manual its questions name (so nothing is tuned on the FAQs).
- covid: --covid questions of covid-qa drawn at random (seed 0) over all 98 articles; states
  the fact = a gold answer contained in the text (normalised, SQuAD style).
- finance: financebench's questions with a figure on bench/retrieval.py's 14 filings; states
  the fact = a figure within 1% of the gold one.
Every set is split in halves (manuals by the split its questions carry, the others by a hash of
the question, as bench/answer_quality.py): choose on "tune", report "report".

Modes (the real service, bundled model and embedder, LanceDB on disk):
- composed: the answer built from the sources' own sentences (query/compose.py);
- written-before: the model writes, with the guards of the previous release (an unbacked
  answer flagged or withheld);
- written: the model writes, and an answer its cited sources do not back is replaced by the
  composed one (what a model judged able to write gets).
For each answer: states the fact (the text the user reads, citations dropped); beside it the
ceiling retrieval allows (the first source passage states it), any source, the first quote;
contradicts or invents (an answer shown with a name, term or figure its cited sources lack,
by the claims check); refused; its length in words; the time to its first words.

Usage: python -m bench.answer_facts [--sets manuals,covid,finance] [--modes composed]
           [--covid 80] [--tag TAG] [--model FILE.gguf] [--only tune|report]
       python -m bench.answer_facts --rescore bench/data/facts/answers-*.json
       python -m bench.answer_facts --replay FILE... [--variants V,...] [--splits tune]
Answers are kept in bench/data/facts/answers-SET-MODE[-TAG].json; prints one JSON document.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

from bench.perfutil import (
    ANSWER_DATA,
    UNTUNED,
    answer_one,
    gold_words,
    open_library,
    plain,
    set_mode,
    set_questions,
    states,
)

DATA = ANSWER_DATA
MODES = ("composed", "written-before", "written")


def invents(app: Any, row: dict[str, Any], question: str) -> bool:
    """An answer shown as an answer with a name, term or figure its cited sources lack."""
    from desktop_rag.query import claims

    if row["refused"] or not row["answer"]:
        return False
    if row["unsupported"] and not row.get("note"):
        return True  # shown, flagged "check this answer" (a replaced one is checked below)
    cited = [s["text"] for s in row["sources"] if s["n"] in row["cited"]] or [
        s["text"] for s in row["sources"]
    ]
    found = claims.check(
        row["answer"],
        cited,
        app.answer.rarity,
        also_read=[question],
        asked=[question],
        common=app.answer.common_words,
    )
    return bool(found.unsupported)


def run(name: str, mode: str, app: Any, qs: list[dict[str, Any]], out: Path) -> dict[str, Any]:
    rows = []
    for i, q in enumerate(qs):
        row = answer_one(app, q["question"])
        row.update(question=q["question"], split=q["split"])
        row["invents"] = invents(app, row, q["question"])
        rows.append(row)
        print(f"{name} {mode} {i + 1}/{len(qs)} {row['first_words_s']:.2f}s", file=sys.stderr)
    data = {"set": name, "mode": mode, "questions": qs, "rows": rows}
    out.write_text(json.dumps(data, indent=1))
    return data


def _gold_at(row: dict[str, Any], by_q: dict[str, Any], k: int) -> bool:
    gold = {(Path(p).name, int(n)) for p, n in by_q[row["question"]]["gold_pages"]}
    return any((Path(s["path"]).name, s["page"]) in gold for s in row["sources"][:k])


def summary(data: dict[str, Any]) -> dict[str, Any]:
    name = data["set"]
    by_q = {q["question"]: q for q in data["questions"]}
    result: dict[str, Any] = {}
    untuned = {
        q["question"]
        for q in data["questions"]
        if any(Path(p).name in UNTUNED for p, _ in q.get("gold_pages", []))
    }
    for split in ("tune", "report"):
        rows = [r for r in data["rows"] if r["split"] == split and r["question"] not in untuned]
        if not rows:
            continue
        n = len(rows)

        def share(test: Any, rows: list[dict[str, Any]] = rows, n: int = n) -> float:
            return round(sum(1 for r in rows if test(r)) / n, 3)

        shown = [r for r in rows if not r["refused"]]
        lengths = [len(plain(r["answer"]).split()) for r in shown]
        result[split] = {
            "questions": n,
            "states_fact": share(
                lambda r: not r["refused"] and states(name, plain(r["answer"]), by_q[r["question"]])
            ),
            **(
                {
                    "states_fact_in_words": share(
                        lambda r: (
                            not r["refused"] and gold_words(plain(r["answer"]), by_q[r["question"]])
                        )
                    )
                }
                if name == "covid"
                else {}
            ),
            "first_passage_holds": share(
                lambda r: (
                    bool(r["sources"])
                    and states(name, r["sources"][0]["text"], by_q[r["question"]])
                )
            ),
            "any_source_holds": share(
                lambda r: any(states(name, s["text"], by_q[r["question"]]) for s in r["sources"])
            ),
            "first_quote_holds": share(
                lambda r: (
                    bool(r["quotes"]) and states(name, r["quotes"][0]["text"], by_q[r["question"]])
                )
            ),
            # The gold page among the sources: first, and anywhere in the first five.
            "page_at_1": share(lambda r: _gold_at(r, by_q, 1)),
            "page_in_5": share(lambda r: _gold_at(r, by_q, 5)),
            "contradicts_or_invents": sum(1 for r in rows if r["invents"]),
            "refused": share(lambda r: r["refused"]),
            "replaced_by_composed": sum(1 for r in rows if r.get("note")),
            "median_words": statistics.median(lengths) if lengths else 0,
            "median_first_words_s": round(statistics.median(r["first_words_s"] for r in rows), 3),
        }
        sure = [r.get("answerable") for r in rows]
        if all(a is not None for a in sure):
            # What a threshold on the cross-encoder's probability would do to these answers
            # (run with --answerable 0, every answer shown): states the fact / refused.
            result[split]["by_threshold"] = {
                f"{t:.2f}": [
                    share(
                        lambda r, t=t: (
                            r["answerable"] >= t
                            and not r["refused"]
                            and states(name, plain(r["answer"]), by_q[r["question"]])
                        )
                    ),
                    share(lambda r, t=t: r["refused"] or r["answerable"] < t),
                ]
                for t in (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7)
            }
        ceiling = result[split]["first_passage_holds"]
        result[split]["of_ceiling"] = (
            round(result[split]["states_fact"] / ceiling, 3) if ceiling else None
        )
    return result


VARIANTS: dict[str, dict[str, Any]] = {
    "app": {},
    "no-rank": {"weights": (0.6, 0.4, 0.0)},
    "vector-only": {"weights": (1.0, 0.0, 0.0)},
    "terms-only": {"weights": (0.0, 1.0, 0.0)},
    "rank-heavy": {"weights": (0.4, 0.2, 0.4)},
    "one-sentence": {"MAX_SENTENCES": 1},
    "two-sentences": {"MAX_SENTENCES": 2},
    "budget-40": {"WORD_BUDGET": 40},
    "budget-80": {"WORD_BUDGET": 80},
    "keep-0.6": {"keep_ratio": 0.6},
    "keep-0.9": {"keep_ratio": 0.9},
    "top-2": {"TOP_SOURCES": 2},
    "top-6": {"TOP_SOURCES": 6},
    "keep-0.6-b80": {"keep_ratio": 0.6, "WORD_BUDGET": 80},
    "keep-0.6-b70": {"keep_ratio": 0.6, "WORD_BUDGET": 70},
    "keep-0.6-b70-cue-0.2": {"keep_ratio": 0.6, "WORD_BUDGET": 70, "cue": 0.2},
    "b70-cue-0.2": {"WORD_BUDGET": 70, "cue": 0.2},
    "keep-0.6-b65-cue-0.2": {"keep_ratio": 0.6, "WORD_BUDGET": 65, "cue": 0.2},
    "keep-0.5-b65-cue-0.2": {"keep_ratio": 0.5, "WORD_BUDGET": 65, "cue": 0.2},
    "keep-0.6-b65-cue-0.3": {"keep_ratio": 0.6, "WORD_BUDGET": 65, "cue": 0.3},
    "w-0.5-0.2-0.3": {"weights": (0.5, 0.2, 0.3)},
    "w-0.4-0.3-0.3": {"weights": (0.4, 0.3, 0.3)},
    "w-0.6-0.2-0.2": {"weights": (0.6, 0.2, 0.2)},
    "four-sentences": {"MAX_SENTENCES": 4},
    "cue-0.05": {"cue": 0.05},
    "cue-0.1": {"cue": 0.1},
    "cue-0.2": {"cue": 0.2},
}
# Cheap ones without the model: part of the meaning weight moved from the sentence's own
# cosine to that of the sentence read with its neighbour(s) or its source's first sentence
# ("prev", "next", "both", "head"), or the larger of the two ("max-…"); and a penalty for a
# fragment (under FRAGMENT_WORDS words, or no lower-case word of four letters: a heading).
for _how in ("prev", "next", "both", "head"):
    for _w in (0.25, 0.5):
        VARIANTS[f"ctx-{_how}-{_w}"] = {"ctx": (_how, _w)}
    VARIANTS[f"ctx-max-{_how}"] = {"ctx": (_how, -1.0)}
for _w in (0.1, 0.2):
    VARIANTS[f"fragment-{_w}"] = {"fragment": _w}
    # A passage's first sentence starting in lower case: the chunk cut it mid-sentence.
    VARIANTS[f"cut-{_w}"] = {"cut": _w}


FRAGMENT_WORDS = 6


def fragment(text: str) -> bool:
    import re

    return len(text.split()) < FRAGMENT_WORDS or not re.search(r"\b[a-z]{4,}\b", text)


def context_cosines(
    question: str, found: list[Any], sources: list[Any], embedder: Any, how: str
) -> Any:
    """Each candidate's cosine to the question read with its neighbour(s) or its source's
    first sentence."""
    import numpy as np

    from desktop_rag.query.quote import split_sentences

    split = {s.n: split_sentences(s.text) for s in sources}
    texts = []
    for c in found:
        sents = split[c.n]
        prev = sents[c.index - 1] if c.index > 0 else ""
        nxt = sents[c.index + 1] if c.index + 1 < len(sents) else ""
        parts = {
            "prev": [prev, c.text],
            "next": [c.text, nxt],
            "both": [prev, c.text, nxt],
            "head": [sents[0] if c.index else "", c.text],
        }[how]
        texts.append(" ".join(p for p in parts if p))
    q = np.asarray(embedder.embed_query(question), dtype=np.float32).reshape(-1)
    own = np.asarray(embedder.embed([c.text for c in found]), dtype=np.float32) @ q
    ctx = np.asarray(embedder.embed(texts), dtype=np.float32) @ q
    return np.maximum(own, 0.0), np.maximum(ctx, 0.0)


def replay(
    files: list[str], names: list[str], splits: tuple[str, ...] = ("tune", "report")
) -> dict[str, Any]:
    """Compose again, with other weights and budgets, from the sources a run kept: states the
    fact and median words per split, without retrieval or the model."""
    from desktop_rag.app import build_app
    from desktop_rag.config import Settings
    from desktop_rag.query import compose
    from desktop_rag.types import Source

    out: dict[str, Any] = {}
    for f in files:
        data = json.loads(Path(f).read_text())
        name = data["set"]
        # The app's own embedder (the int8 one where the CPU keeps it close to fp32).
        embedder = build_app(Settings(data_dir=str(DATA / name))).retriever.recent
        by_q = {q["question"]: q for q in data["questions"]}
        for variant in names:
            params = dict(VARIANTS[variant])
            weights = params.pop(
                "weights", (compose.VECTOR_WEIGHT, compose.TERM_WEIGHT, compose.RANK_WEIGHT)
            )
            keep = params.pop("keep_ratio", compose.KEEP_RATIO)
            cue_w = params.pop("cue", None)
            ctx = params.pop("ctx", None)
            frag = params.pop("fragment", 0.0)
            cut = params.pop("cut", 0.0)
            saved = {k: getattr(compose, k) for k in params}
            for k, v in params.items():
                setattr(compose, k, v)
            try:
                result: dict[str, Any] = {}
                for split in splits:
                    rows = [r for r in data["rows"] if r["split"] == split and not r["refused"]]
                    n = len([r for r in data["rows"] if r["split"] == split])
                    hits, lengths = 0, []
                    for r in rows:
                        sources = [
                            Source(s["n"], s["path"], s["page"], 0.0, s["text"])
                            for s in r["sources"]
                        ]
                        found = compose.candidates(sources, compose.TOP_SOURCES)
                        scores = compose.score(r["question"], found, embedder, weights, cue_w)
                        if ctx:
                            how, w = ctx
                            own, near = context_cosines(
                                r["question"], found, sources, embedder, how
                            )
                            vector_w = weights[0]
                            scores = [
                                s + vector_w * (max(o, c) - o if w < 0 else w / vector_w * (c - o))
                                for s, o, c in zip(scores, own, near, strict=True)
                            ]
                        if frag:
                            scores = [
                                s - frag * fragment(c.text)
                                for c, s in zip(found, scores, strict=True)
                            ]
                        if cut:
                            scores = [
                                s - cut * (c.index == 0 and c.text[:1].islower())
                                for c, s in zip(found, scores, strict=True)
                            ]
                        made = compose.render(
                            compose.choose(r["question"], found, scores, keep_ratio=keep),
                            sources,
                        )
                        hits += states(name, plain(made.text), by_q[r["question"]])
                        lengths.append(len(plain(made.text).split()))
                    result[split] = {
                        "states_fact": round(hits / n, 3) if n else None,
                        "median_words": statistics.median(lengths) if lengths else 0,
                    }
                out[f"{name}/{variant}"] = result
                print(f"{name}/{variant}: {json.dumps(result)}", file=sys.stderr)
            finally:
                for k, v in saved.items():
                    setattr(compose, k, v)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sets", default="manuals,covid,finance")
    parser.add_argument("--modes", default="composed")
    parser.add_argument("--covid", type=int, default=80)
    parser.add_argument("--tag", default="")
    parser.add_argument("--rerank", choices=("on", "off"), default="on")
    parser.add_argument(
        "--answerable", type=float, default=None, help="the refusal threshold (0: never refuse)"
    )
    parser.add_argument(
        "--named-answerable",
        type=float,
        default=None,
        help="the threshold for questions about a name no passage mentions (0: never refuse)",
    )
    parser.add_argument(
        "--covid-articles",
        choices=("all", "held_out"),
        default="all",
        help="held_out: only questions on the articles the reranker was not trained on",
    )
    parser.add_argument(
        "--model", default="", help="a GGUF the user brings (default: the bundled model)"
    )
    parser.add_argument(
        "--only", choices=("tune", "report"), default=None, help="ask one half's questions only"
    )
    parser.add_argument(
        "--service",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set an answer service setting for the run (a number), e.g. written_sources=3",
    )
    parser.add_argument("--rescore", nargs="*")
    parser.add_argument("--replay", nargs="*", help="answers files of a composed run")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--splits", default="tune,report", help="the halves --replay scores")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    DATA.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {}
    if args.replay:
        from bench.perfutil import machine

        splits = tuple(args.splits.split(","))
        results = {"machine": machine()}
        results.update(replay(args.replay, args.variants.split(","), splits))
        print(json.dumps(results, indent=1))
        return 0
    if args.rescore:
        for f in args.rescore:
            data = json.loads(Path(f).read_text())
            results[f"{data['set']}/{data['mode']}"] = summary(data)
        print(json.dumps(results, indent=1))
        return 0
    from bench.perfutil import machine

    results["machine"] = machine()
    tag = f"-{args.tag}" if args.tag else ""
    for name in args.sets.split(","):
        qs, paths = set_questions(name, args.covid, args.covid_articles)
        if args.only:
            qs = [q for q in qs if q["split"] == args.only]
        app = open_library(name, paths, rerank=args.rerank == "on", model=args.model)
        if args.answerable is not None:
            app.answer.answerable = args.answerable
        if args.named_answerable is not None:
            app.answer.named_answerable = args.named_answerable
        for setting in args.service:
            name_, _, value = setting.partition("=")
            if not hasattr(app.answer, name_):
                raise SystemExit(f"the answer service has no setting {name_}")
            setattr(app.answer, name_, float(value) if "." in value else int(value))
        for mode in args.modes.split(","):
            set_mode(app, mode)
            data = run(name, mode, app, qs, DATA / f"answers-{name}-{mode}{tag}.json")
            results[f"{name}/{mode}"] = summary(data)
            print(json.dumps(results[f"{name}/{mode}"]), file=sys.stderr)
        app.close() if hasattr(app, "close") else None
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
