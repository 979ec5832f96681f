"""The comparison point of bench/retrieval.py: LanceDB's default hybrid search over 180-word chunks.

What a short prototype does with no tuning at all: every page cut into plain chunks of 180
words (no overlap, no sections, no navigation pages set apart), the bundled embedder, one FTS
index on the text, and `table.search(query_type="hybrid")` with LanceDB's default reranker
(reciprocal rank fusion, k=60). The table is built once and cached.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

WORDS = 180


def _pdfs(paths: Sequence[str]) -> list[str]:
    out: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            out.extend(str(x) for x in sorted(Path(p).rglob("*.pdf")))
        else:
            out.append(p)
    return out


def chunks_of(path: str) -> list[dict[str, object]]:
    from desktop_rag.ingest.extract import ExtractError, extract

    try:
        pages = extract(path).pages
    except ExtractError:
        return []
    rows: list[dict[str, object]] = []
    for page in pages:
        words = page.text.split()
        for i in range(0, len(words), WORDS):
            rows.append({"path": path, "page": page.number, "text": " ".join(words[i : i + WORDS])})
    return rows


def prototype_searcher(
    paths: Sequence[str], folder: Path
) -> tuple[Callable[[str], list[tuple[str, int]]], dict[str, object]]:
    import lancedb

    from desktop_rag.app import default_embedder
    from desktop_rag.config import Settings

    embedder = default_embedder(Settings(data_dir=str(folder)))
    db = lancedb.connect(folder / "db")
    info: dict[str, object] = {"words_per_chunk": WORDS}
    if "chunks" not in db.list_tables().tables:
        t0 = time.perf_counter()
        rows: list[dict[str, object]] = []
        for pdf in _pdfs(paths):
            rows.extend(chunks_of(pdf))
        vectors = []
        for start in range(0, len(rows), 256):
            vectors.append(embedder.embed([str(r["text"]) for r in rows[start : start + 256]]))
        matrix = np.concatenate(vectors)
        for row, vector in zip(rows, matrix, strict=True):
            row["vector"] = vector.astype(np.float32)
        table = db.create_table("chunks", data=rows)
        table.create_fts_index("text")
        info["index_seconds"] = round(time.perf_counter() - t0, 1)
        info["load_average"] = os.getloadavg()
    table = db.open_table("chunks")
    info["chunks"] = table.count_rows()

    def search(query: str) -> list[tuple[str, int]]:
        vector = embedder.embed_query(query)
        hits = table.search(query_type="hybrid").vector(vector).text(query).limit(10).to_list()
        return [(str(h["path"]), int(h["page"])) for h in hits]

    return search, info
