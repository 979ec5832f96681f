"""The offline proof: `index` then `ask` succeed in a network namespace with no network at all."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ANIMALS
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.slow

CLI = str(Path(sys.executable).with_name("desktop-rag"))


def _offline(*argv: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["unshare", "-rn", *argv], capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.fixture(scope="module")
def unshare_works() -> None:
    if shutil.which("unshare") is None:
        pytest.skip("unshare (util-linux) is not installed: cannot cut the network")
    probe = subprocess.run(["unshare", "-rn", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"unshare -rn is not permitted here: {probe.stderr.strip()}")


def test_index_and_ask_work_with_no_network(unshare_works: None, tmp_path: Path) -> None:
    # The namespace really has no way out (else this test could not fail).
    probe = _offline(
        sys.executable,
        "-c",
        "import socket; socket.create_connection(('1.1.1.1', 53), timeout=3)",
        timeout=60,
    )
    assert probe.returncode != 0 and "unreachable" in probe.stderr.lower()

    library = tmp_path / "library"
    for name, pages in ANIMALS.items():
        make_pdf(library / name, pages)
    data = str(tmp_path / "data")

    indexed = _offline(CLI, "index", str(library), "--data-dir", data, "--json")
    assert indexed.returncode == 0, indexed.stderr
    assert json.loads(indexed.stdout)["indexed"] == 3

    asked = _offline(CLI, "--data-dir", data, "ask", "Why is octopus blood blue?", "--json")
    assert asked.returncode == 0, asked.stderr
    doc = json.loads(asked.stdout)
    assert doc["answer"].strip()
    pages = {(Path(s["path"]).name, s["page"]) for s in doc["sources"]}
    assert ("octopus.pdf", 2) in pages
    assert doc["cited"] and set(doc["cited"]) <= {s["n"] for s in doc["sources"]}
    assert "Traceback" not in asked.stderr
