"""The libraries the reranker learns from, indexed by the app itself: passages cut as it cuts them.

Only the tune halves of the project's sets, and never the documents an independent check uses
(the Debian FAQ, the R FAQ, the Bash manual, the Debian Policy Manual, gnuplot's manual: in any
language) nor financebench (non-commercial):
- manuals: the tune half of bench/manuals.py's Debian documentation PDFs, gnuplot's left out
  (R manuals: GPL-2+; LaTeX package guides: LPPL-1.3c; liboctave: GPL-3+);
- covid: the tune half of covid-qa's articles (deepset COVID-QA, Apache-2.0; articles mostly
  CC-BY).

    python -m training.libraries          # index both (minutes), print their folders
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from training.teacher import CACHE

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"
QUESTIONS = REPO / "bench" / "questions"
MANUALS = REPO / "bench" / "data" / "manuals"
# The independent check's documents: nothing of theirs is read for training or tuning.
EXCLUDED = ("gnuplot.pdf", "R-FAQ.pdf", "debian-faq", "bash", "debian-policy", "policy")


def splits() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((QUESTIONS / "splits.json").read_text())
    return data


def excluded(name: str) -> bool:
    low = name.lower()
    return any(e.lower() in low for e in EXCLUDED)


def manual_files() -> list[Path]:
    return [MANUALS / f for f in splits()["manuals"]["tune"] if not excluded(f)]


def covid_files() -> list[Path]:
    folder = CORPUS / "covid-qa" / "pdf"
    return [folder / f for f in splits()["covid-qa"]["tune"]]


LIBRARIES = {"manuals": manual_files, "covid": covid_files}


def data_dir(name: str) -> Path:
    return CACHE / "libraries" / name


def open_library(name: str, index: bool = True) -> Any:
    """The app over a training library (indexed first when `index`)."""
    from desktop_rag.app import build_app
    from desktop_rag.config import Settings

    app = build_app(Settings(data_dir=str(data_dir(name)), index_low_priority=False))
    if index:
        if name == "manuals":
            from bench.manuals import fetch

            fetch()  # from Debian's packages, checked against their digests
        report = app.ingest.index([str(p) for p in LIBRARIES[name]()])
        print(
            f"{name}: {report.indexed} indexed, {len(report.failed)} failed, "
            f"{app.store.count_chunks()} passages",
            file=sys.stderr,
        )
    return app


def main() -> None:
    for name in LIBRARIES:
        open_library(name)
        print(data_dir(name))


if __name__ == "__main__":
    main()
