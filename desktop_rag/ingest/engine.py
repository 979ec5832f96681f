"""Reading and embedding, the part of an indexing run that moves between machines: what an
engine is given (`Run`) and what it does (`Engine`), on this machine (`local_engine`) or on a
Ray cluster (`ray_engine`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from desktop_rag.engines.embed import Embedder
from desktop_rag.infra import priority
from desktop_rag.ingest.chunk import ChunkParams, TokenOffsets
from desktop_rag.ingest.control import RunControl
from desktop_rag.ingest.progress import Tracker
from desktop_rag.ingest.scan import Decision
from desktop_rag.store.lance import LanceStore
from desktop_rag.types import DocumentRecord, IndexReport


@dataclass(frozen=True, slots=True)
class Run:
    """One indexing run as its engine sees it: the index and the models, how files are read,
    the caller's control, and the run's counts."""

    store: LanceStore
    embedder: Embedder
    params: ChunkParams
    tokenizer: Callable[[], TokenOffsets]  # loads it: an engine keeps what it loaded
    passwords: Mapping[str, str]
    ocr: bool  # pages without a usable text layer are read with OCR
    isolate: bool  # in reader processes (False: inline, for tests that fake the reader)
    timeout_s: float  # a reader's limits
    memory_mb: int
    low_priority: bool
    control: RunControl
    report: IndexReport
    tracker: Tracker
    lowered: priority.Lowered  # the run's lowered thread, for embedding and hashing
    previous: Mapping[str, DocumentRecord]  # the documents table by path, before the run
    forced: frozenset[str]  # read with OCR on every page, as the user asked


class Engine(Protocol):
    """Reads, cuts and embeds the files a run must read, and commits them (ingest/commit.py)."""

    def read_and_embed(self, to_read: Sequence[Decision], run: Run) -> bool:
        """Every file read and committed, or recorded as failed; whether anything was written.
        Raises Cancelled on cancel, after committing what was embedded."""
        ...
