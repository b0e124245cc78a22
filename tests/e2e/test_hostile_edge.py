"""What a client can make `mnemo serve` write outside the API: its logs and its metrics (round 3).

gunicorn's own refusals logged the request as sent (a malformed header line, a request line with a
NUL): a key or a user id in it reached the log. Any method name became a Prometheus label value,
without a key: a client could grow /metrics without bound and write its text there.
"""

from __future__ import annotations

import socket
import time
import urllib.request

from tests.e2e.conftest import KEYS, Server

CANARY = "WOMBAT7CANARY"


def send_raw(server: Server, request: bytes) -> bytes:
    host, port = server.base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request)
        return sock.recv(4096)


def test_a_refused_malformed_request_leaves_no_trace_of_its_text_in_the_log(server: Server) -> None:
    key = KEYS["tenant_a"]
    answers = [
        send_raw(server, f"GET /v1/users/u-{CANARY}/memories HTTP/1.1\r\nHost: x\r\n"
                         f"Authorization Bearer {key}{CANARY}\r\n\r\n".encode()),
        send_raw(server, f"GET /v1/users/u-{CANARY}\x00/memories HTTP/1.1\r\nHost: x\r\n\r\n".encode()),
        send_raw(server, f"GET /v1/users/u/memories HTTP/1.1\r\nHost: x\r\nX-{CANARY}\x01: 1\r\n\r\n".encode()),
    ]
    for answer in answers:
        assert answer.startswith(b"HTTP/1.1 400"), answer  # refused by gunicorn, and so logged by it
    time.sleep(0.5)
    log = (server.data_dir / "server.log").read_text()
    assert "Invalid request" in log  # the refusals were logged: the check below could fail
    assert CANARY not in log
    assert key not in log


def test_a_made_up_method_is_no_metric_label(server: Server) -> None:
    for i in range(5):
        assert send_raw(server, f"{CANARY}{i} /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()).startswith(
            b"HTTP/1.1 405")

    def metrics() -> str:
        with urllib.request.urlopen(server.base + "/metrics", timeout=10) as response:
            text: str = response.read().decode()
        return text if 'route="unmatched",status="405"' in text else ""

    text = server.wait_for(metrics)  # the refusals were counted: the check below could fail
    assert CANARY not in text
    assert CANARY not in (server.data_dir / "server.log").read_text()
