"""The settings file: every field saved and read back, and the multilingual choice (issue 46,
item 1) off unless the user turned it on."""

from __future__ import annotations

import json
from dataclasses import asdict, fields
from pathlib import Path

from desktop_rag.config import Settings


def test_every_setting_is_saved_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    changed = Settings(
        folders=["/docs"],
        n_threads=2,
        ocr=False,
        rerank=False,
        multilingual=True,
        collections={"work": ["/docs/work"]},
        team_library="s3://bucket/lib",
    )
    changed.save(path)
    assert Settings.load(path) == changed
    assert set(json.loads(path.read_text(encoding="utf-8"))) == {f.name for f in fields(Settings)}


def test_english_unless_told_and_a_file_from_before_reads_as_english(tmp_path: Path) -> None:
    assert Settings().multilingual is False
    path = tmp_path / "settings.json"
    before = {k: v for k, v in asdict(Settings(folders=["/docs"])).items() if k != "multilingual"}
    path.write_text(json.dumps(before), encoding="utf-8")
    loaded = Settings.load(path)
    assert loaded.folders == ["/docs"] and loaded.multilingual is False
