"""kill -9 of `mnemo serve` (the server and all of its worker processes) in the middle of extraction
and of consolidation, then a restart; and kill -9 of the one worker running the background jobs
while the others keep serving: no lost turns, no duplicate memories, no half-written records.

Each test first makes the same work run to completion without faults (the reference), then
kills the server once the work is under way (its first record written, then later ones) until a
kill lands mid-work (some of the work done, not all), restarts it on the same data and lets it
finish; the result must equal the reference, and SQLite must pass its integrity check with every
sealed record readable."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from mnemo.bootstrap import build_local, run_due_jobs
from mnemo.domain.models import Status
from mnemo.settings import Settings
from tests.conftest import ApiClient
from tests.e2e.conftest import Server, start_server, stop_server, wait_until_released

TENANT = "tenant_a"
# a kill lands once this many records of the work are written: the first, then later ones (the kill is
# tried again at the next when the work had already finished by the time it landed)
MILESTONES = (1, 0.25, 0.5)
CITIES = ["Lisbon", "Oslo", "Quito", "Hanoi", "Perth", "Accra", "Lyon", "Cork"]
JOBS = ["nurse", "pilot", "baker", "lawyer", "plumber", "architect", "teacher", "chemist"]
PETS = ["Rex", "Miso", "Pip", "Luna", "Taco", "Nemo", "Olive", "Ziggy"]
FOODS = ["peanuts", "shellfish", "sesame", "gluten", "eggs", "soy", "kiwi", "mustard"]


def kill(server: Server) -> None:
    """kill -9 of the whole server: the arbiter and every worker."""
    os.killpg(server.process.pid, signal.SIGKILL)
    server.process.wait(timeout=10)
    if server.process.stdout:
        server.process.stdout.close()
    wait_until_released(server.data_dir)


def kill_under_way(data_dir: Path, where: str, at_least: int, kill_it: Any, timeout: float = 120.0) -> int:
    """Kill once at least ``at_least`` records match ``where`` (the work is under way), and return how many
    did by then. Waiting for the work itself rather than a fixed delay: on a busy machine a fixed delay
    landed before the work had started, or after it had ended, at every delay tried."""
    deadline = time.monotonic() + timeout
    while count(data_dir, where) < at_least and time.monotonic() < deadline:
        time.sleep(0.005)
    kill_it()
    return count(data_dir, where)


def milestones(total: int) -> list[int]:
    return [max(1, int(m * total)) if isinstance(m, float) else m for m in MILESTONES]


def jobs_worker(data_dir: Path) -> int:
    """The pid of the worker holding the jobs lock (it writes its pid into the lock file)."""
    text = (data_dir / "run" / "jobs.lock").read_text().split()
    return int(text[0])


def settings_for(data_dir: Path) -> Settings:
    return Settings(data_dir=data_dir)


def snapshot(data_dir: Path) -> dict[str, Any]:
    """Per user: live contents (as a multiset), and counts by status; every record is opened."""
    with sqlite3.connect(data_dir / "mnemo.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    service = build_local(settings_for(data_dir))
    try:
        out: dict[str, Any] = {}
        for user in service.ports.memories.users(TENANT):
            memories = list(service.ports.memories.all_for_user(TENANT, user))  # decrypts every one
            live = sorted(m.content for m in memories if m.status in (Status.ACTIVE, Status.PROBATIONARY))
            assert len(live) == len(set(live)), f"duplicate memories for {user}"
            statuses: dict[str, int] = {}
            for m in memories:
                statuses[m.status.value] = statuses.get(m.status.value, 0) + 1
            out[user] = {"live": live, "statuses": statuses}
        return out
    finally:
        service.close()


def count(data_dir: Path, where: str) -> int:
    with sqlite3.connect(data_dir / "mnemo.db") as conn:
        return int(conn.execute(f"SELECT count(*) FROM memories WHERE {where}").fetchone()[0])


# -- extraction ----------------------------------------------------------------------------------------
def conversation(user: int) -> list[str]:
    k = user % 8
    return [f"I live in {CITIES[k]}.", "What's the weather like?", f"I work as a {JOBS[(k + 1) % 8]}.",
            f"My dog is called {PETS[(k + 2) % 8]}.", "Thanks!", f"I'm allergic to {FOODS[(k + 3) % 8]}.",
            "I prefer short answers.", f"I'm learning to play the {['cello', 'flute', 'drums'][user % 3]}."]


def post_turns(call: Any, users: int) -> None:
    for u in range(users):
        messages = [{"role": "user", "content": text, "message_id": f"u{u}-m{i}"}
                    for i, text in enumerate(conversation(u))]
        status, _ = call("POST", f"/v1/users/user{u:02d}/turns", {"conversation_id": "c1", "messages": messages})
        assert status == 202


def close_all(call: Any, users: int) -> None:
    for u in range(users):
        assert call("POST", f"/v1/users/user{u:02d}/conversations/c1/close")[0] == 202


QUIET = {"MNEMO_DEBOUNCE_QUIET_SECONDS": "900", "MNEMO_DEBOUNCE_TURNS": "100"}  # nothing runs before the close


def extraction_reference(tmp_path: Path, users: int) -> tuple[dict[str, Any], int]:
    reference_dir = tmp_path / "reference"
    service = build_local(settings_for(reference_dir))
    api = ApiClient(service, TENANT)
    post_turns(api.call, users)
    close_all(api.call, users)
    run_due_jobs(service)
    service.close()
    expected = snapshot(reference_dir)
    total = sum(len(v["live"]) for v in expected.values())
    assert total >= users * 5
    return expected, total


def test_a_kill_during_extraction_loses_no_turn_and_duplicates_no_memory(tmp_path: Path) -> None:
    users = 24
    expected, total = extraction_reference(tmp_path, users)
    quiet = QUIET
    landed = None
    for at_least in milestones(total):
        data_dir = tmp_path / f"killed-{at_least}"
        server = start_server(data_dir, quiet)
        post_turns(server.call, users)
        close_all(server.call, users)  # the worker starts extracting now
        done = kill_under_way(data_dir, "1=1", at_least, lambda s=server: kill(s))
        if 0 < done < total:
            landed = data_dir
            break
    assert landed is not None, "no kill landed in the middle of extraction"

    server = start_server(landed, quiet)  # the durable queue still holds the jobs
    try:
        server.wait_for(lambda: count(landed, "status IN ('active', 'probationary')") >= total, timeout=60)
        time.sleep(0.5)  # anything still running would now show as an extra memory
    finally:
        stop_server(server)
    assert snapshot(landed) == expected


def test_a_killed_jobs_worker_is_replaced_and_its_extraction_finished_by_another(tmp_path: Path) -> None:
    users = 24
    expected, total = extraction_reference(tmp_path, users)
    for at_least in milestones(total):
        data_dir = tmp_path / f"worker-killed-{at_least}"
        server = start_server(data_dir, QUIET)
        try:
            post_turns(server.call, users)
            leader = jobs_worker(data_dir)
            close_all(server.call, users)  # the jobs worker starts extracting now
            done = kill_under_way(data_dir, "1=1", at_least, lambda pid=leader: os.kill(pid, signal.SIGKILL))
            if not 0 < done < total:
                continue
            # the server lives on: another worker takes the jobs over and finishes from the durable queue
            server.wait_for(lambda d=data_dir: count(d, "status IN ('active', 'probationary')") >= total, timeout=60)
            assert jobs_worker(data_dir) != leader
            assert server.call("GET", "/health")[0] == 200
            time.sleep(0.5)  # anything still running would now show as an extra memory
        finally:
            stop_server(server)
        assert snapshot(data_dir) == expected
        return
    raise AssertionError("no kill landed in the middle of extraction")


def test_sigterm_during_extraction_ends_cleanly_and_a_restart_finishes(tmp_path: Path) -> None:
    """A graceful stop mid-extraction: the job in progress completes, the rest stays queued."""
    users = 24
    expected, total = extraction_reference(tmp_path, users)
    data_dir = tmp_path / "terminated"
    server = start_server(data_dir, QUIET)
    post_turns(server.call, users)
    close_all(server.call, users)
    time.sleep(0.3)
    assert stop_server(server) == 0  # SIGTERM, then a clean exit
    server = start_server(data_dir, QUIET)
    try:
        server.wait_for(lambda: count(data_dir, "status IN ('active', 'probationary')") >= total, timeout=60)
        time.sleep(0.5)
    finally:
        stop_server(server)
    assert snapshot(data_dir) == expected


# -- consolidation ---------------------------------------------------------------------------------------
def episodes(users: int) -> list[dict[str, Any]]:
    items = []
    for u in range(users):
        for i in range(55):
            month, day = 9 + i // 28, 1 + i % 28
            items.append({"user_id": f"user{u:02d}", "category": "episodic",
                          "content": f"On {month}/{day} at 7:{i:02d} user ran {3 + (i * 7 + u) % 12} km by the river.",
                          "created_at": f"2026-{month:02d}-{day:02d}T07:{i:02d}:00Z"})
    return items


def test_a_kill_during_consolidation_is_completed_by_the_next_run(tmp_path: Path) -> None:
    users = 20
    base = tmp_path / "base"
    source = tmp_path / "episodes.json"
    source.write_text(json.dumps(episodes(users)))
    env = dict(os.environ)
    imported = subprocess.run([sys.executable, "-m", "mnemo.cli", "import", str(source), "--tenant", TENANT,
                               "--data-dir", str(base)], capture_output=True, text=True, timeout=300, env=env,
                              check=False)
    assert imported.returncode == 0, imported.stderr[-2000:]

    reference = tmp_path / "reference"
    shutil.copytree(base, reference)
    service = build_local(settings_for(reference))
    assert service.consolidator.run(TENANT).totals.summaries > 0
    service.close()
    expected = snapshot(reference)
    summaries = count(reference, "category = 'summary'")

    landed = None
    for at_least in milestones(summaries):
        data_dir = tmp_path / f"killed-{at_least}"
        shutil.copytree(base, data_dir)
        server = start_server(data_dir)
        request = threading.Thread(target=lambda s=server: _quietly(s.call, "POST", "/v1/admin/consolidate", {}))
        request.start()
        done = kill_under_way(data_dir, "category = 'summary'", at_least, lambda s=server: kill(s))
        request.join(timeout=30)
        if 0 < done < summaries:
            landed = data_dir
            break
    assert landed is not None, "no kill landed in the middle of consolidation"

    server = start_server(landed)
    try:
        status, _ = server.call("POST", "/v1/admin/consolidate", {})
        assert status == 200
    finally:
        stop_server(server)
    assert snapshot(landed) == expected


def _quietly(call: Any, *args: Any) -> None:
    with contextlib.suppress(OSError):  # the server died under the request: that is the point
        call(*args)
