"""Does the GUI thread stay free? The longest event-loop stall while the window works.

Usage: python -m bench.window_stall [--case index|conversation|all] [--pdfs DIR] [--question TEXT]
                                   [--generate N]
Opens the window offscreen on a fresh data dir (first start: the embedder loads and the guide
is indexed). The "index" case indexes DIR (default: 12 covid-qa articles from ../shared/corpus;
with --generate N, N small generated PDFs in nested folders, bench/small_files.py's library)
with the real embedder, then asks a question if an answer service exists. It also reports the
memory of the whole process tree (the window and its reader processes; bench/memory.py): the
peak of summed RSS every 50 ms, and every 2 s a row of RSS, PSS and USS by process with what
the window holds in Python objects and glibc's heap (LanceDB's caches once, at the end); the
index's size on disk per 1,000 pages, and how long sorting the documents by each column and
filtering them take once indexed. Each stall over 100 ms is listed with how long the GUI
thread ran and how long it waited, ready, for a CPU (/proc schedstat) in it; each cyclic-GC
pass over 20 ms with the thread that ran it. STALL_STACKS=MS prints every thread's stack when
the GUI thread stalls longer than MS; MEM_TRACE=1 adds the Python heap's growth over indexing
(tracemalloc); STALL_PROBE=DIR runs bench/stall_probe.py beside the window (another process:
each stall's threads, what each ran and waited for a CPU, and with PY_SPY=path/to/py-spy which
thread held the GIL), its lines in DIR/probe.jsonl and the window's thread names in the JSON.
The stalls over 100 ms are split by what the GUI thread did in them: waited ready for a CPU
for at least half of it (a busy machine) or slept (on the GIL, or a lock).
The "conversation" case shows a 50-turn conversation, asks a question in it with the real
model and, as the first token arrives, opens a 300-page PDF (financebench's, or a generated
one) in the source pane: its phase "answer_and_pdf" is the one whose longest stall must stay
under 50 ms. A 10 ms timer on the GUI thread records how late it fires; prints JSON with the
worst and 99th-percentile lateness per phase.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus"
CORPUS = SHARED / "covid-qa" / "pdf"
BIG_PDF = SHARED / "financebench" / "pdfs" / "AMERICANWATERWORKS_2022_10K.pdf"  # 306 pages
TURNS = 50
TARGET_MS = 50.0


def long_conversation(turns: int = TURNS):  # type: ignore[no-untyped-def]
    """A conversation as a long session leaves it: answers with citations, six sources each."""
    from desktop_rag.conversations import Conversation
    from desktop_rag.types import Source

    conv = Conversation()
    for i in range(turns):
        e = conv.add(f"Question {i}: what does the report say about water rates in region {i}?")
        e.answer = (
            f"Rates in region {i} rose by {i % 9} percent [1], approved in 20{i % 24:02d} [2]; "
            "the filing lists the capital plan behind them [3]. "
        ) * 3
        e.sources = [
            Source(n, f"/library/report {n}.pdf", 10 + n, 0.5, "Rate case text. " * 40, 0, 600)
            for n in range(1, 7)
        ]
        e.cited = [1, 2, 3]
    return conv


def big_pdf(home: Path) -> Path:
    if BIG_PDF.is_file():
        return BIG_PDF
    from tests.pdfgen import make_pdf

    pages = [f"Page {p}. " + "Water rates and the capital plan. " * 60 for p in range(1, 301)]
    return make_pdf(home / "big.pdf", pages)


def watch_stalls(clock, last: list[float], over_ms: float) -> None:  # type: ignore[no-untyped-def]
    """Print every thread's Python stack (stderr) whenever the GUI thread has not ticked for
    over_ms: what it was doing, or which thread held the GIL it waited for."""
    import traceback

    main_id = threading.main_thread().ident

    def run() -> None:
        reported = -1.0
        while True:
            time.sleep(over_ms / 4000)
            if clock.elapsed() - last[0] > over_ms and last[0] != reported:
                reported = last[0]
                names = {t.ident: t.name for t in threading.enumerate()}
                parts = []
                for ident, frame in sys._current_frames().items():
                    if ident == threading.get_ident():
                        continue
                    where = "".join(traceback.format_stack(frame)[-8 if ident == main_id else -5 :])
                    parts.append(f"-- {names.get(ident, ident)}:\n{where}")
                stacks = "".join(parts)
                print(f"stalled at {clock.elapsed() / 1000:.2f} s:\n{stacks}", file=sys.stderr)

    threading.Thread(target=run, daemon=True).start()


def _schedstat() -> tuple[float, float]:
    """Milliseconds this thread has run, and waited ready to run for a CPU (Linux; else 0)."""
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/schedstat", "rb") as f:
            ran, waited = f.read().split()[:2]
    except OSError:
        return 0.0, 0.0
    return int(ran) / 1e6, int(waited) / 1e6


def by_cause(stalls: list[tuple[str, float, float, float, float]]) -> dict[str, dict[str, int]]:
    """Per phase, the stalls in which the GUI thread waited ready for a CPU at least half the
    time (a busy machine) and those in which it mostly slept (on the GIL, or a lock)."""
    out: dict[str, dict[str, int]] = {}
    for phase, late_ms, _at, _ran, waited in stalls:
        row = out.setdefault(
            phase, {"waited_for_cpu": 0, "slept_gil_or_lock": 0, "longest_slept_ms": 0}
        )
        if waited >= late_ms / 2:
            row["waited_for_cpu"] += 1
        else:
            row["slept_gil_or_lock"] += 1
            row["longest_slept_ms"] = max(row["longest_slept_ms"], round(late_ms))
    return out


def sort_and_filter(window, app) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Milliseconds to sort the documents by each column, both ways, and to filter them."""
    from PySide6.QtCore import Qt

    pane = window.documents
    out: dict[str, float] = {}

    def timed(name: str, fn) -> None:  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        fn()
        app.processEvents()  # the view's relayout and repaint count
        out[name] = round((time.perf_counter() - t0) * 1000, 1)

    for col, name in enumerate(pane.model.HEADERS):
        for order in (Qt.SortOrder.DescendingOrder, Qt.SortOrder.AscendingOrder):
            label = f"sort {name.lower()} {'down' if order else 'up'}"
            timed(label, lambda c=col, o=order: pane.table.sortByColumn(c, o))
    pane.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    timed("filter '0042'", lambda: pane.filter.setText("0042"))
    timed("filter cleared", lambda: pane.filter.setText(""))
    out["rows"] = pane.proxy.rowCount()
    return out


