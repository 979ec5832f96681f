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


class _NoNetwork:
    """Internet sockets cannot connect, send, resolve names or bind beyond loopback, and every
    attempt is remembered. (Creating one is allowed: urllib3 probes IPv6 at import by binding
    to ::1, which sends nothing.) Local pipes and Unix sockets work as usual."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import socket
        import traceback

        self.attempts: list[str] = []
        attempts = self.attempts
        inet = (socket.AF_INET, socket.AF_INET6)

        def refuse(what: str) -> OSError:
            attempts.append(what + "\n" + "".join(traceback.format_stack(limit=10)))
            return OSError(f"network access is blocked in this test ({what})")

        class GuardedSocket(socket.socket):
            def connect(self, address: object) -> None:
                if self.family in inet:
                    raise refuse(f"connect{address}")
                super().connect(address)  # type: ignore[arg-type]

            def connect_ex(self, address: object) -> int:
                if self.family in inet:
                    raise refuse(f"connect_ex{address}")
                return super().connect_ex(address)  # type: ignore[arg-type]

            def sendto(self, *args: object) -> int:
                if self.family in inet:
                    raise refuse("sendto")
                return super().sendto(*args)  # type: ignore[call-overload, no-any-return]

            def bind(self, address: object) -> None:
                host = address[0] if isinstance(address, tuple) else address
                if self.family in inet and host not in ("127.0.0.1", "::1", "localhost"):
                    raise refuse(f"bind{address}")
                super().bind(address)  # type: ignore[arg-type]

        def no_dns(*args: object, **kwargs: object) -> None:
            raise refuse(f"getaddrinfo{args[:2]}")

        monkeypatch.setattr(socket, "socket", GuardedSocket)
        monkeypatch.setattr(socket, "getaddrinfo", no_dns)
        monkeypatch.setattr(socket, "create_connection", no_dns)


def test_whole_pipeline_in_process_with_sockets_blocked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """index, search and ask in this process, with the real models, and no socket opened."""
    guard = _NoNetwork(monkeypatch)
    import socket

    with pytest.raises(OSError):
        socket.create_connection(("example.org", 80))
    with pytest.raises(OSError, match="blocked"), socket.socket() as sock:
        sock.connect(("192.0.2.1", 80))
    assert len(guard.attempts) == 2  # the guard sees what it blocks
    guard.attempts.clear()

    from desktop_rag.app import build_app
    from desktop_rag.config import Settings

    library = tmp_path / "library"
    for name, pages in ANIMALS.items():
        make_pdf(library / name, pages)
    app = build_app(Settings(data_dir=str(tmp_path / "data")))
    report = app.index([str(library)])
    assert report.indexed == 3 and not report.failed
    hits = app.retriever.search("How many hearts does an octopus have?", k=3)
    assert hits[0].path.endswith("octopus.pdf")
    events = list(app.answer.ask("Why is octopus blood blue?"))
    assert events[-1].answer.strip()  # type: ignore[union-attr]
    assert guard.attempts == [], f"something reached for the network: {guard.attempts}"
