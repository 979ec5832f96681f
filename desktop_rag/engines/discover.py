"""The GGUF models the user already has: LM Studio, Ollama, GPT4All, Jan and llama.cpp's cache.

Only the folders these apps use are looked at, each walked to a bounded depth and number of
entries: the whole disk is never scanned. A model's name and quantisation come from its GGUF
header, read key by key until both are found (the tokenizer's vocabulary, megabytes of
strings, is skipped, never decoded).
"""

from __future__ import annotations

import json
import logging
import mmap
import os
import re
import struct
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from desktop_rag.engines.llm import GGUF_MAGIC, MEMORY_MARGIN_BYTES

log = logging.getLogger(__name__)

# Deep enough for LM Studio's models/<publisher>/<repo>/<file>.gguf and Jan's
# data/llamacpp/models/<id>/model.gguf; few enough entries that a huge folder costs milliseconds.
MAX_DEPTH = 5
MAX_ENTRIES = 20_000
# A GGUF header with more keys than this, or a string longer than this, is not one we can use.
MAX_KEYS = 4096
MAX_STRING = 1 << 20

OLLAMA_MODEL_LAYER = "application/vnd.ollama.image.model"

# Encoders and vision projectors are GGUF files too, but they cannot answer a question.
NOT_LLM_ARCHITECTURES = frozenset(
    {"bert", "nomic-bert", "nomic-bert-moe", "jina-bert-v2", "t5encoder", "clip", "wavtokenizer"}
)
_SPLIT = re.compile(r"-(\d{5})-of-(\d{5})\.gguf$", re.IGNORECASE)
_QUANT_IN_NAME = re.compile(
    r"(?<![A-Za-z0-9])(I?Q\d(?:_[A-Z0-9]+)*|F16|BF16|F32|MXFP4)(?![A-Za-z0-9])", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class GgufInfo:
    """What a GGUF header says about the model (empty strings where it says nothing)."""

    name: str = ""
    architecture: str = ""
    file_type: int | None = None
    size_label: str = ""
    kind: str = ""  # general.type: "model", "mmproj", "adapter"


@dataclass(frozen=True, slots=True)
class FoundModel:
    """A model file found on this computer, and whether it fits in memory."""

    path: str
    name: str
    app: str  # the app whose folder holds it: "LM Studio", "Ollama", ...
    size: int  # bytes, all parts of a split model together
    quantisation: str  # "Q4_K_M", "F16", ... or "" when neither header nor name tells
    needed: int  # bytes of memory it needs to run (weights and a margin for the context)
    available: int  # bytes of memory available now (0 when the platform cannot tell)

    @property
    def fits(self) -> bool:
        return self.available == 0 or self.needed <= self.available


# -- the GGUF header ----------------------------------------------------------------------------

# GGUF value types (the spec's numbering) and the size of the fixed-size ones.
_STRING, _ARRAY = 8, 9
_FIXED = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_WANTED = ("general.name", "general.architecture", "general.file_type")


class _Reader:
    """Reads a GGUF header from a memory map: skipping the vocabulary (a length then the bytes,
    for each of up to 262,144 tokens) costs an addition per token, not a system call."""

    def __init__(self, data: mmap.mmap, order: str) -> None:
        self.data = data
        self.order = order
        self.pos = 0

    def unpack(self, fmt: str) -> int | float | bool:
        fmt = self.order + fmt
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise ValueError("truncated GGUF header")
        value: int | float | bool = struct.unpack_from(fmt, self.data, self.pos)[0]
        self.pos += size
        return value

    def string(self) -> str:
        n = int(self.unpack("Q"))
        if n > MAX_STRING or self.pos + n > len(self.data):
            raise ValueError("damaged string in GGUF header")
        text = self.data[self.pos : self.pos + n].decode("utf-8", "replace")
        self.pos += n
        return text

    def skip(self, vtype: int) -> None:
        if vtype == _STRING:
            n = int(self.unpack("Q"))
            if n > MAX_STRING:
                raise ValueError("damaged string in GGUF header")
            self.pos += n
        elif vtype == _ARRAY:
            etype, count = int(self.unpack("I")), int(self.unpack("Q"))
            if etype in _FIXED:
                self.pos += struct.calcsize(_FIXED[etype]) * count
            elif etype == _STRING:
                length = struct.Struct(self.order + "Q")
                data, pos, end = self.data, self.pos, len(self.data)
                for _ in range(count):
                    if pos + 8 > end:
                        raise ValueError("truncated GGUF header")
                    pos += 8 + length.unpack_from(data, pos)[0]
                self.pos = pos
            else:
                for _ in range(count):
                    self.skip(etype)
        elif vtype in _FIXED:
            self.pos += struct.calcsize(_FIXED[vtype])
        else:
            raise ValueError(f"unknown GGUF value type {vtype}")
        if self.pos > len(self.data):
            raise ValueError("truncated GGUF header")

    def value(self, vtype: int) -> object:
        if vtype == _STRING:
            return self.string()
        if vtype in _FIXED:
            return self.unpack(_FIXED[vtype])
        self.skip(vtype)
        return None


def read_header(path: str | Path) -> GgufInfo:
    """The model's name, architecture and file type from its GGUF header; ValueError if the
    file is not GGUF or its header is damaged."""
    with open(path, "rb") as f:
        if f.read(4) != GGUF_MAGIC:
            raise ValueError("not a GGUF file")
        try:
            data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as exc:
            raise ValueError(f"cannot map the file: {exc}") from exc
    with data:
        return _parse(data)


def _parse(data: mmap.mmap) -> GgufInfo:
    if len(data) < 24:
        raise ValueError("truncated GGUF header")
    # A big-endian file shows its version byte-swapped: a small number either way round.
    order = "<" if struct.unpack_from("<I", data, 4)[0] < 0x10000 else ">"
    r = _Reader(data, order)
    r.pos = 8
    r.unpack("Q")  # tensors
    n_keys = int(r.unpack("Q"))
    if n_keys > MAX_KEYS:
        raise ValueError("implausible GGUF header")
    found: dict[str, object] = {}
    for _ in range(n_keys):
        key = r.string()
        vtype = int(r.unpack("I"))
        if key.startswith("general."):
            found[key] = r.value(vtype)
        else:
            r.skip(vtype)
        if all(k in found for k in _WANTED):
            break
    file_type = found.get("general.file_type")
    return GgufInfo(
        name=str(found.get("general.name") or ""),
        architecture=str(found.get("general.architecture") or ""),
        file_type=int(file_type) if isinstance(file_type, int) else None,
        size_label=str(found.get("general.size_label") or ""),
        kind=str(found.get("general.type") or ""),
    )


# llama.cpp's general.file_type values (its llama_ftype enum). The gguf package holds the same
# table but imports PyYAML, which the installed app leaves out; tests/unit/test_discover.py
# checks this copy against it.
FILE_TYPES = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K",
    11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S",
    17: "Q5_K_M", 18: "Q6_K", 19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS",
    23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL", 26: "IQ3_S", 27: "IQ3_M", 28: "IQ2_S",
    29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0", 37: "TQ2_0",
    38: "MXFP4_MOE", 39: "NVFP4", 40: "Q1_0",
}  # fmt: skip


