"""An S3 store on loopback for team-library tests: moto's ThreadedMotoServer on 127.0.0.1 and a
free port, reset between tests, and small servers that misbehave in front of it (one that
strips If-None-Match, one that answers 503, one that accepts and never answers)."""

from __future__ import annotations

import http.client
import json
import logging
import socket
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

BUCKET = "team"
REGION = "us-east-1"
ADMIN = ("admin-key", "admin-secret")  # moto accepts any key while auth is off


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def client(endpoint: str, keys: tuple[str, str] = ADMIN, service: str = "s3") -> Any:
    import boto3

    return boto3.client(
        service,
        endpoint_url=endpoint,
        aws_access_key_id=keys[0],
        aws_secret_access_key=keys[1],
        region_name=REGION,
    )


@dataclass
class Moto:
    """The running server: its endpoint, and the environment a desktop would have."""

    endpoint: str
    monkeypatch: pytest.MonkeyPatch

    def use(self, keys: tuple[str, str] = ADMIN, endpoint: str | None = None) -> None:
        """Point this process's AWS_* variables (what Desktop RAG reads) at the server."""
        mp = self.monkeypatch
        for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_S3"):
            mp.delenv(name, raising=False)
        mp.setenv("AWS_ENDPOINT_URL", endpoint or self.endpoint)
        mp.setenv("AWS_ACCESS_KEY_ID", keys[0])
        mp.setenv("AWS_SECRET_ACCESS_KEY", keys[1])
        mp.setenv("AWS_DEFAULT_REGION", REGION)

    def s3(self, keys: tuple[str, str] = ADMIN) -> Any:
        return client(self.endpoint, keys)

    def enforce_iam(self) -> None:
        """From now on every request is checked against IAM (moto's reset-auth)."""
        _post(f"{self.endpoint}/moto-api/reset-auth", b"0")

    def user(self, name: str, actions: list[str]) -> tuple[str, str]:
        """An IAM user allowed `actions` on the bucket; its access key."""
        iam = client(self.endpoint, service="iam")
        iam.create_user(UserName=name)
        policy = {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Action": actions,
                    "Resource": [f"arn:aws:s3:::{BUCKET}", f"arn:aws:s3:::{BUCKET}/*"],
                }
            ],
        }
        iam.put_user_policy(UserName=name, PolicyName="team", PolicyDocument=json.dumps(policy))
        key = iam.create_access_key(UserName=name)["AccessKey"]
        return key["AccessKeyId"], key["SecretAccessKey"]


def _post(url: str, body: bytes) -> None:
    # text/plain: Flask would read a form-encoded body as a form and hand moto nothing.
    request = urllib.request.Request(
        url, data=body, method="POST", headers={"Content-Type": "text/plain"}
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        reply.read()


@pytest.fixture(scope="session")
def moto_server() -> Iterator[str]:
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


@pytest.fixture
def moto(moto_server: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Moto]:
    """A fresh store with an empty bucket `team`, and AWS_* set to reach it."""
    _post(f"{moto_server}/moto-api/reset-auth", b"inf")
    _post(f"{moto_server}/moto-api/reset", b"")
    server = Moto(moto_server, monkeypatch)
    server.s3().create_bucket(Bucket=BUCKET)
    server.use()
    yield server
    _post(f"{moto_server}/moto-api/reset-auth", b"inf")


# -- servers that misbehave ---------------------------------------------------------------------


class _Proxy(BaseHTTPRequestHandler):
    """Forwards to the upstream store; what it does to requests is the server's `mode`."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _any(self) -> None:
        server: Any = self.server
        server.requests += 1
        mode = server.mode
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if mode == "down":  # a connection kept alive from before: dropped, unanswered
            self.close_connection = True
            return
        if mode == "hang":
            server.hung.wait(60)
            self.close_connection = True
            return
        if mode == "503":
            self.send_response(503)
            data = b"<Error><Code>SlowDown</Code><Message>Please reduce</Message></Error>"
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
        if mode == "strip":  # a store that ignores conditional writes
            headers = {k: v for k, v in headers.items() if k.lower() != "if-none-match"}
        conn = http.client.HTTPConnection(server.upstream[0], server.upstream[1], timeout=30)
        headers["Host"] = f"{server.upstream[0]}:{server.upstream[1]}"
        conn.request(self.command, self.path, body=body or None, headers=headers)
        reply = conn.getresponse()
        data = reply.read()
        server.sent += len(data)
        if mode == "lose-commit" and self.command == "PUT" and "/_versions/" in self.path:
            # The commit reached the store; its answer is lost (once).
            server.mode = "pass"
            server.lost.append(self.path)
            self.close_connection = True
            conn.close()
            return
        self.send_response(reply.status)
        for k, v in reply.getheaders():
            if k.lower() not in ("transfer-encoding", "content-length", "connection"):
                self.send_header(k, v)
        # A HEAD's length is the object's, as the store said, not that of the empty body.
        length = reply.getheader("Content-Length") if self.command == "HEAD" else None
        self.send_header("Content-Length", length or str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        conn.close()

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _any


class Proxy:
    """A loopback proxy in front of moto; `mode` is "pass", "strip", "503" or "hang"."""

    def __init__(self, upstream: str, mode: str = "pass") -> None:
        host, port = upstream.removeprefix("http://").split(":")
        self._upstream = (host, int(port))
        self._start(0, mode)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"

    def _start(self, port: int, mode: str) -> None:
        self.server: Any = ThreadingHTTPServer(("127.0.0.1", port), _Proxy)
        self.server.daemon_threads = True
        self.server.upstream = self._upstream
        self.server.mode = mode
        self.server.hung = threading.Event()
        self.server.lost = []
        self.server.requests = 0  # every request that reached the proxy
        self.server.sent = 0  # bytes of the store's answers passed back
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def down(self) -> None:
        """Nothing listens on the endpoint any more (connections are refused)."""
        self.server.mode = "down"
        self.close()

    def up(self) -> None:
        """Listening again, on the same port, passing requests through."""
        self._start(int(self.endpoint.rsplit(":", 1)[1]), "pass")

    @property
    def requests(self) -> int:
        """Requests that reached the proxy since it started (or `up`)."""
        return int(self.server.requests)

    @property
    def sent(self) -> int:
        """Bytes of the store's answers passed back since it started (or `up`)."""
        return int(self.server.sent)

    @property
    def mode(self) -> str:
        return str(self.server.mode)

    @mode.setter
    def mode(self, value: str) -> None:
        self.server.hung.set()  # release requests held by a hang
        self.server.hung = threading.Event()
        self.server.mode = value

    def close(self) -> None:
        self.server.hung.set()
        self.server.shutdown()
        self.server.server_close()


@contextmanager
def proxy(upstream: str, mode: str = "pass") -> Iterator[Proxy]:
    p = Proxy(upstream, mode)
    try:
        yield p
    finally:
        p.close()
