"""Fault injection for crash tests: kill this process at a named point, nowhere else used.

DESKTOP_RAG_KILL_AT="point:n" makes the n-th pass through `point` (1-based) kill the process
(SIGKILL; TerminateProcess on Windows), as a power cut or the OOM killer would. Unset,
`reached` is a dictionary lookup.
"""

from __future__ import annotations

import os

from desktop_rag.infra import processes

_target: tuple[str, int] | None = None
_counts: dict[str, int] = {}


def _load() -> None:
    global _target
    spec = os.environ.get("DESKTOP_RAG_KILL_AT", "")
    if ":" in spec:
        name, _, n = spec.rpartition(":")
        _target = (name, int(n))


_load()


def reached(point: str) -> None:
    if _target is None or _target[0] != point:
        return
    _counts[point] = _counts.get(point, 0) + 1
    if _counts[point] == _target[1]:
        processes.kill_self()
