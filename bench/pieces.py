"""Word pieces embedded per page by the app and by the plain loop, and what they are (issue 32).

For a library (the dense manuals of bench/dense.py, or the small files of bench/small_files.py),
each file is read once with the app's reader (pdfium) and cut two ways:
- the app: pages laid out (sections, navigation pages, running headers and footers cut) and
  chunked as the pipeline does, each chunk as the embedder reads it (ingest/chunk.embedded_text);
- the plain loop (bench/baseline.py): the file's words in 180-word chunks with 30 of overlap,
  truncated by the model at 256 word pieces.
The app's pieces are split into the page's own text (each piece once), the overlap (pieces a
chunk repeats from the one before), the heading prefix (document title and section), the two
special tokens, and the padding of its length-sorted batches; the plain loop's into text,
overlap, specials and padding (batches of 32 sorted by length, as sentence-transformers does).
It also counts the lines of the embedded text that recur on RECUR_PAGES or more pages of one
document (boilerplate the running-header cut left in) and their word pieces.

The plain loop here reads pdfium's text, not pypdf's, so both sides cut the same words; its
chunk count is printed beside bench/baseline.py's own (pypdf) for comparison.

Usage: python -m bench.pieces [--set speed] [--small N] [--params max_tokens=128,overlap=24]
Prints one JSON document (also kept in bench/out/pieces-<name>.json).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench import baseline
from bench.perfutil import emit, fast_tokenizer, machine, pdfs, say

RECUR_PAGES = 3  # a line on this many pages of one document is boilerplate
APP_BATCH = 4  # engines/onnx_embed.PASSAGE_BATCH
APP_CALL = 256  # ingest/local_engine.EMBED_BATCH: chunks per embed call, batches sorted within it
SMALL_GROUP = 32  # ingest/local_engine.GROUP_CHUNKS: small files' chunks embedded together
BASE_BATCH = 32
MODEL_LIMIT = 256


def _padding(lengths: Sequence[int], batch: int) -> int:
    order = sorted(lengths, reverse=True)
    return sum(
        max(order[i : i + batch]) * len(order[i : i + batch]) - sum(order[i : i + batch])
        for i in range(0, len(order), batch)
    )


def _groups(per_file: Sequence[list[int]], group: int) -> list[list[int]]:
    """The pipeline's embed calls: a file's chunks in calls of APP_CALL, small files gathered
    until GROUP_CHUNKS (the time limit aside)."""
    calls: list[list[int]] = []
    pending: list[int] = []
    for lengths in per_file:
        pending.extend(lengths)
        if len(pending) >= group:
            calls.extend(pending[i : i + APP_CALL] for i in range(0, len(pending), APP_CALL))
            pending = []
    if pending:
        calls.append(pending)
    return calls


_SHAPE = re.compile(r"[0-9]+")


def account(files: Sequence[Path], params_json: dict[str, int]) -> dict[str, Any]:
    """Both sides' word pieces on `files`, per page and in all."""
    from desktop_rag.ingest.chunk import ChunkParams, bundled_tokenizer, chunk_pages, embedded_text
    from desktop_rag.ingest.extract import extract
    from desktop_rag.ingest.layout import layout_pages

    params = replace(ChunkParams(), **params_json)
    tok = bundled_tokenizer()
    raw = fast_tokenizer()  # the same tokenizer, for batch counts

    def pieces(texts: list[str], special: bool = True) -> list[int]:
        if not texts:
            return []
        return [len(e.ids) for e in raw.encode_batch(texts, add_special_tokens=special)]

    pages = files_read = 0
    app: Counter[str] = Counter()
    base: Counter[str] = Counter()
    app_files: list[list[int]] = []
    recur_lines = recur_pieces = 0
    for path in files:
        try:
            ex = extract(str(path))
        except Exception as exc:  # counted as failed by both sides
            say(f"{path}: {exc}")
            continue
        files_read += 1
        pages += len(ex.pages)
        layouts = layout_pages(ex.pages, ex.outline) if params.sections else None
        chunks = chunk_pages("d", str(path), ex.pages, tok, params, layouts)
        texts = [embedded_text(c, params) for c in chunks]
        total = pieces(texts)
        # A navigation page's chunks embed their heading alone (ChunkParams.nav_headings).
        text_embedded = [not (c.nav and params.sections and params.nav_headings) for c in chunks]
        body = [
            n if keep else 0
            for n, keep in zip(
                pieces([c.text for c in chunks], special=False), text_embedded, strict=True
            )
        ]
        # Each page's embedded text once: its chunks' spans merged.
        spans: dict[int, list[tuple[int, int]]] = {}
        for c, keep in zip(chunks, text_embedded, strict=True):
            if keep:
                spans.setdefault(c.page, []).append((c.start, c.end))
        by_number = {p.number: p.text for p in ex.pages}
        once = 0
        for number, ss in spans.items():
            text = by_number[number]
            merged: list[tuple[int, int]] = []
            for s, e in sorted(ss):
                if merged and s <= merged[-1][1]:
                    merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
                else:
                    merged.append((s, e))
            once += sum(pieces([text[s:e] for s, e in merged], special=False))
        app["chunks"] += len(chunks)
        app["embedded"] += sum(total)
        app["text_once"] += once
        app["overlap"] += sum(body) - once
        app["heading_prefix"] += sum(total) - sum(body) - 2 * len(chunks)
        app["special"] += 2 * len(chunks)
        app["nav_chunks (heading alone)"] += text_embedded.count(False)
        app_files.append(total)
        # Lines of the embedded text recurring on RECUR_PAGES pages or more of this document.
        seen: Counter[str] = Counter()
        for number, ss in spans.items():
            text = by_number[number][min(s for s, _ in ss) : max(e for _, e in ss)]
            for line in {_SHAPE.sub("#", ln.strip().lower()) for ln in text.splitlines()}:
                if len(line) > 3:
                    seen[line] += 1
        repeated = [ln for ln, n in seen.items() if n >= RECUR_PAGES]
        recur_lines += sum(seen[ln] for ln in repeated)
        recur_pieces += sum(
            n * seen[ln] for ln, n in zip(repeated, pieces(repeated, special=False), strict=True)
        )
        # The plain loop's chunks of the same words.
        words = " ".join(p.text for p in ex.pages).split()
        naive = baseline.chunk_words(words)
        full = pieces(naive)
        cut = [min(n, MODEL_LIMIT) for n in full]
        base["chunks"] += len(naive)
        base["embedded"] += sum(cut)
        base["truncated_chunks"] += sum(n > MODEL_LIMIT for n in full)
        base["lost_to_truncation"] += sum(full) - sum(cut)
        base["text_once"] += sum(pieces([" ".join(words)], special=False))
        base["special"] += 2 * len(naive)
        base["padding"] += _padding(cut, BASE_BATCH)
    base["overlap"] = base["embedded"] - base["special"] - base["text_once"]
    # (negative overlap: text lost to truncation exceeds the overlap.)
    small = files_read and app["chunks"] / files_read < SMALL_GROUP
    calls = _groups(app_files, SMALL_GROUP if small else 1)
    app["padding"] = sum(_padding(c, APP_BATCH) for c in calls)
    app["embed_calls"] = len(calls)

    def per_page(c: Counter[str]) -> dict[str, float]:
        return {k: round(v / max(pages, 1), 1) for k, v in sorted(c.items())}

    return {
        "files": files_read,
        "pages": pages,
        "params": params.to_json(),
        "app": dict(app),
        "app_per_page": per_page(app),
        "baseline": dict(base),
        "baseline_per_page": per_page(base),
        "app_over_baseline_computed": round(
            (app["embedded"] + app["padding"]) / max(base["embedded"] + base["padding"], 1), 3
        ),
        f"lines_on_{RECUR_PAGES}+_pages_of_their_document": {
            "lines": recur_lines,
            "pieces": recur_pieces,
            "pieces_per_page": round(recur_pieces / max(pages, 1), 1),
        },
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--set", default="speed", help="a set of bench/manuals.py")
    parser.add_argument("--small", type=int, default=0, help="N generated small files instead")
    parser.add_argument("--params", default="", help="ChunkParams overrides: a=1,b=2")
    args = parser.parse_args(argv)
    overrides = {k: int(v) for k, v in (kv.split("=") for kv in args.params.split(",") if kv)}
    result: dict[str, Any] = {"bench": "pieces", "machine": machine()}
    if args.small:
        from bench.perfutil import make_library

        with tempfile.TemporaryDirectory(prefix="bench-pieces-") as tmp:
            make_library(Path(tmp), args.small)
            result["set"] = f"small-{args.small}"
            result.update(account(pdfs(Path(tmp)), overrides))
    else:
        from bench import manuals

        result["set"] = f"manuals-{args.set}"
        result.update(account(manuals.fetch(manuals.SETS[args.set]), overrides))
    suffix = "-" + args.params.replace("=", "").replace(",", "-") if args.params else ""
    emit(f"pieces-{result['set']}{suffix}", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
