"""A team library whose store is down, hung or answering 503: every search and ask fails
within 10 s with one message, opening fails within its deadline, and the next call after the
store returns succeeds. The failure times are printed (pytest -s shows them)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop_rag.errors import UnreachableError
from desktop_rag.store import remote
from tests.helpers.s3 import Moto, Proxy, proxy
from tests.helpers.team import URI, team_app

BOUND_S = 10.0
MESSAGE = (
    "The team library at s3://team/library cannot be reached; your personal library still answers"
)
QUESTION = "How many hearts does an octopus have?"


def _fault(p: Proxy, kind: str) -> None:
    if kind == "down":
        p.down()
    else:
        p.mode = kind


def _heal(p: Proxy, kind: str) -> None:
    if kind == "down":
        p.up()
    else:
        p.mode = "pass"


def _fails_within_bound(call: Callable[[], object], what: str) -> float:
    t0 = time.monotonic()
    with pytest.raises(UnreachableError, match=MESSAGE):
        call()
    took = time.monotonic() - t0
    print(f"{what}: failed after {took:.2f} s")
    assert took < BOUND_S, f"{what} took {took:.1f} s"
    return took


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["down", "hang", "503"])
def test_search_and_ask_fail_within_the_bound_and_recover(
    moto: Moto, animal_pdfs: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every read looks for new commits, as one does once the freshness interval has passed
    # (within it, a search may be answered from what LanceDB has cached).
    monkeypatch.setattr(remote, "FRESHNESS_S", 0.0)
    with proxy(moto.endpoint) as p:
        moto.use(endpoint=p.endpoint)
        app = team_app()
        app.index([str(animal_pdfs)])
        assert app.retriever.search(QUESTION, 3)

        _fault(p, kind)
        _fails_within_bound(lambda: app.retriever.search(QUESTION, 3), f"{kind} search")
        _fails_within_bound(lambda: list(app.answer.ask(QUESTION)), f"{kind} ask")
        _fails_within_bound(team_app, f"{kind} open")

        _heal(p, kind)
        hits = app.retriever.search(QUESTION, 3)  # the very next call, on the same app
        assert hits and hits[0].path.endswith("octopus.pdf")
        assert list(app.answer.ask(QUESTION))
        assert team_app().store.stats()["documents"] == 3


def test_the_cli_says_the_team_library_cannot_be_reached(moto: Moto) -> None:
    with proxy(moto.endpoint) as p:
        env = {k: v for k, v in os.environ.items() if k != "DESKTOP_RAG_DATA_DIR"}
        env["AWS_ENDPOINT_URL"] = p.endpoint
        run = [sys.executable, "-m", "desktop_rag", "status", "--json", "--data-dir", URI]
        up = subprocess.run(run, capture_output=True, text=True, env=env, timeout=120)
        assert up.returncode == 0, up.stderr
        assert '"documents": 0' in up.stdout
        p.down()
        t0 = time.monotonic()
        down = subprocess.run(run, capture_output=True, text=True, env=env, timeout=120)
        took = time.monotonic() - t0
        print(f"cli status, store down: exit {down.returncode} after {took:.2f} s")
        assert down.returncode == 1
        assert MESSAGE in down.stderr
        assert "aws_secret" not in down.stderr.lower() and "admin-secret" not in down.stderr


@pytest.mark.slow
def test_every_command_takes_the_uri(moto: Moto, tmp_path: Path) -> None:
    """index, search, status and remove through the CLI, the real embedder, the bucket."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "leave.txt").write_text(
        "Leave policy\n\nEmployees receive twenty-five days of paid leave each year. "
        "Unused leave may be carried over until the end of March.\n"
    )
    (docs / "travel.txt").write_text(
        "Travel policy\n\nTrain travel is booked in second class. Flights need approval.\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "DESKTOP_RAG_DATA_DIR"}
    base = [sys.executable, "-m", "desktop_rag"]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*base, *args, "--data-dir", URI, "--json"],
            capture_output=True, text=True, env=env, timeout=600,
        )  # fmt: skip

    indexed = run("index", str(docs))
    assert indexed.returncode == 0, indexed.stderr
    assert '"indexed": 2' in indexed.stdout
    found = run("search", "how many days of paid leave")
    assert found.returncode == 0, found.stderr
    assert found.stdout.index("leave.txt") < found.stdout.index("travel.txt") or (
        "travel.txt" not in found.stdout
    )
    status = run("status")
    assert '"documents": 2' in status.stdout
    removed = run("remove", str(docs / "travel.txt"))
    assert removed.returncode == 0, removed.stderr
    assert '"documents": 1' in run("status").stdout


def test_no_credential_reaches_a_log_even_verbose(moto: Moto, tmp_path: Path) -> None:
    moto.use(("AKIDLOGCHECK0000", "secret-log-check-0000"))
    logs = tmp_path / "logs"
    env = {k: v for k, v in os.environ.items() if k != "DESKTOP_RAG_DATA_DIR"}
    env["DESKTOP_RAG_LOG_DIR"] = str(logs)
    run = [sys.executable, "-m", "desktop_rag", "status", "-v", "--data-dir", URI]
    done = subprocess.run(run, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    written = done.stdout + done.stderr + "".join(p.read_text() for p in logs.glob("*.log*"))
    assert "AKIDLOGCHECK0000" not in written
    assert "secret-log-check-0000" not in written
