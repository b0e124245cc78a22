"""A client that opens connections and stops sending mid-request (round 4).

gunicorn's sync worker reads the request itself from a blocking socket: as many stalled connections
as workers (half a request line, no key needed) held every worker until the arbiter killed it at the
request timeout (60 s), the server answering nothing meanwhile, and again for as long as they were
reopened. A read waits MNEMO_CLIENT_READ_TIMEOUT_SECONDS now; a body cut short is a 408.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from tests.e2e.conftest import KEYS, WORKERS, Server, start_server, stop_server


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = start_server(tmp_path_factory.mktemp("slow"), {"MNEMO_CLIENT_READ_TIMEOUT_SECONDS": "3"})
    yield srv
    stop_server(srv)


def connect(server: Server) -> socket.socket:
    host, port = server.base.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=30)


def test_stalled_connections_do_not_take_the_workers(quick: Server) -> None:
    stalled = [connect(quick) for _ in range(WORKERS * 2)]
    try:
        for sock in stalled:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")  # the headers never end
        time.sleep(0.5)
        started = time.monotonic()
        status, _ = quick.call("GET", "/health", timeout=30)
        assert status == 200
        assert time.monotonic() - started < 10  # held until the request timeout (60 s) before
    finally:
        for sock in stalled:
            sock.close()


def test_a_body_cut_short_is_a_408(quick: Server) -> None:
    with connect(quick) as sock:
        sock.sendall(b"POST /v1/users/slow/memories HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                     + KEYS["tenant_a"].encode() + b"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
                     b'{"content": "I like')
        answer = sock.recv(4096)
    assert answer.startswith(b"HTTP/1.1 408"), answer
    assert b'"request_timeout"' in answer
    status, body = quick.call("GET", "/v1/users/slow/memories")
    assert status == 200
    assert body["items"] == []
    assert "Traceback" not in (quick.data_dir / "server.log").read_text()


def test_a_client_keeping_its_connection_open_after_the_answer_does_not_hold_a_worker(quick: Server) -> None:
    """The close after an answer peeks for unread bytes without waiting; with the read timeout on the socket
    the peek waited for it, and every client that kept its connection open (a pooled HTTP client) held its
    worker that long after each answer."""
    kept = [connect(quick) for _ in range(WORKERS)]
    try:
        for sock in kept:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            assert sock.recv(4096).startswith(b"HTTP/1.1 200")
        started = time.monotonic()
        status, _ = quick.call("GET", "/health", timeout=30)
        assert status == 200
        assert time.monotonic() - started < 1.5
    finally:
        for sock in kept:
            sock.close()
