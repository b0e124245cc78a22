"""Two services over one data directory, as two workers of `mnemo serve` are: each keeps its own
caches, and what one writes or erases is what the other reads next."""

from __future__ import annotations

import logging
import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mnemo.adapters.local.file_locks import ExclusiveFile, FileUserLocks, lock_data_dir
from mnemo.bootstrap import Mnemo, build_local
from mnemo.clock import ManualClock
from mnemo.domain.models import Status
from mnemo.errors import ConfigurationError
from mnemo.ports import Embedder
from mnemo.settings import Settings
from tests.conftest import ApiClient


@pytest.fixture
def two_workers(settings: Settings, clock: ManualClock, embedder: Embedder) -> Iterator[tuple[ApiClient, ApiClient]]:
    first: Mnemo = build_local(settings, clock=clock, embedder=embedder)
    second: Mnemo = build_local(settings, clock=clock, embedder=embedder)
    yield ApiClient(first), ApiClient(second)
    first.close()
    second.close()


def found(api: ApiClient, user: str) -> list[str]:
    status, body = api.call("POST", f"/v1/users/{user}/search", {"query": "where do I live", "top_k": 20})
    assert status == 200
    return sorted(m["content"] for m in body["items"])


def test_an_erase_by_one_worker_empties_the_other_workers_cached_index(
        two_workers: tuple[ApiClient, ApiClient]) -> None:
    a, b = two_workers
    assert a.call("POST", "/v1/users/u1/memories", {"content": "I live in Lisbon."})[0] == 201
    assert found(a, "u1") == ["I live in Lisbon."]  # a caches u1's index
    assert b.call("DELETE", "/v1/users/u1")[0] == 204
    assert found(a, "u1") == []
    # and after the erase, a new life for the same id: a sees it, not the old one
    assert b.call("POST", "/v1/users/u1/memories", {"content": "I live in Oslo."})[0] == 201
    assert found(a, "u1") == ["I live in Oslo."]


def test_writes_of_one_worker_reach_the_other(two_workers: tuple[ApiClient, ApiClient]) -> None:
    a, b = two_workers
    for n, city in enumerate(["Lisbon", "Oslo", "Quito"]):
        writer, reader = (a, b) if n % 2 == 0 else (b, a)
        assert writer.call("POST", "/v1/users/u2/memories", {"content": f"I live in {city}."})[0] == 201
        assert found(reader, "u2") == [f"I live in {city}."]  # the newer city superseded the old one


def _opened_rows(service: Mnemo) -> list[str]:
    """The memory rows this service's store opens (decrypts and parses) from now on, by id."""
    store = service.ports.memories._m  # type: ignore[attr-defined]  # the SQLite store under the profile tracking
    opened: list[str] = []
    open_row = store._open

    def counted(tenant_id: str, user_id: str, memory_id: str, sealed: bytes, embedding: bytes | None) -> Any:
        opened.append(memory_id)
        return open_row(tenant_id, user_id, memory_id, sealed, embedding)

    store._open = counted
    return opened


def test_a_worker_reads_only_what_another_worker_wrote_since_its_cached_index(
        two_workers: tuple[ApiClient, ApiClient]) -> None:
    a, b = two_workers
    facts = ["I live in Lisbon.", "I work as a nurse.", "My dog is called Rex.", "I go climbing on weekends.",
             "I'm learning the cello.", "I have two kids."]
    for fact in facts:
        assert a.call("POST", "/v1/users/u3/memories", {"content": fact})[0] == 201
    assert found(b, "u3") == sorted(facts)  # b caches u3's index
    opened = _opened_rows(b.service)
    status, body = a.call("POST", "/v1/users/u3/memories", {"content": "I'm allergic to peanuts."})
    assert status == 201
    assert found(b, "u3") == sorted([*facts, "I'm allergic to peanuts."])
    # the one row written since, not the user's seven again (each worker paid that after every write elsewhere)
    assert opened == [body["memory"]["memory_id"]]


