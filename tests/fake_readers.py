"""Readers for the reader-process tests: a file's name says how it behaves (ok, crash, hang).

They run inside the real reader processes, so they live in an importable module.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from desktop_rag.ingest.extract import Extracted
from desktop_rag.types import Page


def text_of(path: str) -> str:
    return f"the text of {Path(path).name}"


def read_by_name(path: str, password: str | None = None) -> Extracted:
    """'crash' in the name kills the process, 'hang' sleeps for a minute, 'oom' runs out of
    memory, 'priority' reads as the reader's nice value and I/O class; any other file reads
    as one page saying its own name."""
    name = Path(path).name
    if "priority" in name:
        import psutil

        io = psutil.Process().ionice().ioclass if hasattr(psutil.Process, "ionice") else None
        return Extracted([Page(1, f"{os.getpriority(os.PRIO_PROCESS, 0)} {int(io or 0)}")], "", "")
    if "crash" in name:
        os._exit(3)
    if "hang" in name:
        time.sleep(60)
    if "oom" in name:
        raise MemoryError
    return Extracted([Page(1, text_of(path))], "fake", "")
