"""Bad input: each file is indexed or failed with a specific reason, and the batch goes on.

Extraction runs for real in the reader process (with its time and memory limits); the
embedder is a fake where only the file handling is under test, and the real one where the
real command line is.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.ingest import sandbox
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.ingest.extract import ExtractError
from desktop_rag.ingest.scan import is_candidate
from desktop_rag.query.retrieve import Mode
from desktop_rag.types import FailKind
from tests.fakes import HashEmbedder, WordTokenizer
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.slow

SPECIFIC = {k.value for k in FailKind} - {FailKind.ERROR.value}


def _cli(*args: str, data: Path, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("DESKTOP_RAG_DATA_DIR", None)
    return subprocess.run(
        [*prefix, sys.executable, "-m", "desktop_rag", *args, "--data-dir", str(data)],
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
    )


def _fake_app(data: Path, **limits):
    app = build_app(
        Settings(data_dir=str(data)),
        embedder=HashEmbedder(),
        tokenizer=WordTokenizer,
        params=ChunkParams(120, 20),
        isolate=True,
    )
    for name, value in limits.items():
        setattr(app.ingest, name, value)
    return app


def test_every_fixture_is_indexed_or_failed_with_a_reason(corpus, tmp_path):
    """All of ../shared/corpus/fixtures through the real `index --json`; the run completes."""
    result = _cli("index", str(corpus / "fixtures"), "--json", data=tmp_path / "data")
    assert result.returncode in (0, 1), result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    report = json.loads(result.stdout)
    # Every document the scan chooses: the PDFs, and the READMEs (.md, .txt) beside them.
    documents = [
        p
        for p in (corpus / "fixtures").rglob("*")
        if is_candidate(p.name) and not any(part.startswith(".") for part in p.parts)
    ]
    assert sum(p.suffix.lower() != ".pdf" for p in documents) >= 1
    assert report["indexed"] + len(report["failed"]) == len(documents)
    kinds = {f["kind"] for f in report["failed"]}
    assert kinds <= SPECIFIC, kinds
    for f in report["failed"]:
        assert len(f["reason"]) > 20 and f["path"].endswith((".pdf", ".PDF"))
    assert "password" in kinds
    status = json.loads(_cli("status", "--json", data=tmp_path / "data").stdout)
    assert len(status["failed"]) == len(report["failed"])


def test_truncated_copies_of_real_pdfs(corpus, tmp_path):
    lib = tmp_path / "lib"
    lib.mkdir()
    sources = [
        corpus / "covid-qa" / "pdf" / "630.pdf",
        next(iter(sorted((corpus / "financebench" / "pdfs").glob("*.pdf")))),
    ]
    for src in sources:
        data = src.read_bytes()
        for frac in (0.02, 0.3, 0.7, 0.98):
            (lib / f"{src.stem} cut {int(frac * 100)}.pdf").write_bytes(
                data[: int(len(data) * frac)]
            )
    app = _fake_app(tmp_path / "data")
    report = app.index([str(lib)])
    assert report.indexed + len(report.failed) == 8
    for f in report.failed:
        assert f.kind in (FailKind.CORRUPT, FailKind.NO_TEXT), f
    assert any(f.kind == FailKind.CORRUPT for f in report.failed)


def test_unreadable_file_is_reported_by_name(tmp_path, animal_pdfs):
    """Run the CLI as an ordinary user (a user namespace), since root reads anything."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not available")
    locked = make_pdf(animal_pdfs / "private notes.pdf", ["secret"])
    locked.chmod(0)
    data = tmp_path / "data"
    data.mkdir()
    prefix = ("unshare", "-U", "--map-user=1000", "--map-group=1000") if os.geteuid() == 0 else ()
    result = _cli("index", str(animal_pdfs), "--json", data=data, prefix=prefix)
    if result.returncode not in (0, 1):
        pytest.skip(f"cannot run as another user here: {result.stderr[-500:]}")
    report = json.loads(result.stdout)
    assert report["indexed"] == 3
    [failure] = report["failed"]
    assert failure["path"].endswith("private notes.pdf") and failure["kind"] == "unreadable"
    assert "permission" in failure["reason"]


