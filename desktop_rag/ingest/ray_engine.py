"""Indexing at scale on Ray Data (`desktop-rag index --engine ray`): the local pipeline's plan,
readers, chunker and embedder, with reading and embedding run by Ray actors across a cluster and
new documents' chunks written by lance-ray.

Only reading and embedding move (`RayEngine`, the pipeline's engine for that run): planning
(size, mtime, then content hash), renames, touched files, removals, the failure policy, the
commits of the documents' rows and the index builds at the end are the pipeline's own, so the
tables end as the local engine leaves them. Files go
in waves of `wave_files`: each wave is read (in the same reader sandbox, with its time and memory
limits and per-file reasons) and embedded on Ray, its new documents' chunks appended by lance-ray
in one commit, then the documents' rows committed by this process. A job stopped mid-wave leaves
chunks without rows, which the next run's repair drops before it reads those files again; the
waves committed before are skipped, being indexed.

Imported only by that command: the window and every other command never import ray.
"""

from __future__ import annotations

import logging
import os
import pickle
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from desktop_rag.engines.embed import Embedder, Preparable
from desktop_rag.errors import StoreError
from desktop_rag.ingest import sandbox
from desktop_rag.ingest.chunk import ChunkParams, TokenOffsets, embedded_text
from desktop_rag.ingest.commit import Committer
from desktop_rag.ingest.engine import Run
from desktop_rag.ingest.extract import Extracted, ExtractError
from desktop_rag.ingest.local_engine import EMBED_BATCH
from desktop_rag.ingest.pipeline import IngestService
from desktop_rag.ingest.reading import auto_ocr, cut
from desktop_rag.ingest.scan import Decision
from desktop_rag.store.lance import LanceStore
from desktop_rag.store.schema import CHUNKS, IndexMeta, chunks_schema
from desktop_rag.types import Chunk, FailKind

log = logging.getLogger(__name__)

# Files per wave: one lance-ray commit each, and what a stopped job loses at most. A wave's
# chunks and vectors sit in Ray's object store until committed (about 1.5 kB a chunk).
WAVE_FILES = 1000
READ_BATCH = 4  # files per call of a reader actor
EMBED_BATCH_FILES = 16  # files per call of an embedder actor
# One core per embedder actor: actors, not threads, spread the work over a cluster's cores.
EMBED_THREADS = 1


EmbedderFactory = Callable[[], Embedder]


def _offline_env() -> dict[str, str]:
    """What every Ray process must have: no model hub, no usage report."""
    return {
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "RAY_USAGE_STATS_ENABLED": "0",
    }


def start_ray(address: str | None = None, num_cpus: int | None = None) -> None:
    """Join the cluster at `address`, or start Ray on this machine (with `num_cpus`); once."""
    for key, value in _offline_env().items():
        os.environ.setdefault(key, value)
    try:
        import ray
    except ImportError as exc:
        raise StoreError(
            "Indexing on Ray needs the team extra: pip install 'desktop-rag[team]'."
        ) from exc
    if ray.is_initialized():
        return
    env = dict(_offline_env())
    local: dict[str, Any] = {}
    if address is None:
        # On loopback: Ray would otherwise find this machine's address by a UDP "connect" to
        # a public DNS server, and listen on every interface.
        local = {"num_cpus": num_cpus, "_node_ip_address": "127.0.0.1"}
        # Ray on this machine runs this very code: its workers import it from where we did.
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(Path(__file__).resolve().parents[2]), os.environ.get("PYTHONPATH")) if p
        )
    ray.init(
        address=address,
        include_dashboard=False,
        runtime_env={"env_vars": env},
        log_to_driver=False,
        **local,
    )


def _light(extracted: Extracted) -> Extracted:
    """What the driver needs of a read file besides its chunks: page count, OCR marks and
    problems, reader, hash and the file's own date (the text and word boxes are in the chunks
    already)."""
    pages = [replace(p, text="", boxes=p.boxes[:1]) for p in extracted.pages]
    return Extracted(pages, extracted.reader, extracted.sha256, date_ns=extracted.date_ns)


