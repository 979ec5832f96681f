"""The index's tables as columns (documents, chunks), the metadata file that says what an
index was built with, and how a stored row becomes a Chunk or a Hit. No reads or writes of
rows: those are store/lance.py's."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from desktop_rag.errors import IndexDamagedError
from desktop_rag.types import Chunk, Hit

# 2: chunks gained section, nav and boxes; documents gained format and reader.
SCHEMA_VERSION = 2
DOCUMENTS = "documents"
CHUNKS = "chunks"
META_FILE = "meta.json"
CHUNK_COLUMNS = ["chunk_id", "doc_id", "path", "page", "start", "end", "text"]
# Columns added by format 2; an index built before them is read without them (as built, until
# it is rebuilt), and its rows get the defaults of types.Chunk.
CHUNK_EXTRAS = ["section", "nav", "boxes"]
HIT_EXTRAS = ["section", "nav"]  # what a hit carries of them: boxes can be large


@dataclass(frozen=True, slots=True)
class IndexMeta:
    """What the vectors and chunks in an index were made with; a mismatch means rebuild."""

    schema_version: int
    embedder_id: str
    dim: int
    chunking: dict[str, int]

    def differences(self, other: IndexMeta) -> list[str]:
        """What keeps an index built with `other` from being used with this one; none when its
        chunking differs only in MIXABLE_CHUNKING."""
        out = []
        if self.schema_version != other.schema_version:
            out.append(f"index format {other.schema_version} → {self.schema_version}")
        if self.embedder_id != other.embedder_id or self.dim != other.dim:
            out.append(
                f"embedder {other.embedder_id} ({other.dim}d) → {self.embedder_id} ({self.dim}d)"
            )
        mine, theirs = _unmixable(self.chunking), _unmixable(other.chunking)
        if mine != theirs:
            sizes = {k: v for k, v in mine.items() if k != "sections"}
            if sizes == {k: v for k, v in theirs.items() if k != "sections"}:
                out.append("chunks without section headings → chunks that know their section")
            else:
                out.append(f"chunking {other.chunking} → {self.chunking}")
        return out


# Chunking parameters whose vectors mix with the others' in one index: an index made before
# one of them keeps its chunks, and files indexed since are embedded the new way, with no
# rebuild asked for. nav_headings: a navigation page's vector of its text or of its heading
# alone are both matched, and demoted, alike (ingest/chunk.py).
MIXABLE_CHUNKING = frozenset({"nav_headings"})


def _unmixable(chunking: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in chunking.items() if k not in MIXABLE_CHUNKING}


def documents_schema() -> pa.Schema:
    return pa.schema(
        [
            ("doc_id", pa.string()),
            ("path", pa.string()),
            ("size", pa.int64()),
            ("mtime_ns", pa.int64()),
            ("sha256", pa.string()),
            ("pages", pa.int32()),
            ("chunks", pa.int32()),
            ("status", pa.string()),
            ("error", pa.string()),
            ("error_kind", pa.string()),
            ("indexed_at", pa.float64()),
            ("format", pa.string()),
            ("reader", pa.string()),
            ("failures", pa.int32()),
            ("failed_size", pa.int64()),
            ("failed_mtime_ns", pa.int64()),
            ("ocr", pa.bool_()),
            ("date_ns", pa.int64()),
        ]
    )


# Columns added to the documents table since format 1, with the value old rows get: an index
# made before them is brought up to date by its first writer instead of being rebuilt.
ADDED_DOCUMENT_COLUMNS = {
    "failures": "CAST(0 AS INT)",
    "failed_size": "CAST(-1 AS BIGINT)",
    "failed_mtime_ns": "CAST(-1 AS BIGINT)",
    "ocr": "false",  # "read with OCR", asked per file (issue 16)
    "date_ns": "CAST(0 AS BIGINT)",  # the document's own date (issue 33): none until re-read
}


def chunks_schema(dim: int) -> pa.Schema:
    return pa.schema(
        [
            ("chunk_id", pa.string()),
            ("doc_id", pa.string()),
            ("path", pa.string()),
            ("page", pa.int32()),
            ("start", pa.int32()),
            ("end", pa.int32()),
            ("text", pa.string()),
            ("section", pa.string()),
            ("nav", pa.bool_()),
            ("boxes", pa.string()),
            ("vector", pa.list_(pa.float32(), dim)),
            # Stored with its text before its vector exists (issue 32 item 4): its vector is a
            # placeholder (zeros) until the pipeline fills it in; vector search skips it.
            ("pending", pa.bool_()),
            # Its Chinese and Japanese words as pairs of characters (store/grams.py), for the
            # full-text index; empty for text in other scripts.
            ("grams", pa.string()),
            # Its words stemmed as its language (store/stems.py), for the full-text index;
            # empty for English text and text whose language is not clear.
            ("stems", pa.string()),
        ]
    )


# Columns added to the chunks table since format 2, with the value old rows get (by the first
# writer, as ADDED_DOCUMENT_COLUMNS). An index without them is read as before.
ADDED_CHUNK_COLUMNS = {"pending": "false", "grams": "''", "stems": "''"}
PENDING = "pending"
GRAMS = "grams"
STEMS = "stems"


def chunk_from_row(row: dict[str, Any]) -> Chunk:
    """A stored chunk row (any columns beyond a Chunk's are ignored, missing ones defaulted)."""
    return Chunk(**{k: row[k] for k in (*CHUNK_COLUMNS, *CHUNK_EXTRAS) if k in row})


def hit_from_row(row: dict[str, Any], score: float, similarity: float = 0.0) -> Hit:
    fields = {k: row[k] for k in (*CHUNK_COLUMNS, *HIT_EXTRAS) if k in row}
    return Hit(**fields, score=score, similarity=similarity)


def read_meta(index_path: Path) -> IndexMeta | None:
    """The metadata an index was built with; None when it has none (a new index)."""
    try:
        raw = json.loads((index_path / META_FILE).read_text(encoding="utf-8"))
        return IndexMeta(
            int(raw["schema_version"]),
            str(raw["embedder_id"]),
            int(raw["dim"]),
            {str(k): int(v) for k, v in raw["chunking"].items()},
        )
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise IndexDamagedError(f"The index metadata in {index_path} is damaged ({exc}).") from exc


def write_meta(index_path: Path, meta: IndexMeta) -> None:
    """Write the metadata file whole or not at all."""
    tmp = index_path / (META_FILE + ".tmp")
    tmp.write_text(json.dumps(asdict(meta), indent=2), encoding="utf-8")
    os.replace(tmp, index_path / META_FILE)
