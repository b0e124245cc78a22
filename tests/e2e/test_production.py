"""`mnemo serve` as a production service: several worker processes over one data directory.

Writes made through one worker are seen by the others (and an erase is), the per-user write lock
holds across workers, /health stays fast while an import holds a worker, SIGTERM drains the
request in flight, and one data directory has one server. Plus the HTTP-layer items of issue 11
that only a real socket shows (#8, #18, #19)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.e2e.conftest import KEYS, Server, start_server, stop_server


def raw_request(server: Server, data: bytes, read: bool = True) -> bytes:
    host, port = server.base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(data)
        if not read:
            return b""
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)


def workers_seen(server: Server) -> set[int]:
    pids = set()
    for line in (server.data_dir / "server.log").read_text().splitlines():
        if '"mnemo.access"' in line:
            pids.add(json.loads(line)["worker"])
    return pids


def test_a_second_server_on_the_same_data_directory_refuses_and_says_why(server: Server) -> None:
    env = {**os.environ, "MNEMO_API_KEYS": ",".join(f"{t}={k}" for t, k in KEYS.items())}
    second = subprocess.run([sys.executable, "-m", "mnemo.cli", "serve", "--port", "0", "--data-dir",
                             str(server.data_dir)], capture_output=True, text=True, timeout=60, env=env, check=False)
    assert second.returncode != 0
    assert "already served by mnemo serve (pid" in second.stderr
    assert server.call("GET", "/health")[0] == 200  # the first one is untouched


def test_writes_and_erases_through_one_worker_are_seen_by_the_others(server: Server) -> None:
    user = "cross-worker"
    for i in range(12):
        status, _ = server.call("POST", f"/v1/users/{user}/memories",
                                {"content": f"I collect stamps from country {i}."})
        assert status == 201
        for _ in range(3):  # consecutive connections land on either worker
            status, found = server.call("POST", f"/v1/users/{user}/search", {"query": "stamps", "top_k": 50})
            assert status == 200
            assert len(found["items"]) == i + 1
    assert server.call("DELETE", f"/v1/users/{user}")[0] == 204
    for _ in range(6):
        status, found = server.call("POST", f"/v1/users/{user}/search", {"query": "stamps", "top_k": 50})
        assert (status, found["items"]) == (200, [])
    # sequential connections may all be accepted by one worker; concurrent ones keep both busy
    for _ in range(10):
        if len(workers_seen(server)) >= 2:
            break
        with ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(lambda _i: server.call("POST", f"/v1/users/{user}/search",
                                                           {"query": "stamps", "top_k": 50}), range(8)))
        assert all((status, found["items"]) == (200, []) for status, found in answers)
    assert len(workers_seen(server)) >= 2, "the requests did not reach both workers"


def test_the_user_write_lock_holds_across_workers(server: Server) -> None:
    """Concurrent corrections of one slot from many connections: exactly one stays active."""
    user = "one-slot"
    cities = ["Lisbon", "Oslo", "Quito", "Hanoi", "Perth", "Accra", "Lyon", "Cork", "Riga", "Lima", "Bern", "Doha"]
    with ThreadPoolExecutor(len(cities)) as pool:
        statuses = list(pool.map(lambda c: server.call("POST", f"/v1/users/{user}/memories",
                                                       {"content": f"I live in {c}."})[0], cities))
    assert statuses == [201] * len(cities)
    _, page = server.call("GET", f"/v1/users/{user}/memories?limit=200")
    active = [m for m in page["items"] if m["subject"] == "home_location" and m["status"] == "active"]
    assert len(active) == 1, [m["content"] for m in active]


def test_health_stays_fast_while_a_large_import_runs(server: Server) -> None:
    items = [{"content": f"On day {i} I read chapter {i} of a long novel about sailing ships and the sea."}
             for i in range(300)]
    done: list[float] = []

    def run_import() -> None:
        started = time.perf_counter()
        status, _ = server.call("POST", "/v1/users/importer/memories/import", {"items": items}, timeout=120)
        assert status == 200
        done.append(time.perf_counter() - started)

    worker = threading.Thread(target=run_import)
    worker.start()
    samples = []
    while worker.is_alive():
        started = time.perf_counter()
        assert server.call("GET", "/health", key=None)[0] == 200
        samples.append((time.perf_counter() - started) * 1000)
        time.sleep(0.01)
    worker.join()
    assert done, "the import failed"
    assert done[0] > 0.5, "the import was too quick to show anything"
    assert len(samples) >= 20
    samples.sort()
    # no head-of-line blocking: /health never waits for the import (which took done[0] seconds); the
    # bounds are loose for a shared, busy machine: tests/bench/serve_load.py measures the real figures
    assert statistics.median(samples) < 100, samples
    assert samples[int(len(samples) * 0.95)] < 250, samples
    assert samples[-1] < done[0] * 1000 / 4, (samples[-1], done[0])


def test_the_background_jobs_run_in_a_process_of_their_own_at_a_lower_priority(server: Server) -> None:
    """Extraction must not share a request worker's interpreter lock nor compete for the cores on
    equal terms with the requests a client waits for."""
    jobs_pid = int((server.data_dir / "run" / "jobs.lock").read_text().split()[0])
    for _ in range(20):  # reach both workers
        assert server.call("GET", "/v1/users/jobs-user/settings")[0] == 200
    assert jobs_pid not in workers_seen(server)
    assert "mnemo.jobs_process" in Path(f"/proc/{jobs_pid}/cmdline").read_bytes().decode()
    assert os.getpriority(os.PRIO_PROCESS, jobs_pid) == 10
    # and it does the work: a closed conversation is extracted
    status, _ = server.call("POST", "/v1/users/jobs-user/turns", {"conversation_id": "c1", "messages": [
        {"role": "user", "content": "I live in Tallinn and I work as a radiographer.", "message_id": "m1"}]})
    assert status == 202
    assert server.call("POST", "/v1/users/jobs-user/conversations/c1/close")[0] == 202
    found = server.wait_for(lambda: [m for m in server.call("GET", "/v1/users/jobs-user/memories")[1]["items"]
                                     if "Tallinn" in m["content"]])
    assert found
    # and, where the system lets its lock holders come back out of it, under SCHED_IDLE: every thread of it
    # (the model's, the debounce worker's) runs only on a core no request worker wants
    from mnemo.adapters.local.priority import idle_supported

    expected = os.SCHED_IDLE if idle_supported(os.getpriority(os.PRIO_PROCESS, server.process.pid)) else os.SCHED_OTHER
    threads = [int(tid) for tid in os.listdir(f"/proc/{jobs_pid}/task")]
    assert len(threads) > 3  # its listener, debounce worker, scheduler, writers started
    # (a thread holding a lock at that moment runs raised for as long: mnemo.adapters.local.priority)
    server.wait_for(lambda: {os.sched_getscheduler(tid) for tid in threads} == {expected}, timeout=5)


def test_metrics_sum_every_worker(server: Server) -> None:
    for _ in range(30):
        assert server.call("GET", "/v1/users/metrics-user/settings")[0] == 200
    text = _get_text(server, "/metrics")
    match = re.search(r'mnemo_request_duration_seconds_count\{method="GET",'
                      r'route="/v1/users/<user_id>/settings",status="200"\} (\d+)', text)
    assert match
    assert int(match.group(1)) >= 30
    assert "mnemo_extraction_queue_depth" in text


def _get_text(server: Server, path: str) -> str:
    import urllib.request

    with urllib.request.urlopen(server.base + path, timeout=10) as response:
        return response.read().decode()


def test_a_content_length_with_an_underscore_is_refused(server: Server) -> None:
    body = b'{"query": "tea"}'
    answer = raw_request(server, b"POST /v1/users/u1/retrieve HTTP/1.1\r\nHost: localhost\r\n"
                         b"Authorization: Bearer " + KEYS["tenant_a"].encode() + b"\r\n"
                         b"Content-Type: application/json\r\nContent-Length: 1_6\r\n\r\n" + body)
    assert answer.startswith(b"HTTP/1.1 400"), answer[:100]
    head, _, payload = answer.partition(b"\r\n\r\n")
    assert b"application/json" in head
    assert json.loads(payload)["error"]["code"] == "invalid_input"


def test_client_disconnects_leave_no_traceback_in_the_log(server: Server) -> None:
    request = (b"GET /openapi.json HTTP/1.1\r\nHost: localhost\r\n\r\n")
    for _ in range(20):
        host, port = server.base.removeprefix("http://").split(":")
        conn = socket.create_connection((host, int(port)), timeout=10)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        conn.sendall(request)
        conn.close()  # reset at once: the server writes into a closed connection
    half = (b"POST /v1/users/u1/memories HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            b"Authorization: Bearer " + KEYS["tenant_a"].encode() + b"\r\nContent-Length: 5000\r\n\r\n{\"con")
    for _ in range(5):
        raw_request(server, half, read=False)  # the body never comes
    assert server.call("GET", "/health")[0] == 200
    time.sleep(0.5)
    log = (server.data_dir / "server.log").read_text()
    assert "Traceback" not in log
    assert "BrokenPipe" not in log
    assert "ConnectionResetError" not in log


def _answered(conn: socket.socket) -> bytes:
    """One whole answer (up to its Content-Length), leaving the connection open."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"content-length: *(\d+)", head, re.I).group(1))  # type: ignore[union-attr]
    while len(body) < length:
        body += conn.recv(65536)
    return head


