"""Rebuilding the index: after damage, or when the embedder, chunking or format changed.

The index is derived data: it can always be made again from the user's files. What it was
made from is remembered outside it (roots.json), so a damaged index can still be rebuilt.
A rebuild for a format change is made beside the old index, which keeps answering until the
new one is complete and swapped in.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from collections.abc import Iterable
from pathlib import Path

from desktop_rag.infra import faults
from desktop_rag.infra.paths import is_under, normalize

log = logging.getLogger(__name__)

ROOTS_FILE = "roots.json"
NEXT_SUFFIX = ".next"
OLD_SUFFIX = ".old"
DAMAGED_SUFFIX = ".damaged"
DEFAULT_PAGES_PER_S = 5.0  # until this machine has been measured


def _roots_path(data_path: Path) -> Path:
    return data_path / ROOTS_FILE


def _read_state(data_path: Path) -> dict[str, object]:
    try:
        raw = json.loads(_roots_path(data_path).read_text(encoding="utf-8"))
        return raw if isinstance(raw, dict) else {}
    except (OSError, ValueError):
        return {}


def _write_state(data_path: Path, state: dict[str, object]) -> None:
    data_path.mkdir(parents=True, exist_ok=True)
    tmp = _roots_path(data_path).with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=2), encoding="utf-8")
    os.replace(tmp, _roots_path(data_path))


def load_roots(data_path: Path) -> list[str]:
    """The files and folders that were indexed, for rebuilding without the old index."""
    roots = _read_state(data_path).get("roots", [])
    return [str(r) for r in roots] if isinstance(roots, list) else []


def add_roots(data_path: Path, paths: Iterable[str]) -> None:
    state = _read_state(data_path)
    roots = set(load_roots(data_path))
    new = {normalize(p) for p in paths}
    # A folder covers the files and folders inside it.
    merged = {r for r in roots | new if not any(r != o and is_under(r, o) for o in roots | new)}
    if merged != roots:
        state["roots"] = sorted(merged)
        _write_state(data_path, state)


def remove_roots(data_path: Path, paths: Iterable[str]) -> None:
    state = _read_state(data_path)
    gone = {normalize(p) for p in paths}
    roots = [r for r in load_roots(data_path) if not any(is_under(r, g) for g in gone)]
    state["roots"] = roots
    _write_state(data_path, state)


def record_speed(data_path: Path, pages: int, seconds: float) -> None:
    """Remember indexing speed, to estimate how long a rebuild will take."""
    if pages < 20 or seconds <= 0:
        return
    state = _read_state(data_path)
    state["pages_per_s"] = round(pages / seconds, 2)
    _write_state(data_path, state)


def estimate_seconds(data_path: Path, pages: int) -> float:
    speed = _read_state(data_path).get("pages_per_s", DEFAULT_PAGES_PER_S)
    try:
        rate = float(speed)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        rate = DEFAULT_PAGES_PER_S
    return pages / max(rate, 0.1)


def quarantine(index_path: Path) -> Path | None:
    """Move a damaged index aside (only the latest one is kept, for diagnosis)."""
    if not index_path.exists():
        return None
    target = index_path.with_name(index_path.name + DAMAGED_SUFFIX)
    if target.exists():
        shutil.rmtree(target, ignore_errors=True)
    os.replace(index_path, target)
    log.warning("moved the damaged index %s aside to %s", index_path, target)
    return target


def next_path(index_path: Path) -> Path:
    return index_path.with_name(index_path.name + NEXT_SUFFIX)


def old_path(index_path: Path) -> Path:
    return index_path.with_name(index_path.name + OLD_SUFFIX)


def swap_in(index_path: Path) -> None:
    """Replace the index with the finished rebuild beside it, then delete the old one.

    Call it with the index's writer lock held. Two renames: index to index.old, then
    index.next to index. A kill between them leaves both folders and no index:
    `finish_swap`, at the next start, completes the swap.
    """
    new, old = next_path(index_path), old_path(index_path)
    if not new.is_dir():
        raise FileNotFoundError(f"no finished rebuild in {new}")
    if old.exists():  # an earlier swap was cut short while deleting its old index
        shutil.rmtree(old)
    faults.reached("swap")
    if index_path.exists():
        os.replace(index_path, old)
    faults.reached("swap-renamed")
    os.replace(new, index_path)
    faults.reached("swap-done")
    shutil.rmtree(old, ignore_errors=True)


def swap_interrupted(index_path: Path) -> bool:
    """A swap was cut short (cheap: one stat); `finish_swap` under the writer lock mends it."""
    return old_path(index_path).exists()


def finish_swap(index_path: Path) -> str:
    """Complete a swap a kill cut short, so there is always one index; call it under the
    writer lock. Returns what was done, for the log."""
    new, old = next_path(index_path), old_path(index_path)
    if not old.exists():
        return ""
    if index_path.exists():  # swapped; only the old index's deletion was cut short
        shutil.rmtree(old, ignore_errors=True)
        return "deleted the index a finished rebuild replaced"
    if new.is_dir():  # killed between the two renames: the rebuild was complete
        os.replace(new, index_path)
        shutil.rmtree(old, ignore_errors=True)
        log.warning("finished swapping in the rebuilt index %s", index_path)
        return "finished swapping in the rebuilt index"
    os.replace(old, index_path)  # no rebuild to swap in: put the old index back
    log.warning("put the index %s back; the swap had nothing to swap in", index_path)
    return "put the old index back"
