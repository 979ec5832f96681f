"""Watch a process's threads from outside it: which one held the GIL while its GUI thread stalled.

Usage: python -m bench.stall_probe PID BEAT OUT.jsonl [--gui-tid TID] [--over-ms MS]
                                   [--py-spy PATH]
       python -m bench.stall_probe --summary OUT.jsonl   (JSON: the stalls by cause)
Run beside the process (bench/window_stall.py starts it with STALL_PROBE=DIR). BEAT is a file
of 8 bytes the GUI thread rewrites on each tick of its timer (time.monotonic(), a double).
Every 5 ms the probe reads it and each thread's /proc schedstat (time run, time waited ready
for a CPU); when the GUI thread has not ticked for over MS (default 100), it dumps the
process's Python stacks once with py-spy (if given; --nonblocking, so the process is not
stopped), which marks the thread holding the GIL. When the GUI thread ticks again it writes
one JSON line: how long the stall lasted and, per thread, how long it ran and how long it
waited for a CPU meanwhile, with the dump. A GUI thread that neither ran nor waited for a CPU
slept: on the GIL (or a lock). Being another process, the probe needs no GIL of its own.
"""

from __future__ import annotations

import argparse
import collections
import json
import mmap
import os
import re
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

TICK_S = 0.005
# py-spy's line for the thread holding the GIL, its name, and the frames below it.
HOLDER = re.compile(r'Thread \d+ \(active\+gil\): "?([^"\n]*)"?\n((?:    .*\n?)*)')


def _read(pid: int) -> dict[int, tuple[float, float]]:
    """tid -> (ms run, ms waited for a CPU) for every thread of pid."""
    out: dict[int, tuple[float, float]] = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for name in tids:
        try:
            with open(f"/proc/{pid}/task/{name}/schedstat", "rb") as f:
                ran, waited = f.read().split()[:2]
        except (OSError, ValueError):
            continue
        out[int(name)] = (int(ran) / 1e6, int(waited) / 1e6)
    return out


def _children(pid: int) -> list[int]:
    """Every descendant process of pid (the reader processes and what they start)."""
    out: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            tids = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                kids = Path(f"/proc/{parent}/task/{tid}/children").read_text().split()
            except OSError:
                continue
            for kid in map(int, kids):
                out.append(kid)
                todo.append(kid)
    return out


def _tree(children: list[int]) -> dict[int, tuple[float, float]]:
    """pid -> (ms run, ms waited for a CPU) summed over its threads, for each child given."""
    return {
        child: (sum(r for r, _ in rows.values()), sum(w for _, w in rows.values()))
        for child in children
        if (rows := _read(child))
    }


def _cpu() -> list[int]:
    """The machine's CPU time so far, in clock ticks: user, nice, system, idle, iowait, steal."""
    with open("/proc/stat", "rb") as f:
        fields = [int(x) for x in f.readline().split()[1:9]]
    return [fields[i] for i in (0, 1, 2, 3, 4, 7)]


def _comm(pid: int, tid: int) -> str:
    try:
        return Path(f"/proc/{pid}/task/{tid}/comm").read_text().strip()
    except OSError:
        return "?"