def throwaway_home(prefix: str) -> Path:
    """A new temporary home for the app (its config, data, logs and documents folders), set
    in the environment, with Qt offscreen unless a platform is chosen."""
    home = Path(tempfile.mkdtemp(prefix=prefix))
    for name, sub in (
        ("DESKTOP_RAG_CONFIG_DIR", "config"),
        ("DESKTOP_RAG_DATA_DIR", "data"),
        ("DESKTOP_RAG_LOG_DIR", "logs"),
        ("XDG_DOCUMENTS_DIR", "Documents"),
    ):
        os.environ[name] = str(home / sub)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    return home


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--case", choices=("index", "conversation", "all"), default="all")
    parser.add_argument("--pdfs", type=Path)
    parser.add_argument("--files", type=int, default=12)
    parser.add_argument("--question", default="What is the incubation period of the virus?")
    parser.add_argument("--generate", type=int, default=0, help="N generated small PDFs")
    parser.add_argument(
        "--max-index-s",
        type=float,
        default=7200.0,
        help="cancel indexing after this long (all N rows are in the window from the start)",
    )
    args = parser.parse_args()
    home = throwaway_home("desktop-rag-stall-")
    if os.environ.get("STALL_TRACE"):
        import logging

        logging.basicConfig(level=logging.INFO, format="%(relativeCreated)d %(name)s %(message)s")
    folder = home / "pdfs"
    source = args.pdfs or CORPUS
    folder.mkdir()
    if args.generate:
        from bench.perfutil import make_library

        make_library(folder, args.generate)
        args.files = args.generate
    else:
        for pdf in sorted(source.glob("*.pdf"))[: args.files]:
            shutil.copy(pdf, folder / pdf.name)
    from PySide6.QtCore import QElapsedTimer, QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from bench.memory import GcTimes, TreeMemory
    from desktop_rag.config import Settings
    from desktop_rag.gui.session import Session
    from desktop_rag.gui.window import MainWindow

    _app = QApplication(sys.argv)  # kept alive for the run
    phase = "start"
    late: dict[str, list[float]] = {}
    clock = QElapsedTimer()
    clock.start()
    last = [clock.elapsed()]

    worst: dict[str, tuple[float, float]] = {}
    # Each stall over 100 ms: (phase, ms late, at s, ms the GUI thread ran meanwhile, ms it
    # waited for a CPU while ready to run): a busy machine, or work on the GUI thread.
    long_stalls: list[tuple[str, float, float, float, float]] = []
    sched = [_schedstat()]

    def tick() -> None:
        now = clock.elapsed()
        lateness = max(0.0, now - last[0] - 10)
        late.setdefault(phase, []).append(lateness)
        if lateness > worst.get(phase, (0.0, 0.0))[0]:
            worst[phase] = (lateness, now / 1000)
        stat = _schedstat()
        if lateness > 100:
            ran, waited = stat[0] - sched[0][0], stat[1] - sched[0][1]
            long_stalls.append((phase, lateness, round(now / 1000, 2), ran, waited))
        sched[0] = stat
        last[0] = now
        tick_beat()

    beat: list = []  # type: ignore[type-arg]
    probe = None
    if os.environ.get("STALL_PROBE"):
        import mmap
        import struct
        import subprocess

        probe_dir = Path(os.environ["STALL_PROBE"])
        probe_dir.mkdir(parents=True, exist_ok=True)
        beat_file = probe_dir / "beat"
        beat_file.write_bytes(struct.pack("d", time.monotonic()))
        with beat_file.open("r+b") as f:
            beat.append(mmap.mmap(f.fileno(), 8))
        beat.append(struct.pack_into)
        probe = subprocess.Popen(
            [sys.executable, "-m", "bench.stall_probe", str(os.getpid()),
             str(beat_file), str(probe_dir / "probe.jsonl"), "--py-spy",
             os.environ.get("PY_SPY", "")]
        )  # fmt: skip

    def tick_beat() -> None:
        if beat:
            beat[1]("d", beat[0], 0, time.monotonic())

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    timer.start()
    if os.environ.get("STALL_STACKS"):
        watch_stalls(clock, last, float(os.environ["STALL_STACKS"]))

    def wait_until(check, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if check():
                return True
            loop = QEventLoop()
            QTimer.singleShot(20, loop.quit)
            loop.exec()
        return False

    gc_times = GcTimes().__enter__()
    tracing = bool(os.environ.get("MEM_TRACE"))
    if tracing:
        import tracemalloc

        tracemalloc.start(8)
    session = Session(Settings.load())
    window = MainWindow(session, quit_on_close=False)
    window.show()
    window.start()
    t0 = time.monotonic()
    wait_until(lambda: session.app is not None and not session.indexing, 300)
    phases = {"start_s": round(time.monotonic() - t0, 2)}
    extra: dict[str, object] = {}
    if args.case in ("index", "all"):
        phase = "index"
        t0 = time.monotonic()
        if tracing:
            before = tracemalloc.take_snapshot()

        with TreeMemory() as rss:
            session.add_folder(str(folder))
            wait_until(lambda: session.indexing, 30)
            finished = wait_until(lambda: not session.indexing, args.max_index_s)
            if not finished:
                session.cancel_indexing()
                wait_until(lambda: not session.indexing, 600)
        phases["index_s"] = round(time.monotonic() - t0, 2)
        if tracing:
            grown = tracemalloc.take_snapshot().compare_to(before, "traceback")
            extra["python_heap_growth"] = [
                {"kb": round(g.size_diff / 1024), "count": g.count_diff,
                 "where": [f"{f.filename}:{f.lineno}" for f in g.traceback][-4:]}
                for g in grown[:15]
            ]  # fmt: skip
        # Once, after the run: asking LanceDB its cache size holds the GIL while it walks
        # every cached item (sampled every 2 s, it stalled the GUI thread itself).
        t_cache = time.perf_counter()
        store = session.app.store if session.app is not None else None
        extra["lance_cache_mb"] = round(getattr(store, "cache_bytes", 0) / 2**20, 1)
        extra["lance_cache_probe_ms"] = round((time.perf_counter() - t_cache) * 1000, 1)
        pages, _chunks = window.documents_model.totals()
        index_bytes = sum(p.stat().st_size for p in (home / "data").rglob("*") if p.is_file())
        extra["index"] = {
            "finished": finished,
            "rows": window.documents_model.rowCount(),
            "files_indexed": window.documents_model.counts().get("indexed", 0),
            **rss.summary(),
            "peak_tree_pss_under_1_5_gb": rss.peak_pss < 1.5 * 2**30,
            "pages": pages,
            "index_mb": round(index_bytes / 2**20, 1),
            "index_mb_per_1000_pages": round(index_bytes / 2**20 * 1000 / max(pages, 1), 2),
            "stall_target_ms": 100.0,
        }
        phase = "sort_and_filter"
        extra["sort_and_filter_ms"] = sort_and_filter(window, _app)
        extra["memory_series"] = rss.series
        if session.answer is not None:
            phase = "answer"
            t0 = time.monotonic()
            window.ask(args.question)
            wait_until(lambda: window.state.exchange is None, 600)
            phases["answer_s"] = round(time.monotonic() - t0, 2)
    if args.case in ("conversation", "all") and session.answer is not None:
        from desktop_rag.types import TokenEvent

        pdf = big_pdf(home)
        phase = "idle"
        wait_until(lambda: window.model_label.text() == "Answers: ready", 600)
        phase = "open_conversation"
        t0 = time.monotonic()
        conv = long_conversation()
        window.show_conversation(conv)
        wait_until(lambda: False, 0.5)  # let it paint
        phases["open_conversation_s"] = round(time.monotonic() - t0, 2)
        phase = "answer_and_pdf"
        opened: list[float] = []

        def on_event(event: object) -> None:
            if isinstance(event, TokenEvent) and not opened:
                opened.append(time.monotonic())
                window.sources.show_file(str(pdf), page=150)

        session.answer_event.connect(on_event)
        t0 = time.monotonic()
        window.ask("How do I add my own documents?")
        wait_until(lambda: window.state.exchange is None, 600)
        wait_until(lambda: "page 150 of" in window.sources.heading.text(), 60)
        phases["answer_and_pdf_s"] = round(time.monotonic() - t0, 2)
        extra |= {
            "turns": len(conv.exchanges),
            "pdf": pdf.name,
            "pdf_pages": window.sources.document.pageCount(),
            "answer_chars": len(conv.exchanges[-1].answer),
            "target_ms": TARGET_MS,
        }
    phase = "close"
    closed: list[bool] = []
    session.closed.connect(closed.append)  # the session's jobs have let go: the window closes
    window.close()
    wait_until(lambda: bool(closed), 30)
    timer.stop()
    gc_times.__exit__()
    if probe is not None:
        extra["threads"] = {str(t.native_id): t.name for t in threading.enumerate()}
        probe.terminate()
        probe.wait()

    def stats(values: list[float]) -> dict[str, float]:
        ordered = sorted(values)
        return {
            "ticks": len(ordered),
            "max_late_ms": round(ordered[-1], 1) if ordered else 0.0,
            "p99_late_ms": round(ordered[int(len(ordered) * 0.99) - 1], 1) if ordered else 0.0,
        }

    stalls = {
        name: {**stats(values), "worst_at_s": round(worst.get(name, (0, 0))[1], 2)}
        for name, values in late.items()
    }
    if "answer_and_pdf" in stalls:
        extra["under_target"] = stalls["answer_and_pdf"]["max_late_ms"] < TARGET_MS
    print(
        json.dumps(
            {
                "case": args.case,
                "files": args.files,
                "phases": phases,
                "stalls": stalls,
                "documents": len(window.documents_model.paths()),
                "stalls_over_100_ms": [
                    {
                        "phase": p,
                        "late_ms": round(ms),
                        "at_s": at,
                        "gui_ran_ms": round(ran),
                        "gui_waited_for_cpu_ms": round(waited),
                    }
                    for p, ms, at, ran, waited in long_stalls
                ],
                "stalls_over_100_ms_by_cause": by_cause(long_stalls),
                "gui_thread_s": {
                    "ran": round(_schedstat()[0] / 1000, 1),
                    "waited_for_cpu": round(_schedstat()[1] / 1000, 1),
                },
                "gc": gc_times.summary(),
                **extra,
                "load_average": [round(x, 2) for x in os.getloadavg()],
            },
            indent=1,
        )
    )
    shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
