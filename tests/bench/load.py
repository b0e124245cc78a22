"""A bounded load test of `mnemo serve` on loopback: many concurrent clients, a mix of the calls a
chat app makes, for a fixed time.

    .venv/bin/python tests/bench/load.py [--duration 120] [--clients 50]

Each client keeps one HTTP/1.1 connection and loops: retrieve before an answer (60%), post the turn
after it (30%), and now and then an explicit memory, a search or feedback on its last retrieval
(10%). Users are spread over the clients (5 each), so per-user serialisation is exercised too; the
debounced extraction and the consolidation schedule run in the server meanwhile. Prints throughput,
p50/p95/p99 per call, errors (any status >= 500, any connection error, any unexpected status) and the
server's memory (RSS, all of its processes) at the start and the end; writes tests/bench/results/load.json.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "shared")]

from tests.bench.common import percentiles, write_result  # noqa: E402
from tests.e2e.conftest import KEYS, Server, start_server, stop_server  # noqa: E402

FACTS = ["I live in {c}.", "I work as a {j}.", "I'm allergic to {f}.", "I prefer {l} for scripting.",
         "My dog is called {p}.", "I'm vegetarian.", "I go climbing on weekends.", "I have two kids."]
CHAT = ["Can you suggest a recipe?", "What should I do this weekend?", "Help me plan a trip.",
        "Any book recommendations?", "How do I fix my bike chain?", "Write a short poem about rain."]
FILL = {"c": ["Lisbon", "Oslo", "Quito", "Perth"], "j": ["nurse", "pilot", "chef"], "f": ["peanuts", "soy"],
        "l": ["Python", "Go", "Rust"], "p": ["Rex", "Miso", "Pip"]}
EXPECTED = {"retrieve": {200}, "turns": {202}, "remember": {201}, "search": {200}, "feedback": {200, 404}}


def rss_kb(pid: int) -> int:
    """The resident memory of the server: its arbiter and every worker process."""
    total = 0
    pids = [pid] + [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    for each in pids:
        try:
            for line in Path(f"/proc/{each}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total


class Client(threading.Thread):
    def __init__(self, index: int, server: Server, until: float, users: int) -> None:
        super().__init__(daemon=True)
        host, port = server.base.removeprefix("http://").split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=30)
        self.random = random.Random(index)
        self.users = [f"load{index:03d}-{k}" for k in range(users)]
        self.until = until
        self.samples: dict[str, list[float]] = defaultdict(list)
        self.errors: list[str] = []
        self.turn = 0
        self.traces: dict[str, str] = {}

    def call(self, kind: str, method: str, path: str, body: Any) -> dict[str, Any] | None:
        payload = json.dumps(body).encode()
        started = time.perf_counter()
        try:
            self.connection.request(method, path, payload, {"Content-Type": "application/json",
                                                            "Authorization": f"Bearer {KEYS['tenant_a']}"})
            response = self.connection.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as exc:
            self.errors.append(f"{kind}: {type(exc).__name__}")
            self.connection.close()
            return None
        self.samples[kind].append((time.perf_counter() - started) * 1000)
        if response.status not in EXPECTED[kind]:
            self.errors.append(f"{kind}: {response.status} {data[:200]!r}")
            return None
        return json.loads(data) if data else {}

    def fact(self) -> str:
        template = self.random.choice(FACTS)
        return template.format(**{k: self.random.choice(v) for k, v in FILL.items()})

    def run(self) -> None:
        while time.monotonic() < self.until:
            user = self.random.choice(self.users)
            roll = self.random.random()
            if roll < 0.6:
                answer = self.call("retrieve", "POST", f"/v1/users/{user}/retrieve",
                                   {"query": self.random.choice(CHAT), "conversation_id": "c1"})
                if answer and answer.get("trace_id"):
                    self.traces[user] = answer["trace_id"]
            elif roll < 0.9:
                self.turn += 1
                text = self.fact() if self.random.random() < 0.4 else self.random.choice(CHAT)
                self.call("turns", "POST", f"/v1/users/{user}/turns", {"conversation_id": "c1", "messages": [
                    {"role": "user", "content": text, "message_id": f"{user}-{self.turn}"},
                    {"role": "assistant", "content": "Sure, here is an idea.", "message_id": f"{user}-{self.turn}a"}]})
            elif roll < 0.95:
                self.call("remember", "POST", f"/v1/users/{user}/memories", {"content": self.fact()})
            elif roll < 0.98 or user not in self.traces:
                self.call("search", "POST", f"/v1/users/{user}/search", {"query": self.random.choice(CHAT)})
            else:
                self.call("feedback", "POST", f"/v1/users/{user}/feedback",
                          {"trace_id": self.traces[user], "rating": self.random.choice(["up", "down"])})
        self.connection.close()


def run(duration: float, clients: int, users_per_client: int = 5) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        server = start_server(Path(tmp) / "data", {"MNEMO_DEBOUNCE_QUIET_SECONDS": "2"})
        try:
            rss_start = rss_kb(server.process.pid)
            until = time.monotonic() + duration
            workers = [Client(i, server, until, users_per_client) for i in range(clients)]
            started = time.perf_counter()
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join(duration + 60)
            elapsed = time.perf_counter() - started
            rss_end = rss_kb(server.process.pid)
        finally:
            stop_server(server)
    samples: dict[str, list[float]] = defaultdict(list)
    for worker in workers:
        for kind, values in worker.samples.items():
            samples[kind].extend(values)
    requests = sum(len(v) for v in samples.values())
    errors = [e for worker in workers for e in worker.errors]
    return {
        "duration_s": round(elapsed, 1), "clients": clients, "users": clients * users_per_client,
        "requests": requests, "throughput_rps": round(requests / elapsed, 1),
        "errors": len(errors), "error_samples": errors[:10],
        "latency_ms": {kind: percentiles(values) for kind, values in sorted(samples.items())},
        "all_ms": percentiles([x for values in samples.values() for x in values]),
        "server_rss_mb": {"start": round(rss_start / 1024, 1), "end": round(rss_end / 1024, 1),
                          "growth": round((rss_end - rss_start) / 1024, 1)},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=120)
    parser.add_argument("--clients", type=int, default=50)
    args = parser.parse_args()
    report = run(args.duration, args.clients)
    print(f"{report['clients']} clients, {report['users']} users, {report['duration_s']} s: "
          f"{report['requests']} requests, {report['throughput_rps']} req/s, errors {report['errors']}")
    for kind, p in report["latency_ms"].items():
        print(f"  {kind:<9} n={p['n']:>6}  p50 {p['p50']:>8.2f} ms  p95 {p['p95']:>8.2f} ms  p99 {p['p99']:>8.2f} ms")
    p = report["all_ms"]
    print(f"  {'all':<9} n={p['n']:>6}  p50 {p['p50']:>8.2f} ms  p95 {p['p95']:>8.2f} ms  p99 {p['p99']:>8.2f} ms")
    rss = report["server_rss_mb"]
    print(f"server RSS {rss['start']} MB -> {rss['end']} MB (growth {rss['growth']} MB)")
    for sample in report["error_samples"]:
        print("  error:", sample)
    write_result("load", report)
    return 1 if report["errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