def test_a_2000_page_pdf_and_a_page_of_a_megabyte(tmp_path):
    lib = tmp_path / "lib"
    make_pdf(
        lib / "long report.pdf",
        [f"Page {i} of the long report. The value on this page is {i * 7}." for i in range(2000)],
    )
    words = " ".join(f"term{i}" for i in range(150_000))[:1_000_000]
    make_pdf(lib / "one huge page.pdf", [words])
    app = _fake_app(tmp_path / "data")
    report = app.index([str(lib)])
    assert report.failed == [] and report.indexed == 2 and report.pages == 2001
    hits = app.retriever.search("value on this page is 13993", k=3, mode=Mode.TEXT)
    assert any(h.path.endswith("long report.pdf") and h.page == 2000 for h in hits)
    huge = next(d for d in app.store.documents() if d.path.endswith("one huge page.pdf"))
    assert huge.chunks > 1000


def test_time_limit_names_the_file_and_the_rest_goes_on(tmp_path, animal_pdfs):
    words = " ".join(f"term{i}" for i in range(150_000))[:1_000_000]
    make_pdf(animal_pdfs / "slow.pdf", [words] * 3)
    app = _fake_app(tmp_path / "data", timeout_s=0.5)
    report = app.index([str(animal_pdfs)])
    assert report.indexed == 3
    [failure] = report.failed
    assert failure.path.endswith("slow.pdf") and failure.kind == FailKind.TIMEOUT
    assert "longer than" in failure.reason


def test_memory_limit_names_the_file_and_the_rest_goes_on(tmp_path):
    words = " ".join(f"term{i}" for i in range(150_000))[:1_000_000]
    big = make_pdf(tmp_path / "a big one.pdf", [words] * 4)
    small = make_pdf(tmp_path / "small.pdf", ["a small file about herons"])
    box = sandbox.Sandbox(timeout_s=120, memory_mb=150)
    try:
        outcomes = dict(box.run([sandbox.Job(str(big)), sandbox.Job(str(small))]))
    finally:
        box.close()
    by_name = {Path(job.path).name: out for job, out in outcomes.items()}
    assert isinstance(by_name["a big one.pdf"], ExtractError)
    assert by_name["a big one.pdf"].kind == FailKind.MEMORY
    assert "memory" in str(by_name["a big one.pdf"])
    assert not isinstance(by_name["small.pdf"], ExtractError)


def test_a_file_changing_while_read_is_not_indexed_half_written(tmp_path, monkeypatch):
    from desktop_rag.ingest import extract as extract_mod

    lib = tmp_path / "lib"
    growing = make_pdf(lib / "download.pdf", ["first part of the file"])
    make_pdf(lib / "done.pdf", ["a finished file"])
    real = extract_mod.extract

    def extract_while_copying(path, password=None, **kw):
        result = real(path, password, **kw)
        if path.endswith("download.pdf"):
            with open(path, "ab") as f:  # the copy goes on while we read
                f.write(b"\n% more bytes arriving\n")
        return result

    monkeypatch.setattr(sandbox, "extract", extract_while_copying)
    app = build_app(
        Settings(data_dir=str(tmp_path / "data")),
        embedder=HashEmbedder(),
        tokenizer=WordTokenizer,
        params=ChunkParams(60, 10),
        isolate=False,
    )
    report = app.index([str(lib)])
    assert report.indexed == 1
    [failure] = report.failed
    assert failure.kind == FailKind.CHANGING and failure.path == str(growing)
    assert [d.path for d in app.store.documents()] == [str(lib / "done.pdf")]
    monkeypatch.setattr(sandbox, "extract", real)
    again = app.index([str(lib)])  # once it stops changing, it is picked up
    assert again.indexed == 1 and again.failed == []


def test_odd_paths_spaces_unicode_and_symlink_loops(tmp_path):
    lib = tmp_path / "Bibliothèque — ça & co"
    make_pdf(lib / "sous dossier" / "日本語 の ファイル.pdf", ["kitsune fox spirits"])
    make_pdf(lib / 'it\'s a "quoted" name.pdf', ["quotes in names"])
    os.symlink(lib, lib / "sous dossier" / "boucle")
    app = _fake_app(tmp_path / "data")
    report = app.index([str(lib)])
    assert report.indexed == 2 and report.failed == []
    hit = app.retriever.search("kitsune", k=1)[0]
    assert hit.path.endswith("日本語 の ファイル.pdf")
    assert app.remove([hit.path]) == [hit.path]