class _Reader:
    """A Ray actor: files read in the reader sandbox (its own process per file's read, with the
    time and memory limits), and cut into chunks."""

    def __init__(
        self,
        timeout_s: float,
        memory_mb: int,
        low_priority: bool,
        tokenizer: Callable[[], TokenOffsets],
        params: ChunkParams,
    ) -> None:
        self.box = sandbox.Sandbox(timeout_s, memory_mb, low_priority=low_priority)
        self.tokenizer = tokenizer()
        self.params = params

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        jobs = [
            sandbox.Job(str(path), str(password) or None, str(mode))
            for path, password, mode in zip(
                batch["path"], batch["password"], batch["ocr"], strict=True
            )
        ]
        done: dict[str, tuple[bytes, bytes]] = {}
        for job, outcome in self.box.run(jobs):
            if isinstance(outcome, ExtractError):
                done[job.path] = (pickle.dumps(("err", outcome.kind.value, str(outcome))), b"")
            elif isinstance(outcome, Extracted):
                try:
                    chunks = cut(job.path, outcome, self.tokenizer, self.params)
                except Exception as exc:  # as a reader's error: one file, never the wave
                    reason = f"could not be read ({exc})."
                    done[job.path] = (pickle.dumps(("err", FailKind.CORRUPT.value, reason)), b"")
                    continue
                done[job.path] = (pickle.dumps(("ok", _light(outcome))), pickle.dumps(chunks))
        missing = pickle.dumps(("err", FailKind.ERROR.value, "was not read: the reader stopped."))
        rows = [done.get(job.path, (missing, b"")) for job in jobs]
        return {
            "path": [job.path for job in jobs],
            "outcome": [r[0] for r in rows],
            "chunks": [r[1] for r in rows],
        }


class _Embedder:
    """A Ray actor: the bundled embedder (or the factory's), loaded once per actor."""

    def __init__(self, factory: EmbedderFactory, params: ChunkParams) -> None:
        self.embedder = factory()
        if isinstance(self.embedder, Preparable):
            self.embedder.prepare()
        self.params = params

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        per_file = [pickle.loads(raw) if raw else [] for raw in batch["chunks"]]
        texts = [embedded_text(c, self.params) for chunks in per_file for c in chunks]
        dim = self.embedder.dim
        parts = [
            self.embedder.embed(texts[start : start + EMBED_BATCH])
            for start in range(0, len(texts), EMBED_BATCH)
        ]
        rows = (
            np.concatenate(parts).astype(np.float32)
            if parts
            else np.zeros((0, dim), dtype=np.float32)
        )
        vectors, offset = [], 0
        for chunks in per_file:
            vectors.append(rows[offset : offset + len(chunks)].tobytes())
            offset += len(chunks)
        return {**batch, "vectors": vectors}


class _ChunkRows:
    """Rows of the chunks table (its exact columns) from files' chunks and vectors."""

    def __init__(self, meta: IndexMeta) -> None:
        # Only its row builder is used: nothing is opened.
        self.store = LanceStore(Path(), meta)

    def __call__(self, batch: dict[str, Any]) -> Any:
        chunks: list[Chunk] = []
        vectors = []
        for raw, vecs in zip(batch["chunks"], batch["vectors"], strict=True):
            mine = pickle.loads(raw) if raw else []
            chunks.extend(mine)
            vectors.append(np.frombuffer(vecs, dtype=np.float32).reshape(len(mine), -1))
        dim = self.store.meta.dim
        stacked = np.concatenate(vectors) if vectors else np.zeros((0, dim), np.float32)
        return self.store._chunk_table(chunks, stacked)


def _given(chunks: list[Chunk]) -> Callable[[], list[Chunk]]:
    return lambda: chunks


def table_target(store: LanceStore, name: str) -> tuple[str, dict[str, str] | None]:
    """Where lance-ray writes one of the store's tables: its URI and storage options."""
    target = getattr(store, "table_target", None)
    if target is not None:  # a team library on object storage (store/remote.py)
        uri, options = target(name)
        return str(uri), dict(options)
    return str(store.path / f"{name}.lance"), None


