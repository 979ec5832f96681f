"""build_app(settings): wire the services once, with no globals, for the CLI, window and tests."""

from __future__ import annotations

import logging
import os
import shutil
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from desktop_rag.config import Settings, cache_dir
from desktop_rag.engines.embed import Embedder, SentenceTransformerEmbedder
from desktop_rag.engines.int8_check import VERDICTS_FILE, VerdictCache
from desktop_rag.engines.llm import LlamaCppLlm, Llm
from desktop_rag.engines.multilingual import MULTILINGUAL_EMBEDDER_ID
from desktop_rag.engines.onnx_embed import AutoEmbedder
from desktop_rag.engines.onnx_export import ExportCache
from desktop_rag.engines.rerank import Reranker
from desktop_rag.errors import DesktopRagError, IndexDamagedError, IndexMismatchError
from desktop_rag.infra import frozen
from desktop_rag.ingest import rebuild
from desktop_rag.ingest.chunk import ChunkParams, TokenOffsets, bundled_tokenizer
from desktop_rag.ingest.control import RunControl
from desktop_rag.ingest.pipeline import IngestService
from desktop_rag.ingest.progress import ProgressFn
from desktop_rag.query.ability import Abilities
from desktop_rag.query.answer import AnswerService
from desktop_rag.query.retrieve import MULTILINGUAL_TEXT_SHARE
from desktop_rag.store import lock
from desktop_rag.store.lance import LanceStore
from desktop_rag.store.remote import open_team
from desktop_rag.store.schema import SCHEMA_VERSION, IndexMeta
from desktop_rag.team import BothRetriever, BothStores, attach
from desktop_rag.types import IndexReport, Status

log = logging.getLogger(__name__)

# A finished rebuild waits this long for another writer (an indexing run) to let go of the
# index before it is swapped in; given up, the next rebuild resumes from the finished copy.
REBUILD_SWAP_WAIT_S = 600.0


@dataclass
class App:
    """The core services, shared by every front end.

    `stale` is set when the index on disk was built differently: it still answers (by text
    alone if its vectors came from another embedder) until `rebuild` replaces it. `notices`
    are things the user must be told, such as a damaged index having been reset. The team
    library, when the settings name one, is searched through `retriever` (desktop_rag/team.py);
    every question of the window and the CLI is asked through routing.Questions over this app.
    """

    settings: Settings
    embedder: Embedder
    store: LanceStore
    ingest: IngestService
    retriever: BothRetriever
    answer: AnswerService
    meta: IndexMeta
    stale: IndexMismatchError | None = None
    needs_reindex: bool = False
    notices: list[str] = field(default_factory=list)

    def roots(self) -> list[str]:
        """What was indexed before (files and folders that still exist)."""
        return [r for r in rebuild.load_roots(self.settings.data_path) if os.path.exists(r)]

    def index(self, paths: Sequence[str], control: RunControl | None = None) -> IndexReport:
        """Index paths and remember them as roots, for rebuilding after damage."""
        if self.stale is not None:
            raise self.stale
        report = self.ingest.index(paths, control)
        if not report.cancelled:
            rebuild.add_roots(self.settings.data_path, paths)
        rebuild.record_speed(self.settings.data_path, report.pages, report.seconds)
        self.needs_reindex = False
        return report

    def remove(self, paths: Sequence[str]) -> list[str]:
        removed = self.ingest.remove(paths)
        rebuild.remove_roots(self.settings.data_path, paths)
        return removed

    def rebuild_estimate_s(self) -> float:
        pages = sum(d.pages for d in self.store.documents())
        return rebuild.estimate_seconds(self.settings.data_path, pages)

    def rebuild(
        self,
        paths: Sequence[str] = (),
        on_progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
    ) -> IndexReport:
        """Build a new index beside the old one (which keeps answering), then swap it in.

        The swap happens under the index's writer lock, after a last reconcile of whatever
        another writer changed in the old index meanwhile, so no commit is lost with it.
        """
        index_path = self.settings.index_path
        store = self._next_store(rebuild.next_path(index_path))
        ingest = self.ingest.for_store(store)  # the same passwords and limits
        self._carry_exclusions(store)
        control = RunControl(on_progress=on_progress, cancel=cancel or threading.Event())
        report = ingest.index(self._rebuild_sources(paths), control)
        if report.cancelled:
            return report  # the old index stays; the next rebuild resumes into the same folder
        with lock.writer(self.store.path, REBUILD_SWAP_WAIT_S):
            sources = self._rebuild_sources(paths)
            self._carry_exclusions(store)
            late = ingest.index(sources, control)
            report = _merged(report, late)
            if report.cancelled:
                return report
            rebuild.swap_in(index_path)
            self._use(LanceStore(index_path, self.meta).open())
        rebuild.add_roots(self.settings.data_path, sources)
        self.stale = None
        return report

    def _next_store(self, path: Path) -> LanceStore:
        """The rebuild's index, resumed where a stopped one left it, unless that one was
        built differently (begun for the other embedder, switched back since): of no use,
        it is deleted and begun afresh. It was never the index: nothing answers from it."""
        try:
            return LanceStore(path, self.meta).open()
        except (IndexMismatchError, IndexDamagedError) as exc:
            log.warning("a rebuild's index of no use is begun afresh: %s", exc)
            with lock.writer(path, self.ingest.lock_wait_s or REBUILD_SWAP_WAIT_S):
                shutil.rmtree(path, ignore_errors=True)
            return LanceStore(path, self.meta).open()

    def _rebuild_sources(self, paths: Sequence[str]) -> list[str]:
        """What a rebuild indexes: the roots, the paths given, and every file indexed."""
        old_paths = [d.path for d in self.store.documents() if d.status != Status.EXCLUDED]
        return sorted({*self.roots(), *paths, *(p for p in old_paths if os.path.exists(p))})

    def _carry_exclusions(self, store: LanceStore) -> None:
        """Files the user removed stay out of the rebuilt index too."""
        done = {d.path for d in store.documents() if d.status == Status.EXCLUDED}
        rows = [d for d in self.store.documents() if d.status == Status.EXCLUDED]
        rows = [d for d in rows if d.path not in done]
        if rows:
            with lock.writer(store.path, self.ingest.lock_wait_s or REBUILD_SWAP_WAIT_S):
                store.commit(rows, [], None, replace_doc_ids=[d.doc_id for d in rows])

    def _use(self, store: LanceStore) -> None:
        self.store = store
        self.ingest.store = store
        self.retriever.store = store
        self.retriever.text_only = False  # the answer service reads it through the retriever


