"""The plain loop every speed benchmark measures `desktop-rag index` against (issue 32).

What a user would write in ten lines, fixed here once so that every ratio means the same thing:
the bundled all-MiniLM-L6-v2 loaded once with `SentenceTransformer` from its local path (the
load counted once), pypdf's text of every page of every file (no sampling), the file's words cut
into 180-word chunks with 30 words of overlap, `encode(batch_size=32)` in fp32, file after file,
nothing stored. A file pypdf cannot read is counted as failed and skipped. Do not tune it.

`measure(paths, env)` runs it in its own process (timed from its start, its CPU seconds and the
peak memory of its tree kept, as bench.perfutil.run_measured does for the app), so a benchmark
times both sides the same way in one run on the same files.

Usage: python -m bench.baseline FILE_OR_FOLDER...   (prints one JSON document)
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.perfutil import REPO, pdfs, run_measured, say

CHUNK_WORDS = 180
OVERLAP_WORDS = 30
BATCH = 32


def chunk_words(words: Sequence[str]) -> list[str]:
    """A file's words in 180-word windows, each starting 150 words after the one before."""
    step = CHUNK_WORDS - OVERLAP_WORDS
    return [
        " ".join(words[j : j + CHUNK_WORDS])
        for j in range(0, max(len(words) - OVERLAP_WORDS, 1), step)
        if words[j : j + CHUNK_WORDS]
    ]


def plain_loop(paths: Sequence[str]) -> dict[str, Any]:
    """The loop itself, in this process: pages, chunks, failed files and the model's load time."""
    import pypdf
    from sentence_transformers import SentenceTransformer

    from desktop_rag.engines.embed import bundled_model_dir

    t0 = time.perf_counter()
    model = SentenceTransformer(str(bundled_model_dir()), device="cpu", local_files_only=True)
    load_s = time.perf_counter() - t0
    files = pages = chunks = failed = 0
    for path in paths:
        try:
            reader = pypdf.PdfReader(path)
            words: list[str] = []
            for page in reader.pages:
                words.extend((page.extract_text() or "").split())
                pages += 1
        except Exception as exc:  # a user's loop would skip it too
            say(f"baseline: {path}: {exc}")
            failed += 1
            continue
        texts = chunk_words(words)
        if texts:
            model.encode(texts, batch_size=BATCH, convert_to_numpy=True)
        files += 1
        chunks += len(texts)
    return {
        "files": files,
        "pages": pages,
        "chunks": chunks,
        "failed": failed,
        "model_load_s": round(load_s, 2),
    }


def measure(paths: Sequence[str | Path], env: dict[str, str] | None = None) -> dict[str, Any]:
    """The plain loop over `paths` in a process of its own: its JSON with wall seconds, CPU
    seconds (its tree's), peak memory, and files, pages and chunks per second of each."""
    env = dict(env if env is not None else os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    cmd = [sys.executable, "-m", "bench.baseline", "-"]
    result = run_measured(cmd, env, stdin="\n".join(map(str, paths)))
    for unit in ("files", "pages", "chunks"):
        result[f"{unit}_per_s"] = round(result[unit] / result["wall_s"], 2)
        result[f"{unit}_per_cpu_s"] = round(result[unit] / max(result["cpu_s"], 1e-9), 2)
    return result


def _paths(args: Sequence[str]) -> list[str]:
    if list(args) == ["-"]:
        return [line for line in sys.stdin.read().splitlines() if line]
    out: list[str] = []
    for arg in args:
        path = Path(arg)
        out.extend(str(p) for p in pdfs(path)) if path.is_dir() else out.append(str(path))
    return out


def main(argv: Sequence[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 2
    print(json.dumps(plain_loop(_paths(argv))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