def quantisation_name(file_type: int | None) -> str:
    """llama.cpp's name for a general.file_type ("Q4_K_M" for 15), or "" if unknown."""
    return FILE_TYPES.get(file_type, "") if file_type is not None else ""


def quantisation_in_name(filename: str) -> str:
    """The quantisation a file's name announces ("model-Q5_K_M.gguf"), or ""."""
    match = _QUANT_IN_NAME.search(Path(filename).stem)
    return match.group(1).upper() if match else ""


# -- where the apps keep their models ---------------------------------------------------------


def _data_home(home: Path, env: Mapping[str, str]) -> Path:
    if sys.platform == "win32":
        return Path(env.get("LOCALAPPDATA") or home / "AppData" / "Local")
    if sys.platform == "darwin":
        return home / "Library" / "Application Support"
    return Path(env.get("XDG_DATA_HOME") or home / ".local" / "share")


def _cache_home(home: Path, env: Mapping[str, str]) -> Path:
    if sys.platform == "win32":
        return Path(env.get("LOCALAPPDATA") or home / "AppData" / "Local")
    if sys.platform == "darwin":
        return home / "Library" / "Caches"
    return Path(env.get("XDG_CACHE_HOME") or home / ".cache")


def model_folders(
    home: Path | None = None, env: Mapping[str, str] | None = None
) -> list[tuple[str, Path]]:
    """(app, folder) for every place a local-model app keeps its GGUF files (Ollama apart)."""
    env = os.environ if env is None else env
    home = home or Path(env.get("HOME") or env.get("USERPROFILE") or Path.home())
    data, cache = _data_home(home, env), _cache_home(home, env)
    folders = [
        ("LM Studio", home / ".lmstudio" / "models"),
        ("LM Studio", home / ".cache" / "lm-studio" / "models"),
        ("GPT4All", data / "nomic.ai" / "GPT4All"),
        ("Jan", home / "jan" / "models"),
        ("Jan", data / "Jan" / "data"),
        ("llama.cpp", Path(env["LLAMA_CACHE"]) if env.get("LLAMA_CACHE") else cache / "llama.cpp"),
    ]
    return folders


