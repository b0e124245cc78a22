"""Parallel writes for one user (supersession races, identical restatements) and parallel traffic
across users keep every invariant, in both homes (the AWS home serialises a user's writes with a
DynamoDB lease, the embedded one with a lock and SQLite transactions)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mnemo.bootstrap import Mnemo
from mnemo.domain.models import Category, SourceKind, Status
from mnemo.services.writing import NewFact
from mnemo.settings import Settings
from tests.conftest import ApiClient

CITIES = ["Lisbon", "Berlin", "Paris", "Madrid", "Rome", "Oslo"]


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    # invariants, not latency: 24 writers queue on four users' leases, each write several HTTP round
    # trips to the OpenSearch fake in this process; on a loaded machine the last in a queue can wait
    # past the 20 s a Lambda waits (where it would answer 429 and its SQS message be retried)
    return Settings(data_dir=tmp_path / "data", user_lock_wait_seconds=120)


def lives_in(city: str, day: int) -> NewFact:
    return NewFact(content=f"User lives in {city}.", category=Category.BIOGRAPHICAL, subject="location",
                   confidence=0.9, source=SourceKind.EXTRACTED, occurred_at=datetime(2026, 1, day, tzinfo=UTC))


def check_user(service: Mnemo, user: str) -> None:
    memories = {m.memory_id: m for m in service.ports.memories.all_for_user("t", user)}
    active = [m for m in memories.values() if m.status is Status.ACTIVE and m.subject == "location"]
    assert [m.content for m in active] == [f"User lives in {CITIES[-1]}."]  # the latest event, whatever the order
    contents = [m.content for m in memories.values() if m.subject == "location"]
    assert sorted(contents) == sorted(f"User lives in {c}." for c in CITIES)  # each city once: no duplicate
    for m in memories.values():
        if m.status is Status.SUPERSEDED:
            assert m.superseded_by in memories  # the chain points at a memory that exists
    tea = [m for m in memories.values() if m.subject == "likes:tea"]
    assert len(tea) == 1  # six identical restatements at once: one memory


def test_parallel_writers_on_many_users_keep_every_invariant(service: Mnemo) -> None:
    users = [f"u{i}" for i in range(4)]
    jobs = [(u, i) for u in users for i in range(len(CITIES))]
    barrier = threading.Barrier(len(jobs))

    def write(job: tuple[str, int]) -> None:
        user, i = job
        barrier.wait()
        service.writer.write("t", user, [lives_in(CITIES[i], i + 1)])
        service.writer.write("t", user, [NewFact(
            content="User likes green tea.", category=Category.PREFERENCE, subject="likes:tea", confidence=0.8,
            source=SourceKind.EXTRACTED, occurred_at=datetime(2026, 2, 1, tzinfo=UTC))])

    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        list(pool.map(write, jobs))
    for user in users:
        check_user(service, user)


def test_parallel_http_traffic_across_users_keeps_them_apart(api: ApiClient) -> None:
    users = [f"p{i}" for i in range(6)]

    def session(user: str) -> list[int]:
        statuses = [api.call("POST", f"/v1/users/{user}/memories", {"content": f"My locker code name is {user}x."})[0]]
        for i in range(4):
            statuses.append(api.call("POST", f"/v1/users/{user}/turns", {"conversation_id": "c", "messages": [
                {"role": "user", "content": f"I have {i + 2} cats.", "message_id": f"{user}-{i}"}]})[0])
            statuses.append(api.call("POST", f"/v1/users/{user}/retrieve", {"query": "my locker"})[0])
        return statuses

    with ThreadPoolExecutor(max_workers=len(users)) as pool:
        results = list(pool.map(session, users))
    assert all(s in (200, 201, 202) for statuses in results for s in statuses)
    for user in users:
        listed = api.call("GET", f"/v1/users/{user}/memories?limit=50")[1]["items"]
        assert [m["content"] for m in listed] == [f"My locker code name is {user}x."]
