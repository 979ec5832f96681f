"""Long Windows paths and case-insensitive file systems, with the platform and the file system
faked."""

from __future__ import annotations

import os
from pathlib import Path

from desktop_rag.infra import paths

LONG = "C:\\Users\\me\\Documents\\" + "\\".join(["a folder with a long name"] * 10) + "\\x.pdf"


def test_a_windows_path_past_the_limit_gets_the_prefix_and_loses_it_again() -> None:
    assert len(LONG) > 260
    long = paths.long_path(LONG, platform="win32")
    assert long == "\\\\?\\" + LONG
    assert paths.plain_path(long) == LONG


def test_the_prefixed_path_is_normalised_since_windows_no_longer_does_it() -> None:
    messy = LONG.replace("\\x.pdf", "\\.\\sub\\..\\x.pdf").replace("\\", "/")
    assert paths.long_path(messy, platform="win32") == "\\\\?\\" + LONG


def test_a_network_share_gets_the_unc_prefix() -> None:
    share = "\\\\server\\share\\" + "d" * 250 + "\\x.pdf"
    long = paths.long_path(share, platform="win32")
    assert long == "\\\\?\\UNC\\server\\share\\" + "d" * 250 + "\\x.pdf"
    assert paths.plain_path(long) == share


def test_short_prefixed_relative_and_other_platforms_paths_are_unchanged() -> None:
    assert paths.long_path("C:\\Users\\me\\x.pdf", platform="win32") == "C:\\Users\\me\\x.pdf"
    assert paths.long_path("\\\\?\\" + LONG, platform="win32") == "\\\\?\\" + LONG
    relative = "docs\\" + "d" * 300
    assert paths.long_path(relative, platform="win32") == relative
    posix = "/home/me/" + "d/" * 200 + "x.pdf"
    assert paths.long_path(posix, platform="linux") == posix
    assert paths.long_path(posix, platform="darwin") == posix
    assert paths.plain_path(posix) == posix


class CaseInsensitiveFs:
    """A file system that lists names as created and finds them in any case (NTFS, APFS)."""

    def __init__(self, files: list[str]) -> None:
        self.entries: dict[str, set[str]] = {}
        for f in files:
            parts = f.strip("/").split("/")
            for i in range(len(parts)):
                self.entries.setdefault("/" + "/".join(parts[:i]), set()).add(parts[i])
        self.entries["/"] = self.entries.pop("/", set())

    def _find(self, path: str) -> str | None:
        here = "/"
        for part in [p for p in path.split("/") if p]:
            names = self.entries.get(here, set())
            match = [n for n in names if n.casefold() == part.casefold()]
            if not match:
                return None
            here = os.path.join(here, match[0])
        return here

    def exists(self, path: str) -> bool:
        return self._find(path) is not None

    def listdir(self, path: str) -> list[str]:
        found = self._find(path)
        if found is None:
            raise FileNotFoundError(path)
        return sorted(self.entries.get(found, set()))


def test_a_path_in_another_case_is_spelled_as_the_folders_list_it() -> None:
    fs = CaseInsensitiveFs(["/Users/Me/Documents/Report.pdf"])
    spelled = paths.disk_case("/users/me/documents/report.PDF", fs.exists, fs.listdir)
    assert spelled == "/Users/Me/Documents/Report.pdf"


def test_after_a_rename_that_only_changes_case_the_new_spelling_is_the_path() -> None:
    fs = CaseInsensitiveFs(["/Users/Me/Documents/report.pdf"])  # was Report.pdf
    assert paths.disk_case("/Users/Me/Documents/Report.pdf", fs.exists, fs.listdir) == (
        "/Users/Me/Documents/report.pdf"
    )


def test_a_case_sensitive_file_system_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "Report.pdf").write_bytes(b"1")
    (tmp_path / "report.pdf").write_bytes(b"2")  # two files here, one on Windows
    assert paths.disk_case(str(tmp_path / "report.pdf")) == str(tmp_path / "report.pdf")
    assert paths.disk_case(str(tmp_path / "REPORT.pdf")) == str(tmp_path / "REPORT.pdf")
    assert paths.disk_case(str(tmp_path / "missing")) == str(tmp_path / "missing")


def test_the_scan_maps_a_root_given_in_another_case_onto_the_indexed_files(
    monkeypatch,
) -> None:
    """The same folder typed in another case is one set of documents, not a copy of each."""

    fs = CaseInsensitiveFs(["/Users/Me/Papers/Report.pdf"])
    monkeypatch.setattr(paths.os.path, "exists", fs.exists)
    monkeypatch.setattr(paths.os, "listdir", fs.listdir)
    try:
        root = paths.normalize("/users/me/papers")
    finally:
        monkeypatch.undo()
    assert root == "/Users/Me/Papers"


def test_a_named_file_renamed_only_in_case_is_a_rename_not_a_second_document(
    monkeypatch,
) -> None:
    """A file indexed by its own path (not in a folder) and renamed Report.pdf -> report.pdf on
    a case-insensitive file system: both spellings are the same file there."""
    from desktop_rag.ingest import scan
    from desktop_rag.types import DocumentRecord, FileInfo

    old = DocumentRecord(
        doc_id=scan.doc_id_for("/Users/Me/Report.pdf"),
        path="/Users/Me/Report.pdf",
        size=10,
        mtime_ns=1,
        sha256="abc",
        pages=1,
        chunks=1,
        status="indexed",
        error="",
        error_kind="",
        indexed_at=0.0,
    )
    other = DocumentRecord(
        doc_id=scan.doc_id_for("/Users/Me/Notes.pdf"),
        path="/Users/Me/Notes.pdf",
        size=10,
        mtime_ns=1,
        sha256="def",
        pages=1,
        chunks=1,
        status="indexed",
        error="",
        error_kind="",
        indexed_at=0.0,
    )
    files = {"/Users/Me/report.pdf": FileInfo("/Users/Me/report.pdf", 10, 1)}
    same = {("/Users/Me/Report.pdf", "/Users/Me/report.pdf")}
    monkeypatch.setattr(scan.os.path, "samefile", lambda a, b: (a, b) in same)
    todo = scan.plan(files, [], [old, other], named=list(files))
    assert todo.removed == [old], "the old spelling goes, the other document stays"
    decisions, removed = scan.decide(todo.candidates, todo.removed, [old, other], lambda p: "abc")
    assert [(d.action, d.source) for d in decisions] == [(scan.Action.RENAME, old)]
    assert removed == []
    # On a case-sensitive file system they are two files: nothing is removed.
    same.clear()
    assert scan.plan(files, [], [old, other], named=list(files)).removed == []
