"""Hundreds of conversations at once, each closed right after its turns, against `mnemo serve`; counts
the conversations whose turns were never extracted (issue 17).

    .venv/bin/python tests/bench/close_load.py [--conversations 400] [--turns 6] [--clients 100] [--workers N]

Starts `mnemo serve` on a fresh data directory (extraction after 5 turns or 1 s of quiet), then
``--clients`` threads share out the conversations; each conversation posts its turns one request at
a time, as a chat app does after each exchange, and is closed at once after the last. The fifth turn
makes its job due and the close schedules the same turns again while the worker may be running the
first copy: the interleaving that lost whole conversations before issue 17. When every client is
done, it waits for the extraction queue to drain, stops the server and reads the store: a
conversation is lost when a turn of it is still buffered unextracted. Each conversation is its own
user and each turn states a fact of its own, so memories per user are printed beside (what the
extractor made of them). Prints the figures and the server's extraction counters, writes
tests/bench/results/close_load.json, and exits 1 when a conversation was lost.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "shared")]

from tests.bench.common import write_result  # noqa: E402

KEY = "close-load-key-0123456789"
LIKES = ["hiking", "jazz music", "Thai food", "painting", "chess", "sailing", "pottery", "opera", "sushi",
         "gardening", "astronomy", "tango"]


def start(data_dir: Path, workers: int | None) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "MNEMO_API_KEYS": f"tenant_a={KEY}", "MNEMO_DEBOUNCE_TURNS": "5",
           "MNEMO_DEBOUNCE_QUIET_SECONDS": "1", "MNEMO_WORKER_POLL_SECONDS": "0.1"}
    command = [sys.executable, "-m", "mnemo.cli", "serve", "--port", "0", "--data-dir", str(data_dir)]
    if workers:
        command += ["--workers", str(workers)]
    with (data_dir / "server.log").open("a") as log:  # a file, not a pipe: a full pipe would stall the server
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True, env=env,
                                   start_new_session=True)
    assert process.stdout is not None
    match = re.search(r"http://([\d.]+):(\d+)", process.stdout.readline())
    if not match:
        stop(process)
        raise SystemExit(f"the server did not start: {(data_dir / 'server.log').read_text()[-2000:]}")
    return process, f"{match.group(1)}:{match.group(2)}"


def stop(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if process.stdout:
            process.stdout.close()


class Client(threading.Thread):
    def __init__(self, address: str, conversations: list[int], turns: int) -> None:
        super().__init__(daemon=True)
        host, port = address.split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=120)
        self.conversations = conversations
        self.turns = turns
        self.errors: list[str] = []
        self.requests = 0

    def call(self, path: str, body: Any, expected: int = 202) -> None:
        for attempt in range(3):  # a dropped connection is retried: the same message ids are idempotent
            try:
                self.connection.request("POST", path, json.dumps(body).encode() if body is not None else b"",
                                        {"Content-Type": "application/json", "Authorization": f"Bearer {KEY}"})
                response = self.connection.getresponse()
                data = response.read()
                self.requests += 1
                if response.status != expected:
                    self.errors.append(f"{path.rsplit('/', 1)[-1]}: {response.status} {data[:120]!r}")
                return
            except (OSError, http.client.HTTPException) as exc:
                self.connection.close()
                if attempt == 2:
                    self.errors.append(f"{type(exc).__name__}")

    def run(self) -> None:
        for n in self.conversations:
            user, conversation = f"closer{n:04d}", f"conv{n:04d}"
            for i in range(self.turns):
                message = {"role": "user", "content": f"I love {LIKES[i % len(LIKES)]}.",
                           "message_id": f"{conversation}-{i}"}
                self.call(f"/v1/users/{user}/turns", {"conversation_id": conversation, "messages": [message]})
            self.call(f"/v1/users/{user}/conversations/{conversation}/close", None)
        self.connection.close()


def queue_depth(db: Path) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10) as conn:
        return int(conn.execute("SELECT count(*) FROM extraction_jobs").fetchone()[0])


def server_counters(address: str) -> dict[str, float]:
    """The extraction lines of /metrics (a server without them, or older, gives none)."""
    host, port = address.split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.request("GET", "/metrics", headers={"Authorization": f"Bearer {KEY}"})
        response = connection.getresponse()
        text = response.read().decode()
    except (OSError, http.client.HTTPException):
        return {}
    finally:
        connection.close()
    if response.status != 200:
        return {}
    lines = re.findall(r"^(mnemo_extraction_(?:jobs|turns)_total\{[^}]*\}) (\S+)$", text, re.MULTILINE)
    return {name: float(value) for name, value in lines}


def run(conversations: int, turns: int, clients: int, workers: int | None, drain_seconds: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp) / "data"
        data_dir.mkdir()
        process, address = start(data_dir, workers)
        db = data_dir / "mnemo.db"
        try:
            shares = [list(range(c, conversations, clients)) for c in range(clients)]
            threads = [Client(address, share, turns) for share in shares if share]
            started = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            posted_in = time.perf_counter() - started
            deadline = time.monotonic() + drain_seconds
            while queue_depth(db) and time.monotonic() < deadline:
                time.sleep(0.5)
            drained_in = time.perf_counter() - started
            left_in_queue = queue_depth(db)
            counters = server_counters(address)
        finally:
            stop(process)
        with sqlite3.connect(db) as conn:
            pending = dict(conn.execute(
                "SELECT conversation_id, count(*) FROM turn_buffer WHERE sealed IS NOT NULL GROUP BY conversation_id"))
            buffered = int(conn.execute("SELECT count(*) FROM turn_buffer").fetchone()[0])
            memories = dict(conn.execute(
                "SELECT user_id, count(*) FROM memories WHERE status IN ('active', 'probationary', 'pending') "
                "GROUP BY user_id"))
    errors = [e for t in threads for e in t.errors]
    per_user = [memories.get(f"closer{n:04d}", 0) for n in range(conversations)]
    return {
        "conversations": conversations, "turns_per_conversation": turns, "clients": len(threads),
        "workers": workers or "default", "requests": sum(t.requests for t in threads), "errors": len(errors),
        "error_samples": errors[:10], "posted_s": round(posted_in, 1), "drained_s": round(drained_in, 1),
        "jobs_left_in_queue": left_in_queue, "turns_buffered": buffered,
        "turns_never_extracted": sum(pending.values()), "conversations_lost": len(pending),
        "lost_samples": sorted(pending)[:10],
        "memories_per_conversation": {"min": min(per_user), "max": max(per_user),
                                      "mean": round(sum(per_user) / len(per_user), 2),
                                      "with_none": sum(1 for m in per_user if m == 0)},
        "server_counters": counters,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=400)
    parser.add_argument("--turns", type=int, default=6)
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--workers", type=int, default=None, help="mnemo serve --workers (default: its own)")
    parser.add_argument("--drain-seconds", type=float, default=600)
    args = parser.parse_args()
    report = run(args.conversations, args.turns, args.clients, args.workers, args.drain_seconds)
    print(f"{report['conversations']} conversations x {report['turns_per_conversation']} turns, each closed right "
          f"after its last turn; {report['clients']} concurrent clients, server workers: {report['workers']}")
    print(f"  {report['requests']} requests in {report['posted_s']} s, errors {report['errors']}; queue drained after "
          f"{report['drained_s']} s (jobs left: {report['jobs_left_in_queue']})")
    print(f"  turns buffered {report['turns_buffered']}, never extracted {report['turns_never_extracted']}; "
          f"conversations lost: {report['conversations_lost']} of {report['conversations']}")
    m = report["memories_per_conversation"]
    print(f"  memories per conversation: min {m['min']}, mean {m['mean']}, max {m['max']}; "
          f"conversations with none: {m['with_none']}")
    for name, value in sorted(report["server_counters"].items()):
        print(f"  {name} {value:g}")
    for sample in report["error_samples"]:
        print("  error:", sample)
    write_result("close_load", report)
    return 1 if report["conversations_lost"] or report["jobs_left_in_queue"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