def test_a_cached_index_follows_every_kind_of_change_another_worker_makes(
        two_workers: tuple[ApiClient, ApiClient], settings: Settings, clock: ManualClock, embedder: Embedder) -> None:
    a, b = two_workers

    def memories(api: ApiClient) -> list[tuple[str, str]]:
        status, body = api.call("POST", "/v1/users/u4/search", {"query": "what do I do", "top_k": 50})
        assert status == 200
        return sorted((m["memory_id"], m["content"]) for m in body["items"])

    def as_stored() -> list[tuple[str, str]]:  # what a worker without a cached index reads
        fresh = build_local(settings, clock=clock, embedder=embedder)
        try:
            return memories(ApiClient(fresh))
        finally:
            fresh.close()

    ids = []
    for fact in ["I live in Lisbon.", "I work as a nurse.", "My dog is called Rex.", "I go climbing on weekends."]:
        status, body = a.call("POST", "/v1/users/u4/memories", {"content": fact})
        assert status == 201
        ids.append(body["memory"]["memory_id"])
    steps = [
        ("POST", "/v1/users/u4/memories", {"content": "I live in Oslo."}),  # supersedes Lisbon
        ("PATCH", f"/v1/users/u4/memories/{ids[1]}", {"content": "I work as a pilot."}),  # an edit
        ("PATCH", f"/v1/users/u4/memories/{ids[2]}", {"status": "disabled"}),  # out of the live set
        ("DELETE", f"/v1/users/u4/memories/{ids[3]}", None),  # a row removed
        ("POST", "/v1/users/u4/memories", {"content": "I'm learning the cello."}),
        ("PATCH", f"/v1/users/u4/memories/{ids[2]}", {"status": "active"}),  # back in
    ]
    assert memories(b) == as_stored()  # b caches the index
    for method, path, payload in steps:
        status, _ = a.call(method, path, payload)
        assert status in {200, 201, 204}, (method, path, status)
        assert memories(b) == as_stored(), (method, path)
    # and the other way round: a's own index, kept up to date by its own writes, follows b's
    assert b.call("POST", "/v1/users/u4/memories", {"content": "I have two kids."})[0] == 201
    assert memories(a) == as_stored()


def _hold(path: str, started: Any, release: Any) -> None:
    locks = FileUserLocks(Path(path))
    with locks.hold("t", "u"):
        started.set()
        release.wait(30)


def test_the_user_lock_excludes_another_process(tmp_path: Path) -> None:
    import threading

    path = tmp_path / "users.lock"
    context = multiprocessing.get_context("fork")
    started, release = context.Event(), context.Event()
    holder = context.Process(target=_hold, args=(str(path), started, release))
    holder.start()
    assert started.wait(30)
    locks = FileUserLocks(path)
    got = threading.Event()

    def take() -> None:
        with locks.hold("t", "u"):
            got.set()

    taker = threading.Thread(target=take)
    taker.start()
    assert not got.wait(0.5), "the lock was taken while another process held it"
    other = next(f"user-{n}" for n in range(100) if locks.stripe("t", f"user-{n}") != locks.stripe("t", "u"))
    with locks.hold("t", other):  # another user is not held up
        pass
    release.set()
    assert got.wait(30)
    taker.join()
    holder.join()


def _write_and_hold(path: str, seconds: float, started: Any, released_at: Any) -> None:
    from mnemo.adapters.local.sqlite_db import Database

    db = Database(Path(path))
    with db.write() as conn:
        conn.execute("INSERT INTO vault_meta VALUES (?, 'by another process')", (f"held-{time.time_ns()}",))
        started.set()
        time.sleep(seconds)
        released_at.value = time.monotonic()  # the monotonic clock is the machine's, shared by processes


