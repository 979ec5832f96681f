"""The bundled embedder on ONNX Runtime (int8), with PyTorch as the fallback until it is ready."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from desktop_rag.engines.batching import embed_by_length
from desktop_rag.engines.embed import (
    BUNDLED_EMBEDDER_DIM,
    BUNDLED_EMBEDDER_ID,
    Embedder,
    SentenceTransformerEmbedder,
    bundled_model_dir,
)
from desktop_rag.engines.int8_check import (
    VERDICTS_FILE,
    Agreement,
    VerdictCache,
    measure,
    verdict_key,
)
from desktop_rag.engines.onnx_export import ExportCache, Exporter, ExportError, export_in_child

if TYPE_CHECKING:
    from numpy.typing import NDArray

log = logging.getLogger(__name__)

MAX_TOKENS = 256  # all-MiniLM-L6-v2's max_seq_length, special tokens included

StatusFn = Callable[[str], None]

# Passages are embedded by single-threaded runs side by side, one per core up to MAX_STREAMS,
# rather than by one run whose threads meet after every operator: a transformer this small is a
# string of short operators, and on two cores the two threads of one run spent a fifth more CPU
# time per word piece than two runs of one thread (docs/performance.md, the dense manuals). The
# runs share one session: ONNX Runtime runs a session from several threads at once, and a
# session per stream held the weights once per stream (70 MB each for the int8 export) for no
# speed (issue 45).
# Each stream costs its activations, so past MAX_STREAMS each run gets more threads instead.
MAX_STREAMS = 4
# Texts per batch. Smaller batches spent less CPU per word piece, down to one text (32: a
# quarter more): the attention scores of a batch of 32 chunks (32 x 12 heads x 150 x 150 floats,
# 35 MB) stream through memory at every layer, those of 4 stay in the cache. Length-sorted
# batches pad little at any size.
PASSAGE_BATCH = 4


def passage_streams(threads: int) -> tuple[int, int]:
    """(sessions, threads per session) for passages, given `threads` in all (0: every core)."""
    total = threads if threads > 0 else (os.cpu_count() or 1)
    streams = max(1, min(MAX_STREAMS, total))
    return streams, max(1, total // streams)


class OnnxEmbedder:
    """An exported sentence-embedding graph (pooling and normalisation inside) on ONNX Runtime.

    Texts are tokenized once, sorted by token count and run in batches padded only to their own
    longest text; rows come back in the input order. Sessions are thread-safe, so a search can
    embed its question while an index run embeds passages.
    """

    def __init__(
        self,
        model_file: Path,
        tokenizer_json: Path,
        *,
        threads: int = 0,
        batch_size: int = 32,
        model_id: str = BUNDLED_EMBEDDER_ID,
        dim: int = BUNDLED_EMBEDDER_DIM,
        background: bool = False,
        streams: int = 1,
        max_tokens: int = MAX_TOKENS,
    ) -> None:
        if streams < 1:
            raise ValueError("streams must be at least 1")
        self.model_file = Path(model_file)
        # Its pool threads run at the indexing priority (a session for passages only).
        self.background = background
        self._tokenizer_json = Path(tokenizer_json)
        self._threads = threads
        self._batch_size = batch_size
        self._model_id = model_id
        self._dim = dim
        # Runs of the one session side by side, `threads` each (see passage_streams).
        self.streams = streams
        self._max_tokens = max_tokens
        self._session: Any = None
        self._tokenizer: Any = None
        self._inputs: frozenset[str] = frozenset()
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def loaded(self) -> bool:
        return self._session is not None

    def load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime as ort

            # Each run takes its caller's thread and threads - 1 of the pool: one pool for
            # every stream, as big as theirs together.
            pool = 1 + self.streams * (self._threads - 1) if self._threads > 1 else self._threads
            options = session_options(pool)

            def create() -> Any:
                return ort.InferenceSession(
                    str(self.model_file), options, providers=["CPUExecutionProvider"]
                )

            session = _in_lowered_thread(create) if self.background else create()
            self._inputs = frozenset(i.name for i in session.get_inputs())
            self._tokenizer = self._load_tokenizer()
            self._session = session

    def _load_tokenizer(self) -> Any:
        """What turns texts into word pieces: `encode_batch(texts)` gives each text's `ids`,
        special tokens included, cut at max_tokens."""
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(self._tokenizer_json))
        tok.no_padding()  # the bundled tokenizer.json pads every text to 128
        tok.enable_truncation(max_length=self._max_tokens)
        return tok

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        self.load()
        encodings = self._tokenizer.encode_batch(list(texts))
        lengths = [len(e.ids) for e in encodings]
        more = [self._run] * (self.streams - 1)
        return embed_by_length(encodings, lengths, self._batch_size, self._run, self._dim, more)

    def embed_query(self, text: str) -> NDArray[np.float32]:
        return self.embed([text])[0]

    def _run(self, encodings: list[Any]) -> NDArray[np.float32]:
        feed = padded_feed(encodings)
        out = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0]
        return np.asarray(out, dtype=np.float32)


def session_options(threads: int) -> Any:
    """ONNX Runtime's options for a model run beside the rest of the app on a laptop's cores
    (the embedder's and the cross-encoder's)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = max(0, threads)
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    # Idle pool threads that spin take the cores from what runs next on them: the vector
    # search after a question's embedding, the reader process and the window.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # A memory pattern is planned and kept per input shape, and every batch has its own (its
    # count and longest text): kept patterns only pile up, never reused.
    options.enable_mem_pattern = False
    if _shared_arena():
        options.add_session_config_entry("session.use_env_allocators", "1")
    return options