def test_a_worker_takes_the_next_request_once_its_answer_is_sent_not_once_the_client_closes(tmp_path: Path) -> None:
    server = start_server(tmp_path / "close", workers=1)
    try:
        host, port = server.base.removeprefix("http://").split(":")
        request = b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"
        slow = socket.create_connection((host, int(port)), timeout=10)  # a client that reads but does not close
        slow.sendall(request)
        assert b" 200 " in _answered(slow)
        started = time.monotonic()
        with socket.create_connection((host, int(port)), timeout=10) as other:
            other.sendall(request)
            assert b" 200 " in _answered(other)
        waited = time.monotonic() - started
        assert slow.recv(1) == b""  # the server closed its end, with nothing unread: no reset
        slow.close()
        # gunicorn's graceful close kept the only worker reading the first connection until its client closed
        # it (up to 2 s): every request queued behind the one answered waited for that client's close
        assert waited < 1.0, f"the next request waited {waited:.2f} s"
        # a body the server refuses unread still gets its answer, not a reset (the graceful close for it)
        big = (b"POST /v1/users/u1/memories HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
               b"Authorization: Bearer " + KEYS["tenant_a"].encode() + b"\r\nContent-Length: 20000000\r\n\r\n")
        with socket.create_connection((host, int(port)), timeout=10) as refused:
            refused.sendall(big + b"x" * 200_000)
            assert b" 413 " in _answered(refused)
    finally:
        stop_server(server)


