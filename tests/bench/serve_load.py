"""An open-loop load benchmark of `mnemo serve`: 1 worker against N workers in the same run.

    .venv/bin/python tests/bench/serve_load.py [--workers 2] [--step 5] [--rates 200,400,...]

Open loop: requests are sent at a fixed arrival rate whatever the server does (a closed-loop
client waits for each answer and so slows down with the server, hiding the queueing), and each
latency is measured from the request's scheduled send time, so a request that waited for a free
connection counts that wait too (no coordinated omission). The generator is one thread on
non-blocking sockets, a new connection a request; it shares the cores with the server it measures:
0.91-0.98 ms of CPU a request (serve_cpu.py prints it), ~5% of what the server spends on one.

For each worker count: a ladder of arrival rates until the server saturates (completions fall
behind arrivals); the saturation throughput is the highest completion rate seen. That is the
request workers' saturation with the extraction starved (its process runs under SCHED_IDLE, so its
backlog grows without slowing a request), more than the machine holds with its extraction. So each
step also reads the extraction's backlog from /metrics, and the sustained rate is the highest one
at which the requests and the extraction both kept up (refined by three steps between the last rate
that did and the first that did not). Then, with N workers, after the extraction has drained, a
longer run at 70% of the N-worker sustained rate (`--hold-basis requests`: of the saturation, as
before), whether the extraction kept up with it, the latency of /health while a
500-item import runs, and a single client calling retrieve one request at a time (idle: the
extraction the load queued is drained first; it prints what the jobs process used meanwhile), then
/health the same way (the floor: the HTTP exchange, gunicorn and the client without the application).
Mix: 60% retrieve, 30% turns, 5% remember, 5% search, over 60 users with 20 memories each.
Writes tests/bench/results/serve_load.json and, with --figures DIR, SVG figures.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import selectors
import socket
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

USERS = 60
CHAT = ["Can you suggest a recipe?", "What should I do this weekend?", "Help me plan a trip.",
        "Any book recommendations?", "How do I fix my bike chain?", "Write a short poem about rain.",
        "Where should I go hiking?", "What should I cook for my kids tonight?"]
FACTS = ["I live in {c}.", "I work as a {j}.", "I'm allergic to {f}.", "I prefer {l} for scripting.",
         "My dog is called {p}.", "I go climbing on weekends.", "I have two kids.", "I'm learning the {i}."]
FILL = {"c": ["Lisbon", "Oslo", "Quito", "Perth"], "j": ["nurse", "pilot", "chef"], "f": ["peanuts", "soy"],
        "l": ["Python", "Go", "Rust"], "p": ["Rex", "Miso", "Pip"], "i": ["cello", "flute", "drums"]}
EXPECTED = {"retrieve": 200, "turns": 202, "remember": 201, "search": 200, "health": 200}
TIMEOUT_S = 10.0
# the extraction kept up with a step when, at its end, no due job had waited longer than this (a job itself
# takes ~0.05-0.3 s; a backlog grows by the second)
EXTRACTION_BEHIND_S = 1.0


def fact(rng: random.Random) -> str:
    return rng.choice(FACTS).format(**{k: rng.choice(v) for k, v in FILL.items()})


def request_bytes(method: str, path: str, body: Any, key: str | None) -> bytes:
    payload = json.dumps(body).encode() if body is not None else b""
    head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
    if key:
        head.append(f"Authorization: Bearer {key}")
    if payload:
        head += ["Content-Type: application/json", f"Content-Length: {len(payload)}"]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + payload


MIX = {"chat": 0.6, "retrieve": 1.0}  # share of retrieve; the rest: turns, remember, search (6:1:1)
CHOSEN = {"retrieve": MIX["chat"]}  # set from --mix


def mixed_requests(count: int, seed: int) -> list[tuple[str, bytes]]:
    """The requests of one step, prepared before it starts (the generator only sends bytes)."""
    rng = random.Random(seed)
    key = KEYS["tenant_a"]
    out = []
    for n in range(count):
        user = f"load-{rng.randrange(USERS):03d}"
        roll = rng.random()
        share = CHOSEN["retrieve"]
        roll = 0.0 if roll < share else 0.6 + (roll - share) / max(1e-9, 1 - share) * 0.4
        if roll < 0.6:
            out.append(("retrieve", request_bytes("POST", f"/v1/users/{user}/retrieve",
                                                  {"query": rng.choice(CHAT)}, key)))
        elif roll < 0.9:
            text = fact(rng) if rng.random() < 0.4 else rng.choice(CHAT)
            out.append(("turns", request_bytes("POST", f"/v1/users/{user}/turns", {
                "conversation_id": f"c{seed}", "messages": [
                    {"role": "user", "content": text, "message_id": f"s{seed}-{n}"},
                    {"role": "assistant", "content": "Sure, here is an idea.", "message_id": f"s{seed}-{n}a"}]}, key)))
        elif roll < 0.95:
            out.append(("remember", request_bytes("POST", f"/v1/users/{user}/memories", {"content": fact(rng)}, key)))
        else:
            out.append(("search", request_bytes("POST", f"/v1/users/{user}/search", {"query": rng.choice(CHAT)}, key)))
    return out


class _Flight:
    __slots__ = ("buffer", "kind", "payload", "scheduled", "sent")

    def __init__(self, kind: str, payload: bytes, scheduled: float) -> None:
        self.kind, self.payload, self.scheduled = kind, payload, scheduled
        self.sent = 0
        self.buffer = bytearray()


def open_loop(address: tuple[str, int], requests: list[tuple[str, bytes]], rate: float,
              max_in_flight: int = 1024) -> dict[str, Any]:
    """Send ``requests`` at ``rate`` a second (evenly spaced); latency from each scheduled time."""
    selector = selectors.DefaultSelector()
    samples: dict[str, list[float]] = defaultdict(list)
    # the server's own time (its Server-Timing header) and the rest: waiting for a worker, the HTTP
    # parsing around the application, the generator's own delays
    served: dict[str, list[float]] = defaultdict(list)
    waited: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    start = time.perf_counter() + 0.05
    index, in_flight, completed_at = 0, 0, start
    backlog: list[tuple[str, bytes, float]] = []

    def finish(sock: socket.socket, flight: _Flight, ok: bool) -> None:
        nonlocal in_flight, completed_at
        selector.unregister(sock)
        sock.close()
        in_flight -= 1
        now = time.perf_counter()
        completed_at = max(completed_at, now)
        status = int(flight.buffer[9:12]) if ok and len(flight.buffer) >= 12 else 0
        if status == EXPECTED[flight.kind]:
            took = (now - flight.scheduled) * 1000
            samples[flight.kind].append(took)
            app = server_time(flight.buffer)
            if app is not None:
                served[flight.kind].append(app)
                waited[flight.kind].append(took - app)
        else:
            errors[f"{flight.kind}:{status or 'connection'}"] += 1

    def launch(kind: str, payload: bytes, scheduled: float) -> None:
        nonlocal in_flight
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        sock.connect_ex(address)
        selector.register(sock, selectors.EVENT_WRITE, _Flight(kind, payload, scheduled))
        in_flight += 1

    while index < len(requests) or in_flight or backlog:
        now = time.perf_counter()
        while index < len(requests) and start + index / rate <= now:
            kind, payload = requests[index]
            backlog.append((kind, payload, start + index / rate))
            index += 1
        while backlog and in_flight < max_in_flight:
            launch(*backlog.pop(0))
        next_due = start + index / rate if index < len(requests) else now + 0.05
        for key, events in selector.select(timeout=max(0.0, min(next_due - time.perf_counter(), 0.05))):
            sock, flight = key.fileobj, key.data
            assert isinstance(sock, socket.socket)
            try:
                if events & selectors.EVENT_WRITE:
                    flight.sent += sock.send(flight.payload[flight.sent:])
                    if flight.sent >= len(flight.payload):
                        selector.modify(sock, selectors.EVENT_READ, flight)
                elif events & selectors.EVENT_READ:
                    chunk = sock.recv(65536)
                    if chunk:
                        flight.buffer += chunk
                    else:
                        finish(sock, flight, True)
            except OSError:
                finish(sock, flight, False)
        # requests that never came back count as errors, not as latencies
        limit = time.perf_counter() - TIMEOUT_S
        for key in list(selector.get_map().values()):
            if key.data.scheduled < limit:
                finish(key.fileobj, key.data, False)  # type: ignore[arg-type]
    done = sum(len(v) for v in samples.values())
    elapsed = completed_at - start
    return {"offered_rps": rate, "sent": len(requests), "completed": done,
            "throughput_rps": round(done / elapsed, 1) if elapsed > 0 else 0.0,
            "errors": dict(errors), "latency_ms": {k: percentiles(v) for k, v in sorted(samples.items())},
            "app_ms": {k: percentiles(v) for k, v in sorted(served.items())},
            "outside_app_ms": {k: percentiles(v) for k, v in sorted(waited.items())}}


def server_time(response: bytearray) -> float | None:
    """The application's own milliseconds from a `Server-Timing: app;dur=<ms>` header, if sent."""
    head = bytes(response[:response.find(b"\r\n\r\n")]).lower()
    at = head.find(b"server-timing: app;dur=")
    if at < 0:
        return None
    value = head[at + 23:].split(b"\r\n", 1)[0]
    try:
        return float(value)
    except ValueError:
        return None


