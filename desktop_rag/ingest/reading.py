"""A run's files read and cut: in the reader processes (or inline), files with pages to OCR after
the others, each file cut into chunks on a thread of its own while the one before it embeds."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from desktop_rag.engines import ocr
from desktop_rag.ingest import sandbox
from desktop_rag.ingest.chunk import ChunkParams, TokenOffsets, chunk_pages
from desktop_rag.ingest.engine import Run
from desktop_rag.ingest.extract import Extracted, ExtractError
from desktop_rag.ingest.layout import layout_pages
from desktop_rag.ingest.ocr import with_boxes
from desktop_rag.ingest.progress import OcrProgress
from desktop_rag.ingest.scan import Decision, doc_id_for
from desktop_rag.types import Chunk

log = logging.getLogger(__name__)

Read = tuple[Decision, sandbox.Outcome | sandbox.Reading]
# A file as the reader gave it, with its chunks being cut (None: failed, or a Reading).
Ahead = tuple[Decision, sandbox.Outcome | sandbox.Reading, Future[list[Chunk]] | None]


def cut(
    path: str, extracted: Extracted, tokenizer: TokenOffsets, params: ChunkParams
) -> list[Chunk]:
    """A read file's chunks: its pages laid out (sections, navigation pages) and cut; the
    local and the Ray engine's readers cut with this."""
    layouts = layout_pages(extracted.pages, extracted.outline) if params.sections else None
    chunks = chunk_pages(doc_id_for(path), path, extracted.pages, tokenizer, params, layouts)
    return with_boxes(chunks, extracted.pages)


def auto_ocr(enabled: bool) -> str:
    """How a file not asked to be read with OCR is read: with OCR on the pages that need it,
    when the setting is on and an OCR engine is installed."""
    return sandbox.OcrMode.AUTO if enabled and ocr.available() else sandbox.OcrMode.OFF


def read(decisions: Sequence[Decision], run: Run) -> Iterator[Read]:
    """Each file read, in the order the readers finish them. Files with pages to OCR are
    read after the others (issue 31: a .docx waited 20 minutes behind a scan): a file's
    first reading stops at its text layer when pages need OCR and puts it at the end;
    files the user asked to read with OCR go at the end from the start."""
    by_path = {d.info.path: d for d in decisions}
    auto = auto_ocr(run.ocr)
    jobs = [
        sandbox.Job(
            d.info.path,
            run.passwords.get(d.info.path),
            sandbox.OcrMode.FORCE if d.info.path in run.forced else auto,
            defer=d.info.path not in run.forced and auto == sandbox.OcrMode.AUTO,
        )
        for d in decisions
    ]
    jobs.sort(key=lambda job: job.ocr == sandbox.OcrMode.FORCE)  # stable: the rest first

    def deferred(job: sandbox.Job, pages: int) -> None:
        log.info("%s has %d pages to read with OCR; read after the others", job.path, pages)

    on_ocr = OcrProgress(run.tracker, run.control.on_file)
    control = run.control
    if not run.isolate:
        for job, outcome in sandbox.run_inline(
            jobs, control.cancel, pause=control.pause, on_ocr=on_ocr, on_defer=deferred, news=True
        ):
            yield by_path[job.path], outcome
        return
    box = sandbox.Sandbox(run.timeout_s, run.memory_mb, low_priority=run.low_priority)
    try:
        for job, outcome in box.run(
            jobs, control.cancel, pause=control.pause, on_ocr=on_ocr, on_defer=deferred, news=True
        ):
            yield by_path[job.path], outcome
    finally:
        box.close()


def chunked_ahead(
    extracted: Iterator[Read], cut_one: Callable[[Decision, Extracted], list[Chunk]]
) -> Iterator[Ahead]:
    """Each file as the reader gives it, with its chunks cut on a thread of their own while
    the file before it embeds: laying out and cutting pages is Python work on one core,
    which the embedder's sessions, running on every core, would otherwise wait for. A
    file held back is let go when the next one starts a long OCR (sandbox.Reading, passed
    on after it)."""
    with ThreadPoolExecutor(1, thread_name_prefix="chunk") as pool:
        held: Ahead | None = None
        for decision, outcome in extracted:
            if isinstance(outcome, sandbox.Reading):
                if held is not None:
                    yield held
                held = None
                yield decision, outcome, None
                continue
            chunks = (
                None
                if isinstance(outcome, ExtractError)
                else pool.submit(cut_one, decision, outcome)
            )
            if held is not None:
                yield held
            held = decision, outcome, chunks
        if held is not None:
            yield held
