"""A full disk fails the write cleanly, says so, keeps what was done, and recovers.

The data dir lives on a tiny tmpfs in a private mount namespace (`unshare -m`), which is then
grown, as when the user frees space.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pdfgen import make_pdf

pytestmark = pytest.mark.slow
REPORTS = 30

SCRIPT = """
set -u
mount -t tmpfs -o size=300k tmpfs "$MNT" || exit 77
"$PY" -m desktop_rag index "$LIB" --json --data-dir "$MNT/data" >"$OUT/first.json" \
    2>"$OUT/first.err"
echo $? >"$OUT/first.rc"
mount -o remount,size=64M "$MNT"
"$PY" -m desktop_rag index "$LIB" --json --data-dir "$MNT/data" >"$OUT/second.json" \
    2>"$OUT/second.err"
echo $? >"$OUT/second.rc"
"$PY" -m desktop_rag status --json --data-dir "$MNT/data" >"$OUT/status.json" 2>/dev/null
"$PY" -m desktop_rag search "glacier number 3" -k 1 --json --data-dir "$MNT/data" \
    >"$OUT/search.json" 2>/dev/null
"""


def test_full_disk_fails_cleanly_and_recovers(tmp_path: Path):
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not available")
    lib = tmp_path / "lib"
    for i in range(REPORTS):  # their index is several times the size of the tmpfs
        make_pdf(
            lib / f"report {i}.pdf",
            [
                " ".join(
                    f"Glacier number {i} retreated {j} metres in year {1900 + j}."
                    for j in range(60)
                ),
                " ".join(
                    f"Moraine {i}-{j} holds boulders of granite and gneiss." for j in range(60)
                ),
            ],
        )
    mnt, out = tmp_path / "mnt", tmp_path / "out"
    mnt.mkdir()
    out.mkdir()
    env = dict(os.environ, MNT=str(mnt), LIB=str(lib), OUT=str(out), PY=sys.executable)
    env.pop("DESKTOP_RAG_DATA_DIR", None)
    run = subprocess.run(
        ["unshare", "-m", "sh", "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=1200
    )
    if run.returncode == 77 or not (out / "first.rc").exists():
        pytest.skip(f"cannot mount a tmpfs here: {run.stderr[-300:]}")
    first_err = (out / "first.err").read_text()
    assert (out / "first.rc").read_text().strip() == "1", first_err
    assert "disk is full" in first_err and "Traceback" not in first_err
    assert (out / "second.rc").read_text().strip() == "0", (out / "second.err").read_text()
    second = json.loads((out / "second.json").read_text())
    assert second["indexed"] + second["unchanged"] == REPORTS and second["failed"] == []
    status = json.loads((out / "status.json").read_text())
    assert status["documents"] == REPORTS and status["pages"] == 2 * REPORTS
    hit = json.loads((out / "search.json").read_text())["hits"][0]
    assert hit["path"].endswith("report 3.pdf") and hit["page"] == 1