def seed_users(server: Server) -> None:
    rng = random.Random(7)
    for u in range(USERS):
        items = [{"content": fact(rng)} for _ in range(12)] + [
            {"content": f"On trip {k} I visited {rng.choice(FILL['c'])} and liked the food there."} for k in range(8)]
        status, _ = server.call("POST", f"/v1/users/load-{u:03d}/memories/import", {"items": items})
        assert status == 200, status


def warm(server: Server) -> None:
    """Each worker builds a user's index on its first read of that user: do that for every user
    before measuring (connections land on workers at random; a few rounds reach them all)."""
    for _ in range(4):
        for u in range(USERS):
            status, _ = server.call("POST", f"/v1/users/load-{u:03d}/retrieve", {"query": CHAT[u % len(CHAT)]})
            assert status == 200, status


def address_of(server: Server) -> tuple[str, int]:
    host, port = server.base.removeprefix("http://").split(":")
    return host, int(port)


def ladder(server: Server, rates: list[float], step_s: float, seed: int) -> list[dict[str, Any]]:
    steps = []
    for rate in rates:
        result = step(server, rate, step_s, seed)
        steps.append(result)
        if result["throughput_rps"] < 0.85 * rate:  # saturated: completions fall behind arrivals
            break
    return steps


def step(server: Server, rate: float, step_s: float, seed: int) -> dict[str, Any]:
    """One rate of the ladder, whether the extraction kept up with it (read from /metrics at its end), and
    where the machine's cores went meanwhile."""
    requests = mixed_requests(int(rate * step_s), seed + int(rate))
    machine, mine = machine_ticks(), os.times()
    result = open_loop(address_of(server), requests, rate)
    result["cores"] = cores_used(machine, mine)
    extraction = extraction_state(server)
    result["extraction"] = extraction
    result["extraction_kept_up"] = extraction["oldest_due_s"] <= EXTRACTION_BEHIND_S
    retrieve = result["latency_ms"].get("retrieve", {})
    print(f"    offered {rate:>6.0f}/s -> {result['throughput_rps']:>7.1f}/s  retrieve p50 "
          f"{retrieve.get('p50', 0):>7.2f} p99 {retrieve.get('p99', 0):>8.2f} ms  errors "
          f"{sum(result['errors'].values())}  extraction: {extraction['due']:.0f} due, oldest "
          f"{extraction['oldest_due_s']:.1f} s  cores busy {result['cores']['machine']:.2f}, of them the "
          f"generator {result['cores']['generator']:.2f}", flush=True)
    return result


