"""A run's plan over a real index: a first run reads everything without hashing; later runs
hash what may have changed and tell the files to read from those to touch, rename, copy or
drop; the files asked to be read with OCR are marked and the wish is taken."""

from __future__ import annotations

import os
import shutil
import time

import pytest

from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.infra import priority
from desktop_rag.ingest import plan
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.ingest.control import RunControl
from desktop_rag.ingest.scan import Action, scan
from desktop_rag.types import IndexReport
from tests.fakes import HashEmbedder, WordTokenizer
from tests.helpers import processes


def _app(tmp_path):
    return build_app(
        Settings(data_dir=str(tmp_path / "data")),
        embedder=HashEmbedder(),
        tokenizer=WordTokenizer,
        params=ChunkParams(60, 10),
        isolate=processes.isolate(),
    )


def _plan(app, folder, requested=None, passwords=None):
    report = IndexReport()
    todo = plan.plan_run(
        app.store,
        scan([str(folder)]),
        passwords or {},
        requested if requested is not None else set(),
        report,
        RunControl(),
        priority.Lowered(enabled=False),
    )
    return todo, report


def _names(decisions):
    return {(os.path.basename(d.info.path), d.action) for d in decisions}


def test_a_first_run_reads_every_file_without_hashing_one(tmp_path, animal_pdfs, monkeypatch):
    monkeypatch.setattr(plan, "sha256_file", lambda path: pytest.fail("hashed " + path))
    todo, report = _plan(_app(tmp_path), animal_pdfs)
    assert _names(todo.to_read) == {
        ("zebra.pdf", Action.INDEX),
        ("penguin.pdf", Action.INDEX),
        ("octopus.pdf", Action.INDEX),
    }
    assert (todo.reused, todo.removed, todo.known, report.unchanged) == ([], [], [], 0)


def test_known_content_is_reused_and_a_vanished_file_dropped(tmp_path, animal_pdfs):
    app = _app(tmp_path)
    app.index([str(animal_pdfs)])
    later = time.time() + 60
    os.utime(animal_pdfs / "octopus.pdf", (later, later))
    (animal_pdfs / "zebra.pdf").rename(animal_pdfs / "stripes.pdf")
    shutil.copy(animal_pdfs / "penguin.pdf", animal_pdfs / "penguin copy.pdf")
    todo, report = _plan(app, animal_pdfs)
    assert _names(todo.reused) == {
        ("octopus.pdf", Action.TOUCH),
        ("stripes.pdf", Action.RENAME),
        ("penguin copy.pdf", Action.COPY),
    }
    assert todo.to_read == [] and report.unchanged == 1  # penguin.pdf itself
    assert set(todo.previous) == {d.path for d in app.store.documents()}
    (animal_pdfs / "penguin.pdf").unlink()
    (animal_pdfs / "penguin copy.pdf").unlink()
    todo, _ = _plan(app, animal_pdfs)
    assert [os.path.basename(d.path) for d in todo.removed] == ["penguin.pdf"]


def test_files_asked_to_be_read_with_ocr_are_marked_and_the_wish_taken(tmp_path, animal_pdfs):
    app = _app(tmp_path)
    app.index([str(animal_pdfs / "zebra.pdf")])
    zebra, penguin = str(animal_pdfs / "zebra.pdf"), str(animal_pdfs / "penguin.pdf")
    requested = {zebra, penguin}
    todo, _ = _plan(app, animal_pdfs, requested)
    assert requested == set(), "the wish is taken by the run that reads it"
    assert todo.forced == {zebra, penguin}
    assert [d.ocr for d in app.store.documents() if d.path == zebra] == [True]
    todo, _ = _plan(app, animal_pdfs)  # the row remembers it; the new file's wish is gone
    assert todo.forced == {zebra}
