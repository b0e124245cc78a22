"""The erase fence of the embedded home (mnemo.adapters.local.erase_fence): what predates an erase is
dropped, what follows it is kept, and a fence is not kept past its day."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import cast

from mnemo.adapters.local.erase_fence import EraseFence
from mnemo.adapters.local.sqlite_db import Database
from mnemo.clock import ManualClock
from mnemo.crypto import TenantHashKeys
from mnemo.ports import KeyVault

START = datetime(2026, 6, 1, tzinfo=UTC)


def owner(record: tuple[str, datetime]) -> tuple[str, str, datetime]:
    return "t", record[0], record[1]


def fences(db: Database) -> int:
    with db.read() as conn:
        return int(conn.execute("SELECT COUNT(*) FROM erase_fences").fetchone()[0])


def test_a_record_made_before_its_users_erase_is_dropped_and_one_made_after_is_kept(tmp_path: Path) -> None:
    db, clock = Database(tmp_path / "m.db"), ManualClock(START)
    fence = EraseFence(lambda tenant_id: tenant_id.encode(), clock)
    before = clock.now()
    clock.advance(seconds=1)
    with db.write() as conn:
        fence.mark(conn, "t", "u")
    after = clock.now()
    records = [("u", before), ("u", after), ("v", before)]
    with db.write() as conn:
        assert fence.kept(conn, records, owner) == [("u", after), ("v", before)]


def test_a_fence_is_dropped_after_its_day_though_no_other_erase_follows(tmp_path: Path) -> None:
    db, clock = Database(tmp_path / "m.db"), ManualClock(START)
    fence = EraseFence(lambda tenant_id: tenant_id.encode(), clock)
    with db.write() as conn:
        fence.mark(conn, "t", "u")
    clock.advance(seconds=(EraseFence.KEPT + timedelta(seconds=1)).total_seconds())
    with db.write() as conn:
        fence.kept(conn, [("v", clock.now())], owner)
    assert fences(db) == 0


def test_the_fence_derives_a_tenants_key_once_not_in_every_batch(tmp_path: Path) -> None:
    db, clock = Database(tmp_path / "m.db"), ManualClock(START)
    derived: list[str] = []

    class Vault:
        def data_key(self, tenant_id: str, owner: str) -> bytes:
            derived.append(tenant_id)  # each is a vault read inside the batch's write transaction
            return tenant_id.encode().ljust(32, b"0")

    fence = EraseFence(TenantHashKeys(cast(KeyVault, Vault()), "erase-fence"), clock)
    with db.write() as conn:
        fence.mark(conn, "t", "u")
    for _ in range(5):
        with db.write() as conn:
            fence.kept(conn, [("u", clock.now()), ("v", clock.now())], owner)
    assert derived == ["t"]
