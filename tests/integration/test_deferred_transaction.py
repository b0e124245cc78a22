"""A deferred write transaction (Database.deferred, the SQLite store's atomic()): it holds the write lock
from its first write to its end, all or nothing, and not while it only reads."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from mnemo.adapters.local.sqlite_db import Database


def rows(db: Database) -> list[str]:
    with db.read() as conn:
        return [r[0] for r in conn.execute("SELECT name FROM vault_meta ORDER BY name")]


def put(db: Database, name: str) -> None:
    with db.write() as conn:
        conn.execute("INSERT INTO vault_meta VALUES (?, 'x')", (name,))


def put_from_another_thread(db: Database, name: str) -> threading.Thread:
    """Another writer (a request of another user in this worker); started, given a moment to finish."""
    other = threading.Thread(target=put, args=(db, name))
    other.start()
    other.join(timeout=2)
    return other


def test_reads_before_the_first_write_hold_no_write_lock(tmp_path: Path) -> None:
    db = Database(tmp_path / "m.db")
    with db.deferred():
        assert rows(db) == []
        other = put_from_another_thread(db, "other")
        assert not other.is_alive()  # it did not wait for this block
        put(db, "mine")
        late = put_from_another_thread(db, "late")
        assert late.is_alive()  # from the first write on, the block holds the write lock to its end
        assert rows(db) == ["mine", "other"]
    late.join()
    assert rows(db) == ["late", "mine", "other"]


def test_everything_written_in_the_block_commits_or_none_of_it(tmp_path: Path) -> None:
    db = Database(tmp_path / "m.db")
    def cut_short() -> None:
        with db.deferred():
            put(db, "first")
            put(db, "second")
            raise RuntimeError("cut short")

    with pytest.raises(RuntimeError):
        cut_short()
    assert rows(db) == []
    assert not db.in_transaction()
    with db.deferred():
        put(db, "first")
        with db.deferred():  # a nested block joins the outer one
            put(db, "second")
        assert db.in_transaction()
    assert rows(db) == ["first", "second"]
    assert not db.in_transaction()


def test_a_block_that_only_reads_leaves_no_transaction(tmp_path: Path) -> None:
    db = Database(tmp_path / "m.db")
    with db.deferred():
        rows(db)
    assert not db.in_transaction()
    other = put_from_another_thread(db, "after")
    assert not other.is_alive()
    assert rows(db) == ["after"]
