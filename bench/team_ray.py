"""Indexing a team library on Ray: files per second of the local pipeline, of Ray on this
machine, and of a Ray cluster of one node and then of two nodes, started on this machine.

The library is bench/small_files.py's generated PDFs (one to three pages each); the store is
moto's S3 on 127.0.0.1 (in its own process), or a real bucket with --uri. Each run is
`desktop-rag index LIBRARY --data-dir s3://…/RUN --json` in a fresh process into an empty
path, timed by wall clock from its start (model loads, Ray's start and its actors' included),
with its CPU seconds and the peak memory of its process tree (a cluster's own processes are
not in that tree, nor in its CPU seconds):
- local: the local pipeline (reader process, the embedder on every core);
- ray_here: `--engine ray`, Ray started by the command on this machine (all its CPUs);
- cluster_1_node: `--engine ray --address` a head node started here with `ray start --head
  --num-cpus 1`;
- cluster_2_nodes: the same after a second node joined it (`ray start --address`, one CPU).
On one machine Ray gains nothing over the local pipeline (its two "nodes" share the same
cores); what the cluster runs show is whether a second node adds throughput.

Usage: python -m bench.team_ray [--files 5000] [--uri s3://BUCKET/PATH] [--skip-local]
With --uri, the AWS_* variables (or profile) name the store: an empty path of a real bucket,
writable with those credentials. Prints one JSON document (also bench/out/team_ray.json).
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import suppress
from pathlib import Path
from typing import Any

from bench.perfutil import (
    BUCKET,
    REPO,
    emit,
    free_port,
    machine,
    make_library,
    moto_s3,
    run_measured,
    say,
)


class Node:
    """A Ray node started here with `ray start --block` in a session of its own, so that it
    and every process it started are stopped by its process group, never by name."""

    def __init__(self, env: dict[str, str], args: list[str]) -> None:
        ray = str(Path(sys.executable).with_name("ray"))
        self.proc = subprocess.Popen(
            [ray, "start", "--block", "--disable-usage-stats", *args],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def stop(self) -> None:
        """SIGTERM to the node's group, then SIGKILL to what is left of it (Ray's GCS
        outlives a TERM now and then)."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                return
            with suppress(subprocess.TimeoutExpired):
                self.proc.wait(20)
            time.sleep(2)


def _cluster_cpus(address: str, env: dict[str, str]) -> float:
    code = (
        f"import ray; ray.init(address={address!r}, log_to_driver=False); "
        "print(ray.cluster_resources().get('CPU', 0))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    return float(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 else 0.0


def _wait_cpus(address: str, env: dict[str, str], cpus: float, timeout_s: float = 180) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if _cluster_cpus(address, env) >= cpus:
            return
        time.sleep(2)
    raise SystemExit(f"the Ray cluster at {address} did not reach {cpus} CPUs")


def _index(library: Path, uri: str, env: dict[str, str], *extra: str) -> dict[str, Any]:
    # python -m from this checkout, so the code measured is the code beside this script.
    cmd = [sys.executable, "-m", "desktop_rag", "index", str(library), "--json"]
    cmd += ["--data-dir", uri, *extra]
    say(" ".join(cmd[2:]))
    result = run_measured(cmd, env)
    result["failed"] = len(result["failed"])
    result["files_per_s"] = round(result["indexed"] / result["wall_s"], 2)
    result["load_1m_after"] = round(os.getloadavg()[0], 2)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--uri", help="a real store's empty s3:// path (default: moto)")
    parser.add_argument("--skip-local", action="store_true", help="leave out the local run")
    args = parser.parse_args()

    # A short temporary folder: Ray's sockets live under it, and their paths are limited.
    tmp = Path(tempfile.mkdtemp(prefix="rb-", dir="/tmp"))
    (tmp / "ray").mkdir()
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "RAY_TMPDIR": str(tmp / "ray"),
        "RAY_USAGE_STATS_ENABLED": "0",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "DESKTOP_RAG_CONFIG_DIR": str(tmp / "config"),
        # Ray 2.60's clusters ask every process that joins for a token: this run's own.
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": secrets.token_hex(32),
    }
    result: dict[str, Any] = {"machine": machine(), "files": args.files}
    library = tmp / "library"
    say(f"writing {args.files} PDFs")
    result["pages"] = make_library(library, args.files)
    warm = tmp / "warm"
    make_library(warm, 2, seed=3)
    try:
        if args.uri:
            result["store"] = "given"
            _runs(args, library, warm, args.uri.rstrip("/"), env, result)
        else:
            result["store"] = "moto on 127.0.0.1"
            with moto_s3(env) as menv:
                _runs(args, library, warm, f"s3://{BUCKET}", menv, result)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    result["loadavg_1m_at_end"] = round(os.getloadavg()[0], 2)
    emit("team_ray", result)


def _runs(
    args: argparse.Namespace,
    library: Path,
    warm: Path,
    base: str,
    env: dict[str, str],
    result: dict[str, Any],
) -> None:
    run = uuid.uuid4().hex[:8]
    # The embedder's one-time export (a first start), outside every timing.
    _index(warm, str(Path(env["RAY_TMPDIR"]).parent / "warm-index"), env)
    runs: dict[str, Any] = {}
    if not args.skip_local:
        runs["local"] = _index(library, f"{base}/local-{run}", env)
    runs["ray_here"] = _index(library, f"{base}/ray-here-{run}", env, "--engine", "ray")
    port = free_port()
    address = f"127.0.0.1:{port}"
    head = Node(env, ["--head", "--port", str(port), "--num-cpus", "1"])
    nodes = [head]
    try:
        _wait_cpus(address, env, 1)
        runs["cluster_1_node"] = _index(
            library, f"{base}/cluster1-{run}", env, "--engine", "ray", "--address", address
        )
        worker = Node(env, ["--address", address, "--num-cpus", "1"])
        nodes.append(worker)
        _wait_cpus(address, env, 2)
        runs["cluster_2_nodes"] = _index(
            library, f"{base}/cluster2-{run}", env, "--engine", "ray", "--address", address
        )
    finally:
        for node in reversed(nodes):
            node.stop()
    result["runs"] = runs
    one, two = runs["cluster_1_node"]["files_per_s"], runs["cluster_2_nodes"]["files_per_s"]
    result["second_node_speedup"] = round(two / one, 2) if one else None


if __name__ == "__main__":
    main()