def machine_ticks() -> tuple[int, int]:
    """(busy, total) clock ticks of every core since boot, from /proc/stat (Linux); (0, 0) elsewhere."""
    try:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except OSError:
        return 0, 0
    idle = fields[3] + fields[4]  # idle and iowait
    return sum(fields) - idle, sum(fields)


def cores_used(machine_before: tuple[int, int], mine_before: os.times_result) -> dict[str, float]:
    """Cores busy on the whole machine and in this process (the load generator) since the marks.

    The generator shares the machine's cores with the server: at the two workers' saturation on a
    2-core machine, what it takes is what the workers cannot have, so the figure says how far the
    2-vs-1 ratio is bounded by the measuring itself."""
    busy, total = machine_ticks()
    mine = os.times()
    elapsed = mine.elapsed - mine_before.elapsed
    cores = os.cpu_count() or 1
    machine = cores * (busy - machine_before[0]) / (total - machine_before[1]) if total > machine_before[1] else 0.0
    generator = ((mine.user - mine_before.user) + (mine.system - mine_before.system)) / elapsed if elapsed > 0 else 0.0
    return {"machine": round(machine, 2), "generator": round(generator, 2), "cores": cores}


def kept_up(result: dict[str, Any]) -> bool:
    """Both the requests and the extraction they queued. Stricter on the requests than the ladder's end
    (85%): one worker offered 200/s completed 180/s, its retrieve p50 ~0.5 s, which is no rate it holds."""
    return bool(result["throughput_rps"] >= 0.95 * result["offered_rps"] and result["extraction_kept_up"])