def ollama_folders(home: Path | None = None, env: Mapping[str, str] | None = None) -> list[Path]:
    env = os.environ if env is None else env
    home = home or Path(env.get("HOME") or env.get("USERPROFILE") or Path.home())
    folders = [home / ".ollama" / "models"]
    if env.get("OLLAMA_MODELS"):
        folders.insert(0, Path(env["OLLAMA_MODELS"]))
    if sys.platform.startswith("linux"):
        folders.append(Path("/usr/share/ollama/.ollama/models"))  # the service's own user
    return folders


def _walk(root: Path, budget: list[int], suffix: str = "", depth: int = 0) -> Iterator[Path]:
    """The files under root whose name ends with suffix, depth and entries bounded; folder
    links and hidden folders are not followed (root itself may be a link)."""
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        budget[0] -= 1
        if budget[0] < 0:
            return
        try:
            if entry.is_dir(follow_symlinks=False):
                if depth < MAX_DEPTH and not entry.name.startswith("."):
                    yield from _walk(Path(entry.path), budget, suffix, depth + 1)
            elif entry.name.lower().endswith(suffix) and entry.is_file():
                yield Path(entry.path)
        except OSError:
            continue


def _ollama_models(root: Path) -> Iterator[tuple[str, Path]]:
    """(model:tag, blob) from Ollama's manifests/<host>/<namespace>/<model>/<tag> files."""
    manifests = root / "manifests"
    budget = [MAX_ENTRIES]
    for manifest in _walk(manifests, budget):
        parts = manifest.relative_to(manifests).parts
        if len(parts) != 4:
            continue
        host, namespace, model, tag = parts
        try:
            layers = json.loads(manifest.read_text(encoding="utf-8")).get("layers", [])
        except (OSError, ValueError, AttributeError):
            continue
        for layer in layers if isinstance(layers, list) else []:
            if isinstance(layer, dict) and layer.get("mediaType") == OLLAMA_MODEL_LAYER:
                digest = str(layer.get("digest", ""))
                blob = root / "blobs" / digest.replace(":", "-")
                name = f"{model}:{tag}"
                if namespace != "library":
                    name = f"{namespace}/{name}"
                if host != "registry.ollama.ai":
                    name = f"{host}/{name}"
                yield name, blob


def _available_memory() -> int:
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except Exception:  # psutil missing or the platform cannot tell
        return 0


def describe(path: Path, app: str, name: str = "", available: int | None = None) -> FoundModel:
    """A FoundModel for one GGUF file (the first part of a split model counts all parts);
    ValueError if it is not a language model we can list."""
    info = read_header(path)
    if info.kind in ("mmproj", "adapter") or info.architecture in NOT_LLM_ARCHITECTURES:
        raise ValueError(f"not a language model ({info.kind or info.architecture})")
    size = path.stat().st_size
    split = _SPLIT.search(path.name)
    if split:
        total = int(split.group(2))
        for i in range(2, total + 1):
            part = path.with_name(_SPLIT.sub(f"-{i:05d}-of-{total:05d}.gguf", path.name))
            if part.is_file():
                size += part.stat().st_size
    quant = quantisation_name(info.file_type) or quantisation_in_name(path.name)
    return FoundModel(
        path=str(path),
        name=name or info.name or path.stem,
        app=app,
        size=size,
        quantisation=quant,
        needed=size + MEMORY_MARGIN_BYTES,
        available=_available_memory() if available is None else available,
    )


def find_models(home: Path | None = None, env: Mapping[str, str] | None = None) -> list[FoundModel]:
    """Every GGUF language model in the usual places, each file once, by app then name."""
    available = _available_memory()
    seen: set[str] = set()
    found: list[FoundModel] = []

    def add(path: Path, app: str, name: str = "") -> None:
        try:
            real = os.path.realpath(path)
            if real in seen:
                return
            seen.add(real)
            found.append(describe(path, app, name, available))
        except (OSError, ValueError) as exc:
            log.debug("not listing %s: %s", path, exc)

    for app, folder in model_folders(home, env):
        budget = [MAX_ENTRIES]
        for path in _walk(folder, budget, ".gguf"):
            split = _SPLIT.search(path.name)
            if split and split.group(1) != "00001":
                continue  # llama.cpp opens a split model by its first part
            if "mmproj" in path.name.lower():
                continue
            add(path, app)
    for root in ollama_folders(home, env):
        for name, blob in _ollama_models(root):
            add(blob, "Ollama", name)
    found.sort(key=lambda m: (m.app, m.name.lower(), m.path))
    return found


def human_size(size: int) -> str:
    if size >= 10 * 2**30:
        return f"{size / 2**30:.0f} GB"
    if size >= 2**30:
        return f"{size / 2**30:.1f} GB"
    return f"{size / 2**20:.0f} MB"
