"""Small measured verdicts kept in one JSON file, one entry per key (derived data)."""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class KeyedJson:
    """A JSON object on disk: `get` a key's value, `put` one (the file rewritten whole)."""

    path: Path

    def _all(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def get(self, key: str) -> Any:
        return self._all().get(key)

    def put(self, key: str, value: Any) -> None:
        data = self._all()
        data[key] = value
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_json(self.path, data)
        except OSError as exc:  # a read-only cache only costs a new measurement next time
            log.info("could not keep a verdict in %s: %s", self.path, exc)


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write a small JSON file whole or not at all (a temporary file per process, renamed)."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2), encoding="utf-8")
    os.replace(tmp, path)
