"""`index --engine ray` (ingest/ray_engine.py) stores what the local pipeline stores, with one
Ray start, on a team library in moto's S3 and in a local folder, inside a network namespace with
only loopback (`unshare -rn`, loopback brought up for Ray and moto).

Ray costs about 1 GB and 5-15 s to start, so everything runs in one child process that starts
it once (`python -m tests.integration.team.test_ray_engine OUT.json`); the test reads what it
found and asserts on it.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import uuid
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import ANIMALS, CORPUS, REPO

pytestmark = pytest.mark.slow

COVID = CORPUS / "covid-qa" / "pdf" / "1547.pdf"  # a real two-column article, a few pages
# Cosine distance allowed between the two runs' vectors of a chunk. The same int8 model, but
# its activations are quantised per call, so a chunk embedded beside other chunks (the local
# pipeline's groups, a Ray wave's files) moves a little: 0.007 was seen with waves of two
# files. engines/int8_check.py allows int8 0.03 from fp32.
VECTOR_TOL = 0.02


def _namespaced(cmd: list[str]) -> tuple[list[str], bool]:
    """`cmd` in a network namespace with only loopback, when this system allows one."""
    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "-rn", "true"]).returncode != 0:
        return cmd, False
    script = "ip link set lo up && exec " + " ".join(f"'{c}'" for c in cmd)
    return [unshare, "-rn", "sh", "-c", script], True


def test_ray_engine_stores_what_the_local_pipeline_stores(tmp_path: Path) -> None:
    if not COVID.is_file():
        pytest.skip("../shared/corpus is not here")
    pytest.importorskip("ray")
    pytest.importorskip("lance_ray")
    out = tmp_path / "case.json"
    cmd, offline = _namespaced(
        [sys.executable, "-m", "tests.integration.team.test_ray_engine", str(out)]
    )
    # Ray writes its session under RAY_TMPDIR (its sockets' paths must fit in 107 bytes) and
    # its auth token under HOME: both the test's own.
    ray_tmp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")
    home = tmp_path / "home"
    home.mkdir()
    env = {
        **os.environ,
        "RAY_TMPDIR": ray_tmp,
        "HOME": str(home),
        "PYTHONPATH": str(REPO),
        "CASE_DIR": str(tmp_path),
    }
    try:
        run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)
    assert run.returncode == 0, run.stderr[-4000:]
    case = json.loads(out.read_text())
    print(json.dumps({"offline": offline, "seconds": case["seconds"]}))

    local, reports = case["local"], case["reports"]
    assert local["chunks"] > 10, "the reference run indexed next to nothing"
    failed = {Path(f["path"]).name for f in reports["local"]["failed"]}
    assert failed == {"broken.pdf", "empty.pdf"}
    for name in ("ray_s3", "ray_dir", "ray_resumed"):
        got = case[name]
        assert got["rows"] == local["rows"], f"{name}: chunk rows differ from the local run's"
        assert got["documents"] == local["documents"], f"{name}: documents differ"
        assert got["max_cosine_distance"] < VECTOR_TOL, name
        assert got["fts"], f"{name}: the job built no full-text index"
    for name in ("ray_s3", "ray_dir"):
        assert reports[name]["failed"] == reports["local"]["failed"], name
        assert reports[name]["indexed"] == reports["local"]["indexed"], name
    assert reports["ray_s3"]["indexed"] == reports["local"]["indexed"]
    assert case["lance_commits"]["ray_s3"] == 1  # one wave, one lance-ray commit
    # `desktop-rag index --engine ray ... --json`: the same report, exit 1 (files failed).
    assert case["cli_exit"] == 1
    assert reports["cli"]["indexed"] == reports["local"]["indexed"]
    assert reports["cli"]["failed"] == reports["local"]["failed"]

    # Run again: every file is known by its content, nothing is read or written.
    again = reports["ray_again"]
    assert again["indexed"] == 0 and again["unchanged"] == reports["local"]["indexed"] + 2
    # Stopped after its first wave, then run again: the first wave's files are skipped.
    stopped, resumed = reports["ray_stopped"], reports["ray_resumed"]
    assert stopped["cancelled"] and 0 < stopped["indexed"] < reports["local"]["indexed"] + 2
    assert resumed["indexed"] + stopped["indexed"] + 2 >= reports["local"]["indexed"]
    assert resumed["unchanged"] > 0


# -- the child process ---------------------------------------------------------------------------


def _documents(app: Any) -> list[dict[str, Any]]:
    """The documents table as compared: every column but when it was written."""
    rows = []
    for doc in sorted(app.store.documents(), key=lambda d: d.path):
        row = asdict(doc)
        row.pop("indexed_at")
        rows.append(row)
    return rows


def _chunks(app: Any) -> tuple[list[dict[str, Any]], np.ndarray]:
    rows = []
    vectors = []
    for doc in sorted(app.store.documents(), key=lambda d: d.path):
        for row in app.store.chunk_rows(doc.doc_id):
            vectors.append(np.asarray(row.pop("vector"), dtype=np.float32))
            rows.append(row)
    return rows, np.asarray(vectors)


def _compare(app: Any, reference: dict[str, Any], ref_vectors: np.ndarray) -> dict[str, Any]:
    rows, vectors = _chunks(app)
    distance = 1.0
    if len(vectors) == len(ref_vectors) and len(vectors):
        distance = float(np.max(1.0 - np.sum(vectors * ref_vectors, axis=1)))
    return {
        "rows": rows,
        "documents": _documents(app),
        "max_cosine_distance": distance,
        "fts": app.store.has_fts_index(),
    }


def _library(folder: Path) -> list[str]:
    from tests.pdfgen import make_pdf

    folder.mkdir(parents=True)
    for name, pages in ANIMALS.items():
        make_pdf(folder / name, pages)
    shutil.copy(COVID, folder / "covid.pdf")
    (folder / "notes.txt").write_text(
        "Team notes\n\nThe shared drive is backed up every night at two.\n", encoding="utf-8"
    )
    (folder / "broken.pdf").write_bytes(b"%PDF-1.7\nthis is not a PDF at all\n")
    (folder / "empty.pdf").write_bytes(b"")
    return [str(folder)]


def _case(out: Path) -> None:  # pragma: no cover - runs in the child process
    import logging
    import time

    import ray
    from moto.server import ThreadedMotoServer

    from desktop_rag import cli
    from desktop_rag.app import build_app, default_embedder
    from desktop_rag.config import Settings
    from desktop_rag.ingest.control import RunControl
    from desktop_rag.ingest.ray_engine import EMBED_THREADS, ray_ingest, start_ray
    from desktop_rag.types import Status
    from tests.fakes import FakeLlm
    from tests.helpers.s3 import BUCKET, REGION, client, free_port

    t0 = time.monotonic()
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # a line per request otherwise
    base = Path(os.environ["CASE_DIR"])
    paths = _library(base / "docs")
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    os.environ.update(
        AWS_ENDPOINT_URL=endpoint,
        AWS_ACCESS_KEY_ID="admin-key",
        AWS_SECRET_ACCESS_KEY="admin-secret",
        AWS_DEFAULT_REGION=REGION,
    )
    client(endpoint).create_bucket(Bucket=BUCKET)
    run = uuid.uuid4().hex[:8]  # this desktop's folders for the libraries are new too

    def app(data_dir: str) -> Any:
        return build_app(Settings(data_dir=data_dir), llm=FakeLlm())

    def on_ray(target: Any, **kwargs: Any) -> Any:
        settings = replace(target.settings, n_threads=EMBED_THREADS)
        factory = functools.partial(default_embedder, settings)
        return ray_ingest(target.ingest, factory, num_cpus=2, **kwargs)

    reports: dict[str, Any] = {}
    commits: dict[str, int] = {}
    local = app(f"s3://{BUCKET}/local-{run}")
    reports["local"] = local.index(paths).to_json()
    ref_rows, ref_vectors = _chunks(local)
    reference = {"rows": ref_rows, "documents": _documents(local), "chunks": len(ref_rows)}

    start_ray(num_cpus=2)  # once, for every run below
    result: dict[str, Any] = {"local": reference}
    for name, data_dir in (
        ("ray_s3", f"s3://{BUCKET}/ray-{run}"),
        ("ray_dir", str(base / "ray-dir")),
    ):
        target = app(data_dir)
        service = on_ray(target)
        reports[name] = service.index(paths).to_json()
        commits[name] = service.engine.waves
        result[name] = _compare(target, reference, ref_vectors)
        if name == "ray_s3":
            reports["ray_again"] = on_ray(app(data_dir)).index(paths).to_json()

    # A job stopped after its first wave of two files, then run again.
    uri = f"s3://{BUCKET}/stopped-{run}"
    stop = threading.Event()
    target = app(uri)
    first = on_ray(target, wave_files=2)
    control = RunControl(
        cancel=stop, on_file=lambda e: stop.set() if e.status == Status.INDEXED else None
    )
    reports["ray_stopped"] = first.index(paths, control).to_json()
    target = app(uri)
    reports["ray_resumed"] = on_ray(target, wave_files=2).index(paths).to_json()
    result["ray_resumed"] = _compare(target, reference, ref_vectors)

    # The command line's hook: `index --engine ray` on the Ray started above.
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = cli.main(
            ["index", "--engine", "ray", *paths, "--data-dir", f"s3://{BUCKET}/cli-{run}", "--json"]
        )
    reports["cli"] = json.loads(printed.getvalue().strip().splitlines()[-1])
    result["cli_exit"] = code

    ray.shutdown()
    server.stop()
    result.update(reports=reports, lance_commits=commits, seconds=time.monotonic() - t0)
    out.write_text(json.dumps(result), encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover
    _case(Path(sys.argv[1]))
