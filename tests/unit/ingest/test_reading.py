"""A run's reading: files asked to be read with OCR go after the others, with their passwords;
each file is cut on a thread of its own while the one before it is handed on, and a long OCR
starting lets the file held back go at once."""

from __future__ import annotations

import threading
from dataclasses import replace

from desktop_rag.infra import priority
from desktop_rag.ingest import reading, sandbox
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.ingest.control import RunControl
from desktop_rag.ingest.engine import Run
from desktop_rag.ingest.extract import Extracted, ExtractError
from desktop_rag.ingest.progress import Tracker
from desktop_rag.ingest.scan import Action, Decision
from desktop_rag.types import FailKind, FileInfo, IndexReport, Page
from tests.fakes import HashEmbedder, WordTokenizer


def _decision(path: str) -> Decision:
    return Decision(Action.INDEX, FileInfo(path, 1, 1))


def _run(**changes) -> Run:
    run = Run(
        store=None,  # type: ignore[arg-type]  # reading never touches the index
        embedder=HashEmbedder(),
        params=ChunkParams(60, 10),
        tokenizer=WordTokenizer,
        passwords={},
        ocr=True,
        isolate=False,
        timeout_s=1.0,
        memory_mb=64,
        low_priority=False,
        control=RunControl(),
        report=IndexReport(),
        tracker=Tracker(None, 0, 0),
        lowered=priority.Lowered(enabled=False),
        previous={},
        forced=frozenset(),
    )
    return replace(run, **changes)


def test_files_to_read_with_ocr_go_last_with_their_passwords(monkeypatch):
    given = []

    def run_inline(jobs, cancel, **kwargs):
        given.extend(jobs)
        for job in jobs:
            yield job, Extracted([Page(1, "words")], "fake", "")

    monkeypatch.setattr(sandbox, "run_inline", run_inline)
    monkeypatch.setattr(reading.ocr, "available", lambda: True)
    decisions = [_decision(p) for p in ("/scan.pdf", "/a.pdf", "/b.pdf")]
    run = _run(forced=frozenset({"/scan.pdf"}), passwords={"/b.pdf": "pw"})
    read = [d.info.path for d, _ in reading.read(decisions, run)]
    assert read == ["/a.pdf", "/b.pdf", "/scan.pdf"]
    assert [(j.path, j.password, j.ocr, j.defer) for j in given] == [
        ("/a.pdf", None, sandbox.OcrMode.AUTO, True),
        ("/b.pdf", "pw", sandbox.OcrMode.AUTO, True),
        ("/scan.pdf", None, sandbox.OcrMode.FORCE, False),
    ]
    given.clear()
    list(reading.read(decisions[1:], _run(ocr=False)))  # OCR off: nothing deferred for it
    assert {(j.ocr, j.defer) for j in given} == {(sandbox.OcrMode.OFF, False)}


def test_each_file_is_cut_on_its_own_thread_while_the_one_before_is_handed_on():
    threads = []
    ok = Extracted([Page(1, "words")], "fake", "")
    failed = ExtractError(FailKind.CORRUPT, "is damaged.")

    def cut_one(decision, extracted):
        threads.append(threading.current_thread().name)
        return [decision.info.path]

    outcomes = [
        (_decision("/a.pdf"), ok),
        (_decision("/bad.pdf"), failed),
        (_decision("/scan.pdf"), sandbox.Reading(40)),
        (_decision("/b.pdf"), ok),
    ]
    handed = []
    source = iter(outcomes)

    def extracted():
        for item in source:
            handed.append(item[0].info.path)
            yield item

    ahead = []
    for decision, outcome, chunks in reading.chunked_ahead(extracted(), cut_one):
        # One file is held back until the next one is being cut, or a long OCR begins.
        ahead.append((decision.info.path, list(handed)))
        if isinstance(outcome, Extracted):
            assert chunks is not None and chunks.result() == [decision.info.path]
        else:
            assert chunks is None
    assert ahead == [
        ("/a.pdf", ["/a.pdf", "/bad.pdf"]),
        ("/bad.pdf", ["/a.pdf", "/bad.pdf", "/scan.pdf"]),
        ("/scan.pdf", ["/a.pdf", "/bad.pdf", "/scan.pdf"]),
        ("/b.pdf", ["/a.pdf", "/bad.pdf", "/scan.pdf", "/b.pdf"]),
    ]
    assert threads and all(name.startswith("chunk") for name in threads)
