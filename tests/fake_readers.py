"""Readers for the reader-process tests: a file's name says how it behaves (ok, crash, hang).

They run inside the real reader processes, so they live in an importable module.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from desktop_rag.ingest.extract import Extracted
from desktop_rag.types import Page


def text_of(path: str) -> str:
    return f"the text of {Path(path).name}"


def read_by_name(path: str, password: str | None = None, ocr: Any = None) -> Extracted:
    """'crash' in the name kills the process ('dies-telling' as it talks to the indexer),
    'hang' sleeps for a minute, 'slow' for 50 ms, 'oom' runs out of memory, 'greedy'
    allocates 2 GB in steps, 'modules' says whether pytest is loaded in the reader, 'priority' reads
    as the reader's nice value and I/O class; 'ocr-slow-N' OCRs N pages of 0.4 s each,
    'ocr-hang-N' OCRs one of N and spins on the next; any other file reads as one page saying
    its own name."""
    name = Path(path).name
    if "priority" in name:
        import psutil

        io = psutil.Process().ionice().ioclass if hasattr(psutil.Process, "ionice") else None
        return Extracted([Page(1, f"{os.getpriority(os.PRIO_PROCESS, 0)} {int(io or 0)}")], "", "")
    if "modules" in name:  # what the reader process inherited: a forked one has pytest
        import sys

        return Extracted(
            [Page(1, f"pytest {'' if 'pytest' in sys.modules else 'not '}loaded")], "", ""
        )
    if name.startswith(("ocr-hang-", "ocr-slow-")) and ocr is not None:
        return _fake_ocr(path, name, ocr)
    if "dies-telling" in name:
        # Killed while it tells the indexer something: if the readers' channel has a lock
        # shared between processes, this reader dies holding it.
        from desktop_rag.ingest import sandbox

        lock = getattr(sandbox._channel, "_wlock", None)
        if lock is not None:
            lock.acquire()
        os._exit(3)
    if "crash" in name:
        os._exit(3)
    if "hang" in name:
        time.sleep(60)
    if "slow" in name:
        time.sleep(0.05)
    if "oom" in name:
        raise MemoryError
    if "greedy" in name:  # touches 40 MB after 40 MB, up to 2 GB: a limit must stop it
        held = []
        for _ in range(50):
            held.append(bytearray(40 << 20))
            time.sleep(0.01)
    return Extracted([Page(1, text_of(path))], "fake", "")


def _fake_ocr(path: str, name: str, request: Any) -> Extracted:
    from desktop_rag.ingest.ocr import wait_while_paused

    total = int(Path(name).stem.rsplit("-", 1)[1])
    if getattr(request, "defer", False):
        from desktop_rag.ingest.ocr import OcrDeferred

        raise OcrDeferred(total)
    request.on_start(total)
    pages = []
    for done in range(1, total + 1):
        wait_while_paused(request)
        if "hang" in name and done == 2:
            while True:  # a runaway page: busy, as an engine stuck on it would be
                pass
        time.sleep(0.4)
        request.on_page(done, total)
        pages.append(Page(done, f"page {done} of {text_of(path)}", ocr=True))
    return Extracted(pages, "fake", "")
