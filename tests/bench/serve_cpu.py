"""CPU per request of `mnemo serve` at one fixed arrival rate, per process and thread.

    .venv/bin/python tests/bench/serve_cpu.py [--workers 2] [--rate 50] [--seconds 12] [--mix chat] [--write-reserve]

The same open-loop generator, mix and users as serve_load.py, at a rate well below saturation; it
reads the CPU time of every process of the server (the workers, the jobs process, the arbiter) and
of their threads from /proc before and after (after the extraction the load queued has drained).
CPU seconds a request say what a change saved even on a machine that other work keeps busy, where
latencies mostly measure the neighbours. Linux only (/proc).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "shared")]

from tests.bench import serve_load  # noqa: E402
from tests.e2e.conftest import Server, start_server, stop_server  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def processes(root: int) -> list[int]:
    found = [root]
    # pgrep exits 1 when a process has no children
    children = subprocess.run(["pgrep", "-P", str(root)], check=False, capture_output=True, text=True).stdout.split()
    for child in children:
        found += processes(int(child))
    return found


def cpu_seconds(server: Server) -> dict[tuple[int, str, int], float]:
    """CPU seconds (user + system) of every thread of the server: (pid, role, tid) -> seconds."""
    out = {}
    for pid in processes(server.process.pid):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
            role = "jobs" if "jobs_process" in command else "arbiter" if pid == server.process.pid else "worker"
            for tid in os.listdir(f"/proc/{pid}/task"):
                stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
                fields = stat[stat.rindex(")") + 2:].split()
                out[(pid, role, int(tid))] = (int(fields[11]) + int(fields[12])) / TICK
        except FileNotFoundError:  # a thread or process that ended meanwhile
            continue
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rate", type=float, default=50.0, help="requests a second (below saturation)")
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument("--mix", choices=sorted(serve_load.MIX), default="chat")
    parser.add_argument("--threads", type=int, default=1, help="request threads per worker (mnemo serve --threads)")
    parser.add_argument("--write-reserve", action="store_true",
                        help="serve with a reserve process a worker hands its accepting to during a write")
    args = parser.parse_args()
    serve_load.CHOSEN["retrieve"] = serve_load.MIX[args.mix]
    reserve = "on" if args.write_reserve else "off"
    env = {"MNEMO_DEBOUNCE_QUIET_SECONDS": "2", "MNEMO_ACCESS_LOG": "false", "MNEMO_SERVE_THREADS": str(args.threads),
           "MNEMO_SERVE_WRITE_RESERVE": str(args.write_reserve).lower(), "MNEMO_SERVER_TIMING": "true"}
    with tempfile.TemporaryDirectory() as tmp:
        server = start_server(Path(tmp) / "data", env, workers=args.workers)
        try:
            serve_load.seed_users(server)
            serve_load.warm(server)
            serve_load.drained(server)
            before = cpu_seconds(server)
            generator = time.process_time()
            result = serve_load.open_loop(serve_load.address_of(server),
                                          serve_load.mixed_requests(int(args.rate * args.seconds), 99), args.rate)
            generator = time.process_time() - generator  # the load generator's own CPU, on the same cores
            serve_load.drained(server)
            time.sleep(2.5)  # the debounce of the last turns, then their extraction
            serve_load.drained(server)
            after = cpu_seconds(server)
        finally:
            stop_server(server)
    sent = result["sent"]
    per_role: dict[str, float] = defaultdict(float)
    for key, seconds in after.items():
        per_role[key[1]] += seconds - before.get(key, 0.0)
    total = sum(per_role.values())
    print(f"{args.workers} workers x {args.threads} thread(s), write reserve {reserve}, {args.rate:.0f} requests/s for "
          f"{args.seconds:.0f} s ({args.mix} mix): {result['throughput_rps']} req/s, errors "
          f"{sum(result['errors'].values())}")
    for kind, p in result["latency_ms"].items():
        print(f"  {kind:<9} n={p['n']:>5}  p50 {p['p50']:>7.2f} ms  p95 {p['p95']:>7.2f} ms  p99 {p['p99']:>7.2f} ms")
        outside = result["outside_app_ms"].get(kind)
        if outside:  # waiting for a worker (the listen queue) and HTTP on both sides: the rest is the app's
            print(f"  {'':<9} outside the app  p50 {outside['p50']:>7.2f} ms  p95 {outside['p95']:>7.2f} ms  "
                  f"p99 {outside['p99']:>7.2f} ms")
    print("  CPU seconds:", json.dumps({k: round(v, 2) for k, v in sorted(per_role.items())}),
          f"total {total:.2f} s = {1000 * total / sent:.2f} ms a request")
    print(f"  the load generator: {generator:.2f} s = {1000 * generator / sent:.2f} ms a request")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