def summary(path: Path) -> dict[str, Any]:
    """The stalls by cause. A thread other than the GUI's holding the GIL in the dump: a GIL
    wait. Else the GUI thread waited for a CPU at least half the stall: a CPU wait (with the
    share of both CPUs' time the machine accounted for meanwhile: under 1, the virtual
    machine itself did not run). Else it ran at least half of it: its own work. Else it
    slept with no GIL holder seen (or no dump was taken in time)."""
    rows = [json.loads(line) for line in path.open()]
    rows = [r for r in rows if r["at_monotonic"] > 0]  # a torn read of the beat (now skipped)
    by: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    holders: collections.Counter[str] = collections.Counter()
    for row in rows:
        held = re.search(
            r'Thread \d+ \(active\+gil\): "?([^"\n]*)"?\n((?:    .*\n?)*)', row["dump"]
        )
        ms = row["stalled_ms"]
        if held and held.group(1) != "MainThread":
            cause = "gil_held_by_another_thread"
            frames = [f.strip() for f in held.group(2).splitlines() if f.strip()]
            holders[" <- ".join(frames[:3])] += 1
        elif (row["gui_waited_for_cpu_ms"] or 0) >= ms / 2:
            cause = "waited_for_cpu"
        elif (row["gui_ran_ms"] or 0) >= ms / 2 or held:
            cause = "gui_thread_busy"
        else:
            cause = "slept_no_gil_holder_seen"
        by[cause].append(row)

    def accounted(row: dict[str, Any]) -> float:
        return sum(row.get("machine_ms", {}).values()) / (2 * row["stalled_ms"])

    out: dict[str, Any] = {"stalls": len(rows)}
    for cause, group in sorted(by.items()):
        shares = sorted(accounted(r) for r in group if "machine_ms" in r)
        out[cause] = {
            "count": len(group),
            "longest_ms": max(r["stalled_ms"] for r in group),
            "machine_time_accounted_median": round(shares[len(shares) // 2], 2) if shares else None,
        }
    out["gil_holders"] = dict(holders.most_common())
    return out


def main() -> int:
    if sys.argv[1:2] == ["--summary"]:
        print(json.dumps(summary(Path(sys.argv[2])), indent=1))
        return 0
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("pid", type=int)
    parser.add_argument("beat", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--gui-tid", type=int, default=0)
    parser.add_argument("--over-ms", type=float, default=100.0)
    parser.add_argument("--py-spy", default="")
    args = parser.parse_args()
    gui = args.gui_tid or args.pid
    with args.beat.open("rb") as f:
        beat = mmap.mmap(f.fileno(), 8, access=mmap.ACCESS_READ)
    # The counters of every thread at the GUI thread's last tick: a stall is measured from it.
    last = struct.unpack_from("d", beat)[0]
    base = _read(args.pid)
    kids = _children(args.pid)  # looked for again every second: a costly walk
    kids_at = time.monotonic()
    base_kids = _tree(kids)
    base_cpu = _cpu()
    dumped = ""
    with args.out.open("a") as out:
        while os.path.exists(f"/proc/{args.pid}"):
            time.sleep(TICK_S)
            tick = struct.unpack_from("d", beat)[0]
            if tick < last or tick <= 0:  # a torn read (seen once): the next one is whole
                continue
            if tick == last:
                if not dumped and args.py_spy and (time.monotonic() - last) * 1000 > args.over_ms:
                    done = subprocess.run(
                        [args.py_spy, "dump", "--pid", str(args.pid), "--nonblocking"],
                        capture_output=True,
                        text=True,
                        timeout=30,
                        check=False,
                    )
                    dumped = done.stdout or done.stderr or "(empty)"
                continue
            cur = _read(args.pid)
            cur_kids = _tree(kids)
            cur_cpu = _cpu()
            stalled_ms = (tick - last) * 1000
            if stalled_ms > args.over_ms:
                threads = {}
                for tid, (ran, waited) in cur.items():
                    b = base.get(tid, (0.0, 0.0))
                    d_ran, d_wait = ran - b[0], waited - b[1]
                    if d_ran > 1 or d_wait > 1 or tid == gui:
                        threads[str(tid)] = {
                            "comm": _comm(args.pid, tid),
                            "ran_ms": round(d_ran, 1),
                            "waited_for_cpu_ms": round(d_wait, 1),
                            "new": tid not in base,
                        }
                children = {}
                for child, (ran, waited) in cur_kids.items():
                    b = base_kids.get(child, (0.0, 0.0))
                    children[str(child)] = {
                        "comm": _comm(child, child),
                        "ran_ms": round(ran - b[0], 1),
                        "waited_for_cpu_ms": round(waited - b[1], 1),
                        "new": child not in base_kids,
                    }
                gui_row = threads.get(str(gui), {})
                out.write(
                    json.dumps(
                        {
                            "at_monotonic": round(last, 3),
                            "stalled_ms": round(stalled_ms),
                            "gui_ran_ms": gui_row.get("ran_ms"),
                            "gui_waited_for_cpu_ms": gui_row.get("waited_for_cpu_ms"),
                            "threads": threads,
                            "children": children,
                            # What the machine's CPUs did meanwhile (ms, both CPUs summed): at
                            # nice > 0 is mostly this app's readers and embedder pool.
                            "machine_ms": {
                                name: (c - b) * 1000 // os.sysconf("SC_CLK_TCK")
                                for name, c, b in zip(
                                    ("user", "nice", "system", "idle", "iowait", "steal"),
                                    cur_cpu,
                                    base_cpu,
                                    strict=True,
                                )
                            },
                            "load": os.getloadavg()[0],
                            "dump": dumped,
                        }
                    )
                    + "\n"
                )
                out.flush()
            last, base, base_kids, base_cpu, dumped = tick, cur, cur_kids, cur_cpu, ""
            if time.monotonic() - kids_at > 1.0:
                kids, kids_at = _children(args.pid), time.monotonic()
                base_kids = _tree(kids)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
