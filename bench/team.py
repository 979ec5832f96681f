"""A team library on object storage: search latency from a desktop against moto's S3 on
loopback, without and with the vector index, the desktop client's memory, and how long a
search takes to fail when the store is down or hung.

A moto server runs in its own process on 127.0.0.1 (so its Python threads do not share the
client's GIL). The writer (this process) fills s3://bench/library with synthetic chunks
(words drawn Zipf-like from a vocabulary, vectors of those words hashed, 384 dimensions as the
bundled embedder's) and builds the full-text index as an index job does. A fresh desktop
process then opens the library and times vector, full-text and hybrid searches (the app's
Retriever, question embedding excluded: a hashed-words embedder stands in). The writer then
builds the vector index (past maintenance.ANN_MIN_ROWS) and the desktop is measured again,
with the indexed vector search's refine factors side by side and their recall against exact
search (store/remote.py: REMOTE_REFINE).

Moto keeps objects in memory and answers from loopback: these are the client's and LanceDB's
costs, not a real bucket's round trips (docs/team.md says how to run it against one).

Usage: python -m bench.team [--rows 30000] [--queries 40] [--uri s3://BUCKET/PATH]
With --uri, the store is the one the AWS_* variables (or profile) name instead of moto: an
empty path of a real bucket, writable with those credentials.
Prints one JSON document (also kept in bench/out/team.json).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from bench.perfutil import BUCKET, emit, machine, moto_s3, say

URI = f"s3://{BUCKET}/library"


def _uri() -> str:
    """The library measured: moto's, or a real store's (--uri, passed on to the children)."""
    return os.environ.get("BENCH_TEAM_URI", URI)


DIM = 384
PER_DOC = 50
BATCH = 10_000


class HashWords:
    """Bag of hashed words, normalised: a stand-in embedder that needs no model."""

    model_id = "bench/hash-words"
    dim = DIM

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "big")
                out[i, h % DIM] += 1.0
            out[i] /= max(float(np.linalg.norm(out[i])), 1e-9)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


def _meta() -> Any:
    from desktop_rag.ingest.chunk import ChunkParams
    from desktop_rag.store.schema import SCHEMA_VERSION, IndexMeta

    return IndexMeta(SCHEMA_VERSION, HashWords.model_id, DIM, ChunkParams().to_json())


def _vocabulary(n: int = 5000) -> list[str]:
    rng = np.random.default_rng(7)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    return ["".join(rng.choice(letters, size=int(rng.integers(3, 10)))) for _ in range(n)]


def _texts(rng: np.random.Generator, vocab: list[str], n: int) -> list[str]:
    ranks = np.minimum(rng.zipf(1.3, size=(n, 60)), len(vocab)) - 1
    return [" ".join(vocab[r] for r in row) for row in ranks]


def fill(rows: int) -> float:
    """Write `rows` chunks through RemoteStore.commit, then the full-text index; seconds."""
    from desktop_rag.store import maintenance
    from desktop_rag.store.remote import RemoteStore
    from desktop_rag.types import Chunk, DocumentRecord, Status

    store = RemoteStore(_uri(), _meta()).open()
    rng = np.random.default_rng(11)
    vocab = _vocabulary()
    embedder = HashWords()
    t0 = time.perf_counter()
    for start in range(0, rows, BATCH):
        n = min(BATCH, rows - start)
        texts = _texts(rng, vocab, n)
        docs, chunks = [], []
        for i, text in enumerate(texts):
            row = start + i
            doc_id = f"doc{row // PER_DOC}"
            path = f"/team/{doc_id}.pdf"
            if row % PER_DOC == 0:
                docs.append(
                    DocumentRecord(
                        doc_id=doc_id, path=path, size=1, mtime_ns=0, sha256=doc_id,
                        pages=PER_DOC, chunks=PER_DOC, status=Status.INDEXED, error="",
                        error_kind="", indexed_at=0.0,
                    )
                )  # fmt: skip
            chunks.append(
                Chunk(
                    chunk_id=f"{doc_id}-{row % PER_DOC}", doc_id=doc_id, path=path,
                    page=row % PER_DOC + 1, start=0, end=len(text), text=text,
                )
            )  # fmt: skip
        store.commit(docs, chunks, embedder.embed(texts))
        say(f"wrote {start + n} chunks")
    with store.write_lock:
        maintenance.ensure_text_index(store)
    return time.perf_counter() - t0


def build_vector_index() -> float:
    from desktop_rag.store import maintenance
    from desktop_rag.store.remote import RemoteStore

    store = RemoteStore(_uri(), _meta()).open()
    t0 = time.perf_counter()
    with store.write_lock:
        maintenance.ensure_vector_index(store)
    return time.perf_counter() - t0


def client(queries: int) -> dict[str, Any]:
    """A desktop: open the library, time each kind of search, report memory."""
    import boto3  # noqa: F401  (loaded before timing: the open is what is timed)
    import lancedb  # noqa: F401
    import psutil

    from desktop_rag.query.retrieve import Mode, Retriever
    from desktop_rag.store import maintenance
    from desktop_rag.store.remote import RemoteStore

    proc = psutil.Process()
    rss_start = proc.memory_info().rss
    t0 = time.perf_counter()
    # Latency is measured here, not faults: a read slowed past the deadline by the machine's
    # load is waited for (bench.team --fault and the fault tests time the deadlines).
    store = RemoteStore(_uri(), _meta(), query_deadline_s=120.0).open()
    open_s = time.perf_counter() - t0
    retriever = Retriever(store, HashWords())
    vocab = _vocabulary()
    questions = _texts(np.random.default_rng(3), vocab[:400], queries)
    questions = [" ".join(q.split()[:6]) for q in questions]
    out: dict[str, Any] = {
        "open_s": round(open_s, 3),
        "vector_index": maintenance.vector_index_type(store),
        "chunks": store.count_chunks(),
    }
    for mode in (Mode.VECTOR, Mode.TEXT, Mode.HYBRID):
        retriever.search(questions[0], 5, mode=mode)  # warm
        times = []
        for q in questions:
            s = time.perf_counter()
            hits = retriever.search(q, 5, mode=mode)
            times.append((time.perf_counter() - s) * 1000)
            assert hits, (mode, q)
        times.sort()
        out[f"{mode.value}_ms"] = {
            "p50": round(statistics.median(times), 1),
            "p90": round(times[int(0.9 * (len(times) - 1))], 1),
            "max": round(times[-1], 1),
        }
    if out["vector_index"]:
        out["refine"] = refine_sweep(store, questions)
    out["rss_mb"] = {
        "at_start": round(rss_start / 2**20, 1),
        "after_searches": round(proc.memory_info().rss / 2**20, 1),
    }
    out["lancedb_cache_mb"] = round(store.cache_bytes / 2**20, 1)
    return out


# The candidates the app's Retriever asks each search for (Retriever.candidates).
CANDIDATES = 40


def refine_sweep(store: Any, questions: Sequence[str]) -> dict[str, Any]:
    """The indexed vector search (CANDIDATES nearest, as the Retriever asks) with several
    refine factors, timed, and its recall against an exact search of the same questions:
    recall@5 is the share of the exact five nearest among the indexed search's first five."""
    embedder = HashWords()
    vectors = [embedder.embed_query(q) for q in questions]

    def timed(run: Any) -> tuple[list[list[str]], list[float]]:
        run(vectors[0])  # warm
        ids, times = [], []
        for v in vectors:
            s = time.perf_counter()
            hits = run(v)
            times.append((time.perf_counter() - s) * 1000)
            ids.append([h.chunk_id for h in hits])
        return ids, sorted(times)

    def p(times: list[float], q: float) -> float:
        return round(times[int(q * (len(times) - 1))], 1)

    exact, exact_times = timed(lambda v: store.vector_search(v, CANDIDATES, exact=True))
    out: dict[str, Any] = {
        "k": CANDIDATES,
        "exact": {"p50_ms": p(exact_times, 0.5), "p90_ms": p(exact_times, 0.9)},
    }
    default = store.refine
    for refine in (10, 4, 2, 1, 0):  # 0: no refine, the index's quantised distances
        store.refine = refine
        found, times = timed(lambda v: store.vector_search(v, CANDIDATES))
        out[f"refine_{refine}"] = {
            "p50_ms": p(times, 0.5),
            "p90_ms": p(times, 0.9),
            "recall_at_5": round(
                statistics.mean(
                    len(set(f[:5]) & set(e[:5])) / 5 for f, e in zip(found, exact, strict=True)
                ),
                3,
            ),
            "recall_at_40": round(
                statistics.mean(
                    len(set(f) & set(e)) / max(1, len(e)) for f, e in zip(found, exact, strict=True)
                ),
                3,
            ),
        }
    # HNSW explores ef candidates in the index itself (cached after the first search), not by
    # reads from the store: a larger ef may buy back recall at refine 1 for little time.
    store.refine = 1
    for ef in (300,):
        default_ef, store.ef = store.ef, ef
        found, times = timed(lambda v: store.vector_search(v, CANDIDATES))
        store.ef = default_ef
        out[f"refine_1_ef_{ef}"] = {
            "p50_ms": p(times, 0.5),
            "p90_ms": p(times, 0.9),
            "recall_at_5": round(
                statistics.mean(
                    len(set(f[:5]) & set(e[:5])) / 5 for f, e in zip(found, exact, strict=True)
                ),
                3,
            ),
        }
    store.refine = default
    out["refine_used"] = default
    out["ef_used"] = store.ef
    return out