def test_a_retrieve_is_answered_while_the_only_worker_serves_a_long_write(tmp_path: Path) -> None:
    """One worker with the write reserve: its reserve process takes the connections while it serves a write
    (mnemo.write_reserve). A lone sync worker answers the retrieve only after the import."""
    server = start_server(tmp_path / "reserve", {"MNEMO_SERVE_WRITE_RESERVE": "true"}, workers=1)
    try:
        assert server.call("POST", "/v1/users/reader/memories", {"content": "I live in Lisbon."})[0] == 201
        items = [{"content": f"On day {i} I read chapter {i} of a long novel about sailing ships and the sea."}
                 for i in range(400)]
        finished: dict[str, float] = {}

        def run_import() -> None:
            status, _ = server.call("POST", "/v1/users/importer/memories/import", {"items": items}, timeout=120)
            assert status == 200
            finished["import"] = time.monotonic()

        writer = threading.Thread(target=run_import)
        writer.start()
        time.sleep(0.3)  # the import is being served
        for _ in range(3):
            status, body = server.call("POST", "/v1/users/reader/retrieve", {"query": "where do I live?"})
            assert status == 200, body
        finished["retrieve"] = time.monotonic()
        writer.join()
        assert "import" in finished, "the import failed"
        assert finished["retrieve"] < finished["import"], "the retrieves waited for the import"
    finally:
        stop_server(server)


