"""The SQLite memory store for real: sealing at rest, key handling, cross-process freshness.

Isolation, filters, similarity and paging are in the MemoryStore contract (tests/contract), run
against both homes.
"""

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
from mnemo.crypto import UserCipher
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


def test_destroying_the_key_makes_sealed_data_unreadable(parts, clock, tmp_path: Path) -> None:
    db, vault, _ = parts
    store = SqliteMemoryStore(db, UserCipher(vault), DIM)
    store.save([mem(clock, "a", "private", seed=1)])
    vault.destroy("t1", "u1")
    fresh = SqliteMemoryStore(db, UserCipher(KeyFileVault(db, tmp_path / "master.key", clock)), DIM)
    # the row is still there (an erase that stopped after the key): nothing of it is served
    assert fresh.count("t1", "u1", [Status.ACTIVE]) == 1
    assert fresh.get("t1", "u1", "a") is None
    assert fresh.search("t1", "u1", request(clock, 1)) == []
    assert list(fresh.all_for_user("t1", "u1")) == []


def test_index_follows_writes_from_another_store_instance(parts, clock, tmp_path: Path) -> None:
    db, vault, store = parts
    store.save([mem(clock, "a", "first", seed=1)])
    assert len(store.search("t1", "u1", request(clock, 1))) == 1
    other = SqliteMemoryStore(db, UserCipher(vault), DIM)  # e.g. `mnemo import` in another process
    other.save([mem(clock, "b", "second", seed=2)])
    assert {h.memory.memory_id for h in store.search("t1", "u1", request(clock, 2))} == {"a", "b"}


def test_the_first_page_of_live_memories_from_the_index_is_the_page_of_rows(parts, clock, tmp_path: Path) -> None:
    db, vault, writer = parts
    for n in range(7):
        clock.advance(seconds=1 if n % 3 else 0)  # some share a created_at: the id breaks the tie
        status = Status.PENDING if n == 4 else Status.ACTIVE
        writer.save([mem(clock, f"m{n}", f"I like item {n}", seed=n, status=status)])
    reader = SqliteMemoryStore(db, UserCipher(vault), DIM)  # another worker: its index is built from the rows
    for store in (writer, reader):
        # ACTIVE alone is served from the index; with DELETED (no such row here) the rows are read
        first = store.page("t1", "u1", statuses=[Status.ACTIVE], category=None, limit=4, cursor=None)
        rows = store.page("t1", "u1", statuses=[Status.ACTIVE, Status.DELETED], category=None, limit=4, cursor=None)
        assert [m.memory_id for m in first.items] == [m.memory_id for m in rows.items] == ["m6", "m5", "m3", "m2"]
        assert [m.model_dump() for m in first.items] == [m.model_dump() for m in rows.items]
        assert first.next_cursor == rows.next_cursor
        rest = store.page("t1", "u1", statuses=[Status.ACTIVE], category=None, limit=4, cursor=first.next_cursor)
        assert [m.memory_id for m in rest.items] == ["m1", "m0"]
        assert rest.next_cursor is None
    first.items[0].content = "changed by the caller"  # the caller's copy, not the index's
    again = reader.page("t1", "u1", statuses=[Status.ACTIVE], category=None, limit=4, cursor=None)
    assert again.items[0].content == "I like item 6"


def test_a_search_with_a_second_vector_reports_each_hits_cosines_to_it(parts, clock) -> None:
    _, _, store = parts
    store.save([mem(clock, m, f"Ana: memory {m}", seed=i) for i, m in enumerate("abc", start=1)])
    plain = {h.memory.memory_id: h for h in store.search("t1", "u1", request(clock, 1))}
    second = np.asarray(vec(2), dtype=np.float32)
    both = {h.memory.memory_id: h for h in store.search("t1", "u1", request(clock, 1, second_vector=second))}
    assert set(both) == set(plain)  # it finds no candidates of its own
    for mid, hit in both.items():
        assert hit.cosine == plain[mid].cosine
        assert plain[mid].second_cosine is None
        assert abs(hit.second_cosine - float(np.dot(vec("abc".index(mid) + 1), second))) < 1e-5


def test_common_terms_are_those_in_more_than_a_share_of_the_users_memories(parts, clock) -> None:
    _, _, store = parts
    store.save([mem(clock, "a", "Ana: I paint on Sundays"), mem(clock, "b", "Ana: my cat sleeps all day"),
                mem(clock, "c", "Ben: Ana paints well"), mem(clock, "d", "Ben: the cat is Ana's")])
    assert store.common_terms("t1", "u1", ["ana", "cat", "paint", "ben"], 0.5) == {"ana"}
    assert store.common_terms("t1", "u1", ["ana", "cat", "paint", "ben"], 0.4) == {"ana", "cat", "paint", "ben"}
    assert store.common_terms("t1", "u2", ["ana"], 0.1) == frozenset()  # another user's memories count for nothing
