"""kill -9 during indexing, at many points: the next start finishes the job, nothing duplicated.

The real CLI, real embedder and real LanceDB on disk. Kill points go through
desktop_rag.infra.faults (the process SIGKILLs itself at a named point): each parametrized
case at one point, and a seeded random series of them, so no kill depends on the machine's
speed.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import psutil
import pytest

from desktop_rag.engines.embed import BUNDLED_EMBEDDER_DIM, BUNDLED_EMBEDDER_ID
from desktop_rag.ingest.chunk import ChunkParams
from desktop_rag.store.lance import LanceStore
from desktop_rag.store.schema import SCHEMA_VERSION, IndexMeta
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.slow

DOCS = 36
# The first document is long enough to be stored with its text first (local_engine.
# TEXT_FIRST_CHUNKS), so a kill can fall between its words and its vectors.
LONG_PAGES = 16
TOPICS = [
    "rivers",
    "glaciers",
    "deserts",
    "forests",
    "islands",
    "mountains",
    "caves",
    "lakes",
    "volcanoes",
    "reefs",
    "tundra",
    "canyons",
]


def _env(kill_at: str = "") -> dict[str, str]:
    env = dict(os.environ)
    env.pop("DESKTOP_RAG_DATA_DIR", None)
    env.pop("DESKTOP_RAG_KILL_AT", None)
    env[RUN_MARK] = RUN_ID
    if kill_at:
        env["DESKTOP_RAG_KILL_AT"] = kill_at
    return env


def _index(lib: Path, data: Path, kill_at: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "desktop_rag", "index", str(lib), "--json", "--data-dir", str(data)],
        capture_output=True,
        text=True,
        env=_env(kill_at),
        timeout=900,
    )


def _open(data: Path) -> LanceStore:
    meta = IndexMeta(
        SCHEMA_VERSION, BUNDLED_EMBEDDER_ID, BUNDLED_EMBEDDER_DIM, ChunkParams().to_json()
    )
    return LanceStore(data / "index", meta).open()


def _snapshot(data: Path) -> dict[str, tuple[int, str]]:
    """chunk_id -> (page, text) of everything stored; asserts no chunk id appears twice."""
    store = _open(data)
    rows = store._chunks.search().select(["chunk_id", "page", "text"]).limit(None).to_arrow()
    ids = rows["chunk_id"].to_pylist()
    assert len(ids) == len(set(ids)), "duplicated chunks"
    return dict(
        zip(ids, zip(rows["page"].to_pylist(), rows["text"].to_pylist(), strict=True), strict=True)
    )


def _vectors_complete(data: Path) -> None:
    """No chunk waits for its vector, and none has a placeholder (zeros) for one."""
    store = _open(data)
    assert store.count_pending() == 0
    vectors = store.chunks_table.to_arrow()["vector"].to_numpy(zero_copy_only=False)
    assert all(float(np.linalg.norm(v)) > 0.5 for v in vectors)


def _consistent(data: Path) -> set[str]:
    """Every indexed document has exactly its chunks; returns the indexed paths."""
    store = _open(data)
    counts = store.chunk_counts()
    indexed = set()
    for doc in store.documents():
        if doc.status == "indexed":
            assert counts.get(doc.doc_id, 0) == doc.chunks, f"half-written {doc.path}"
            indexed.add(doc.path)
    return indexed


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    """Big enough for several commits; returns the library and what a clean run stores."""
    root = tmp_path_factory.mktemp("crash")
    lib = root / "lib"
    for i in range(DOCS):
        topic = TOPICS[i % len(TOPICS)]
        pages = [
            f"Chapter {p} about {topic}. "
            + " ".join(
                f"The {topic} of region {i}-{p}-{s} hold fact number {i * 1000 + p * 100 + s}."
                for s in range(60)
            )
            for p in range(1, (LONG_PAGES if i == 0 else 4) + 1)
        ]
        make_pdf(lib / f"{i:02d} {topic}.pdf", pages)
    reference = root / "reference"
    result = _index(lib, reference)  # on a fresh machine this one also exports the embedder
    assert result.returncode == 0, result.stderr
    return lib, _snapshot(reference)


# Every indexer this module starts carries this mark in its environment, and so do its
# reader processes: other test runs on the same machine (the same Python, their own readers)
# do not, so their readers are never taken for this run's strays.
RUN_MARK = "DESKTOP_RAG_TEST_CRASH_RUN"
RUN_ID = f"{os.getpid()}-{time.time_ns()}"


def _spawned() -> set[int]:
    """Pids of living processes started by this module's indexers (their readers)."""
    out = set()
    for p in psutil.process_iter():
        try:
            if p.environ().get(RUN_MARK) == RUN_ID and p.status() != psutil.STATUS_ZOMBIE:
                out.add(p.pid)
        except (psutil.AccessDenied, psutil.NoSuchProcess, psutil.ZombieProcess):
            continue
    return out


