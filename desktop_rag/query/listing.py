"""Which documents mention or discuss a subject: documents ranked by their best passages."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from desktop_rag.query.answer import RELEVANCE_THRESHOLD
from desktop_rag.query.retrieve import Retriever
from desktop_rag.query.scope import Scope
from desktop_rag.types import DocumentRecord, Hit, Status

# Passages searched to rank documents by: a library question asks which documents, so it
# looks far deeper than the five passages an answer uses; a document's count is how many of
# these passages are its own.
DEPTH = 100


@dataclass(frozen=True, slots=True)
class DocumentMatch:
    """A document and what the search found in it: its best passage and how many others."""

    path: str
    doc_id: str
    score: float  # its best passage's
    matches: int  # its passages among the DEPTH best of the search
    page: int  # its best passage's page (or section ordinal)
    section: str
    text: str  # its best passage
    start: int = 0  # its best passage's span on its page
    end: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "score": round(self.score, 6),
            "matches": self.matches,
            "page": self.page,
            "section": self.section,
            "text": self.text,
        }


def matches(hit: Hit, threshold: float = RELEVANCE_THRESHOLD) -> bool:
    """Whether a passage mentions or discusses the query: found by its words (BM25), or as
    near by meaning as an answer's sources must be. A hybrid search ranks every passage it
    saw by meaning, so without this a small library's every document would be listed."""
    found_by_words = hit.why is not None and hit.why.text_rank is not None
    return found_by_words or hit.similarity >= threshold


def by_document(hits: list[Hit]) -> list[DocumentMatch]:
    """Ranked passages grouped by document, a document ranked by its best (first) passage;
    only passages that match (above) count."""
    grouped: dict[str, list[Hit]] = {}
    for hit in hits:
        if matches(hit):
            grouped.setdefault(hit.doc_id or hit.path, []).append(hit)
    out = []
    for doc_id, mine in grouped.items():
        best = mine[0]
        out.append(
            DocumentMatch(
                best.path,
                doc_id,
                best.score,
                len(mine),
                best.page,
                best.section,
                best.text,
                best.start,
                best.end,
            )
        )
    return out


def find_documents(
    retriever: Retriever,
    records: Iterable[DocumentRecord],
    query: str,
    k: int = 10,
    fields: Fields | None = None,
    scope: Scope | None = None,
) -> list[DocumentMatch]:
    """The k documents that best match the query among those in the scope whose fields match
    (`documents QUERY --format pdf`, "which PDFs mention X"): the fields narrow the search
    itself, as a scope of the files they match, never by dropping documents afterwards."""
    if fields is not None and fields.any:
        paths = tuple(r.path for r in by_fields(records, fields, scope))
        if not paths:
            return []
        scope = Scope(files=paths)
    return rank_documents(retriever, query, k, scope)


def rank_documents(
    retriever: Retriever,
    query: str,
    k: int = 10,
    scope: Scope | None = None,
    depth: int = DEPTH,
) -> list[DocumentMatch]:
    """The k documents whose passages best match the query, best first (within a scope)."""
    if k <= 0:
        return []
    return by_document(retriever.search(query, max(depth, k), scope=scope))[:k]


@dataclass(frozen=True, slots=True)
class Fields:
    """What "how many", "list" and "from 2024" ask of the documents table, never of the model:
    the file's format and its year (year_of)."""

    year: int | None = None
    format: str = ""

    @property
    def any(self) -> bool:
        return self.year is not None or bool(self.format)


def dated_ns(record: DocumentRecord) -> int:
    """When a document was written: its own date (a PDF's CreationDate, else its ModDate;
    ingest/dates.py), else the file's modification time."""
    return record.date_ns or record.mtime_ns


def year_of(record: DocumentRecord) -> int:
    return datetime.fromtimestamp(dated_ns(record) / 1e9).year


def by_fields(
    records: Iterable[DocumentRecord], fields: Fields = Fields(), scope: Scope | None = None
) -> list[DocumentRecord]:
    """The indexed documents in the scope whose fields match, by path."""
    fmt = fields.format.lower().lstrip(".")
    out = [
        r
        for r in records
        if r.status == Status.INDEXED
        and (scope is None or scope.contains(r.path))
        and (not fmt or r.format == fmt or r.path.lower().endswith("." + fmt))
        and (fields.year is None or year_of(r) == fields.year)
    ]
    return sorted(out, key=lambda r: r.path)


def record_json(record: DocumentRecord) -> dict[str, Any]:
    return {
        "path": record.path,
        "format": record.format,
        "pages": record.pages,
        "modified": datetime.fromtimestamp(record.mtime_ns / 1e9).isoformat(timespec="seconds"),
        "date": datetime.fromtimestamp(dated_ns(record) / 1e9).isoformat(timespec="seconds"),
        "dated_by": "document" if record.date_ns else "file",
    }
