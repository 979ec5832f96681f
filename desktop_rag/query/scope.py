"""What a search may look in: chosen files, folders or a saved collection, as a store filter."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from desktop_rag.errors import UsageError
from desktop_rag.infra.paths import normalize


def _sql(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


@dataclass(frozen=True, slots=True)
class Scope:
    """Files and folders a search is limited to; empty, the whole library.

    A folder covers every file under it, those added later too: it is matched by its path's
    prefix inside the search, never by a list of the files it held when it was chosen.
    """

    files: tuple[str, ...] = ()
    folders: tuple[str, ...] = ()
    name: str = ""  # the collection it came from, if any (what the chip shows)

    @classmethod
    def of(cls, paths: Iterable[str], name: str = "") -> Scope:
        """Paths sorted into files and folders (a folder is one that is a folder on disk now,
        or one written with a trailing separator), each normalised as the index stores it."""
        files: list[str] = []
        folders: list[str] = []
        for raw in paths:
            if not raw:
                continue
            path = normalize(raw)
            if os.path.isdir(path) or raw.endswith(("/", os.sep)):
                folders.append(path)
            else:
                files.append(path)
        return cls(tuple(dict.fromkeys(files)), tuple(dict.fromkeys(folders)), name)

    @property
    def whole_library(self) -> bool:
        return not self.files and not self.folders

    @property
    def paths(self) -> tuple[str, ...]:
        return self.files + self.folders

    def where(self) -> str | None:
        """The SQL filter on the chunks' (or documents') `path` column; None for everything."""
        if self.whole_library:
            return None
        parts = []
        if self.files:
            parts.append(f"path IN ({', '.join(_sql(f) for f in self.files)})")
        for folder in self.folders:
            prefix = folder if folder.endswith(os.sep) else folder + os.sep
            parts.append(f"starts_with(path, {_sql(prefix)})")
        return parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")"

    def contains(self, path: str) -> bool:
        """The same test as where(), in Python (for lists already read, such as documents)."""
        if self.whole_library:
            return True
        if path in self.files:
            return True
        return any(path.startswith(f if f.endswith(os.sep) else f + os.sep) for f in self.folders)

    def label(self) -> str:
        """A few words for the chip and the CLI: the collection, the one file or folder, or
        how many."""
        if self.whole_library:
            return "All documents"
        if self.name:
            return self.name
        if len(self.paths) == 1:
            return os.path.basename(self.paths[0].rstrip(os.sep)) or self.paths[0]
        kinds = []
        if self.files:
            kinds.append(f"{len(self.files)} document{'s' * (len(self.files) > 1)}")
        if self.folders:
            kinds.append(f"{len(self.folders)} folder{'s' * (len(self.folders) > 1)}")
        return " and ".join(kinds)

    def to_json(self) -> dict[str, Any]:
        return {"files": list(self.files), "folders": list(self.folders), "name": self.name}

    @classmethod
    def from_json(cls, raw: object) -> Scope:
        """A scope read back from a conversation file; anything malformed is the library."""
        if not isinstance(raw, Mapping):
            return cls()

        def strings(key: str) -> tuple[str, ...]:
            value = raw.get(key)
            if not isinstance(value, list):
                return ()
            return tuple(v for v in value if isinstance(v, str) and v)

        name = raw.get("name")
        return cls(strings("files"), strings("folders"), name if isinstance(name, str) else "")


def resolve(
    paths: Sequence[str] = (),
    collection: str = "",
    collections: Mapping[str, Sequence[str]] | None = None,
) -> Scope:
    """The scope of `--in PATH...` and `--collection NAME` together (their union)."""
    collections = collections or {}
    chosen = list(paths)
    if collection:
        if collection not in collections:
            known = ", ".join(sorted(collections)) or "none yet"
            raise UsageError(
                f"There is no collection named {collection!r} (collections: {known}). Make it "
                f"with `desktop-rag collection add {collection} PATH...`."
            )
        chosen += collections[collection]
    name = collection if collection and not paths else ""
    return Scope.of(chosen, name)