def fault(kind: str) -> dict[str, Any]:
    """Seconds a desktop takes to give up opening the library with the store down (nothing
    listening) or hung (a socket that accepts and never answers). Searches on an open
    library are timed by tests/integration/team/test_team_faults.py."""
    from desktop_rag.errors import UnreachableError
    from desktop_rag.store import remote
    from desktop_rag.store.remote import RemoteStore

    remote.FRESHNESS_S = 0.0  # every search looks for new commits (as after the interval)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    if kind == "hang":
        listener.listen(64)  # accepts (the kernel does), never answers
    else:
        listener.close()
    os.environ["AWS_ENDPOINT_URL"] = f"http://127.0.0.1:{port}"
    import boto3  # noqa: F401  (loaded before timing: waiting is what is timed)
    import lancedb  # noqa: F401

    t0 = time.perf_counter()
    try:
        RemoteStore(_uri(), _meta()).open()
        result = "opened"
    except UnreachableError:
        result = "cannot be reached"
    return {"open_failed_after_s": round(time.perf_counter() - t0, 2), "result": result}


def _child(args: list[str], env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.team", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    return dict(json.loads(done.stdout))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=30_000)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--uri", help="a real store's empty s3:// path (default: moto)")
    parser.add_argument("--client", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--fault", choices=["down", "hang"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:
        print(json.dumps(client(args.queries)))
        return
    if args.fault:
        print(json.dumps(fault(args.fault)))
        return

    if args.uri:
        os.environ["BENCH_TEAM_URI"] = args.uri
        measure(args, dict(os.environ), "given")
        return
    with moto_s3(dict(os.environ)) as env:
        os.environ.update(env)
        measure(args, env, "moto")


def measure(args: argparse.Namespace, env: dict[str, str], store: str) -> None:
    """Fill the library, then time a desktop without and with the vector index."""
    result: dict[str, Any] = {"machine": machine(), "rows": args.rows, "store": store}
    say(f"writing {args.rows} chunks to {_uri()}")
    result["write_s"] = round(fill(args.rows), 1)
    say("desktop searches, no vector index")
    result["without_vector_index"] = _child(["--client", "--queries", str(args.queries)], env)
    say("building the vector index")
    result["vector_index_build_s"] = round(build_vector_index(), 1)
    say("desktop searches, with the vector index")
    result["with_vector_index"] = _child(["--client", "--queries", str(args.queries)], env)
    result["store_down"] = _child(["--fault", "down"], env)
    result["store_hung"] = _child(["--fault", "hang"], env)
    result["loadavg_1m_at_end"] = round(os.getloadavg()[0], 2)
    emit("team", result)


if __name__ == "__main__":
    main()
