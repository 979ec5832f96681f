"""Where the tests' pipelines read files: in the test's own process, or in reader processes.

`make test` runs the pipeline's, the watcher's and the window's tests a second time with
`--start-method spawn` (or DESKTOP_RAG_START_METHOD=spawn): multiprocessing's default start
method becomes spawn, as on Windows and macOS, and the pipelines these tests build read their
files in the sandbox's reader processes instead of inline, so nothing they hand to a reader
may rely on what a forked child would have inherited.
"""

from __future__ import annotations

import os

ENV = "DESKTOP_RAG_START_METHOD"


def start_method() -> str:
    """The start method this test run asked for ("" when none: readers run inline)."""
    return os.environ.get(ENV, "").strip()


def isolate() -> bool:
    """Whether the pipelines of the tests that follow the start method use reader processes."""
    return start_method() == "spawn"
