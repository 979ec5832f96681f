"""Online-only cloud files (OneDrive, iCloud Drive): told apart by their attributes, skipped by
the scan with a reason, never read, and never dropped from the index."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from desktop_rag.app import build_app
from desktop_rag.config import Settings
from desktop_rag.infra import cloud
from desktop_rag.ingest.chunk import ChunkParams
from tests.fakes import HashEmbedder, WordTokenizer

# What os.stat reports on Windows for OneDrive's files (FILE_ATTRIBUTE_* values, winnt.h).
ARCHIVE, PINNED, UNPINNED = 0x20, 0x00080000, 0x00100000


@pytest.mark.parametrize(
    "attributes",
    [
        ARCHIVE | UNPINNED | 0x00400000,  # Files On-Demand, online-only: recall on data access
        ARCHIVE | 0x00040000,  # recall on open
        ARCHIVE | 0x00001000,  # offline (older sync engines, HSM)
    ],
)
def test_windows_online_only_files_are_told(attributes: int) -> None:
    st = SimpleNamespace(st_file_attributes=attributes)
    assert "OneDrive" in cloud.online_only(st, platform="win32")  # type: ignore[arg-type]


@pytest.mark.parametrize("attributes", [ARCHIVE, ARCHIVE | PINNED, 0])
def test_windows_files_on_this_computer_are_read(attributes: int) -> None:
    st = SimpleNamespace(st_file_attributes=attributes)
    assert cloud.online_only(st, platform="win32") == ""  # type: ignore[arg-type]


def test_macos_dataless_files_are_told_and_others_read() -> None:
    dataless = SimpleNamespace(st_flags=0x40000000)
    assert "iCloud" in cloud.online_only(dataless, platform="darwin")  # type: ignore[arg-type]
    here = SimpleNamespace(st_flags=0x20)  # UF_HIDDEN... anything but dataless
    assert cloud.online_only(here, platform="darwin") == ""  # type: ignore[arg-type]


def test_linux_has_no_online_only_files(tmp_path: Path) -> None:
    f = tmp_path / "a.pdf"
    f.write_bytes(b"x")
    assert cloud.online_only(os.stat(f), platform="linux") == ""


def test_the_scan_skips_an_online_only_file_with_its_reason_and_keeps_its_chunks(
    tmp_path: Path, animal_pdfs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows faked: the platform cloud.py sees, and the attributes os.stat reports."""
    app = build_app(
        Settings(data_dir=str(tmp_path / "data")),
        embedder=HashEmbedder(),
        tokenizer=WordTokenizer,
        params=ChunkParams(60, 10),
        isolate=False,
    )
    octopus = str(animal_pdfs / "octopus.pdf")
    assert app.ingest.index([str(animal_pdfs)]).indexed == 3
    (animal_pdfs / "octopus.pdf").touch()  # changed since: would be hashed and read again
    real_stat = os.stat
    opened: list[str] = []

    class Stat:
        def __init__(self, st: os.stat_result) -> None:
            self._st = st
            self.st_file_attributes = ARCHIVE | UNPINNED | 0x00400000

        def __getattr__(self, name: str) -> object:
            return getattr(self._st, name)

    def stat(path: object, *args: object, **kwargs: object) -> object:
        st = real_stat(path, *args, **kwargs)  # type: ignore[arg-type]
        return Stat(st) if str(path) == octopus else st

    real_open = open

    def watching_open(path: object, *args: object, **kwargs: object) -> object:
        if str(path) == octopus:
            opened.append(octopus)
        return real_open(path, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(cloud, "sys", SimpleNamespace(platform="win32"))
    monkeypatch.setattr(os, "stat", stat)
    monkeypatch.setattr("builtins.open", watching_open)
    report = app.ingest.index([str(animal_pdfs)])
    monkeypatch.undo()
    assert [(f.path, "OneDrive" in f.reason) for f in report.failed] == [(octopus, True)]
    assert opened == [], "an online-only file was opened, so downloaded"
    assert report.removed == 0 and report.unchanged == 2
    hits = app.retriever.search("octopus hemocyanin blood", k=3)
    assert any(h.path == octopus for h in hits), "what was indexed stays searchable"
