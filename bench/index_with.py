"""`desktop-rag index` with other chunking parameters, for a benchmark's variant of the app.

    python -m bench.index_with code_ratio=20,code_head=48 index LIBRARY --data-dir DATA --json

The first argument overrides ChunkParams (bench/pieces.py's --params form); the rest is the
command line's. Only the benchmarks use it: the app itself has no such switch.
"""

from __future__ import annotations

import functools
import multiprocessing
import sys
from dataclasses import replace


def parse(spec: str) -> dict[str, int]:
    """The overrides of "a=1,b=2": {"a": 1, "b": 2}."""
    return {k: int(v) for k, v in (kv.split("=") for kv in spec.split(",") if kv)}


def main(argv: list[str]) -> int:
    import desktop_rag.app
    from desktop_rag.cli import main as cli
    from desktop_rag.ingest.chunk import ChunkParams

    params = replace(ChunkParams(), **parse(argv[0]))
    # The command line imports build_app from desktop_rag.app when it runs: this one is used.
    desktop_rag.app.build_app = functools.partial(desktop_rag.app.build_app, params=params)  # type: ignore[assignment]
    sys.argv = [sys.argv[0], *argv[1:]]
    return cli()


if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(main(sys.argv[1:]))