def _merged(first: IndexReport, then: IndexReport) -> IndexReport:
    """One report for a run and the catch-up run after it (whose failures are the latest)."""
    again = {f.path for f in then.failed}
    return IndexReport(
        indexed=first.indexed + then.indexed,
        unchanged=first.unchanged,  # the catch-up finds again what the run just did
        removed=first.removed + then.removed,
        renamed=first.renamed + then.renamed,
        failed=[f for f in first.failed if f.path not in again] + then.failed,
        pages=first.pages + then.pages,
        chunks=first.chunks + then.chunks,
        seconds=first.seconds + then.seconds,
        cancelled=then.cancelled,
    )


def default_reranker() -> Reranker | None:
    """The shipped cross-encoder (loaded on its first question), or None where the install
    lacks it: the answers are then ranked and composed as before it, and the log says why."""
    from desktop_rag.engines.rerank import MODEL_FILE, OnnxReranker, model_dir

    folder = model_dir()
    if not (folder / MODEL_FILE).is_file():
        log.warning("the reranker is missing from %s: ranking without it", folder)
        return None
    return OnnxReranker(folder)


def default_embedder(settings: Settings) -> Embedder:
    """The bundled embedder on the backend the settings ask for.

    auto and onnx (the same today): ONNX Runtime, int8 for passages (fp32 on a CPU where int8
    disagrees with fp32, engines/int8_check.py) and fp32 for questions, held to recall@5 within
    1% of PyTorch fp32 (bench/embed_quality.py's gate); exported once into the cache dir by the
    first index run or a warm-up, PyTorch until then or if the export fails. onnx-fp32: fp32
    passages whatever the int8 rule says. torch: PyTorch fp32.

    A frozen build (the installed app) ships both exports made at build time and no torch:
    it neither exports nor honours `torch`.

    `multilingual`: the multilingual embedder (engines/multilingual.py, made only then:
    English libraries never load its model), whatever the backend; its id in the index's metadata
    makes an index built by the other embedder stale, to be rebuilt.
    """
    if settings.multilingual:
        from desktop_rag.engines.multilingual import E5Embedder

        if frozen.is_frozen():
            # The bundle's export, made at build time (fp32, for passages and questions): no
            # torch to export with, no cache dir to export into (packaging/prebuild.py).
            shipped = frozen.multilingual_export()
            return E5Embedder(
                None,
                threads=settings.threads,
                low_priority=settings.index_low_priority,
                prebuilt={"fp32": shipped} if shipped is not None else None,
                variant="fp32",
            )
        return E5Embedder(
            ExportCache(cache_dir() / "embedders"),
            threads=settings.threads,
            low_priority=settings.index_low_priority,
        )
    if frozen.is_frozen():
        if settings.embed_backend == "torch":
            log.warning("embed_backend 'torch' is not available in this build; using onnx")
        prebuilt = {
            v: path for v in ("int8", "fp32") if (path := frozen.embedder_export(v)) is not None
        }
        # The int8 verdict is this machine's, not the build machine's: measured at first use.
        verdicts = VerdictCache(cache_dir() / "embedders" / VERDICTS_FILE)
        return AutoEmbedder(
            None,
            threads=settings.threads,
            prebuilt=prebuilt,
            verdicts=verdicts,
            low_priority=settings.index_low_priority,
        )
    if settings.embed_backend == "torch":
        return SentenceTransformerEmbedder(threads=settings.threads)
    if settings.embed_backend not in ("auto", "onnx", "onnx-fp32"):
        log.warning("unknown embed_backend %r; using auto", settings.embed_backend)
    # The cache dir, not the data dir: an export is derived from the installed model alone,
    # is the same for every library, and is rebuilt offline in seconds if deleted.
    cache = ExportCache(cache_dir() / "embedders")
    # onnx-fp32: what a CPU where int8 disagrees with fp32 ends up with, chosen by hand (for
    # benchmarks of that case on a CPU where int8 agrees).
    variant = "fp32" if settings.embed_backend == "onnx-fp32" else "int8"
    return AutoEmbedder(
        cache, threads=settings.threads, variant=variant, low_priority=settings.index_low_priority
    )