def sustained(server: Server, steps: list[dict[str, Any]], step_s: float, seed: int,
              refine: bool) -> tuple[float, list[dict[str, Any]]]:
    """The highest completion rate at which the server kept up with its requests *and* its extraction.

    The request workers' saturation (the ladder's) is found with the extraction starved: the jobs process
    runs under SCHED_IDLE, so it gets no core while the workers want both, and its backlog grows
    without slowing any request. A rate the server can hold is one where the extraction also keeps up.
    With ``refine``, three more steps between the last rate that kept up and the first that did not
    (each after the extraction's backlog has drained), so the figure is not the ladder's coarse step."""
    good = [s for s in steps if kept_up(s)]
    first_bad = next((s for s in steps if not kept_up(s)), None)
    # a rate after the first one that fell behind starts with its backlog: only the ladder's prefix counts
    prefix = good[:next((n for n, s in enumerate(steps) if not kept_up(s)), len(steps))]
    extra: list[dict[str, Any]] = []
    if refine and first_bad is not None:
        low = prefix[-1]["offered_rps"] if prefix else 0.0
        high = first_bad["offered_rps"]
        for k in (1, 2, 3):
            drained(server)
            result = step(server, low + (high - low) * k / 4, step_s, seed + 17 * k)
            extra.append(result)
            if not kept_up(result):
                break
            prefix.append(result)
        drained(server)
    return (max((s["throughput_rps"] for s in prefix), default=0.0), extra)


def health_during_import(server: Server, items: int = 500) -> dict[str, Any]:
    body = {"items": [{"content": f"On day {i} I read chapter {i} of a long novel about sailing ships."}
                      for i in range(items)]}
    took: list[float] = []

    def run_import() -> None:
        started = time.perf_counter()
        status, _ = server.call("POST", "/v1/users/importer/memories/import", body, timeout=300)
        took.append(time.perf_counter() - started)
        assert status == 200, status

    thread = threading.Thread(target=run_import)
    thread.start()
    time.sleep(0.05)
    samples = []
    host, port = address_of(server)
    while thread.is_alive():
        connection = http.client.HTTPConnection(host, port, timeout=TIMEOUT_S)
        started = time.perf_counter()
        connection.request("GET", "/health")
        assert connection.getresponse().status == 200
        samples.append((time.perf_counter() - started) * 1000)
        connection.close()
        time.sleep(0.01)
    thread.join()
    return {"import_items": items, "import_s": round(took[0], 2) if took else None, "health_ms": percentiles(samples)}


def extraction_state(server: Server) -> dict[str, float]:
    """The extraction queue from /metrics: jobs waiting (due or not), due now, and how long the oldest due
    job has waited (the jobs process works them off at a lower priority than requests)."""
    import urllib.request

    with urllib.request.urlopen(server.base + "/metrics", timeout=10) as response:
        text = response.read().decode()
    values = {line.split()[0]: float(line.split()[-1]) for line in text.splitlines()
              if line.startswith("mnemo_extraction_") and not line.startswith("mnemo_extraction_lag")}
    return {"depth": values.get("mnemo_extraction_queue_depth", 0.0),
            "due": values.get("mnemo_extraction_queue_due", 0.0),
            "oldest_due_s": round(values.get("mnemo_extraction_oldest_due_seconds", 0.0), 2)}


def queue_depth(server: Server) -> float:
    """Extraction jobs waiting, due or not."""
    return extraction_state(server)["depth"]


def drained(server: Server, timeout: float = 120.0) -> float:
    """Wait until the extraction queue is empty; returns the seconds that took."""
    started = time.monotonic()
    while time.monotonic() < started + timeout:
        if queue_depth(server) == 0:
            break
        time.sleep(0.5)
    return round(time.monotonic() - started, 1)


