"""Searching while another process indexes: answers come from the committed state, no errors.

And a second indexer on the same library is refused with a clear message.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from desktop_rag.app import build_app
from desktop_rag.config import Settings
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.slow


def test_search_during_indexing_and_a_second_indexer(tmp_path):
    lib = tmp_path / "lib"
    for i in range(10):
        make_pdf(
            lib / f"atlas {i}.pdf",
            [
                " ".join(
                    f"Island {i} lies at latitude {i}.{j} and has {j} lighthouses."
                    for j in range(50)
                )
                for _ in range(3)
            ],
        )
    data = tmp_path / "data"
    env = dict(os.environ)
    env.pop("DESKTOP_RAG_DATA_DIR", None)
    cmd = [
        sys.executable,
        "-m",
        "desktop_rag",
        "index",
        str(lib),
        "--json",
        "--data-dir",
        str(data),
    ]
    indexer = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    # Wait until the indexer has created the index, then read while it writes.
    deadline = time.monotonic() + 300
    while not (data / "index" / "meta.json").exists():
        assert indexer.poll() is None, indexer.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.2)
    second = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    app = build_app(Settings(data_dir=str(data)))
    seen_docs = []
    searches = 0
    while indexer.poll() is None:
        docs = app.store.documents()
        counts = app.store.chunk_counts()
        for d in docs:  # every document visible is whole
            assert counts.get(d.doc_id, 0) >= d.chunks > 0
        seen_docs.append(len(docs))
        hits = app.retriever.search("how many lighthouses on island 7", k=3)
        assert all(h.page in (1, 2, 3) for h in hits)
        searches += 1
    out, err = indexer.communicate()
    assert indexer.returncode == 0, err[-2000:]
    assert json.loads(out)["indexed"] == 10
    assert searches >= 3 and seen_docs == sorted(seen_docs)
    assert max(seen_docs) <= 10
    if second.returncode != 0:  # it ran while the first held the library
        assert second.returncode == 1
        assert "Another Desktop RAG" in second.stderr and "Traceback" not in second.stderr
    hits = app.retriever.search("how many lighthouses on island 7", k=3)
    assert hits[0].path.endswith("atlas 7.pdf")