class RayEngine:
    """Reading and embedding on Ray (see the module's docstring)."""

    def __init__(
        self,
        embedder_factory: EmbedderFactory,
        *,
        address: str | None = None,
        num_cpus: int | None = None,
        wave_files: int = WAVE_FILES,
        readers: int | None = None,
        embedders: int | None = None,
    ) -> None:
        self.embedder_factory = embedder_factory
        self.address = address
        self.num_cpus = num_cpus
        self.wave_files = max(1, wave_files)
        self.readers = readers
        self.embedders = embedders
        self.waves = 0  # lance-ray commits made by the last run

    def _pools(self) -> tuple[int, int, float]:
        """Reader and embedder actors at most, and the CPUs each holds: the cluster's CPUs
        shared between them (a cluster of one CPU runs one of each on half a CPU)."""
        import ray

        cpus = float(ray.cluster_resources().get("CPU", 1.0))
        if cpus < 2:
            return 1, 1, cpus / 2
        readers = self.readers or max(1, int(cpus) // 2)
        embedders = self.embedders or max(1, int(cpus) - readers)
        return readers, embedders, 1.0

    def read_and_embed(self, to_read: Sequence[Decision], run: Run) -> bool:
        self.waves = 0
        if not to_read:
            return False
        start_ray(self.address, self.num_cpus)
        wrote = False
        waves = range(0, len(to_read), self.wave_files)
        for n, start in enumerate(waves, start=1):
            run.control.checkpoint()
            wave = to_read[start : start + self.wave_files]
            run.tracker.emit(
                "indexing",
                force=True,
                message=f"Reading and embedding {len(wave)} files on Ray, wave {n} of {len(waves)}",
            )
            if self._wave(wave, run):
                wrote = True
        return wrote

    def _wave(self, wave: Sequence[Decision], run: Run) -> bool:
        """One wave: read and embed on Ray, new chunks by lance-ray, then the rows."""
        import ray.data

        readers, embedders, each = self._pools()
        auto = auto_ocr(run.ocr)
        items = [
            {
                "path": d.info.path,
                "password": run.passwords.get(d.info.path, ""),
                "ocr": sandbox.OcrMode.FORCE if d.info.path in run.forced else auto,
            }
            for d in wave
        ]
        blocks = max(1, min(len(items), readers * 4))
        ds = (
            ray.data.from_items(items, override_num_blocks=blocks)
            .map_batches(
                _Reader,
                fn_constructor_args=(
                    run.timeout_s,
                    run.memory_mb,
                    run.low_priority,
                    run.tokenizer,
                    run.params,
                ),
                batch_size=READ_BATCH,
                compute=ray.data.ActorPoolStrategy(min_size=1, max_size=readers),
                num_cpus=each,
            )
            .map_batches(
                _Embedder,
                fn_constructor_args=(self.embedder_factory, run.params),
                batch_size=EMBED_BATCH_FILES,
                compute=ray.data.ActorPoolStrategy(min_size=1, max_size=embedders),
                num_cpus=each,
            )
            .materialize()
        )
        out = Committer(run)
        # Files with a row before (changed, or failed before) replace what they had through
        # the store's merge, as locally: their vectors come here. New files' chunks do not.
        known = {d.info.path for d in wave if d.info.path in run.previous}
        vectors: dict[str, bytes] = {}
        if known:
            for row in (
                ds.filter(lambda row: row["path"] in known)
                .select_columns(["path", "vectors"])
                .iter_rows()
            ):
                vectors[row["path"]] = row["vectors"]
        outcomes = {
            row["path"]: (row["outcome"], row["chunks"])
            for row in ds.select_columns(["path", "outcome", "chunks"]).iter_rows()
        }
        dim = run.store.meta.dim
        accepted: set[str] = set()
        for decision in wave:
            info = decision.info
            raw, raw_chunks = outcomes[info.path]
            outcome = pickle.loads(raw)
            if outcome[0] == "err":
                _, kind, reason = outcome
                out.failed(info, FailKind(kind), reason)
            else:
                chunks: list[Chunk] = pickle.loads(raw_chunks)
                ready = out.ready(decision, outcome[1], _given(chunks))
                if ready is not None:
                    run.tracker.chunks += len(chunks)
                    if info.path in known:
                        mine = np.frombuffer(vectors[info.path], dtype=np.float32)
                        out.embedded(ready, mine.reshape(len(chunks), dim))
                    else:
                        out.embedded(ready, np.zeros((0, dim), dtype=np.float32))
                        accepted.add(info.path)
            run.tracker.files_done += 1
            run.tracker.bytes_done += info.size
            run.tracker.emit("indexing", info.path)
        if accepted:
            self._append(run.store, ds, accepted)
        # The new files' chunks are stored: what is left to commit is theirs only.
        out.stored_already(out.pending.new)
        rows = bool(out.pending)
        if rows:
            out.flush()
        return rows or bool(accepted)

    def _append(self, store: LanceStore, ds: Any, accepted: set[str]) -> None:
        """The chunks of the wave's new files, appended to the chunks table in one commit by
        lance-ray's workers."""
        import lance_ray
        import ray.data

        ensure = getattr(store, "ensure_writable", None)
        if ensure is not None:
            ensure()
        uri, options = table_target(store, CHUNKS)
        rows = ds.filter(lambda row: row["path"] in accepted).map_batches(
            _ChunkRows,
            fn_constructor_args=(store.meta,),
            batch_format="pyarrow",
            compute=ray.data.ActorPoolStrategy(size=1),
        )
        lance_ray.write_lance(
            rows,
            uri,
            mode="append",
            schema=chunks_schema(store.meta.dim),
            storage_options=options,
        )
        self.waves += 1
        # This process's handle reads the new version now, not at its next freshness check.
        store.chunks_table.checkout_latest()
        log.info("lance-ray appended the chunks of %d new files", len(accepted))


def ray_ingest(
    base: IngestService,
    embedder_factory: EmbedderFactory,
    *,
    address: str | None = None,
    num_cpus: int | None = None,
    wave_files: int = WAVE_FILES,
) -> IngestService:
    """The service `desktop-rag index --engine ray` runs: `base`'s store, models, limits and
    files asked to be read with OCR, reading and embedding on Ray (`service.engine.waves`
    counts its lance-ray commits)."""
    engine = RayEngine(embedder_factory, address=address, num_cpus=num_cpus, wave_files=wave_files)
    return base.with_engine(engine)
