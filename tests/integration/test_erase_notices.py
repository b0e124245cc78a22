"""The embedded home's erase notices as two processes see them (two handles on one database file).

Every request and job asks for the last notice's number; it reads a counter file beside the database
and asks SQLite only when the counter moved (mnemo.adapters.local.erase_notices)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from mnemo.adapters.local.erase_notices import SqliteEraseNotices
from mnemo.adapters.local.sqlite_db import Database
from mnemo.clock import ManualClock


def notices_on(path: Path) -> tuple[Database, SqliteEraseNotices]:
    db = Database(path)
    return db, SqliteEraseNotices(db, lambda tenant: f"secret-of-{tenant}".encode(), ManualClock())


def statements(db: Database) -> list[str]:
    """The SQL this thread's connection runs from now on."""
    seen: list[str] = []
    db.connection().set_trace_callback(seen.append)
    return seen


def test_an_erase_in_one_process_is_seen_by_the_next_look_of_another(tmp_path: Path) -> None:
    _, eraser = notices_on(tmp_path / "mnemo.db")
    _, reader = notices_on(tmp_path / "mnemo.db")
    assert reader.latest() == 0

    number = eraser.announce("t1", "u1")

    assert reader.latest() == number == 1
    assert reader.erased_among(0, [("t1", "u1"), ("t1", "u2")]) == [("t1", "u1")]


def test_a_look_with_no_erase_since_the_last_runs_no_sql(tmp_path: Path) -> None:
    _, eraser = notices_on(tmp_path / "mnemo.db")
    reader_db, reader = notices_on(tmp_path / "mnemo.db")
    eraser.announce("t1", "u1")
    assert reader.latest() == 1
    ran = statements(reader_db)

    assert [reader.latest() for _ in range(5)] == [1] * 5
    assert ran == []

    eraser.announce("t1", "u2")
    assert reader.latest() == 2
    assert len(ran) == 1


def test_a_notice_whose_transaction_rolled_back_is_not_reported_and_the_next_one_is(tmp_path: Path) -> None:
    """The counter is written before the notice commits: a writer that never commits (rolled back, or
    killed between the two) leaves the counter ahead of SQLite; readers report what SQLite holds and keep
    asking it, so the next notice that commits is seen."""
    eraser_db, eraser = notices_on(tmp_path / "mnemo.db")
    reader_db, reader = notices_on(tmp_path / "mnemo.db")

    def erase_that_fails_after_its_notice() -> None:
        with eraser_db.write():
            eraser.announce("t1", "u1")
            raise RuntimeError("the erase failed after its notice")

    with pytest.raises(RuntimeError):
        erase_that_fails_after_its_notice()
    ran = statements(reader_db)

    assert reader.latest() == 0
    assert reader.latest() == 0
    assert len(ran) == 2  # the counter names a notice SQLite does not hold: asked each time

    assert eraser.announce("t1", "u2") == 1
    assert reader.latest() == 1
    assert reader.erased_among(0, [("t1", "u1"), ("t1", "u2")]) == [("t1", "u2")]


def test_a_notice_committed_between_the_counters_read_and_the_sql_read_is_seen_at_the_next_look(
        tmp_path: Path) -> None:
    _, eraser = notices_on(tmp_path / "mnemo.db")
    _, reader = notices_on(tmp_path / "mnemo.db")
    eraser.announce("t1", "u1")
    counter_read = reader._counter.read
    reader._counter.read = lambda: (counter_read(), eraser.announce("t1", "u2"))[0]  # type: ignore[method-assign]

    assert reader.latest() == 2  # SQLite already holds the second

    reader._counter.read = counter_read  # type: ignore[method-assign]
    assert reader.latest() == 2
    eraser.announce("t1", "u3")
    assert reader.latest() == 3


def test_the_counter_is_a_file_beside_the_database(tmp_path: Path) -> None:
    _, eraser = notices_on(tmp_path / "mnemo.db")
    eraser.announce("t1", "u1")
    eraser.close()
    assert (tmp_path / "mnemo.db.erase-notices").read_bytes() == (1).to_bytes(8, "little")
    # after close, the next use opens it again
    assert eraser.latest() == 1
    with sqlite3.connect(tmp_path / "mnemo.db") as conn:
        assert conn.execute("SELECT count(*) FROM erase_notices").fetchone()[0] == 1
