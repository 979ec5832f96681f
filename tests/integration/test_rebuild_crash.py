"""A rebuild killed at every point, and a rebuild racing another writer: nothing is lost.

The rebuild runs in a child process (fake models, real LanceDB on disk) that SIGKILLs itself at
a named fault point (desktop_rag.infra.faults); the next start must find one whole index.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.ingest import rebuild
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.store import lock
from tests.fakes import HashEmbedder, WordTokenizer
from tests.pdfgen import encrypt_pdf, make_pdf

pytestmark = pytest.mark.slow  # a process started and killed at every crash point

REPO = Path(__file__).resolve().parents[2]
OLD, NEW = ChunkParams(60, 10), ChunkParams(80, 10)

_CHILD = """
import sys
from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.ingest.chunk import ChunkParams
from tests.fakes import HashEmbedder, WordTokenizer

app = build_app(Settings(data_dir=sys.argv[1]), embedder=HashEmbedder(),
                tokenizer=WordTokenizer, params=ChunkParams(80, 10), isolate=False)
app.rebuild([sys.argv[2]])
"""


def _app(data: Path, params: ChunkParams = NEW):
    return build_app(
        Settings(data_dir=str(data)),
        embedder=HashEmbedder(),
        tokenizer=WordTokenizer,
        params=params,
        isolate=False,
    )


def _rebuild_killed_at(data: Path, lib: Path, point: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, DESKTOP_RAG_KILL_AT=point)
    return subprocess.run(
        [sys.executable, "-c", _CHILD, str(data), str(lib)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize(
    "point",
    [
        "extracted:2",
        "between-commits:1",
        "flush:1",
        "optimize:1",
        "swap:1",
        "swap-renamed:1",
        "swap-done:1",
    ],
)
def test_a_rebuild_killed_at_any_point_leaves_one_whole_index(tmp_path, animal_pdfs, point):
    data = tmp_path / "data"
    _app(data, OLD).index([str(animal_pdfs)])
    killed = _rebuild_killed_at(data, animal_pdfs, point)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    index = data / "index"
    swapped = point in ("swap-renamed:1", "swap-done:1")
    app = _app(data)  # the next start
    assert not rebuild.old_path(index).exists(), "the old index was stranded"
    assert len(app.store.documents()) == 3, "the next start found no index, or an empty one"
    assert app.retriever.search("octopus hemocyanin", k=1)[0].path.endswith("octopus.pdf")
    if swapped:  # the rebuild was complete: the next start finishes the swap
        assert app.stale is None and not rebuild.next_path(index).exists()
    else:  # the old index still answers, and the next rebuild completes the job
        assert app.stale is not None
        report = app.rebuild([str(animal_pdfs)])
        assert app.stale is None and report.failed == []
    assert _app(data).stale is None
    assert len(_app(data).store.documents()) == 3
    assert not rebuild.next_path(index).exists() and not rebuild.old_path(index).exists()


def test_what_another_writer_commits_during_a_rebuild_is_kept(tmp_path, animal_pdfs):
    data = tmp_path / "data"
    _app(data, OLD).index([str(animal_pdfs)])
    extra = make_pdf(tmp_path / "elsewhere" / "walrus.pdf", ["Walruses use their tusks."])
    app = _app(data, OLD)  # the same format: a rebuild the user asked for
    other = _app(data, OLD)  # another process, say `desktop-rag index`, on the same library
    done = []

    def on_progress(p):
        if p.stage == "done" and not done:  # the rebuild is built, not yet swapped in
            done.append(other.index([str(extra)]))

    app.rebuild(on_progress=on_progress)
    assert done and done[0].indexed == 1
    paths = {d.path for d in app.store.documents()}
    assert str(extra) in paths, "a commit to the old index was lost with it"
    assert app.retriever.search("walrus tusks", k=1)[0].path == str(extra)


def test_a_rebuild_keeps_the_passwords(tmp_path, animal_pdfs):
    data = tmp_path / "data"
    plain = make_pdf(tmp_path / "plain.pdf", ["The vault code is kept in the blue binder."])
    vault = encrypt_pdf(plain, animal_pdfs / "vault.pdf", "s3cret")
    old = _app(data, OLD)
    old.ingest.passwords = {str(vault): "s3cret"}
    assert old.index([str(animal_pdfs)]).failed == []
    app = _app(data)
    app.ingest.passwords = {str(vault): "s3cret"}
    report = app.rebuild()
    assert report.failed == [], "the rebuild lost the password"
    assert app.retriever.search("vault code binder", k=1)[0].path == str(vault)


def test_an_ingest_service_for_another_index_keeps_every_setting(tmp_path):
    app = _app(tmp_path / "data")
    ingest = app.ingest
    ingest.passwords = {"/a.pdf": "pw"}
    ingest.timeout_s, ingest.memory_mb, ingest.lock_wait_s, ingest.isolate = 12.0, 345, 7.0, True
    other = ingest.for_store(app.store)
    for name in ("embedder", "tokenizer_factory", "params", "isolate", "timeout_s"):
        assert getattr(other, name) == getattr(ingest, name), name
    assert (other.memory_mb, other.lock_wait_s, dict(other.passwords)) == (
        345,
        7.0,
        {"/a.pdf": "pw"},
    )


def test_the_swap_happens_under_the_writer_lock(tmp_path, animal_pdfs, monkeypatch):
    from desktop_rag.errors import BusyError

    data = tmp_path / "data"
    _app(data, OLD).index([str(animal_pdfs)])
    app = _app(data)
    other = _app(data, OLD)
    real = rebuild.swap_in
    refused = []

    def swap_in(index_path):
        try:
            with lock.writer(other.store.path, wait_s=0):
                pass
        except BusyError:
            refused.append(True)
        real(index_path)

    monkeypatch.setattr(rebuild, "swap_in", swap_in)
    app.rebuild()
    assert refused == [True], "another writer could write while the index was swapped"
