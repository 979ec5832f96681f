"""The CLI's progress: files, pages and the time left, as a bar on a terminal, lines elsewhere."""

from __future__ import annotations

import io

import pytest

from desktop_rag.cli import ProgressPrinter
from desktop_rag.types import Progress, format_duration


class Terminal(io.StringIO):
    encoding = "utf-8"

    def isatty(self) -> bool:
        return True


def run(n: int = 3, *, eta_s: float | None = 125.0) -> list[Progress]:
    events = [Progress("scanning", message="Looking for changes")]
    for i in range(n):
        events.append(
            Progress(
                "indexing",
                files_done=i,
                files_total=n,
                pages_done=4 * i,
                chunks_done=9 * i,
                current=f"/lib/report {i}.pdf",
                eta_s=eta_s,
            )
        )
    return events


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (None, "estimating…"),
        (0.2, "0 s"),
        (59.4, "59 s"),
        (59.6, "1 min 00 s"),
        (125, "2 min 05 s"),
        (3599, "59 min 59 s"),
        (3600, "1 h 00 min"),
        (7 * 3600 + 61, "7 h 01 min"),
    ],
)
def test_durations_read_as_people_say_them(seconds: float | None, text: str) -> None:
    assert format_duration(seconds) == text
    assert Progress("indexing", eta_s=seconds).eta_text == text


def test_a_log_gets_one_plain_line_per_file() -> None:
    out = io.StringIO()
    printer = ProgressPrinter(out)
    for p in run():
        printer(p)
        if p.current:
            printer(p)  # more progress on the same file prints nothing new
    printer.finish()
    lines = out.getvalue().splitlines()
    assert lines == [
        "Looking for changes",
        "[1/3] /lib/report 0.pdf (pages 0, chunks 0, ETA 2 min 05 s)",
        "[2/3] /lib/report 1.pdf (pages 4, chunks 9, ETA 2 min 05 s)",
        "[3/3] /lib/report 2.pdf (pages 8, chunks 18, ETA 2 min 05 s)",
    ]
    assert "\r" not in out.getvalue()


def test_a_terminal_gets_a_bar_with_files_pages_and_the_time_left() -> None:
    term = Terminal()
    printer = ProgressPrinter(term)
    events = run(eta_s=None)
    for p in events[:3]:
        printer(p)
    frames = term.getvalue().split("\r")
    assert any(f.strip() == "Looking for changes" for f in frames)
    last = [f for f in frames if f.strip()][-1]
    assert "1/3 files" in last and "4 pages" in last and "9 chunks" in last
    assert "ETA estimating…" in last and "report 1.pdf" in last and "/lib/" not in last
    printer(Progress("indexing", 3, 3, 12, 27, "", eta_s=0.0))
    assert "3/3 files" in term.getvalue().split("\r")[-1]
    printer.finish()
    assert term.getvalue().split("\r")[-1].strip() == "", "the bar is cleared at the end"
    printer.finish()  # a second finish, or one with nothing drawn, is harmless
    ProgressPrinter(Terminal()).finish()
