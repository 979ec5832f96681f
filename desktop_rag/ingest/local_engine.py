"""Reading and embedding on this machine: files read in its reader processes, small ones embedded
in groups, long ones stored by their words first with their vectors computed behind, and what is
embedded committed every few seconds."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from desktop_rag.infra import faults
from desktop_rag.ingest import reading, sandbox
from desktop_rag.ingest.chunk import TokenOffsets, embedded_text
from desktop_rag.ingest.commit import Committer, Cut, ensure_text_index
from desktop_rag.ingest.engine import Run
from desktop_rag.ingest.extract import Extracted, ExtractError
from desktop_rag.ingest.scan import Decision
from desktop_rag.ingest.vectors import VectorFiller
from desktop_rag.store import maintenance
from desktop_rag.types import Chunk

log = logging.getLogger(__name__)

EMBED_BATCH = 256  # chunks per embed call: progress and cancel are checked between calls
# Small files are embedded together, this many chunks (or GROUP_SECONDS) at a time: a file of
# one to three pages has about five chunks, and an embed call per file paid a thread start
# and left one of the two passage streams idle for most of its batches (issue 32: 11% more CPU per
# file on 1,500 small files). A file is committed, and said indexed, only after its group.
GROUP_CHUNKS = 32
GROUP_SECONDS = 1.0
# A file of at least this many chunks is stored with its text first, found by its words at
# once, and embedded by the run's VectorFiller while the next files are read (issue 32 item 4):
# its embedding takes seconds, the extra commit tens of milliseconds. Smaller files, whose
# embedding is a small part of their cost, keep one commit with their vectors.
TEXT_FIRST_CHUNKS = 64
FLUSH_CHUNKS = 2048  # commit when this many chunks wait...
FLUSH_SECONDS = 5.0  # ...or this long passed: a crash loses at most a few seconds of work
# Said while the vectors of files already found by their words are computed.
VECTORS_MESSAGE = "Found by their words already; computing vectors"


@dataclass(slots=True)
class _Group:
    """Files waiting to be embedded in one call."""

    files: list[Cut] = field(default_factory=list)
    chunks: int = 0
    since: float = 0.0  # when its first file came

    def __len__(self) -> int:
        return len(self.files)


class LocalEngine:
    """The reading and embedding of a run on this machine (the pipeline's own)."""

    def __init__(self) -> None:
        self._tokenizer: TokenOffsets | None = None
        self._loaded_by: object = None  # the factory `_tokenizer` came from

    def read_and_embed(self, to_read: Sequence[Decision], run: Run) -> bool:
        """Read the files in the reader process, cut and embed them, and commit them in
        batches; whether anything was written."""
        control = run.control
        wrote = False
        out = Committer(run)
        group = _Group()
        filler = VectorFiller(
            run.store,
            lambda texts: run.lowered.call(run.embedder.embed, texts),
            lambda chunk: embedded_text(chunk, run.params),
            control.cancel,
            control.pause,
            on_filled=lambda chunks: _filled(run, chunks),
        )
        if run.store.count_pending():
            # Chunks a crash, an error or a cancel left without vectors get them now.
            log.info("computing the vectors of chunks stored with their text only")
            ensure_text_index(run.store)  # a crash may have come before it was built
            filler.start()
            wrote = True

        def embed_group() -> None:
            nonlocal group
            if group:
                files, group = group, _Group()
                _embed(files, out, run)

        def cut_one(decision: Decision, extracted: Extracted) -> list[Chunk]:
            return reading.cut(decision.info.path, extracted, self._tokens(run), run.params)

        try:
            extracted = reading.read(to_read, run)
            for decision, outcome, chunks in reading.chunked_ahead(extracted, cut_one):
                control.checkpoint()
                if isinstance(outcome, sandbox.Reading):
                    # A long OCR begins: what is embedded is committed (and said indexed)
                    # now, not once the scan is read.
                    embed_group()
                    if out.pending:
                        out.flush()
                        wrote = True
                    continue
                info = decision.info
                faults.reached("extracted")
                run.tracker.emit("indexing", info.path, force=True)
                if isinstance(outcome, ExtractError):
                    out.failed(info, outcome.kind, str(outcome))
                else:
                    assert chunks is not None  # every file read without error is being cut
                    ready = out.ready(decision, outcome, chunks.result)
                    if ready is not None and len(ready.chunks) >= TEXT_FIRST_CHUNKS:
                        out.text_first(ready)
                        filler.start()
                        wrote = True
                    elif ready is not None:
                        if not group:
                            group.since = time.monotonic()
                        group.files.append(ready)
                        group.chunks += len(ready.chunks)
                run.tracker.files_done += 1
                run.tracker.bytes_done += info.size
                if group.chunks >= GROUP_CHUNKS or time.monotonic() - group.since >= GROUP_SECONDS:
                    embed_group()
                waiting = out.pending
                if (
                    len(waiting.chunks) >= FLUSH_CHUNKS
                    or time.monotonic() - waiting.since >= FLUSH_SECONDS
                ):
                    out.flush()
                    wrote = True
            control.stop_if_cancelled()  # the reader stops quietly on cancel
            embed_group()
        except BaseException as exc:
            # What is fully embedded is kept, even on cancel or error: nothing done is lost.
            filler.stop()
            out.flush_after(exc)
            raise
        try:
            if out.pending:
                out.flush()
                wrote = True
        except BaseException:
            filler.stop()
            raise
        if filler.started:
            said = _VectorsSaid(run, filler)
            said()
            filler.finish(said)
            control.stop_if_cancelled()  # a cancel leaves the rest for the next run
        return wrote

    def _tokens(self, run: Run) -> TokenOffsets:
        """The tokenizer, loaded by the first file cut and kept for the next runs."""
        if self._tokenizer is None or self._loaded_by is not run.tokenizer:
            self._tokenizer, self._loaded_by = run.tokenizer(), run.tokenizer
        return self._tokenizer


def _embed(group: _Group, out: Committer, run: Run) -> None:
    """Embed the group's chunks in calls of EMBED_BATCH and add each file to `out`'s pending
    batch; a cancel or an error before the last call adds none of them."""
    chunks = [c for cut in group.files for c in cut.chunks]
    owner = [cut.decision.info.path for cut in group.files for _ in cut.chunks]
    vectors = []
    for start in range(0, len(chunks), EMBED_BATCH):
        run.control.checkpoint()
        batch = chunks[start : start + EMBED_BATCH]
        texts = [embedded_text(c, run.params) for c in batch]
        vectors.append(run.lowered.call(run.embedder.embed, texts))
        faults.reached("embedded")
        run.tracker.chunks += len(batch)
        run.tracker.emit("indexing", owner[start + len(batch) - 1])
    rows = np.concatenate(vectors)
    offset = 0
    for cut in group.files:
        mine = rows[offset : offset + len(cut.chunks)]
        offset += len(cut.chunks)
        out.embedded(cut, mine)


def _filled(run: Run, chunks: Sequence[Chunk]) -> None:
    # Counted only (the filler's thread): the run's thread says it, with the rest.
    run.tracker.chunks += len(chunks)
    # Filled rows are stored anew, outside the full-text index until folded in.
    maintenance.fold_text_index(run.store)


class _VectorsSaid:
    """Said while the files are read and found by their words, and only their vectors are
    left: how many passages wait, and for about how long; once per batch stored."""

    def __init__(self, run: Run, filler: VectorFiller) -> None:
        self.run = run
        self.filler = filler
        self.said = -1  # chunks filled when it last said so

    def __call__(self) -> None:
        filler = self.filler
        if filler.filled == self.said:
            return  # once per batch stored, not at every wait
        self.said = filler.filled
        left = self.run.store.count_pending()
        rate = filler.filled / max(time.monotonic() - filler.started_at, 1e-3)
        self.run.tracker.emit(
            "vectors",
            force=True,
            message=f"{VECTORS_MESSAGE}: {left:,} passages to go",
            eta=left / rate if rate > 0 else None,
        )