def test_a_write_waits_for_another_processs_transaction_and_starts_as_soon_as_it_ends(tmp_path: Path) -> None:
    from mnemo.adapters.local.sqlite_db import Database
    from mnemo.errors import BackendUnavailable

    path = tmp_path / "mnemo.db"
    impatient, patient = Database(path, busy_timeout_ms=50), Database(path)
    context = multiprocessing.get_context("fork")

    def held(seconds: float) -> tuple[Any, Any, Any]:
        started, released_at = context.Event(), context.Value("d", 0.0)
        holder = context.Process(target=_write_and_hold, args=(str(path), seconds, started, released_at))
        holder.start()
        assert started.wait(30)
        return holder, released_at, started

    holder, _, _ = held(0.2)
    with pytest.raises(BackendUnavailable), impatient.write():  # past its busy timeout: 503, not a hang
        pass
    holder.join(30)
    holder, released_at, _ = held(0.24)
    with patient.write() as conn:
        began = time.monotonic()
        conn.execute("INSERT INTO vault_meta VALUES ('next', 'after it')")
    holder.join(30)
    assert released_at.value > 0
    assert began >= released_at.value, "a write ran inside another process's transaction"
    # SQLite's own busy wait tries at 228 ms, then at 328 (its sleeps are 100 ms long by then)
    assert began - released_at.value < 0.04, f"started {1000 * (began - released_at.value):.1f} ms after the release"
    with Database(path).read() as conn:
        assert conn.execute("SELECT value FROM vault_meta WHERE name='next'").fetchone() == ("after it",)


def test_the_user_lock_is_reentrant_and_excludes_threads(tmp_path: Path) -> None:
    import threading

    locks = FileUserLocks(tmp_path / "users.lock")
    inside, most = [0], [0]
    guard = threading.Lock()

    def work() -> None:
        with locks.hold("t", "u"), locks.hold("t", "u"):  # nested holds of one thread do not deadlock
            with guard:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            time.sleep(0.02)
            with guard:
                inside[0] -= 1

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most[0] == 1


def test_a_data_directory_has_one_server(tmp_path: Path) -> None:
    held = lock_data_dir(tmp_path)
    context = multiprocessing.get_context("fork")
    queue = context.Queue()

    def second() -> None:
        try:
            lock_data_dir(tmp_path)
            queue.put("started")
        except ConfigurationError as exc:
            queue.put(exc.message)

    process = context.Process(target=second)
    process.start()
    process.join(20)
    message = queue.get(timeout=5)
    assert "already served by mnemo serve (pid" in message
    held.release()
    assert ExclusiveFile(tmp_path / "serve.lock").try_acquire()


def test_a_logged_fallback_is_counted() -> None:
    from mnemo import metrics

    logger = logging.getLogger("mnemo.test_fallback")
    handler = metrics.FallbackCounter()
    logger.addHandler(handler)
    try:
        before = metrics.FALLBACKS.labels(component="bedrock:record_facts")._value.get()
        logger.warning("Bedrock call failed; the rules take over", extra={"fallback": "bedrock:record_facts"})
        logger.warning("unrelated")
        assert metrics.FALLBACKS.labels(component="bedrock:record_facts")._value.get() == before + 1
    finally:
        logger.removeHandler(handler)


def _priority_inside_the_locks(path: str, out: Any) -> None:
    import fcntl
    import threading

    from mnemo.adapters.local import priority
    from mnemo.adapters.local.sqlite_db import Database

    db = Database(Path(path) / "mnemo.db")
    locks = FileUserLocks(Path(path) / "users.lock")
    tid = threading.get_native_id()
    released: dict[str, tuple[int, int]] = {}  # the thread's policy as each lock is given back
    lockf, flock = fcntl.lockf, fcntl.flock

    def lockf_seen(fd: int, cmd: int, *args: int) -> None:
        if cmd == fcntl.LOCK_UN:
            released["user"] = priority.thread_policy()
        lockf(fd, cmd, *args)

    def flock_seen(fd: int, cmd: int) -> None:
        if cmd == fcntl.LOCK_UN:
            released["write"] = priority.thread_policy()
        flock(fd, cmd)

    fcntl.lockf, fcntl.flock = lockf_seen, flock_seen  # this child process only
    base = os.getpriority(os.PRIO_PROCESS, tid)
    os.nice(10)  # as the jobs process does
    out[0] = int(priority.configure(idle=True, own_nice=os.getpriority(os.PRIO_PROCESS, tid), write_nice=base))
    out[1], out[2] = priority.thread_policy()  # outside any lock
    with locks.hold("t", "u"):
        out[3], out[4] = priority.thread_policy()  # holding a user's lock
        with db.write():
            out[5], out[6] = priority.thread_policy()  # and the write lock inside it
        out[7], out[8] = priority.thread_policy()
    out[9], out[10] = priority.thread_policy()
    out[11] = base
    started: list[tuple[int, int]] = []  # a thread started afterwards inherits the base policy
    thread = threading.Thread(target=lambda: started.append(priority.thread_policy()))
    thread.start()
    thread.join()
    out[12], out[13] = started[0]
    out[14], out[15] = released["user"]
    out[16], out[17] = released["write"]


