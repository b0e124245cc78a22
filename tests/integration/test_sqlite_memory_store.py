"""The SQLite memory store for real: sealing at rest, filters, paging, isolation."""

from __future__ import annotations

import os
import stat
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

from mnemo.adapters.local.key_file_vault import KeyFileVault, load_or_create_master_key
from mnemo.adapters.local.sqlite_db import Database
from mnemo.adapters.local.sqlite_memory_store import SqliteMemoryStore
from mnemo.clock import ManualClock
from mnemo.crypto import SealError, UserCipher
from mnemo.domain.models import Category, Memory, Scope, Status
from mnemo.errors import ConfigurationError
from mnemo.ports import SearchRequest

DIM = 384


def vec(seed: int) -> list[float]:
    v = np.random.default_rng(seed).normal(size=DIM).astype(np.float32)
    return (v / np.linalg.norm(v)).tolist()


@pytest.fixture
def parts(tmp_path: Path, clock: ManualClock):
    db = Database(tmp_path / "m.db")
    vault = KeyFileVault(db, tmp_path / "master.key", clock)
    store = SqliteMemoryStore(db, UserCipher(vault), DIM)
    return db, vault, store


def mem(clock: ManualClock, mid: str, content: str, *, tenant: str = "t1", user: str = "u1", seed: int = 0,
        status: Status = Status.ACTIVE, scope: Scope = Scope.USER, project: str | None = None,
        expires_in: timedelta | None = None) -> Memory:
    now = clock.now()
    return Memory(memory_id=mid, tenant_id=tenant, user_id=user, category=Category.PREFERENCE, subject=f"s:{mid}",
                  content=content, confidence=0.9, created_at=now, updated_at=now, last_confirmed_at=now,
                  status=status, scope=scope, project_id=project, embedding=vec(seed),
                  expires_at=now + expires_in if expires_in else None, metadata={"app_id": "x-17"})


def request(clock: ManualClock, seed: int, **kw) -> SearchRequest:
    return SearchRequest(vector=np.asarray(vec(seed), dtype=np.float32), terms=[], limit=10, now=clock.now(), **kw)


def test_nothing_of_the_users_text_is_in_the_database_file(parts, clock, tmp_path: Path) -> None:
    db, _, store = parts
    store.save([mem(clock, "a", "User secretly adores pineapple pizza", seed=1)])
    db.checkpoint()
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("m.db*"))
    assert b"pineapple" not in raw
    assert b"x-17" not in raw  # metadata is sealed too
    assert store.get("t1", "u1", "a").content == "User secretly adores pineapple pizza"


def test_master_key_file_is_private_and_checked(tmp_path: Path) -> None:
    path = tmp_path / "k"
    load_or_create_master_key(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    os.chmod(path, 0o644)
    with pytest.raises(ConfigurationError):
        load_or_create_master_key(path)


def test_other_users_and_tenants_see_nothing(parts, clock) -> None:
    _, _, store = parts
    store.save([mem(clock, "a", "mine", seed=1)])
    assert store.get("t2", "u1", "a") is None
    assert store.get("t1", "u2", "a") is None
    assert store.search("t2", "u1", request(clock, 1)) == []
    assert store.search("t1", "u1", request(clock, 1))[0].memory.memory_id == "a"


def test_search_filters_status_expiry_and_scope(parts, clock) -> None:
    _, _, store = parts
    store.save([
        mem(clock, "live", "live", seed=1),
        mem(clock, "old", "old", seed=1, status=Status.SUPERSEDED),
        mem(clock, "soon", "soon", seed=1, expires_in=timedelta(hours=1)),
        mem(clock, "proj", "proj", seed=1, scope=Scope.PROJECT, project="p1"),
    ])
    ids = {h.memory.memory_id for h in store.search("t1", "u1", request(clock, 1))}
    assert ids == {"live", "soon"}
    clock.advance(hours=2)
    ids = {h.memory.memory_id for h in store.search("t1", "u1", request(clock, 1, project_id="p1"))}
    assert ids == {"live", "proj"}
    ids = {h.memory.memory_id for h in store.search("t1", "u1", request(clock, 1, project_id="p2"))}
    assert ids == {"live"}


def test_similarity_orders_results(parts, clock) -> None:
    _, _, store = parts
    store.save([mem(clock, f"m{i}", f"m{i}", seed=i) for i in range(20)])
    best = store.similar("t1", "u1", np.asarray(vec(7), dtype=np.float32), 3)
    assert best[0][0].memory_id == "m7"
    assert best[0][1] == pytest.approx(1.0, abs=1e-5)


def test_paging_walks_every_memory_once(parts, clock) -> None:
    _, _, store = parts
    for i in range(25):
        store.save([mem(clock, f"m{i:02d}", f"c{i}", seed=i)])
        clock.advance(seconds=1)
    seen, cursor = [], None
    while True:
        page = store.page("t1", "u1", statuses=None, category=None, limit=10, cursor=cursor)
        seen += [m.memory_id for m in page.items]
        if not page.next_cursor:
            break
        cursor = page.next_cursor
    assert seen == [f"m{i:02d}" for i in reversed(range(25))]


def test_destroying_the_key_makes_sealed_data_unreadable(parts, clock, tmp_path: Path) -> None:
    db, vault, _ = parts
    store = SqliteMemoryStore(db, UserCipher(vault), DIM)
    store.save([mem(clock, "a", "private", seed=1)])
    vault.destroy("t1", "u1")
    fresh = SqliteMemoryStore(db, UserCipher(KeyFileVault(db, tmp_path / "master.key", clock)), DIM)
    with pytest.raises(SealError):
        fresh.get("t1", "u1", "a")


def test_index_follows_writes_from_another_store_instance(parts, clock, tmp_path: Path) -> None:
    db, vault, store = parts
    store.save([mem(clock, "a", "first", seed=1)])
    assert len(store.search("t1", "u1", request(clock, 1))) == 1
    other = SqliteMemoryStore(db, UserCipher(vault), DIM)  # e.g. `mnemo import` in another process
    other.save([mem(clock, "b", "second", seed=2)])
    assert {h.memory.memory_id for h in store.search("t1", "u1", request(clock, 2))} == {"a", "b"}
