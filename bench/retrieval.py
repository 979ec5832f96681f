"""Page-level retrieval on pooled libraries: recall@1, recall@5 and MRR@10 per set and split.

Sets (bench/questions.py writes the manuals' questions and every split):
- manuals-titles, manuals-paraphrases: the 20 manuals of bench/manuals.py in one library;
- financebench: all 74 filings in one library, gold = the evidence pages;
- covid-qa: all 98 articles in one library, gold = the answer's page;
- docugami: the 20 10-Qs in one library, document level (a hit counts when its file matches).
- texdocs-titles, texdocs-questions: the 35 short code-heavy TeX Live manuals of
  bench/manuals.py's texdocs set in one library (issue 45), section titles and questions
  written from a page's text (bench/questions.py).

Systems:
- app: this tree's code (build_app + Retriever.search);
- baseline: this script run again on an export of another commit's desktop_rag
  (--baseline-commit; BENCH_CODE puts it first on sys.path), so "before" is measured by the
  code as it was, in the same run and with the same questions;
- prototype: LanceDB's default hybrid search (RRF, k=60) over plain 180-word chunks.

Each library is indexed once per system and cached under bench/data/retrieval/ (delete a folder
to rebuild it); index times are reported when a build happens. Prints one JSON document.

    python -m bench.retrieval                                  # all sets, app only
    python -m bench.retrieval --systems baseline,app,prototype --baseline-commit 3e695ba
"""

from __future__ import annotations

import argparse
import csv
import fnmatch
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bench.perfutil import read_jsonl

if TYPE_CHECKING:
    from desktop_rag.app import App

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# The code measured: this tree, or (for the baseline run) an export of another commit, put
# first so that its desktop_rag is the one imported; the benchmark's own modules stay this tree's.
if os.environ.get("BENCH_CODE"):
    sys.path.insert(0, os.environ["BENCH_CODE"])
CORPUS = ROOT / ".." / "shared" / "corpus"
QUESTIONS = HERE / "questions"
CACHE = HERE / "data" / "retrieval"
SETS = ("manuals-titles", "manuals-paraphrases", "financebench", "covid-qa", "docugami")
EXTRA_SETS = ("texdocs-titles", "texdocs-questions")  # named with --sets
LIBRARY = {
    "manuals-titles": "manuals",
    "manuals-paraphrases": "manuals",
    "financebench": "financebench",
    "covid-qa": "covid-qa",
    "docugami": "docugami",
    "texdocs-titles": "texdocs",
    "texdocs-questions": "texdocs",
}
K = 10


@dataclass(frozen=True)
class Question:
    text: str
    split: str  # tune, held_out, or all (a set never used for tuning)
    pages: frozenset[tuple[str, int]] = frozenset()  # (file name, 1-based page)
    globs: tuple[str, ...] = ()  # document level: any hit in a file matching one of these


FULL_FINANCEBENCH = False  # --financebench all: every filing, not the subset of splits.json
# octave.pdf alone is 1,158 of the 3,002 pages: at this round's load it would take the whole
# time given to the evaluation, so it is left out unless --manuals all.
SKIPPED_MANUALS = ("octave.pdf",)
FULL_MANUALS = False
RERANK = True  # --rerank off: the blend and sentence re-ranking alone, as before the cross-encoder
PARAMS: dict[str, int] = {}  # --params: ChunkParams overrides of the app (its own --tag then)


def financebench_library(corpus: Path) -> list[str]:
    """The filings indexed: splits.json's subset (bench/questions.py says why), or all."""
    folder = corpus / "financebench" / "pdfs"
    if FULL_FINANCEBENCH:
        return sorted(str(p) for p in folder.glob("*.pdf"))
    splits = json.loads((QUESTIONS / "splits.json").read_text())["financebench"]
    return [str(folder / f"{d}.pdf") for d in splits["library"]]


def cache_folder(library: str, system: str) -> Path:
    full = "-all" if library == "financebench" and FULL_FINANCEBENCH else ""
    full = "-all" if library == "manuals" and FULL_MANUALS else full
    return CACHE / f"{library}{full}-{system}"


def keep_only(app: App, paths: list[str]) -> None:
    """Remove from a cached index every document outside these paths: a cache keeps files
    indexed for another library choice (or under another worktree's path), and only this
    library is pooled."""
    wanted = {os.path.abspath(p) for p in paths}
    extra = [
        d.doc_id
        for d in app.store.documents()
        if not any(d.path == w or d.path.startswith(w + os.sep) for w in wanted)
    ]
    if extra:
        app.store.remove(extra)


def library_paths(library: str, corpus: Path) -> list[str]:
    if library == "financebench":
        return financebench_library(corpus)
    if library == "manuals":
        from bench.manuals import fetch

        return [str(p) for p in fetch() if FULL_MANUALS or p.name not in SKIPPED_MANUALS]
    if library == "texdocs":
        from bench.manuals import SETS as MANUAL_SETS
        from bench.manuals import fetch

        return [str(p) for p in fetch(MANUAL_SETS["texdocs"])]
    folder = {
        "covid-qa": corpus / "covid-qa" / "pdf",
        "docugami": corpus / "docugami-10q" / "pdf",
    }[library]
    return [str(folder)]