def default_llm(settings: Settings, verbose: bool = False) -> Llm:
    """The user's GGUF if they picked one, else the bundled model; loads on first use."""
    return LlamaCppLlm(
        settings.model_path or None,
        threads=settings.threads,
        n_ctx=settings.n_ctx,
        verbose=verbose,
    )


def build_app(
    settings: Settings,
    *,
    embedder: Embedder | None = None,
    tokenizer: Callable[[], TokenOffsets] | None = None,
    params: ChunkParams | None = None,
    isolate: bool = True,
    llm: Llm | None = None,
    verbose: bool = False,
    reranker: Reranker | None = None,
) -> App:
    """Open the index under settings.data_path and wire ingest, retrieval and answers over it.

    Cheap: the embedder and the language model load on first use. A damaged index is moved
    aside and started afresh (needs_reindex tells the caller to index the roots again); an
    outdated one is opened as built and marked stale.
    """
    embedder = embedder or default_embedder(settings)
    params = params or ChunkParams()
    meta = IndexMeta(SCHEMA_VERSION, embedder.model_id, embedder.dim, params.to_json())
    notices: list[str] = []
    stale: IndexMismatchError | None = None
    needs_reindex = False
    path = settings.index_path
    # A team's index (s3://) is never moved aside nor opened as built: it is not this desktop's.
    team = (
        open_team(
            settings.library_uri,
            meta,
            read_deadline_s=settings.team_read_deadline_s or None,
            open_deadline_s=settings.team_open_deadline_s or None,
        )
        if settings.library_uri
        else None
    )
    if team is None and rebuild.swap_interrupted(path):
        with lock.writer(path, wait_s=60):
            done = rebuild.finish_swap(path)
        if done:
            log.warning("a rebuild's swap was cut short: %s", done)
    try:
        store = team or LanceStore(path, meta).open()
    except IndexMismatchError as exc:
        stale = exc
        store = LanceStore.open_as_built(path)
        notices.append(str(exc))
    except IndexDamagedError as exc:
        log.warning("%s", exc)
        fresh = LanceStore(path, meta)
        with lock.writer(path, wait_s=60):
            rebuild.quarantine(path)
        store = fresh.open()
        needs_reindex = True
        notices.append(
            f"{exc} It was moved aside and a new index is being built from your documents. "
            "Your files were not touched."
        )
    ingest = IngestService(
        store,
        embedder,
        tokenizer or bundled_tokenizer,
        params,
        isolate=isolate,
        low_priority=settings.index_low_priority,
        ocr=settings.ocr,
    )
    if reranker is None and settings.rerank:
        reranker = default_reranker()
    # The team library, when one is attached, is searched through this retriever, and the
    # answer service reads both libraries' sizes and words through BothStores.
    retriever = BothRetriever(store, embedder, reranker=reranker)
    if embedder.model_id == MULTILINGUAL_EMBEDDER_ID:
        retriever.text_share = MULTILINGUAL_TEXT_SHARE  # its vectors read every language
    if stale is not None and (store.meta.embedder_id, store.meta.dim) != (
        meta.embedder_id,
        meta.dim,
    ):
        retriever.text_only = True  # its vectors mean nothing to this embedder
    answer = AnswerService(
        retriever,
        BothStores(retriever),
        llm or default_llm(settings, verbose),
        k=settings.top_k,
        abilities=Abilities(cache_dir() / "abilities.json"),
    )
    app = App(
        settings, embedder, store, ingest, retriever, answer, meta, stale, needs_reindex, notices
    )
    try:
        attach(app, settings)  # nothing is opened until a question searches it
    except DesktopRagError as exc:  # a hand-edited address that is none
        log.warning("team library not searched: %s", exc)
    return app
