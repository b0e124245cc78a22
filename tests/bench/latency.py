"""Retrieve latency for a user with 1,000 memories: in-process and over local HTTP.

Queries are distinct from one another (the query-embedding cache does not help them); a
second pass repeats them to show the cached path. Over HTTP the server is `mnemo serve` in
its own process and the client keeps its connection alive. Prints p50/p95/p99, writes JSON.

    .venv/bin/python tests/bench/latency.py [--memories 1000] [--queries 300]   (MNEMO_* settings apply)
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import InProcessClient, percentiles, write_result
from corpus import memories, questions

from mnemo.api.app import create_app
from mnemo.bootstrap import build_local
from mnemo.settings import Settings

USER = "bench-user"


class KeepAliveClient:
    """One persistent connection, as a chat app's HTTP client pool would hold."""

    def __init__(self, host: str, port: int) -> None:
        self.conn = http.client.HTTPConnection(host, port, timeout=30)

    def post(self, path: str, body: dict[str, Any]) -> int:
        self.conn.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
        response = self.conn.getresponse()
        response.read()
        if response.status != 200:
            raise RuntimeError(f"{path} -> {response.status}")
        return int(response.status)


def start_server(data_dir: Path) -> tuple[subprocess.Popen[str], str, int]:
    """`mnemo serve` in its own process, as it runs in production."""
    env = {k: v for k, v in os.environ.items() if k != "MNEMO_API_KEYS"}
    process = subprocess.Popen([sys.executable, "-m", "mnemo.cli", "serve", "--port", "0",
                                "--data-dir", str(data_dir)], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, env=env)
    assert process.stdout is not None
    match = re.search(r"http://([\d.]+):(\d+)", process.stdout.readline())
    if not match:
        process.kill()
        raise RuntimeError("server did not start")
    return process, match.group(1), int(match.group(2))


def timed(fn: Any, items: list[str]) -> list[float]:
    out = []
    for item in items:
        started = time.perf_counter()
        fn(item)
        out.append((time.perf_counter() - started) * 1000)
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="mnemo-latency-"))
    try:
        service = build_local(Settings.from_env(os.environ, data_dir=workdir))
        app = create_app(service)
        client = InProcessClient(app, tenant="default")
        texts = memories(args.memories)
        for start in range(0, len(texts), 500):
            status, body = client.call("POST", f"/v1/users/{USER}/memories/import",
                                       {"items": [{"content": t} for t in texts[start:start + 500]]})
            assert status == 200, body
        qs = questions(args.queries * 3)
        warm, inproc_qs, http_qs = qs[:20], qs[: args.queries], qs[args.queries: 2 * args.queries]
        for q in warm:
            client.call("POST", f"/v1/users/{USER}/retrieve", {"query": q + " (warm-up)"})

        def in_process(q: str) -> None:
            status, body = client.call("POST", f"/v1/users/{USER}/retrieve", {"query": q})
            assert status == 200, body

        report: dict[str, Any] = {"memories": args.memories}
        report["retrieve_in_process_ms"] = percentiles(timed(in_process, inproc_qs))
        report["retrieve_in_process_cached_query_ms"] = percentiles(timed(in_process, inproc_qs))
        stages: dict[str, list[float]] = {}
        for q in qs[2 * args.queries:]:
            result = service.retriever.retrieve("default", USER, q, top_k=5, token_budget=500)
            for stage, ms in result.timings_ms.items():
                stages.setdefault(stage, []).append(ms)
        report["stages_ms"] = {stage: percentiles(v) for stage, v in stages.items()}

        service.close()
        process, host, port = start_server(workdir)
        try:
            http = KeepAliveClient(host, port)
            for q in warm:
                http.post(f"/v1/users/{USER}/retrieve", {"query": q + " (http warm-up)"})
            report["retrieve_http_ms"] = percentiles(timed(
                lambda q: http.post(f"/v1/users/{USER}/retrieve", {"query": q}), http_qs))
            report["search_http_top10_ms"] = percentiles(timed(
                lambda q: http.post(f"/v1/users/{USER}/search", {"query": q + " (search)"}), http_qs))
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)
            if process.stdout:
                process.stdout.close()
        for name in ("retrieve_in_process_ms", "retrieve_in_process_cached_query_ms", "retrieve_http_ms",
                     "search_http_top10_ms"):
            r = report[name]
            print(f"{name:<40} p50 {r['p50']:7.2f}  p95 {r['p95']:7.2f}  p99 {r['p99']:7.2f}  (n={r['n']})")
        print("stages (in-process, p50 ms): " + ", ".join(
            f"{k} {v['p50']:.2f}" for k, v in report["stages_ms"].items()))
        print(f"wrote {write_result('latency', report)}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
