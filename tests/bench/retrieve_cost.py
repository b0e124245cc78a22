"""Where one warm retrieve's time goes, in one request worker's process (no sockets, no other load).

    .venv/bin/python tests/bench/retrieve_cost.py [--requests 2000]

Builds the worker `mnemo serve` runs (its WSGI application, quotas and edge included) on a fresh data
directory, loads serve_load.py's 60 users of 20 memories, warms every user's index and the query's
embedding, then times retrieve one request at a time: the whole WSGI call, the application's own time
(its Server-Timing) and the service's retrieve up to its trace and audit records (its timings). The
rest of a single client's latency over HTTP is gunicorn and the connection (serve_load.py's single
client). It also prints the CPU time a retrieve costs, the mean over the run: the request's own thread, and the
whole process (with the background writers of traces and audit events); neighbours on the machine move these far
less than the latencies; and the background writers' share, by store. It also counts the user-key reads of the
vault per retrieve (an erase by another worker must be seen, so they are not cached).

With --against-chain each request is also answered through Powertools' whole middleware chain (the direct path
of `MnemoResolver.serve_directly` turned off for it), alternating which goes first, so the two are compared in
one process under the same load; the WSGI call of each is printed (--route search: the same for search).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "shared")]

import time  # noqa: E402

from tests.bench.common import percentiles  # noqa: E402
from tests.bench.serve_load import CHAT, FILL, USERS, fact  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--against-chain", action="store_true",
                        help="also answer each request through the resolver's middleware chain, alternating")
    parser.add_argument("--route", choices=["retrieve", "search"], default="retrieve",
                        help="the route --against-chain compares")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        from mnemo.serving import SERVE_AUTOCHECKPOINT_PAGES

        # the commits' own WAL checkpoint as `mnemo serve` sets it (its jobs process checkpoints), unless set: no
        # difference showed in the writers' CPU against SQLite's default 1,000 pages (four alternating runs)
        os.environ.setdefault("MNEMO_SQLITE_AUTOCHECKPOINT_PAGES", str(SERVE_AUTOCHECKPOINT_PAGES))
        os.environ.update({"MNEMO_DATA_DIR": str(Path(tmp) / "data"), "MNEMO_API_KEYS": "tenant_a=bench-key",
                           "MNEMO_ACCESS_LOG": "false", "MNEMO_SERVER_TIMING": "true"})
        from mnemo.quotas import TenantQuotas
        from mnemo.server import Authenticator, call_wsgi
        from mnemo.serving import WorkerRuntime, prepare_data_dir
        from mnemo.settings import Settings

        settings = Settings.from_env(os.environ)
        prepare_data_dir(settings)
        run_dir = settings.data_dir / "run"
        run_dir.mkdir(parents=True, exist_ok=True)
        auth = Authenticator(settings.tenant_keys())
        quotas = TenantQuotas(run_dir / "quotas", auth.tenants, settings.tenant_requests_per_second,
                              settings.tenant_burst, settings.tenant_concurrent_requests)
        worker = WorkerRuntime(settings, run_dir, auth, quotas)
        headers = {"Authorization": "Bearer bench-key", "Content-Type": "application/json"}
        rng = random.Random(7)
        for u in range(USERS):
            items = [{"content": fact(rng)} for _ in range(12)] + [
                {"content": f"On trip {k} I visited {rng.choice(FILL['c'])} and liked the food there."}
                for k in range(8)]
            status, _, _ = call_wsgi(worker.app, "POST", f"/v1/users/load-{u:03d}/memories/import",
                                     json.dumps({"items": items}).encode(), headers)
            assert status == 200, status
        body = json.dumps({"query": CHAT[7]}).encode()
        for n in range(2 * USERS):
            call_wsgi(worker.app, "POST", f"/v1/users/load-{n % USERS:03d}/retrieve", body, headers)
        service: list[float] = []
        worker.service.retriever.observers.append(lambda result: service.append(result.timings_ms["total"]))
        # the key vault under the cipher the stores share: every read of a user's (or tenant's) key
        vault = getattr(worker.service.ports.vault, "_vault", worker.service.ports.vault)
        existing_key = vault.existing_key
        reads = 0

        def counted(tenant_id: str, user_id: str) -> bytes | None:
            nonlocal reads
            reads += 1
            return existing_key(tenant_id, user_id)  # type: ignore[no-any-return]

        vault.existing_key = counted
        # the background writers' CPU (their flush runs on their own thread): traces, audit events
        writers: dict[str, list[float]] = {}
        for name, store in (("traces", worker.service.ports.traces), ("audit", worker.service.ports.audit)):
            writer = getattr(store, "_writer", None)
            if writer is not None:
                writers[name] = [0.0]
                writer._flush = timed_flush(writer._flush, writers[name])
        whole, app = [], []
        if args.against_chain:
            return against_chain(worker, body, headers, args.requests, args.route)
        cpu_started, thread_started = time.process_time(), time.thread_time()
        for n in range(args.requests):
            started = time.perf_counter()
            status, answer, _ = call_wsgi(worker.app, "POST", f"/v1/users/load-{n % USERS:03d}/retrieve", body,
                                          headers)
            whole.append((time.perf_counter() - started) * 1000)
            assert status == 200, status
            app.append(float(answer["Server-Timing"].removeprefix("app;dur=")))
        thread_cpu = time.thread_time() - thread_started
        worker.close()  # flushes the trace and audit writers: their CPU is part of the retrieves'
        process_cpu = time.process_time() - cpu_started
    for name, samples in (("WSGI call", whole), ("application (Server-Timing)", app),
                          ("service retrieve, before its records", service)):
        p = percentiles(samples)
        print(f"{name:38s} p50 {p['p50']:7.3f} ms  p95 {p['p95']:7.3f} ms  (n={p['n']})")
    print(f"CPU a retrieve (mean): request thread {thread_cpu / args.requests * 1000:.3f} ms, "
          f"process {process_cpu / args.requests * 1000:.3f} ms")
    print("background writers' CPU a retrieve (mean): " + ", ".join(
        f"{name} {cpu[0] / args.requests * 1000:.3f} ms" for name, cpu in writers.items()))
    print(f"vault key reads a retrieve: {reads / args.requests:.2f}")
    return 0


def timed_flush(flush: Any, cpu: list[float]) -> Any:
    def timed(items: Any) -> Any:
        started = time.thread_time()
        try:
            return flush(items)
        finally:
            cpu[0] += time.thread_time() - started
    return timed


def against_chain(worker: Any, body: bytes, headers: dict[str, str], requests: int, route: str) -> int:
    from mnemo.server import call_wsgi

    resolver = worker.app.app
    direct = resolver._direct
    took: dict[str, list[float]] = {"direct": [], "chain": []}
    for n in range(requests):
        for way in ("direct", "chain") if n % 2 else ("chain", "direct"):
            resolver._direct = direct if way == "direct" else None
            started = time.perf_counter()
            status, _, _ = call_wsgi(worker.app, "POST", f"/v1/users/load-{n % USERS:03d}/{route}", body, headers)
            took[way].append((time.perf_counter() - started) * 1000)
            assert status == 200, status
    resolver._direct = direct
    worker.close()
    for way, samples in took.items():
        p = percentiles(samples)
        print(f"WSGI call, {route}, {way:6s}         p50 {p['p50']:7.3f} ms  p95 {p['p95']:7.3f} ms  (n={p['n']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