def single_client(server: Server, count: int = 400) -> dict[str, Any]:
    host, port = address_of(server)
    payload = json.dumps({"query": "What should I cook for my kids tonight?"})
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {KEYS['tenant_a']}"}

    def one(method: str, path: str, body: str | None) -> tuple[float, float | None]:
        connection = http.client.HTTPConnection(host, port, timeout=TIMEOUT_S)
        started = time.perf_counter()
        connection.request(method, path, body, headers)
        response = connection.getresponse()
        response.read()
        elapsed = (time.perf_counter() - started) * 1000
        connection.close()
        timing = response.getheader("Server-Timing") or ""
        return elapsed, float(timing[8:]) if timing.startswith("app;dur=") else None

    # first each user's index, profile and this query's embedding in every worker (connections land on
    # workers at random: a few rounds reach them all, as in warm()); 20 requests used to warm 20 of
    # the 60 users, so the samples held ~100 first reads of a user after the load's writes
    for n in range(4 * USERS):
        one("POST", f"/v1/users/load-{n % USERS:03d}/retrieve", payload)
    # idle means idle: nothing queued for the jobs process when the samples start, and the CPU it used while
    # they were taken (Linux; the extraction the load queued was drained before the import)
    from tests.bench.serve_cpu import cpu_seconds

    queued = queue_depth(server)
    before, started = cpu_seconds(server), time.perf_counter()
    samples = [one("POST", f"/v1/users/load-{n % USERS:03d}/retrieve", payload) for n in range(count)]
    after, took = cpu_seconds(server), time.perf_counter() - started
    jobs_cpu = sum(v - before.get(k, 0.0) for k, v in after.items() if k[1] == "jobs")
    # the same client and connections on a route with almost nothing behind it: what HTTP, gunicorn and the
    # client cost on their own, the floor under any route's latency
    health = [one("GET", "/health", None) for _ in range(count)]
    # the application's own share of each (its Server-Timing), the rest is HTTP on both sides
    return {**percentiles([s for s, _ in samples]), "app_ms": percentiles([a for _, a in samples if a is not None]),
            "queued_before": queued, "jobs_cpu_s": round(jobs_cpu, 2), "seconds": round(took, 2),
            "health_ms": {**percentiles([s for s, _ in health]),
                          "app_ms": percentiles([a for _, a in health if a is not None])}}


def run_for(workers: int, rates: list[float], step_s: float, hold_s: float, full: bool,
            reference_saturation: float | None, threads: int = 1, write_reserve: bool = False,
            hold_basis: str = "sustained") -> dict[str, Any]:
    env = {"MNEMO_DEBOUNCE_QUIET_SECONDS": "2", "MNEMO_ACCESS_LOG": "false", "MNEMO_SERVER_TIMING": "true",
           "MNEMO_SERVE_THREADS": str(threads), "MNEMO_SERVE_WRITE_RESERVE": str(write_reserve).lower()}
    with tempfile.TemporaryDirectory() as tmp:
        server = start_server(Path(tmp) / "data", env, workers=workers)
        try:
            seed_users(server)
            warm(server)
            drained(server)  # the seeding's extraction jobs are no part of the first step
            print(f"  {workers} worker(s): ladder", flush=True)
            steps = ladder(server, rates, step_s, seed=workers * 1000)
            saturation = max(s["throughput_rps"] for s in steps)
            print(f"  {workers} worker(s): the rate the extraction keeps up with", flush=True)
            held, extra = sustained(server, steps, step_s, seed=workers * 1000 + 500, refine=True)
            out: dict[str, Any] = {"workers": workers, "saturation_rps": saturation, "sustained_rps": held,
                                   "ladder": steps, "sustained_steps": extra}
            print(f"  {workers} worker(s): saturation {saturation} req/s (the request workers, extraction "
                  f"starved); sustained {held} req/s (requests and extraction keeping up)", flush=True)
            if full:
                basis = held if hold_basis == "sustained" else saturation
                target = 0.7 * basis
                out["hold_basis"] = hold_basis
                # the hold starts from a steady state: the ladder's last steps left the extraction behind
                drained(server)
                print(f"  {workers} worker(s): {hold_s:.0f} s at 70% of the {hold_basis} saturation "
                      f"({target:.0f}/s)", flush=True)
                out["at_70_percent"] = open_loop(address_of(server), mixed_requests(int(target * hold_s), 99), target)
                # whether the extraction kept up with the hold: its due backlog when the hold ends
                state = extraction_state(server)
                out["at_70_percent"]["extraction_queue_after"] = state["depth"]
                out["at_70_percent"]["extraction_after"] = state
                out["at_70_percent"]["extraction_kept_up"] = state["oldest_due_s"] <= EXTRACTION_BEHIND_S
                # the extraction the load left queued must not run during the next measures
                out["at_70_percent"]["extraction_drain_s"] = drained(server)
                out["health_during_import"] = health_during_import(server)
                out["single_client_retrieve_ms"] = single_client(server)
            if reference_saturation:
                out["speedup"] = round(saturation / reference_saturation, 2)
        finally:
            stop_server(server)
    return out


