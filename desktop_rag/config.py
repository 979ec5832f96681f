"""Settings (one JSON file in the platformdirs config dir) and where every file lives."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import platformdirs

APP_NAME = "desktop-rag"
LIBRARY_FOLDER_NAME = "Desktop RAG Library"


def user_dirs(platform: str | None = None) -> platformdirs.api.PlatformDirsABC:
    """This platform's folders for the app, as platformdirs gives them, chosen at call time.

    Windows: everything under %LOCALAPPDATA%\\desktop-rag (never the roaming profile, which
    Windows copies at every sign-in: an index is gigabytes), the cache in its Cache and the
    logs in its Logs. macOS: ~/Library/Application Support/desktop-rag for data and settings,
    ~/Library/Caches/desktop-rag, ~/Library/Logs/desktop-rag. Elsewhere the XDG folders."""

    platform = platform or sys.platform
    kind: type[platformdirs.api.PlatformDirsABC]
    if platform == "win32":
        from platformdirs.windows import Windows as kind
    elif platform == "darwin":
        from platformdirs.macos import MacOS as kind
    else:
        from platformdirs.unix import Unix as kind
    return kind(APP_NAME, appauthor=False, roaming=False)


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


# A library at one of these lives on object storage (a team library, store/remote.py).
REMOTE_SCHEMES = ("s3://", "s3+ddb://")


def is_remote(location: str) -> bool:
    """Whether a data dir is an object-storage URI rather than a folder."""
    return location.strip().lower().startswith(REMOTE_SCHEMES)


def remote_uri() -> str | None:
    """The team library's URI when DESKTOP_RAG_DATA_DIR names one, else None."""
    value = os.environ.get("DESKTOP_RAG_DATA_DIR", "").strip()
    return value.rstrip("/") if is_remote(value) else None


def team_local_dir(uri: str) -> Path:
    """A team library's files that are this desktop's own (conversations, the roots it
    indexed, the writer lock): a folder of the cache dir keyed by the URI, never in the bucket."""
    key = hashlib.sha256(uri.rstrip("/").encode("utf-8")).hexdigest()[:16]
    return cache_dir() / "team" / key


def default_data_dir() -> Path:
    """The index and conversations: DESKTOP_RAG_DATA_DIR, else the platform's user data dir.

    For a team library (an s3:// URI) this is its local folder (team_local_dir)."""
    uri = remote_uri()
    if uri is not None:
        return team_local_dir(uri)
    return _env_path("DESKTOP_RAG_DATA_DIR") or Path(user_dirs().user_data_dir)


def config_dir() -> Path:
    return _env_path("DESKTOP_RAG_CONFIG_DIR") or Path(user_dirs().user_config_dir)


def cache_dir() -> Path:
    """Derived files that can be rebuilt offline: the assembled GGUF, exported embedders."""
    return _env_path("DESKTOP_RAG_CACHE_DIR") or Path(user_dirs().user_cache_dir)


def log_dir() -> Path:
    return _env_path("DESKTOP_RAG_LOG_DIR") or Path(user_dirs().user_log_dir)


def default_library_dir() -> Path:
    """The folder a first start creates under the user's documents, with the guide in it."""
    return Path(user_dirs().user_documents_dir) / LIBRARY_FOLDER_NAME


def default_threads() -> int:
    """Physical cores where known: llama.cpp and torch gain nothing from hyper-threads."""
    try:
        import psutil

        count = psutil.cpu_count(logical=False)
    except Exception:  # psutil missing or the platform cannot tell
        count = None
    return max(1, count or os.cpu_count() or 1)


@dataclass(slots=True)
class Settings:
    """What the user can change; everything else is derived from it."""

    data_dir: str = ""
    folders: list[str] = field(default_factory=list)
    model_path: str = ""  # empty: the bundled Gemma 3 270M
    n_threads: int = 0  # 0: one per physical core
    n_ctx: int = 4096
    top_k: int = 6
    embed_backend: str = "auto"  # auto | onnx | onnx-fp32 | torch
    # Indexing at low CPU and I/O priority, so other programs and answers stay quick; off,
    # indexing competes at normal priority (benchmarks against other programs do this).
    index_low_priority: bool = True
    # Pages without a usable text layer (scans) are read with OCR (ingest/ocr.py); off, a
    # scanned PDF fails with "has no text layer" (a file set to "Read with OCR" still is).
    ocr: bool = True
    # Passages and the composed answer's sentences ranked by the shipped cross-encoder
    # (engines/rerank.py), which also says when no sentence answers; off, by the blend of
    # BM25 and vectors and the hand-tuned sentence scores, as before it (benchmarks' "before").
    rerank: bool = True
    # Passages embedded by the multilingual embedder (engines/multilingual.py), for a library
    # mostly not in English: German, French, Japanese... passages are found by their meaning,
    # not only their words. Slower to index; switching it rebuilds the index in the background
    # (its metadata names the embedder). Off, the English embedder, as before.
    multilingual: bool = False
    first_run_done: bool = False
    # Saved scopes (query/scope.py): a name and its folders and files, for `--collection NAME`
    # and the window's scope chip. A folder covers the files added to it later.
    collections: dict[str, list[str]] = field(default_factory=dict)
    # A team library searched beside this one (desktop_rag/team.py, docs/team.md): its URI
    # (s3://bucket/path; empty: none), and, beyond what the AWS variables and files say, the
    # profile, endpoint and region to reach it with. Never its keys. Deadlines of 0 keep
    # store/remote.py's defaults (reads 4 s, opening 6 s).
    team_library: str = ""
    team_profile: str = ""
    team_endpoint: str = ""
    team_region: str = ""
    team_read_deadline_s: float = 0.0
    team_open_deadline_s: float = 0.0

    @property
    def data_path(self) -> Path:
        if self.library_uri is not None:
            return team_local_dir(self.library_uri)
        return Path(self.data_dir).expanduser() if self.data_dir else default_data_dir()

    @property
    def library_uri(self) -> str | None:
        """The team library's URI (s3://bucket/path), or None for a folder on this disk."""
        if self.data_dir:
            return self.data_dir.strip().rstrip("/") if is_remote(self.data_dir) else None
        return remote_uri()

    @property
    def index_path(self) -> Path:
        return self.data_path / "index"

    @property
    def conversations_path(self) -> Path:
        return self.data_path / "conversations"

    @property
    def threads(self) -> int:
        return self.n_threads if self.n_threads > 0 else default_threads()

    @classmethod
    def load(cls, path: Path | None = None) -> Settings:
        """Read the settings file; a missing or damaged file gives the defaults."""
        path = path or settings_file()
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls()
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in raw.items() if k in known} if isinstance(raw, dict) else {}
        if "collections" in values:
            values["collections"] = _collections(values["collections"])
        try:
            return cls(**values)
        except TypeError:
            return cls()

    def save(self, path: Path | None = None) -> None:
        """Write atomically, so a crash never leaves half a settings file."""
        path = path or settings_file()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(self), indent=2), encoding="utf-8")
        os.replace(tmp, path)


def _collections(raw: object) -> dict[str, list[str]]:
    """The collections of a settings file, without anything a hand edit may have garbled."""
    if not isinstance(raw, dict):
        return {}
    return {
        name: [p for p in paths if isinstance(p, str) and p]
        for name, paths in raw.items()
        if isinstance(name, str) and name and isinstance(paths, list)
    }


def settings_file() -> Path:
    return config_dir() / "settings.json"
