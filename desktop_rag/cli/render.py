"""What the command line prints: progress on stderr, passages, index reports and answers as
text or as one JSON document."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from desktop_rag.locations import place
from desktop_rag.types import (
    DoneEvent,
    Hit,
    IndexReport,
    Progress,
    Quote,
    Source,
)

if TYPE_CHECKING:
    pass


class ProgressPrinter:
    """Progress on stderr: a bar on a terminal (tqdm draws, fits and clears it), and plain
    lines, one per file, anywhere else, since a log or a pipe cannot take a redrawn line.
    The time left is the pipeline's estimate (by bytes), not tqdm's rate of files."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self._last_file = ""
        self._bar: Any = None

    def __call__(self, p: Progress) -> None:
        if self.tty:
            self._draw(p)
        elif p.current and p.current != self._last_file:
            self._last_file = p.current
            print(
                f"[{p.files_done + 1}/{p.files_total}] {p.current} "
                f"(pages {p.pages_done}, chunks {p.chunks_done}, ETA {p.eta_text})",
                file=self.stream,
                flush=True,
            )
        elif p.stage == "ocr" and p.message:
            print(f"  {os.path.basename(p.current)}: {p.message}", file=self.stream, flush=True)
        elif p.message and not p.current:
            print(p.message, file=self.stream, flush=True)

    def _draw(self, p: Progress) -> None:
        if self._bar is None:
            from tqdm import tqdm

            # Follow the terminal's size as it is resized; a terminal that reports none (some
            # embedded ones) gets a fixed one, as tqdm would otherwise draw nothing there.
            known = _columns(self.stream) > 0
            self._bar = tqdm(
                file=self.stream,
                bar_format="{desc}",
                leave=False,
                dynamic_ncols=known,
                ncols=None if known else 100,
                nrows=None if known else 20,
                mininterval=0,
            )
        bar = self._bar
        if p.files_total:
            text = f"{p.pages_done} pages · {p.chunks_done} chunks · ETA {p.eta_text}"
            name = os.path.basename(p.current)
            if name:
                text += f" · {name}"
            if p.stage == "ocr" and p.message:
                text += f": {p.message}"
            elif p.stage == "vectors" and p.message:
                text += f" · {p.message}"
            bar.bar_format = "{bar:24} {n_fmt}/{total_fmt} files · {desc}"
            bar.total = p.files_total
            bar.n = min(p.files_done, p.files_total)
        else:
            text = p.message or p.stage
            bar.bar_format = "{desc}"
        bar.set_description_str(text, refresh=False)
        bar.refresh()

    def finish(self) -> None:
        if self._bar is not None:
            self._bar.close()  # leave=False: the line is cleared
            self._bar = None


def _columns(stream: TextIO) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError):
        return 0


def hit_json(hit: Hit, explain: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "path": hit.path,
        "page": hit.page,
        "section": hit.section,
        "score": round(hit.score, 6),
        "text": hit.text,
        **({"library": hit.library.lower()} if hit.library else {}),  # a team library's
    }
    if explain and hit.why is not None:
        out["explain"] = hit.why.to_json()
    return out


def print_hits(hits: Sequence[Hit], out: TextIO, explain: bool = False) -> None:
    if not hits:
        print("No passages found.", file=out)
        return
    width = min(shutil.get_terminal_size((100, 20)).columns, 100)
    for n, hit in enumerate(hits, start=1):
        where = place(hit.path, hit.page, hit.section)
        name = f"{hit.library}: {hit.path}" if hit.library else hit.path
        print(f"[{n}] {name}, {where}  (score {hit.score:.4f})", file=out)
        if explain and hit.why is not None:
            print(f"    {hit.why.describe()}", file=out)
        text = " ".join(hit.text.split())
        if len(text) > 400:
            text = text[:400].rsplit(" ", 1)[0] + " …"
        print(textwrap.indent(textwrap.fill(text, width - 4), "    "), file=out)


def print_report(report: IndexReport, args: argparse.Namespace, out: TextIO) -> None:
    if args.json:
        json.dump(report.to_json(), out)
        out.write("\n")
        out.flush()
        return
    parts = [f"{report.indexed} indexed", f"{report.unchanged} unchanged"]
    if report.renamed:
        parts.append(f"{report.renamed} renamed")
    parts.append(f"{report.removed} removed")
    parts.append(f"{len(report.failed)} failed")
    print(
        f"{', '.join(parts)}; {report.pages} pages, {report.chunks} chunks "
        f"in {report.seconds:.1f} s",
        file=out,
        flush=True,
    )
    for f in report.failed:
        print(f"  failed: {f.path}: {f.reason}", file=out, flush=True)


def ask_json(
    done: DoneEvent, sources: Sequence[Source], quotes: Sequence[Quote], notice: str = ""
) -> dict[str, Any]:
    """The object `ask --json` prints for one answer (the contract in DESIGN.md's command
    line): the answer, its sources and quotes, what it cites and how it was checked."""
    from desktop_rag.query.figures import unsupported_note

    t = done.timings
    return {
        "answer": done.answer,
        "sources": [
            {
                "n": s.n,
                "path": s.path,
                "page": s.page,
                "section": s.section,
                "score": round(s.score, 6),
                "text": s.text,
                # a listed document's passages that match (a library question's list)
                **({"matches": s.matches} if s.matches else {}),
                **({"library": s.library.lower()} if s.library else {}),  # a team library's
            }
            for s in sources
        ],
        "quotes": [
            {
                "n": q.n,
                "path": q.path,
                "page": q.page,
                "text": q.text,
                "score": round(q.score, 4),
            }
            for q in quotes
        ],
        "cited": list(done.cited),
        "mode": done.mode,
        "answerable": None if done.answerable is None else round(done.answerable, 4),
        "refused": done.refused,
        "unsupported": list(done.unsupported),
        "check": unsupported_note(done.unsupported) if done.unsupported and not done.note else "",
        **({"notice": notice} if notice else {}),
        # a written answer replaced by the sources' sentences: why, and what it said
        **({"note": done.note, "withheld": done.withheld} if done.note else {}),
        # cited to the source holding its words: what the model had cited
        **({"recited_from": list(done.recited_from)} if done.recited_from else {}),
        "timings": {
            "retrieval_ms": round(t.retrieval_ms, 1),
            "ttft_s": round(t.ttft_s, 3),
            "tokens_per_s": round(t.tokens_per_s, 2),
            "total_s": round(t.total_s, 3),
        },
    }
