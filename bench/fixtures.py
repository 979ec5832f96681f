"""The fixture table: every file under ../shared/corpus/fixtures, its outcome, reason and time.

The outcomes and reasons are those of `desktop-rag index --json` over the whole folder (what a
user sees). The seconds are each file's own, read one at a time through the same reader process
the indexer uses (time and memory limits included). Prints one JSON document: {"files":
[{"file", "outcome", "kind", "reason", "pages", "seconds"}], "summary": {...}}. Add --markdown
for a table on stderr.

Usage: python -m bench.fixtures [--corpus DIR] [--markdown]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from desktop_rag.ingest import sandbox
from desktop_rag.ingest.extract import ExtractError

DEFAULT_CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", default=str(DEFAULT_CORPUS))
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    root = Path(args.corpus).resolve() / "fixtures"
    files = sorted(p for p in root.rglob("*") if p.suffix.lower() == ".pdf")
    box = sandbox.Sandbox(ahead=1)  # one at a time, so each file's seconds are its own
    rows = []
    try:
        t0 = time.perf_counter()
        for job, outcome in box.run(sandbox.Job(str(p)) for p in files):
            seconds = time.perf_counter() - t0
            name = str(Path(job.path).relative_to(root))
            if isinstance(outcome, ExtractError):
                row = {
                    "file": name,
                    "outcome": "failed",
                    "kind": outcome.kind.value,
                    "reason": str(outcome),
                    "pages": 0,
                }
            else:
                chars = sum(len(p.text) for p in outcome.pages)
                row = {
                    "file": name,
                    "outcome": "indexed",
                    "kind": "",
                    "reason": f"{chars} characters via {outcome.reader}",
                    "pages": len(outcome.pages),
                }
            row["seconds"] = round(seconds, 3)
            rows.append(row)
            t0 = time.perf_counter()
    finally:
        box.close()
    # What the indexer itself says of each file: a file the reader reads may still hold
    # nothing to index (only symbols, say).
    with tempfile.TemporaryDirectory(prefix="fixtures-") as data:
        cli = Path(sys.executable).with_name("desktop-rag")
        done = subprocess.run(
            [str(cli), "--data-dir", data, "index", str(root), "--json"],
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode not in (0, 1):
        raise SystemExit(f"desktop-rag index failed ({done.returncode}): {done.stderr[-2000:]}")
    index = json.loads(done.stdout)
    failed = {str(Path(f["path"]).resolve().relative_to(root)): f for f in index["failed"]}
    for row in rows:
        f = failed.get(row["file"])
        if f is not None:
            row.update(outcome="failed", kind=f.get("kind", ""), reason=f["reason"])
        elif row["outcome"] == "failed":
            row.update(outcome="indexed", kind="", reason="indexed (the reader alone failed)")
    kinds = Counter(r["kind"] for r in rows if r["outcome"] == "failed")
    summary = {
        "files": len(rows),
        "indexed": sum(r["outcome"] == "indexed" for r in rows),
        "failed": sum(r["outcome"] == "failed" for r in rows),
        "failed_by_kind": dict(sorted(kinds.items())),
        "index_json": {k: v for k, v in index.items() if k != "failed"},
        "slowest": max(rows, key=lambda r: r["seconds"])["file"] if rows else None,
        "total_seconds": round(sum(float(r["seconds"]) for r in rows), 2),
    }
    if args.markdown:
        print("| file | outcome | reason | seconds |\n|---|---|---|---|", file=sys.stderr)
        for r in rows:
            reason = r["reason"] if r["outcome"] == "indexed" else f"{r['kind']}: {r['reason']}"
            print(f"| {r['file']} | {r['outcome']} | {reason} | {r['seconds']} |", file=sys.stderr)
    print(json.dumps({"files": rows, "summary": summary}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