def test_sigterm_drains_the_request_in_flight(tmp_path: Path) -> None:
    patient = {"MNEMO_SHUTDOWN_GRACE_SECONDS": "300", "MNEMO_REQUEST_TIMEOUT_SECONDS": "300"}  # a busy machine
    server = start_server(tmp_path / "drain", patient)
    items = [{"content": f"Note {i}: I planted tomatoes in row {i} of the garden this spring."} for i in range(200)]
    answer: list[tuple[int, object]] = []
    request = threading.Thread(target=lambda: answer.append(
        server.call("POST", "/v1/users/gardener/memories/import", {"items": items}, timeout=300)))
    request.start()
    time.sleep(0.4)  # the import is under way
    server.process.send_signal(signal.SIGTERM)
    request.join(timeout=300)
    assert server.process.wait(timeout=300) == 0
    if server.process.stdout:
        server.process.stdout.close()
    assert answer, "no answer"
    assert answer[0][0] == 200, answer
    restarted = start_server(tmp_path / "drain")
    try:
        status, page = restarted.call("GET", "/v1/users/gardener/memories?limit=200")
        assert status == 200
        assert len(page["items"]) == 200
        assert restarted.call("GET", "/ready", key=None)[0] == 200
    finally:
        stop_server(restarted)


@pytest.mark.parametrize("threads", ["1", "2"])
def test_a_request_over_the_timeout_is_cut_off_and_the_worker_replaced(tmp_path: Path, threads: str) -> None:
    # one thread: gunicorn's arbiter kills the sync worker; two: the worker's own watchdog ends it
    server = start_server(tmp_path / "timeout", {"MNEMO_REQUEST_TIMEOUT_SECONDS": "1", "MNEMO_SERVE_THREADS": threads})
    try:
        items = [{"content": f"Item {i}: I keep a diary of the birds I see on my morning walk {i}."}
                 for i in range(400)]
        started = time.perf_counter()
        try:
            status, _ = server.call("POST", "/v1/users/slow/memories/import", {"items": items}, timeout=120)
        except OSError:  # the worker was replaced mid-request: the connection closes without an answer
            status = None
        # cut off: gunicorn aborts the worker mid-request and answers 500 when it still can, or the
        # connection closes; a 200 would mean the import finished within the timeout (nothing tested)
        assert status is None or status == 500, "the import finished within the timeout: nothing was tested"
        assert time.perf_counter() - started < 60
        assert server.call("GET", "/health")[0] == 200
        assert server.call("GET", "/ready", key=None)[0] == 200
        assert server.call("GET", "/v1/users/slow/settings")[0] == 200
    finally:
        stop_server(server)


def test_with_one_worker_a_core_each_worker_can_keep_to_its_own_core(tmp_path: Path) -> None:
    """MNEMO_SERVE_PIN_WORKERS with as many workers as cores: each worker pinned to one
    (mnemo.serving.pin_to_a_free_core), the jobs process free to run on any."""
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) != 2:  # the server below has two workers
        pytest.skip("pinning applies with one worker a core")
    server = start_server(tmp_path / "pinned", {"MNEMO_SERVE_PIN_WORKERS": "true"}, workers=2)
    try:
        assert server.call("GET", "/health")[0] == 200
        children = subprocess.run(["pgrep", "-P", str(server.process.pid)], capture_output=True, text=True,
                                  check=False).stdout.split()
        jobs_pid = int((server.data_dir / "run" / "jobs.lock").read_text().split()[0])
        masks = {int(pid): sorted(os.sched_getaffinity(int(pid))) for pid in children}
        assert masks.pop(jobs_pid) == cores
        assert sorted(masks.values()) == [[core] for core in cores]
    finally:
        stop_server(server)
