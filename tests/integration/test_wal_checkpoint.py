"""`mnemo serve` checkpoints the WAL from its jobs process, off the write lock: the request workers'
commits no longer pay for a checkpoint (25-35 ms under load, every other writer waiting meanwhile)."""

from __future__ import annotations

import time
from pathlib import Path

from mnemo.adapters.local.sqlite_db import Database, WalCheckpointer

ROWS_PER_TRANSACTION = 50
VALUE = "x" * 4000  # about a page a row


def write_pages(db: Database, transactions: int, prefix: str = "a") -> None:
    for n in range(transactions):
        with db.write() as conn:
            conn.executemany("INSERT INTO vault_meta VALUES (?, ?)",
                             [(f"{prefix}-{n}-{k}", VALUE) for k in range(ROWS_PER_TRANSACTION)])


def wal_bytes(path: Path) -> int:
    """The WAL file's size: how far it has ever grown (a checkpointed WAL is written over from its start)."""
    return Path(f"{path}-wal").stat().st_size


def test_a_commit_checkpoints_only_past_the_backstop_it_was_given(tmp_path: Path) -> None:
    default = Database(tmp_path / "default.db")
    backstop = Database(tmp_path / "serve.db", autocheckpoint_pages=100_000)
    assert default.connection().execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1000  # SQLite's own
    assert backstop.connection().execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 100_000
    # ~2,400 pages written: the default connection checkpointed on the way (and started its WAL over), the
    # backstopped one left them all to a checkpointer
    write_pages(default, 48)
    write_pages(backstop, 48)
    assert wal_bytes(tmp_path / "default.db") < 1200 * 4096
    assert wal_bytes(tmp_path / "serve.db") > 2000 * 4096


def test_the_checkpointer_thread_keeps_the_wal_short_without_the_write_lock(tmp_path: Path) -> None:
    path = tmp_path / "mnemo.db"
    db = Database(path, autocheckpoint_pages=100_000)
    write_pages(db, 48)
    size, wal = path.stat().st_size, wal_bytes(path)
    assert wal > 2000 * 4096  # the pages are in the WAL only
    checkpointer = WalCheckpointer(path, interval_seconds=0.02)
    try:
        with db.write():  # a request worker writing all along: the checkpoint does not wait for it
            checkpointer.start()
            deadline = time.monotonic() + 10
            while path.stat().st_size < size + 2000 * 4096 and time.monotonic() < deadline:
                time.sleep(0.02)
            assert path.stat().st_size >= size + 2000 * 4096  # copied into the database meanwhile
            sizes = [0, 1]
            while sizes[-1] != sizes[-2] and time.monotonic() < deadline:  # until the copy is complete
                time.sleep(0.1)
                sizes.append(path.stat().st_size)
        # so the WAL is written over from its start: as many pages again do not make it longer
        write_pages(db, 40, prefix="b")
        assert wal_bytes(path) == wal
    finally:
        checkpointer.stop()
