"""Which PDF reader should come first: speed, failures and lost spaces per reader on the corpus.

Usage: python -m bench.readers [--corpus ../shared/corpus] [--sets covid-qa,financebench,...]
Prints one JSON document.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from desktop_rag.ingest.readers.base import ExtractError
from desktop_rag.ingest.readers.pdf import PDF_READERS, is_glued


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    corpus = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus"
    parser.add_argument("--corpus", default=str(corpus))
    parser.add_argument("--sets", default="covid-qa,financebench,docugami-10q,fixtures")
    parser.add_argument("--limit", type=int, default=0, help="files per set (0: all)")
    args = parser.parse_args()
    corpus = Path(args.corpus)
    out: dict[str, object] = {}
    for name in args.sets.split(","):
        files = sorted(p for p in (corpus / name).rglob("*") if p.suffix.lower() == ".pdf")
        if args.limit:
            files = files[: args.limit]
        per_reader: dict[str, dict[str, object]] = {}
        for reader, fn in PDF_READERS.items():
            pages = failed = glued = chars = 0
            seconds = 0.0
            failures: list[str] = []
            for path in files:
                t0 = time.perf_counter()
                try:
                    result = fn(str(path), None)
                except ExtractError as exc:
                    failed += 1
                    failures.append(f"{path.name}: {exc.kind}")
                    continue
                except Exception as exc:
                    failed += 1
                    failures.append(f"{path.name}: {type(exc).__name__}")
                    continue
                finally:
                    seconds += time.perf_counter() - t0
                pages += len(result)
                chars += sum(len(p.text) for p in result)
                glued += is_glued(result)
            per_reader[reader] = {
                "files": len(files),
                "failed": failed,
                "glued_files": glued,
                "pages": pages,
                "chars": chars,
                "seconds": round(seconds, 2),
                "pages_per_s": round(pages / seconds, 1) if seconds else None,
                "failures": failures[:40],
            }
            print(
                f"{name} {reader}: {per_reader[reader]['pages_per_s']} p/s, "
                f"{failed} failed, {glued} glued",
                file=sys.stderr,
            )
        out[name] = per_reader
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
