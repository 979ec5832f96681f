"""Where an index run's wall time goes: `desktop-rag index` with its main phases timed.

Runs the CLI's own `index` in this process on FOLDER into a new data folder, with timers around
the embedder's calls (OnnxEmbedder.embed: tokenizing and ONNX Runtime), the commits
(IngestService._flush, LanceStore.commit), the final tidying (LanceStore.optimize) and the waits
for the reader process (each file Sandbox.run yields). Everything else (imports, model loading,
chunking that the embedding does not hide, progress) is the rest of `total_s`.

    python bench/index_phases.py FOLDER [--config DIR]

Prints one JSON document (also kept in bench/out/index_phases.json).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import functools
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import Any

from perfutil import REPO, emit, machine

sys.path.insert(0, str(REPO))

SECONDS: dict[str, float] = collections.defaultdict(float)
CALLS: collections.Counter[str] = collections.Counter()


def _timed(owner: Any, name: str, label: str) -> None:
    fn = getattr(owner, name)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t0 = time.monotonic()
        try:
            return fn(*args, **kwargs)
        finally:
            SECONDS[label] += time.monotonic() - t0
            CALLS[label] += 1

    setattr(owner, name, wrapper)


def _timed_yields(owner: Any, name: str, label: str) -> None:
    fn: Callable[..., Iterator[Any]] = getattr(owner, name)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Iterator[Any]:
        items = fn(*args, **kwargs)
        while True:
            t0 = time.monotonic()
            try:
                item = next(items)
            except StopIteration:
                return
            finally:
                SECONDS[label] += time.monotonic() - t0
            CALLS[label] += 1
            yield item

    setattr(owner, name, wrapper)


def main() -> int:
    t0 = time.monotonic()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--config", help="a settings folder (DESKTOP_RAG_CONFIG_DIR)")
    args = parser.parse_args()
    if args.config:
        os.environ["DESKTOP_RAG_CONFIG_DIR"] = args.config

    from desktop_rag import cli
    from desktop_rag.engines.onnx_embed import OnnxEmbedder
    from desktop_rag.ingest import sandbox
    from desktop_rag.ingest.pipeline import IngestService
    from desktop_rag.store import maintenance
    from desktop_rag.store.lance import LanceStore

    imported = time.monotonic() - t0
    _timed(OnnxEmbedder, "embed", "embed")
    _timed(IngestService, "_flush", "flush")
    _timed(LanceStore, "commit", "commit")
    _timed(maintenance, "optimize", "optimize")
    _timed_yields(sandbox.Sandbox, "run", "reader_wait")
    with tempfile.TemporaryDirectory() as data:
        t1 = time.monotonic()
        with contextlib.redirect_stdout(sys.stderr):  # its own JSON: not this one's
            code = cli.main(["index", args.folder, "--data-dir", data, "--json"])
        run = time.monotonic() - t1
    total = time.monotonic() - t0
    phases = {k: {"seconds": round(v, 2), "calls": CALLS[k]} for k, v in SECONDS.items()}
    timed = SECONDS["embed"] + SECONDS["flush"] + SECONDS["optimize"] + SECONDS["reader_wait"]
    emit(
        "index_phases",
        {
            "machine": machine(),
            "folder": args.folder,
            "exit_code": code,
            "total_s": round(total, 2),
            "cli_imports_s": round(imported, 2),
            "index_command_s": round(run, 2),
            "phases": phases,
            # commits run inside _flush: counted once
            "rest_s": round(total - timed, 2),
        },
    )
    return 0


if __name__ == "__main__":  # the reader process imports this module again: run only here
    raise SystemExit(main())
