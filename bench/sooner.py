"""Searchable sooner (issue 32 item 4): how long after a drop of about 1,000 pages every page is
found by a word on it, and how long until the drop is fully indexed (vectors included).

Runs `desktop-rag index` on a fresh index (real readers, real embedder) and watches the index
from this process meanwhile: once every document of the drop has its row, every stored page is
looked up by its rarest word (full-text search, as `search` runs it) until all are found.

    python -m bench.sooner                        # ten financebench filings, 1,064 pages
    python -m bench.sooner --checkout ../main     # the same drop, indexed by another checkout

Prints one JSON document: seconds until every document's text was stored (`text_stored_s`),
until every page was found by its word (the look that found the last one ran from
`findable_from_s` to `findable_s`; all looks took `check_s`, choosing the words `words_s`;
pages their word does not find even in the final index are listed and left out),
until no chunk waited for its vector (`vectors_s`) and until the command ended
(`fully_indexed_s`), with the drop's pages and chunks and the machine's load. The watcher
competes for the CPU with the run it watches, as a user searching meanwhile would.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.perfutil import CORPUS, REPO, emit, machine, say

# Ten 10-K filings of 83 to 125 pages each: 1,064 pages of dense text.
DROP = [
    "AMAZON_2019_10K.pdf",
    "AMAZON_2017_10K.pdf",
    "ADOBE_2022_10K.pdf",
    "ADOBE_2017_10K.pdf",
    "BESTBUY_2019_10K.pdf",
    "BESTBUY_2017_10K.pdf",
    "ADOBE_2016_10K.pdf",
    "ADOBE_2015_10K.pdf",
    "BLOCK_2016_10K.pdf",
    "CORNING_2021_10K.pdf",
]
LETTERS = re.compile(r"[A-Za-z]+")
MIN_LETTERS = 5
HITS = 50


def _rarest_words(rows: list[dict[str, Any]]) -> dict[tuple[str, int], str]:
    """Each stored page's word whose stem is on the fewest pages (ties: the first on the
    page). Stems, as the full-text index (English Snowball) reads words: "stored" is rare
    in a filing, "store" is not, and a search for one finds both."""
    from nltk.stem.snowball import EnglishStemmer

    stem = EnglishStemmer().stem
    words: dict[tuple[str, int], list[str]] = collections.defaultdict(list)
    for row in rows:
        words[(row["path"], row["page"])].extend(w.lower() for w in LETTERS.findall(row["text"]))
    stems = {w: stem(w) for ws in words.values() for w in ws}
    # Rarity counts every word ("Form" makes "forms" common); the words asked are long ones.
    pages_with = collections.Counter(s for ws in words.values() for s in {stems[w] for w in ws})
    asked = {page: [w for w in ws if len(w) >= MIN_LETTERS] for page, ws in words.items()}
    return {page: min(ws, key=lambda w: pages_with[stems[w]]) for page, ws in asked.items() if ws}


def _unfound(store: Any, wanted: dict[tuple[str, int], str]) -> list[tuple[str, int, str]]:
    """The pages their word does not find: a search for it in the page's document (a scope,
    as `search --in` runs it) that does not have the page among its first HITS."""
    from desktop_rag.query.scope import Scope

    missing = []
    for (path, page), word in wanted.items():
        hits = store.text_search(word, HITS, Scope(files=(path,)).where())
        if not any(h.page == page for h in hits):
            missing.append((path, page, word))
    return missing


def _open(index: Path) -> Any:
    from desktop_rag.store.lance import LanceStore

    if not (index / "meta.json").exists():
        return None
    if not all((index / f"{t}.lance").exists() for t in ("documents", "chunks")):
        return None
    try:
        return LanceStore.open_as_built(index)
    except Exception:  # being created this moment
        return None


def run(files: list[Path], checkout: Path, poll_s: float, looks: bool = True) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="sooner-"))
    lib, data = work / "drop", work / "data"
    lib.mkdir()
    for f in files:
        shutil.copy2(f, lib / f.name)
    env = dict(os.environ, PYTHONPATH=str(checkout))
    env.pop("DESKTOP_RAG_DATA_DIR", None)
    cmd = [sys.executable, "-m", "desktop_rag", "index", str(lib), "--json"]
    cmd += ["--data-dir", str(data)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=checkout, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    store = None
    out: dict[str, Any] = {"text_stored_s": None, "findable_s": None, "vectors_s": None}
    timeline: list[dict[str, Any]] = []
    wanted: dict[tuple[str, int], str] = {}
    # When each page was first found by its word (the end of the look that found it): a page
    # found stays found (no row leaves the index during the run), so later looks ask only
    # for the pages not found yet.
    found_at: dict[tuple[str, int], float] = {}
    look_began: dict[tuple[str, int], float] = {}

    def look(now_s: float) -> int:
        t1 = time.perf_counter()
        asked = {page: w for page, w in wanted.items() if page not in found_at}
        missing = {(p, n) for p, n, _ in _unfound(store, asked)}
        done = round(time.perf_counter() - t0, 1)
        for page in asked:
            if page not in missing:
                found_at[page], look_began[page] = done, round(t1 - t0, 1)
        out["check_s"] = round(out.get("check_s", 0.0) + time.perf_counter() - t1, 1)
        return len(missing)

    def choose_words() -> None:
        t1 = time.perf_counter()
        rows = store.chunks_table.search().select(["path", "page", "text"]).limit(None)
        wanted.update(_rarest_words(rows.to_arrow().to_pylist()))
        out["words_s"] = round(time.perf_counter() - t1, 1)  # not part of the looks

    while proc.poll() is None:
        time.sleep(poll_s)
        now = time.perf_counter() - t0
        store = store or _open(data / "index")
        if store is None:
            continue
        try:
            docs = [d for d in store.documents() if d.status == "indexed"]
            chunks, pending = store.count_chunks(), store.count_pending()
        except Exception as exc:  # a version being written; look again
            say(f"poll at {now:.0f}s: {exc}")
            continue
        timeline.append({"s": round(now, 1), "documents": len(docs), "chunks": chunks,
                         "pending": pending})  # fmt: skip
        if out["text_stored_s"] is None and len(docs) == len(files):
            out["text_stored_s"] = round(now, 1)
            say(f"{now:.0f}s: every document's text is stored ({chunks} chunks, {pending} wait)")
            if looks:
                choose_words()
        if wanted and len(found_at) < len(wanted):
            left = look(now)
            say(f"{time.perf_counter() - t0:.0f}s: {left} of {len(wanted)} pages not found yet")
        if out["text_stored_s"] is not None and out["vectors_s"] is None and pending == 0:
            out["vectors_s"] = round(now, 1)
    out["fully_indexed_s"] = round(time.perf_counter() - t0, 1)
    report = json.loads(proc.stdout.read().decode().strip().splitlines()[-1]) if proc.stdout else {}
    store = store or _open(data / "index")
    if not looks:  # the run alone, without the looks' CPU: its times only
        shutil.rmtree(work, ignore_errors=True)
        return {**out, "report": report, "timeline": timeline}
    if not wanted:
        choose_words()
    look(out["fully_indexed_s"])  # the rest, on the final index
    # Pages whose word does not find them even in the final index say something of the word
    # chosen (a heading repeating it, a stem shared), nothing of when: they are left out.
    never = sorted(set(wanted) - set(found_at))
    if found_at:
        last = max(found_at, key=lambda page: found_at[page])
        out["findable_s"], out["findable_from_s"] = found_at[last], look_began[last]
    if out["vectors_s"] is None:
        out["vectors_s"] = out["fully_indexed_s"]
    out["pages_checked"] = len(wanted)
    out["unfound_in_final_index"] = [(os.path.basename(p), n, wanted[(p, n)]) for p, n in never]
    out["report"] = {k: report.get(k) for k in ("indexed", "pages", "chunks", "seconds")}
    out["report"]["failed"] = len(report.get("failed", []))
    out["timeline"] = timeline
    shutil.rmtree(work, ignore_errors=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, default=REPO, help="the code that indexes")
    parser.add_argument("--poll", type=float, default=1.0, help="seconds between looks")
    parser.add_argument("--name", default="sooner", help="bench/out/NAME.json")
    parser.add_argument(
        "--no-looks", action="store_true", help="time the run alone, without looking words up"
    )
    parser.add_argument("--docs", type=int, default=len(DROP), help="the first N of the drop")
    args = parser.parse_args()
    folder = CORPUS / "financebench" / "pdfs"
    files = [folder / name for name in DROP[: args.docs]]
    checkout = args.checkout.resolve()
    rev = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
        capture_output=True, text=True, check=False,
    ).stdout.strip()  # fmt: skip
    result = {"checkout": str(checkout), "commit": rev, "machine": machine()}
    result["drop"] = [f.name for f in files]
    result.update(run(files, checkout, args.poll, looks=not args.no_looks))
    emit(args.name, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
