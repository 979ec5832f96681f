"""Reconcile decisions: new, changed, unchanged, removed, renamed, copied, touched."""

from __future__ import annotations

import os

from desktop_rag.ingest.scan import Action, decide, doc_id_for, plan, scan
from desktop_rag.types import DocumentRecord, FileInfo


def _doc(
    path: str,
    size: int = 10,
    mtime: int = 1,
    sha: str = "s",
    status: str = "indexed",
    kind: str = "",
) -> DocumentRecord:
    return DocumentRecord(doc_id_for(path), path, size, mtime, sha, 1, 1, status, "", kind, 0.0)


def test_unchanged_new_changed_removed():
    known = [_doc("/lib/a.pdf"), _doc("/lib/b.pdf"), _doc("/lib/gone.pdf"), _doc("/other/x.pdf")]
    files = {
        "/lib/a.pdf": FileInfo("/lib/a.pdf", 10, 1),  # unchanged
        "/lib/b.pdf": FileInfo("/lib/b.pdf", 11, 2),  # changed
        "/lib/new.pdf": FileInfo("/lib/new.pdf", 5, 1),  # new
    }
    p = plan(files, ["/lib"], known)
    assert [d.path for d in p.unchanged] == ["/lib/a.pdf"]
    assert sorted(f.path for f in p.candidates) == ["/lib/b.pdf", "/lib/new.pdf"]
    # Only documents under the scanned folder may be dropped.
    assert [d.path for d in p.removed] == ["/lib/gone.pdf"]


def test_failed_files_are_retried_only_when_it_may_help():
    known = [
        _doc("/lib/scan.pdf", status="failed", kind="no_text"),
        _doc("/lib/locked.pdf", status="failed", kind="unreadable"),
    ]
    files = {d.path: FileInfo(d.path, 10, 1) for d in known}
    p = plan(files, ["/lib"], known)
    assert [d.path for d in p.unchanged] == ["/lib/scan.pdf"]
    assert [f.path for f in p.candidates] == ["/lib/locked.pdf"]


def test_a_failed_file_named_by_the_user_is_read_again_even_unchanged():
    # "Index again" in the Documents pane names the file: before, an unchanged file that had
    # failed for good (or too often) was left as it was, and the click did nothing.
    known = [
        _doc("/lib/broken.pdf", status="failed", kind="corrupt"),
        _doc("/lib/other.pdf", status="failed", kind="corrupt"),
    ]
    files = {p: FileInfo(p, 10, 1) for p in ("/lib/broken.pdf", "/lib/other.pdf")}
    p = plan(files, ["/lib"], known, named=["/lib/broken.pdf"])
    assert [f.path for f in p.candidates] == ["/lib/broken.pdf"]
    assert [d.path for d in p.unchanged] == ["/lib/other.pdf"]


def test_rename_is_recognised_by_hash():
    old = _doc("/lib/old name.pdf", sha="abc")
    known = [old]
    files = {"/lib/new name.pdf": FileInfo("/lib/new name.pdf", 10, 5)}
    p = plan(files, ["/lib"], known)
    decisions, removed = decide(p.candidates, p.removed, known, lambda path: "abc")
    assert [(d.action, d.source) for d in decisions] == [(Action.RENAME, old)]
    assert removed == []


def test_copy_touch_and_index():
    a = _doc("/lib/a.pdf", sha="aaa")
    known = [a]
    cands = [
        FileInfo("/lib/a.pdf", 10, 99),  # mtime changed, same content
        FileInfo("/lib/copy of a.pdf", 10, 1),
        FileInfo("/lib/c.pdf", 3, 1),
    ]
    hashes = {"/lib/a.pdf": "aaa", "/lib/copy of a.pdf": "aaa", "/lib/c.pdf": "ccc"}
    decisions, _ = decide(cands, [], known, hashes.__getitem__)
    assert [d.action for d in decisions] == [Action.TOUCH, Action.COPY, Action.INDEX]


def test_changed_content_at_same_path_is_reindexed():
    a = _doc("/lib/a.pdf", sha="old")
    decisions, _ = decide([FileInfo("/lib/a.pdf", 12, 3)], [], [a], lambda p: "new")
    assert decisions[0].action == Action.INDEX


def test_scan_finds_documents_skips_hidden_and_survives_symlink_loops(tmp_path):
    root = tmp_path / "lib"
    (root / "sub dir").mkdir(parents=True)
    (root / ".hidden").mkdir()
    (root / "a.PDF").write_bytes(b"%PDF-1.4")
    (root / "sub dir" / "b – ü.pdf").write_bytes(b"%PDF-1.4")
    (root / ".hidden" / "c.pdf").write_bytes(b"%PDF-1.4")
    (root / "notes.txt").write_text("x")
    (root / "photo.jpg").write_bytes(b"\xff\xd8\xff")
    (root / "~$lock.pdf").write_bytes(b"x")
    (root / "~$report.docx").write_bytes(b"x")
    os.symlink(root, root / "sub dir" / "loop")
    result = scan([str(root)])
    names = sorted(os.path.basename(p) for p in result.files)
    assert names == ["a.PDF", "b – ü.pdf", "notes.txt"]
    assert result.folders == [str(root)]


def test_scan_reports_missing_paths(tmp_path):
    result = scan([str(tmp_path / "nope")])
    assert result.problems and result.problems[0][1] == "does not exist"
