"""A real `mnemo serve` in a subprocess, on a free loopback port, with two tenants."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from mnemo.client import Client

KEYS = {"tenant_a": "key-a-0123456789", "tenant_b": "key-b-9876543210"}


T = TypeVar("T")


def wait_for(predicate: Callable[[], T], timeout: float = 20.0) -> T:
    """The predicate's first truthy value, polled until the timeout (then the test fails)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("condition not met in time")


@dataclass
class Server:
    base: str
    process: subprocess.Popen[str]
    data_dir: Path

    def call(self, method: str, path: str, body: Any = None, key: str | None = KEYS["tenant_a"],
             raw: bytes | None = None, headers: dict[str, str] | None = None,
             timeout: float = 30) -> tuple[int, Any]:
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if key:
            request.add_header("Authorization", f"Bearer {key}")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                text = response.read()
                return response.status, json.loads(text) if text else None
        except urllib.error.HTTPError as exc:
            text = exc.read()
            return exc.code, json.loads(text) if text else None

    def client(self, key: str | None = KEYS["tenant_a"], **options: Any) -> Client:
        """The Python client on this server (tenant a's key unless told otherwise)."""
        return Client(self.base, api_key=key, **options)

    def wait_for(self, predicate: Any, timeout: float = 20.0) -> Any:
        return wait_for(predicate, timeout)


WORKERS = 2  # every e2e test runs against a multi-process server


def start_server(data_dir: Path, extra_env: dict[str, str] | None = None, workers: int = WORKERS) -> Server:
    env = {**os.environ, "MNEMO_API_KEYS": ",".join(f"{t}={k}" for t, k in KEYS.items()),
           "MNEMO_DEBOUNCE_QUIET_SECONDS": "1", "MNEMO_WORKER_POLL_SECONDS": "0.1", **(extra_env or {})}
    data_dir.mkdir(parents=True, exist_ok=True)
    log = data_dir / "server.log"  # a file, not a pipe: a full pipe would stall the server
    with log.open("a") as err:
        # its own process group: a crash test kills the server and all of its workers at once
        process = subprocess.Popen(
            [sys.executable, "-m", "mnemo.cli", "serve", "--port", "0", "--data-dir", str(data_dir),
             "--workers", str(workers)],
            stdout=subprocess.PIPE, stderr=err, text=True, env=env, start_new_session=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    match = re.search(r"http://([\d.]+):(\d+)", line)
    if not match:
        process.kill()
        process.wait()
        process.stdout.close()
        raise AssertionError(f"server did not start: {line!r} {log.read_text()[-2000:]}")
    return Server(f"http://{match.group(1)}:{match.group(2)}", process, data_dir)


def stop_server(server: Server) -> int:
    server.process.send_signal(signal.SIGTERM)
    try:
        return server.process.wait(timeout=40)
    finally:
        if server.process.poll() is None:
            os.killpg(server.process.pid, signal.SIGKILL)
            server.process.wait()
        if server.process.stdout:
            server.process.stdout.close()
        wait_until_released(server.data_dir)


def wait_until_released(data_dir: Path, timeout: float = 20.0) -> None:
    """Until no process of the server holds its data directory (workers outlive a killed parent
    for a moment)."""
    import fcntl

    lock = data_dir / "serve.lock"
    deadline = time.monotonic() + timeout
    while lock.exists() and time.monotonic() < deadline:
        with lock.open("a") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                pass
        time.sleep(0.05)


@pytest.fixture
def client(server: Server) -> Iterator[Client]:
    with server.client() as c:
        yield c


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = start_server(tmp_path_factory.mktemp("e2e"))
    yield srv
    stop_server(srv)