def load_questions(name: str, corpus: Path) -> list[Question]:
    if name.startswith("texdocs-"):
        return [
            Question(
                str(r["question"]),
                str(r["split"]),
                frozenset((str(r["pdf"]), int(p)) for p in r.get("pages") or [r["page"]]),  # type: ignore[attr-defined]
            )
            for r in read_jsonl(QUESTIONS / f"{name}.jsonl")
        ]
    if name.startswith("manuals-"):
        rows = [
            r
            for r in read_jsonl(QUESTIONS / f"{name}.jsonl")
            if FULL_MANUALS or r["pdf"] not in SKIPPED_MANUALS
        ]
        return [
            Question(
                str(r["question"]),
                str(r["split"]),
                frozenset({(str(r["pdf"]), int(str(r["page"])))}),
            )
            for r in rows
        ]
    if name == "financebench":
        splits = json.loads((QUESTIONS / "splits.json").read_text())["financebench"]
        side = {d: s for s in ("tune", "held_out") for d in splits[s]}
        have = {Path(p).stem for p in financebench_library(corpus)}
        out = []
        for r in read_jsonl(corpus / "financebench" / "financebench_open_source.jsonl"):
            doc = str(r["doc_name"])
            if doc not in have:
                continue
            gold = frozenset(
                (f"{e['doc_name']}.pdf", int(e["evidence_page_num"]) + 1)
                for e in r["evidence"]  # type: ignore[attr-defined]
            )
            out.append(Question(str(r["question"]), side[doc], gold))
        return out
    if name == "covid-qa":
        halves = json.loads((QUESTIONS / "splits.json").read_text())["covid-qa"]
        article = {a: s for s in ("tune", "held_out") for a in halves[s]}
        out = []
        for r in read_jsonl(corpus / "covid-qa" / "questions.jsonl"):
            if r.get("is_impossible") or r.get("answer_page") is None:
                continue  # one question has no gold page
            pdf = os.path.basename(str(r["pdf"]))
            gold = frozenset({(pdf, int(r["answer_page"]))})  # type: ignore[call-overload]
            out.append(Question(str(r["question"]), article[pdf], gold))
        return out
    if name == "docugami":
        with open(corpus / "docugami-10q" / "qna_data.csv", encoding="utf-8-sig") as f:
            rows = list(csv.DictReader(f))
        return [
            Question(
                r["Question"],
                "all",
                globs=tuple(g.strip() for g in r["Source Docs"].split(",") if g.strip()),
            )
            for r in rows
        ]
    raise ValueError(name)


def reciprocal_rank(ranked: list[tuple[str, int]], q: Question) -> float:
    for rank, (path, page) in enumerate(ranked[:K], start=1):
        name = os.path.basename(path)
        if (name, page) in q.pages or any(fnmatch.fnmatch(name, g) for g in q.globs):
            return 1.0 / rank
    return 0.0


def metrics(rrs: list[float]) -> dict[str, float | int]:
    n = max(len(rrs), 1)
    return {
        "questions": len(rrs),
        "recall@1": round(sum(r == 1.0 for r in rrs) / n, 4),
        "recall@5": round(sum(r >= 0.2 for r in rrs) / n, 4),
        "mrr@10": round(sum(rrs) / n, 4),
    }


Search = Callable[[str], list[tuple[str, int]]]


def app_searcher(library: str, tag: str, corpus: Path) -> tuple[Search, dict[str, object]]:
    """Index the library with this tree's app (once, cached) and search it."""
    from dataclasses import replace

    from desktop_rag.app import build_app
    from desktop_rag.config import Settings
    from desktop_rag.ingest.chunk import ChunkParams

    folder = cache_folder(library, tag)
    built = folder.exists()
    params = replace(ChunkParams(), **PARAMS)
    app = build_app(Settings(data_dir=str(folder), rerank=RERANK), params=params)
    paths = library_paths(library, corpus)
    t0 = time.perf_counter()
    report = app.ingest.index(paths)
    seconds = time.perf_counter() - t0
    keep_only(app, paths)
    info: dict[str, object] = {
        "chunks": app.store.count_chunks(),
        "documents": app.store.stats()["documents"],
        "failed": [f.path for f in report.failed],
    }
    if not built or report.indexed:
        info["index_seconds"] = round(seconds, 1)
        info["load_average"] = os.getloadavg()
    app.embedder.embed_query("warm up")

    def search(query: str) -> list[tuple[str, int]]:
        return [(h.path, h.page) for h in app.retriever.search(query, k=K)]

    return search, info


