"""Small measured verdicts kept in one JSON file (infra/keyed.py): one entry per key, a damaged
or missing file read as empty, and a file that cannot be written costing only the verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_rag.infra.keyed import KeyedJson, write_json


def test_each_key_keeps_its_own_value(tmp_path: Path) -> None:
    kept = KeyedJson(tmp_path / "cache" / "abilities.json")
    assert kept.get("model-a") is None
    kept.put("model-a", {"writes": True})
    kept.put("model-b", {"writes": False})
    kept.put("model-a", {"writes": False, "probes": 8})
    again = KeyedJson(tmp_path / "cache" / "abilities.json")  # as the next start reads it
    assert again.get("model-a") == {"writes": False, "probes": 8}
    assert again.get("model-b") == {"writes": False}


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", ""])
def test_a_damaged_file_reads_as_empty_and_is_written_anew(tmp_path: Path, text: str) -> None:
    path = tmp_path / "verdicts.json"
    path.write_text(text)
    kept = KeyedJson(path)
    assert kept.get("x") is None
    kept.put("x", 1)
    assert json.loads(path.read_text()) == {"x": 1}


def test_a_place_that_cannot_be_written_costs_only_the_verdict(tmp_path: Path) -> None:
    blocked = tmp_path / "cache"
    blocked.write_text("a file where the folder should be")
    kept = KeyedJson(blocked / "verdicts.json")
    kept.put("x", 1)  # no error: the next start measures again
    assert kept.get("x") is None


def test_a_file_is_written_whole_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.json"
    write_json(path, {"a": [1, 2, 3]})
    write_json(path, {"b": True})
    assert json.loads(path.read_text()) == {"b": True}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["verdicts.json"]