def test_the_jobs_process_runs_idle_but_holds_each_lock_at_a_priority_a_request_can_wait_for(
        tmp_path: Path) -> None:
    from mnemo.adapters.local import priority

    context = multiprocessing.get_context("fork")
    out = context.Array("i", [-99] * 18)
    child = context.Process(target=_priority_inside_the_locks, args=(str(tmp_path), out))
    child.start()
    child.join(30)
    assert child.exitcode == 0
    idle, outside, user_lock, write_lock, after_write, after, base, started = (
        out[0], tuple(out[1:3]), tuple(out[3:5]), tuple(out[5:7]), tuple(out[7:9]), tuple(out[9:11]), out[11],
        tuple(out[12:14]))
    user_release, write_release = tuple(out[14:16]), tuple(out[16:18])
    own = min(base + 10, 19)
    if not priority.idle_supported(base):  # no privilege to come back out of SCHED_IDLE: nice values only
        assert idle == 0
        assert outside == after == (os.SCHED_OTHER, own)
        return
    assert idle == 1
    assert outside == after == started == (os.SCHED_IDLE, own)
    assert user_lock == after_write == (os.SCHED_OTHER, own)  # an ordinary thread at its own nice
    assert write_lock == (os.SCHED_OTHER, base)  # at the request workers' priority
    # and each lock is given back before the thread drops to idle: preempted just before its unlock, an idle
    # holder would keep every waiting worker waiting
    assert user_release == user_lock
    assert write_release == write_lock


def test_a_thread_reading_a_cached_index_while_another_catches_it_up_reads_it_whole(
        two_workers: tuple[ApiClient, ApiClient]) -> None:
    """b's cached index of a user catches up in place on a's writes (in whichever of b's threads reads first):
    another thread of b reading the live memories meanwhile (a page of them, a write's facts by subject) reads
    them as of one moment, not a dict that changes size under its loop."""
    a, b = two_workers
    for i in range(200):
        assert a.call("POST", "/v1/users/u5/memories", {"content": f"Fact number {i} about thing {i * 7}."})[0] == 201
    store = b.service.ports.memories
    tenant = b.tenant
    store.page(tenant, "u5", statuses=[Status.ACTIVE], category=None, limit=5, cursor=None)  # b caches the index
    failures: list[BaseException] = []
    stop = time.monotonic() + 3

    def read() -> None:
        while time.monotonic() < stop and not failures:
            try:
                store.page(tenant, "u5", statuses=[Status.ACTIVE], category=None, limit=5, cursor=None)
                store.by_subject(tenant, "u5", ["nothing"])
            except Exception as exc:  # what a request in that thread would answer with a 500
                failures.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns often, as on a loaded machine
    try:
        readers = [threading.Thread(target=read) for _ in range(2)]
        for reader in readers:
            reader.start()
        i = 0
        while time.monotonic() < stop and not failures:
            assert a.call("POST", "/v1/users/u5/memories", {"content": f"Another fact {i}, words {i * 3}."})[0] == 201
            i += 1
        for reader in readers:
            reader.join()
    finally:
        sys.setswitchinterval(interval)
    assert failures == []