def _no_stray_readers(before: set[int]) -> None:
    """A killed indexer's reader process notices its parent is gone and exits by itself."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        strays = _spawned() - before
        if not strays:
            return
        time.sleep(0.2)
    raise AssertionError(f"reader processes outlived the killed indexer: {strays}")


@pytest.mark.parametrize(
    "kill_at",
    [
        "extracted:1",
        "extracted:6",
        "embedded:1",
        "embedded:9",
        "flush:1",
        "flush:2",
        "between-commits:1",
        "between-commits:2",
        "optimize:1",
        "text-committed:1",
        "vectors-embedded:1",
    ],
)
def test_kill_at_a_point_then_restart(library, tmp_path, kill_at):
    lib, reference = library
    data = tmp_path / "data"
    before = _spawned()
    killed = _index(lib, data, kill_at)
    assert killed.returncode == -signal.SIGKILL, (killed.returncode, killed.stderr[-2000:])
    _no_stray_readers(before)
    kept = _consistent(data) if (data / "index").exists() else set()
    if kill_at.startswith(("text-committed", "vectors-embedded")):
        # Killed between the long document's words and its vectors: found by its words.
        store = _open(data)
        assert store.count_pending() > 0
        hits = store.text_search(str(LONG_PAGES * 100 + 5), 5)
        assert [(Path(h.path).name, h.page) for h in hits][:1] == [("00 rivers.pdf", LONG_PAGES)]
    resumed = _index(lib, data)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    # What was committed before the kill is not indexed again.
    report = json.loads(resumed.stdout)
    assert report["unchanged"] >= len(kept)
    assert report["indexed"] <= DOCS - len(kept)
    assert _consistent(data) == {str(p) for p in lib.glob("*.pdf")}
    assert _snapshot(data) == reference
    _vectors_complete(data)


KILL_POINTS = ("extracted", "embedded", "flush", "between-commits")
ROUNDS = 6


def test_kills_at_seeded_random_points_then_restart(library, tmp_path):
    """Runs in a row, each killed at a point drawn (seeded) from the work it has left, then
    one run finishes. The process kills itself at the point, so every round is a real kill
    however fast or loaded the machine is (a sleep-then-kill from outside was not)."""
    lib, reference = library
    data = tmp_path / "data"
    rng = random.Random(20261201)
    before = _spawned()
    for round_ in range(ROUNDS):
        left = DOCS - (len(_consistent(data)) if (data / "index").exists() else 0)
        point = rng.choice(KILL_POINTS)
        # Every file left passes "extracted" and "embedded" at least once; a run with work
        # left flushes and commits at least once.
        n = rng.randint(1, left) if point in ("extracted", "embedded") else 1
        killed = _index(lib, data, f"{point}:{n}")
        assert killed.returncode == -signal.SIGKILL, (round_, point, n, killed.stderr[-2000:])
        if (data / "index").exists():
            _consistent(data)
            _snapshot(data)
    resumed = _index(lib, data)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert _consistent(data) == {str(p) for p in lib.glob("*.pdf")}
    assert _snapshot(data) == reference
    _no_stray_readers(before)