def svg_chart(path: Path, title: str, series: dict[str, list[tuple[float, float]]], x_label: str,
              y_label: str) -> None:
    """A small line chart as SVG (no plotting library needed)."""
    width, height, pad = 640, 400, 60
    xs = [x for points in series.values() for x, _ in points] or [0, 1]
    ys = [y for points in series.values() for _, y in points] or [0, 1]
    x_max, y_max = max(xs) * 1.05 or 1, max(ys) * 1.1 or 1

    def sx(x: float) -> float:
        return pad + x / x_max * (width - 2 * pad)

    def sy(y: float) -> float:
        return height - pad - y / y_max * (height - 2 * pad)

    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
             f'font-size="12"><rect width="100%" height="100%" fill="white"/>',
             f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14">{title}</text>',
             f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" stroke="black"/>',
             f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}" stroke="black"/>',
             f'<text x="{width / 2}" y="{height - 15}" text-anchor="middle">{x_label}</text>',
             f'<text x="15" y="{height / 2}" transform="rotate(-90 15 {height / 2})" text-anchor="middle">'
             f'{y_label}</text>']
    for k in range(6):
        xv, yv = x_max * k / 5, y_max * k / 5
        parts.append(f'<text x="{sx(xv)}" y="{height - pad + 16}" text-anchor="middle">{xv:.0f}</text>')
        parts.append(f'<text x="{pad - 6}" y="{sy(yv) + 4}" text-anchor="end">{yv:.0f}</text>')
    for n, (name, points) in enumerate(series.items()):
        colour = colours[n % len(colours)]
        line = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in points)
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{line}"/>')
        parts += [f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3" fill="{colour}"/>' for x, y in points]
        parts.append(f'<text x="{pad + 10}" y="{pad + 16 * n}" fill="{colour}">{name}</text>')
    parts.append("</svg>")
    path.write_text("\n".join(parts))


def figures(report: dict[str, Any], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    runs = report["runs"]
    svg_chart(folder / "serve_throughput.svg", "Completed vs offered requests/s (open loop)",
              {f"{r['workers']} worker(s)": [(s["offered_rps"], s["throughput_rps"]) for s in r["ladder"]]
               for r in runs}, "offered requests/s", "completed requests/s")
    svg_chart(folder / "serve_retrieve_p99.svg", "retrieve p99 latency vs offered load",
              {f"{r['workers']} worker(s)": [(s["offered_rps"], min(s["latency_ms"].get("retrieve", {}).get("p99", 0),
                                                                   1000)) for s in r["ladder"]] for r in runs},
              "offered requests/s", "retrieve p99 (ms, capped at 1000)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2, help="N, compared with 1")
    parser.add_argument("--step", type=float, default=5.0, help="seconds per rate of the ladder")
    parser.add_argument("--hold", type=float, default=15.0, help="seconds at 70%% of saturation")
    parser.add_argument("--rates", default="100,200,300,400,500,600,700,800,900,1000,1100,1200,1300,1400,1500,"
                                           "1600,1800,2000,2200,2500")
    parser.add_argument("--figures", default=None, help="write SVG figures into this folder")
    parser.add_argument("--threads", type=int, default=1, help="request threads per worker (mnemo serve --threads)")
    parser.add_argument("--write-reserve", action="store_true",
                        help="serve with a reserve process a worker hands its accepting to during a write")
    parser.add_argument("--hold-basis", choices=["sustained", "requests"], default="sustained",
                        help="the 70%% hold's rate: of the highest rate at which the extraction keeps up too "
                             "(sustained), or of the request workers' saturation with the extraction starved")
    parser.add_argument("--mix", choices=sorted(MIX), default="chat",
                        help="chat: 60%% retrieve, 30%% turns, 5%% remember, 5%% search; retrieve: retrieve only")
    args = parser.parse_args()
    CHOSEN["retrieve"] = MIX[args.mix]
    rates = [float(r) for r in args.rates.split(",")]
    reserve = args.write_reserve
    print(f"mix {args.mix}, threads {args.threads}, write reserve {'on' if reserve else 'off'}", flush=True)
    one = run_for(1, rates, args.step, args.hold, full=False, reference_saturation=None, threads=args.threads,
                  write_reserve=reserve)
    many = run_for(args.workers, rates, args.step, args.hold, full=True, reference_saturation=one["saturation_rps"],
                   threads=args.threads, write_reserve=reserve, hold_basis=args.hold_basis)
    report = {"mix": args.mix, "threads": args.threads, "hold_basis": args.hold_basis, "write_reserve": reserve,
              "runs": [one, many], "speedup": many["speedup"]}
    hold = many["at_70_percent"]
    retrieve = hold["latency_ms"].get("retrieve", {})
    health = many["health_during_import"]
    print(f"saturation: 1 worker {one['saturation_rps']} req/s, {args.workers} workers {many['saturation_rps']} "
          f"req/s: {many['speedup']}x (the request workers, the extraction starved)")
    for run in (one, many):
        top = max(run["ladder"], key=lambda s: s["throughput_rps"])
        print(f"  at {run['workers']} worker(s)' saturation: the machine's {top['cores']['cores']} cores "
              f"{top['cores']['machine']:.2f} busy, the load generator {top['cores']['generator']:.2f} of them")
    print(f"sustained (requests and extraction keeping up): 1 worker {one['sustained_rps']} req/s, "
          f"{args.workers} workers {many['sustained_rps']} req/s")
    after = hold["extraction_after"]
    print(f"at 70% of the {args.workers}-worker {args.hold_basis} saturation ({hold['offered_rps']:.0f}/s): "
          f"{hold['throughput_rps']} req/s, errors {sum(hold['errors'].values())}; extraction after it: "
          f"{after['depth']:.0f} queued, {after['due']:.0f} due, the oldest due waiting {after['oldest_due_s']} s: "
          f"{'kept up' if hold['extraction_kept_up'] else 'fell behind'} (drained in {hold['extraction_drain_s']} s)")
    for kind, p in hold["latency_ms"].items():
        print(f"  {kind:<9} n={p['n']:>6}  p50 {p['p50']:>7.2f} ms  p95 {p['p95']:>7.2f} ms  p99 {p['p99']:>7.2f} ms")
        app, outside = hold["app_ms"].get(kind), hold["outside_app_ms"].get(kind)
        if app and outside:  # where the latency came from: the application, or waiting outside it
            print(f"  {'':<9} in the app       p50 {app['p50']:>7.2f} ms  p95 {app['p95']:>7.2f} ms  "
                  f"p99 {app['p99']:>7.2f} ms")
            print(f"  {'':<9} outside the app  p50 {outside['p50']:>7.2f} ms  p95 {outside['p95']:>7.2f} ms  "
                  f"p99 {outside['p99']:>7.2f} ms")
    print(f"/health during a {health['import_items']}-item import ({health['import_s']} s): "
          f"p50 {health['health_ms']['p50']} ms, p99 {health['health_ms']['p99']} ms (n={health['health_ms']['n']})")
    single = many["single_client_retrieve_ms"]
    print(f"single client, retrieve (idle): p50 {single['p50']} ms, p99 {single['p99']} ms; in the app: "
          f"p50 {single['app_ms']['p50']} ms, p99 {single['app_ms']['p99']} ms")
    floor = single["health_ms"]
    print(f"  idle: {single['queued_before']:.0f} extraction jobs queued before it, the jobs process used "
          f"{single['jobs_cpu_s']} s of CPU in its {single['seconds']} s; the same client on /health: "
          f"p50 {floor['p50']} ms, in the app p50 {floor['app_ms']['p50']} ms")
    targets = {"speedup>=1.6": many["speedup"] >= 1.6, "retrieve_p99_at_70%<=25ms": retrieve.get("p99", 1e9) <= 25,
               "health_p99_during_import<=50ms": health["health_ms"]["p99"] <= 50}
    report["targets"] = targets
    print("targets:", json.dumps(targets))
    name = "serve_load" if args.mix == "chat" else f"serve_load_{args.mix}"
    write_result(name if args.threads == 1 else f"{name}_threads{args.threads}", report)
    if args.figures:
        figures(report, Path(args.figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
