"""Which documents mention or discuss a subject: documents ranked by their best passages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from desktop_rag.query.answer import RELEVANCE_THRESHOLD
from desktop_rag.query.retrieve import Retriever
from desktop_rag.query.scope import Scope
from desktop_rag.types import Hit

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
                best.path, doc_id, best.score, len(mine), best.page, best.section, best.text
            )
        )
    return out


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