_arena_lock = threading.Lock()
_arena: bool | None = None


def _shared_arena() -> bool:
    """One CPU memory arena for every session of the process, registered on first use.

    An arena keeps the memory of the largest run it served, and each session had its own: the
    passages', the questions' and the cross-encoder's each kept theirs (the cross-encoder's a
    batch of 16 passages), 90-100 MB more in all than one arena they share (issue 45), at the
    same speed. False where the runtime cannot register one: each session keeps its own."""
    global _arena
    with _arena_lock:
        if _arena is None:
            import onnxruntime as ort

            try:
                info = ort.OrtMemoryInfo(
                    "Cpu", ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, ort.OrtMemType.DEFAULT
                )
                # 0 and -1: the runtime's own limit, growth (doubling) and chunk sizes.
                ort.create_and_register_allocator(info, ort.OrtArenaCfg(0, -1, -1, -1))
                _arena = True
            except Exception as exc:  # an older runtime: an arena per session, as before
                log.info("no shared ONNX Runtime arena: %s", exc)
                _arena = False
        return _arena


def padded_feed(encodings: Sequence[Any]) -> dict[str, NDArray[np.int64]]:
    """A batch of tokenizer encodings as the graph's inputs, padded to the longest of them."""
    width = max(len(e.ids) for e in encodings)
    ids = np.zeros((len(encodings), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, enc in enumerate(encodings):
        n = len(enc.ids)
        ids[row, :n] = enc.ids
        mask[row, :n] = 1
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}


def _in_lowered_thread(fn: Callable[[], Any]) -> Any:
    """fn's result, called in a new thread at the indexing priority.

    ONNX Runtime starts a session's pool threads when the session is made, and a new thread
    takes its creator's priority (Linux). A passage session is made wherever the embedder is
    first loaded (the window's loading lane); made here, its pool runs below the GUI thread
    like the indexing thread that feeds it, instead of taking a core from the window at the
    window's own priority.
    """
    from desktop_rag.infra import priority

    out: list[Any] = []
    errors: list[BaseException] = []

    def run() -> None:
        priority.lower_thread()
        try:
            out.append(fn())
        except BaseException as exc:  # re-raised in the caller's thread
            errors.append(exc)

    thread = threading.Thread(target=run, name="embedder-load", daemon=True)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return out[0]


class AutoEmbedder:
    """all-MiniLM-L6-v2 on ONNX Runtime once exported, on PyTorch until then or if that fails.

    Passages are embedded with the int8 export (the bulk of the work, and its fastest form),
    questions with the fp32 export (one short text; identical to PyTorch's vectors). On
    covid-qa (bench/embed_quality.py) int8 passages with fp32 questions keep recall within the
    gate of PyTorch fp32, vector-only and hybrid, where int8 questions too fall below it; and
    indexes of int8 and fp32 vectors answer each other's questions as well as their own. So
    every backend shares one model id and one index.

    int8 embeds passages only where it agrees with fp32 on this CPU (engines/int8_check.py):
    the first time both are loaded, their vectors of real text are compared, and on a CPU where
    int8 drifts too far, passages are embedded in fp32 instead (the same index, the same id).

    The export runs only in prepare(), which the index run calls before embedding and a
    warm-up may call at start; a search never exports, it uses PyTorch until the export exists.

    `prebuilt` exports (a frozen build's, made at build time) come before the cache. With no
    cache (a frozen build: no torch, no weights) nothing is exported and PyTorch is the
    fallback only in name: it fails with a message saying the installation is damaged.
    """

    def __init__(
        self,
        cache: ExportCache | None,
        *,
        threads: int = 0,
        variant: str = "int8",
        query_variant: str = "fp32",
        batch_size: int = PASSAGE_BATCH,
        model_dir: Path | None = None,
        exporter: Exporter = export_in_child,
        fallback: Callable[[], Embedder] | None = None,
        prebuilt: Mapping[str, Path] | None = None,
        verdicts: VerdictCache | None = None,
        low_priority: bool = True,
    ) -> None:
        self.cache = cache
        self._low_priority = low_priority  # passages embedded at the indexing priority
        if verdicts is None and cache is not None:
            verdicts = VerdictCache(cache.root / VERDICTS_FILE)
        self._verdicts = verdicts
        self.agreement: Agreement | None = None  # int8 against fp32 here, once measured
        self._prebuilt = dict(prebuilt or {})
        self.variant = variant
        self.query_variant = query_variant
        self._variants = tuple(dict.fromkeys([variant, query_variant]))
        self._threads = threads
        self._batch_size = batch_size
        self._model_dir = model_dir
        self._exporter = exporter
        self._fallback_factory = fallback or (
            lambda: SentenceTransformerEmbedder(model_dir, threads=threads)
        )
        self._sessions: dict[str, OnnxEmbedder] = {}
        self._exports: dict[str, Path] = {}  # finished exports not loaded yet
        self._fallback: Embedder | None = None
        self._looked: set[str] = set()  # variants looked for in the cache
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return BUNDLED_EMBEDDER_ID

    @property
    def dim(self) -> int:
        return BUNDLED_EMBEDDER_DIM

    @property
    def backend(self) -> str:
        """What embeds passages: 'onnx-int8', 'onnx-fp32', or 'torch' (also before any use)."""
        return self._name(self.variant)

    def sessions(self) -> dict[str, OnnxEmbedder]:
        """The ONNX sessions loaded so far, by variant ("int8", "fp32"), to measure each apart."""
        return dict(self._sessions)

    @property
    def query_backend(self) -> str:
        """What embeds questions, named like `backend`."""
        return self._name(self.query_variant)

    def _name(self, variant: str) -> str:
        if variant in self._sessions or variant in self._exports:
            return f"onnx-{variant}"
        ready = (v for v in self._variants if v in self._sessions or v in self._exports)
        return next((f"onnx-{v}" for v in ready), "torch")

    def prepare(self, on_status: StatusFn | None = None) -> str:
        """Export (once) the fast models and load the one for passages; fall back to PyTorch
        on any failure. The one for questions loads on the first question: an index run asks
        none, and its fp32 weights are 130 MB of the indexer's memory (issue 45)."""
        with self._lock:
            self._looked.update(self._variants)
            model_dir = self._model_dir or bundled_model_dir()
            for variant in self._variants:
                if variant in self._sessions or variant in self._exports:
                    continue
                path = self._finished(variant, model_dir)
                if path is None and self.cache is not None:
                    reason = self.cache.failure(model_dir, variant)
                    if reason is not None:
                        log.info("not retrying the failed %s export: %s", variant, reason)
                        continue
                    try:
                        path = self.cache.ensure(model_dir, variant, self._exporter, on_status)
                    except ExportError as exc:
                        log.warning("exporting the embedder (%s) failed: %s", variant, exc)
                        continue
                if path is None:
                    log.warning("this installation has no %s export of the embedder", variant)
                    continue
                self._exports[variant] = path
            self._load_passages(model_dir)
            return self.backend

    def _load_passages(self, model_dir: Path) -> None:
        """Load the passages' export (the questions' one if that fails), then check int8."""
        for variant in (self.variant, *self._variants):
            if variant in self._sessions:
                break
            path = self._exports.pop(variant, None)
            if path is not None and self._load(variant, path, model_dir):
                break
        self._check_int8(model_dir)

    def _check_int8(self, model_dir: Path) -> None:
        """Embed passages in fp32 instead where int8 disagrees with it on this CPU.

        The verdict is kept per CPU and export; measuring it loads fp32 beside int8 for the
        measurement only, unless it embeds questions already."""
        int8 = self._sessions.get("int8")
        if self.variant != "int8" or int8 is None or self.agreement is not None:
            return
        key = verdict_key(int8.model_file)
        agreement = self._verdicts.get(key) if self._verdicts is not None else None
        fp32 = self._sessions.get("fp32")
        if agreement is None:
            if fp32 is None:
                path = self._exports.get("fp32") or self._finished("fp32", model_dir)
                fp32 = self._make("fp32", path, model_dir) if path is not None else None
            if fp32 is None:
                return  # nothing to measure against: int8 as it is
            try:
                agreement = measure(int8, fp32)
            except Exception as exc:  # a session that loads but cannot run: fp32 is the safe side
                log.warning("could not compare int8 with fp32 embeddings: %s", exc)
                agreement = Agreement(0.0, 0.0, 0)
            else:
                if self._verdicts is not None:
                    self._verdicts.put(key, agreement)
        self.agreement = agreement
        if agreement.ok:
            log.info("int8 embeddings agree with fp32 on this CPU (%s)", agreement.describe())
            return
        log.warning(
            "int8 embeddings drift from fp32 on this CPU (%s): embedding passages in fp32",
            agreement.describe(),
        )
        del self._sessions["int8"]
        self.variant = "fp32"
        self._variants = tuple(dict.fromkeys([self.variant, self.query_variant]))
        if fp32 is not None:
            self._sessions["fp32"] = fp32
            self._exports.pop("fp32", None)
        else:
            self._load_passages(model_dir)

    def _finished(self, variant: str, model_dir: Path) -> Path | None:
        """A complete export: the prebuilt one, else one in the cache. Never exports."""
        shipped = self._prebuilt.get(variant)
        if shipped is not None:
            return shipped
        return self.cache.find(model_dir, variant) if self.cache is not None else None

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return self._for(self.variant).embed(texts)

    def embed_query(self, text: str) -> NDArray[np.float32]:
        return self._for(self.query_variant).embed_query(text)

    def _for(self, variant: str) -> Embedder:
        session = self._sessions.get(variant)
        if session is not None:
            return session
        with self._lock:
            model_dir = self._model_dir or bundled_model_dir()
            # Loading a finished export is quick; exporting is not (only prepare() does). The
            # other variant is looked for too, to stand in if this one will not load.
            for v in dict.fromkeys([variant, *self._variants]):
                if v not in self._looked:
                    self._looked.add(v)
                    path = self._finished(v, model_dir)
                    if path is not None and v not in self._sessions:
                        self._exports[v] = path
            path = self._exports.pop(variant, None)
            if path is not None:
                self._load(variant, path, model_dir)
            if variant == "int8":  # passages: checked before their first use
                self._check_int8(model_dir)
                variant = self.variant
                if variant not in self._sessions:
                    self._load_passages(model_dir)
            # The other export of the same model is the next best thing; PyTorch the last.
            for v in (variant, *self._variants):
                if v in self._sessions:
                    return self._sessions[v]
            for v in self._variants:
                path = self._exports.pop(v, None)
                if path is not None and self._load(v, path, model_dir):
                    return self._sessions[v]
            if self._fallback is None:
                self._fallback = self._fallback_factory()
            return self._fallback

    def _make(self, variant: str, path: Path, model_dir: Path) -> OnnxEmbedder | None:
        """A loaded session of one export, or None (logged) where it cannot load."""
        passages = variant == self.variant
        streams, threads = passage_streams(self._threads) if passages else (1, self._threads)
        onnx = OnnxEmbedder(
            path,
            model_dir / "tokenizer.json",
            threads=threads,
            batch_size=self._batch_size,
            # Only passages (index runs) on it: questions have their own session, at the
            # priority of the thread that answers. One session for both keeps it there.
            background=self._low_priority and passages and variant != self.query_variant,
            # A question is one batch, so it only ever runs on the first stream.
            streams=streams,
        )
        try:
            onnx.load()
        except Exception as exc:  # a damaged file or a missing runtime: keep working on torch
            log.warning("loading the exported embedder (%s) failed: %s", variant, exc)
            return None
        return onnx

    def _load(self, variant: str, path: Path, model_dir: Path) -> bool:
        onnx = self._make(variant, path, model_dir)
        if onnx is None:
            return False
        self._sessions[variant] = onnx
        self._fallback = None  # let PyTorch's model go once nothing needs it
        log.info("embedding with ONNX Runtime (%s) from %s", variant, path)
        return True
