"""What "from 2022" can go by: the corpus PDFs' own dates (ingest/dates.py) against their files'.

For each real set (covid-qa, financebench, docugami-10q): how many PDFs say a date (their
CreationDate, else ModDate) and, where the file name carries the year the document is about
("3M_2018_10K", "2022 Q3 AAPL", "..._dated-2022-05-20"), how often the PDF's year is that
year, or the year after it (a 10-K for 2018 is filed in 2019). The file's modification time
is the date of the copy, the same for every file here, so it is reported as such.

Usage: python -m bench.doc_dates
Prints one JSON document (also kept in bench/out/doc_dates.json). No timing: reads metadata.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from datetime import UTC, datetime
from typing import Any

from bench.perfutil import CORPUS, emit, machine, say
from desktop_rag.ingest.dates import pdf_date

SETS = {
    "covid-qa": CORPUS / "covid-qa" / "pdf",
    "financebench": CORPUS / "financebench" / "pdfs",
    "docugami-10q": CORPUS / "docugami-10q" / "pdf",
}
# The year a document is about, as its file name says it: a "dated-YYYY-MM-DD" first, else the
# first 20xx standing alone.
_DATED = re.compile(r"dated-(20\d\d)-\d\d-\d\d")
_YEAR = re.compile(r"(?<!\d)(20\d\d)(?!\d)")


def named_year(name: str) -> int | None:
    found = _DATED.search(name) or _YEAR.search(name)
    return int(found.group(1)) if found else None


def measure(folder: os.PathLike[str]) -> dict[str, Any]:
    names = sorted(n for n in os.listdir(folder) if n.lower().endswith(".pdf"))
    dated = 0
    years: Counter[int] = Counter()
    same = after = named = 0
    mtime_years: Counter[int] = Counter()
    for name in names:
        path = os.path.join(folder, name)
        mtime_years[datetime.fromtimestamp(os.path.getmtime(path)).year] += 1
        ns = pdf_date(path)
        if not ns:
            continue
        dated += 1
        year = datetime.fromtimestamp(ns / 1e9, tz=UTC).year
        years[year] += 1
        want = named_year(name)
        if want is not None:
            named += 1
            same += year == want
            after += year in (want, want + 1)
    return {
        "pdfs": len(names),
        "with_a_date": dated,
        "years": dict(sorted(years.items())),
        "file_mtime_years": dict(sorted(mtime_years.items())),
        "name_says_a_year": named,
        "pdf_year_is_the_names": same,
        "pdf_year_is_the_names_or_next": after,
    }


def main() -> None:
    result: dict[str, Any] = {"machine": machine(), "sets": {}}
    for label, folder in SETS.items():
        if not folder.is_dir():
            say(f"{folder} is not here: skipped")
            continue
        say(f"reading the dates of {label}…")
        result["sets"][label] = measure(folder)
    emit("doc_dates", result)


if __name__ == "__main__":
    main()