def evaluate(
    systems: Iterable[str], sets: list[str], corpus: Path, tag: str
) -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    for system in systems:
        results: dict[str, object] = {}
        libraries: dict[str, object] = {}
        searchers: dict[str, Search] = {}
        for name in sets:
            library = LIBRARY[name]
            if library not in searchers:
                if system == "prototype":
                    from bench.prototype import prototype_searcher

                    searchers[library], libraries[library] = prototype_searcher(
                        library_paths(library, corpus),
                        cache_folder(library, "prototype"),
                    )
                else:
                    searchers[library], libraries[library] = app_searcher(library, tag, corpus)
                print(f"{system} {library}: {libraries[library]}", file=sys.stderr)
            questions = load_questions(name, corpus)
            t0 = time.perf_counter()
            rrs = [reciprocal_rank(searchers[library](q.text), q) for q in questions]
            ms = 1000 * (time.perf_counter() - t0) / max(len(questions), 1)
            by_split: dict[str, object] = {}
            for split in sorted({q.split for q in questions}):
                by_split[split] = metrics(
                    [r for r, q in zip(rrs, questions, strict=True) if q.split == split]
                )
            if len(by_split) > 1:
                by_split["all"] = metrics(rrs)
            by_split["ms_per_query"] = round(ms, 1)
            results[name] = by_split
            print(f"{system} {name}: {json.dumps(by_split)}", file=sys.stderr)
        out[system] = {"libraries": libraries, "sets": results}
    return out


def start_baseline(commit: str, sets: list[str], corpus: Path) -> subprocess.Popen[bytes]:
    """This script on an export of `commit`: the code as it was, same questions, same run
    (started beside this tree's evaluation; `finish_baseline` collects it)."""
    tree = HERE / "data" / f"baseline-{commit}"
    if not tree.exists():
        tmp = Path(tempfile.mkdtemp(dir=HERE / "data"))
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", commit], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
        tmp.rename(tree)
    env = dict(os.environ, BENCH_CODE=str(tree))
    argv = [sys.executable, "-m", "bench.retrieval", "--systems", "app"]
    argv += ["--tag", "baseline", "--sets", ",".join(sets), "--corpus", str(corpus)]
    argv += ["--financebench", "all" if FULL_FINANCEBENCH else "subset"]
    argv += ["--manuals", "all" if FULL_MANUALS else "subset"]
    return subprocess.Popen(argv, env=env, cwd=str(ROOT), stdout=subprocess.PIPE)


def finish_baseline(proc: subprocess.Popen[bytes], commit: str) -> dict[str, object]:
    out, _ = proc.communicate()
    if proc.returncode != 0:
        raise SystemExit(f"the baseline run failed (exit code {proc.returncode})")
    result = json.loads(out)["systems"]["app"]
    result["commit"] = commit
    return dict(result)


def table(systems: dict[str, dict[str, object]], sets: list[str]) -> str:
    """A Markdown table: one row per set and split, one column group per system."""
    names = list(systems)
    head = "| set | split | n | " + " | ".join(f"{s} R@1 / R@5 / MRR" for s in names) + " |"
    lines = [head, "|" + " --- |" * (3 + len(names))]
    for name in sets:
        first = systems[names[0]]["sets"][name]  # type: ignore[index]
        for split, m in first.items():
            if split == "ms_per_query":
                continue
            cells = []
            for s in names:
                x = systems[s]["sets"][name][split]  # type: ignore[index]
                cells.append(f"{x['recall@1']:.3f} / {x['recall@5']:.3f} / {x['mrr@10']:.3f}")
            lines.append(f"| {name} | {split} | {m['questions']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--systems", default="app", help="app, baseline, prototype")
    parser.add_argument("--baseline-commit", default="3e695ba")
    parser.add_argument("--tag", default="app", help="the app's cache folder suffix")
    parser.add_argument("--corpus", default=str(CORPUS))
    parser.add_argument("--table", action="store_true", help="also print a Markdown table")
    parser.add_argument("--financebench", choices=["subset", "all"], default="subset")
    parser.add_argument("--manuals", choices=["subset", "all"], default="subset")
    parser.add_argument("--rerank", choices=["on", "off"], default="on")
    parser.add_argument(
        "--params", default="", help="the app's ChunkParams overrides, a=1,b=2 (with its --tag)"
    )
    args = parser.parse_args()
    global FULL_FINANCEBENCH, FULL_MANUALS, RERANK, PARAMS
    PARAMS = {k: int(v) for k, v in (kv.split("=") for kv in args.params.split(",") if kv)}
    if PARAMS and args.tag == "app":
        parser.error("--params needs its own --tag: the app's cache is the default chunking's")
    FULL_FINANCEBENCH = args.financebench == "all"
    RERANK = args.rerank == "on"
    FULL_MANUALS = args.manuals == "all"
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    corpus = Path(args.corpus).resolve()
    sets = [s for s in args.sets.split(",") if s]
    systems: dict[str, dict[str, object]] = {}
    names = args.systems.split(",")
    baseline = None
    if "baseline" in names:
        baseline = start_baseline(args.baseline_commit, sets, corpus)
    for system in names:
        if system != "baseline":
            systems.update(evaluate([system], sets, corpus, args.tag))
    if baseline is not None:
        systems = {"baseline": finish_baseline(baseline, args.baseline_commit), **systems}
    out = {"k": K, "load_average_end": os.getloadavg(), "systems": systems}
    print(json.dumps(out, indent=1))
    if args.table:
        print(table(systems, sets), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
