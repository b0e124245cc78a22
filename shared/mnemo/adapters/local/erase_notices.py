"""The erases of the embedded home, numbered, for every process that caches users (mnemo.services.user_caches).

A notice names the user by a keyed pseudonym (an HMAC under the tenant's secret), never the plaintext
id; a process matches the users it holds against it. Notices are kept a day: a process that has not
looked for that long drops all it holds instead (``erased_among`` answers None).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import timedelta

from mnemo.adapters.local.sqlite_db import Database
from mnemo.clock import Clock, iso
from mnemo.crypto import keyed_hash


class SqliteEraseNotices:
    KEPT = timedelta(days=1)

    def __init__(self, db: Database, tenant_key: Callable[[str], bytes], clock: Clock) -> None:
        self._db = db
        self._tenant_key = tenant_key
        self._clock = clock

    def _pseudonym(self, tenant_id: str, user_id: str) -> str:
        return keyed_hash(self._tenant_key(tenant_id), user_id)

    def latest(self) -> int:
        with self._db.read() as conn:
            row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'erase_notices'").fetchone()
        return int(row[0]) if row else 0

    def announce(self, tenant_id: str, user_id: str) -> int:
        now = self._clock.now()
        with self._db.write() as conn:
            conn.execute("DELETE FROM erase_notices WHERE erased_at < ?", (iso(now - self.KEPT),))
            cursor = conn.execute("INSERT INTO erase_notices (tenant_id, pseudonym, erased_at) VALUES (?,?,?)",
                                  (tenant_id, self._pseudonym(tenant_id, user_id), iso(now)))
            return int(cursor.lastrowid or 0)

    def erased_among(self, seen: int, held: Iterable[tuple[str, str]]) -> list[tuple[str, str]] | None:
        with self._db.read() as conn:
            rows = conn.execute("SELECT number, tenant_id, pseudonym FROM erase_notices WHERE number > ? "
                                "ORDER BY number", (seen,)).fetchall()
        # pruned oldest first, so what is kept is a run of numbers: one missing after ``seen`` is gone
        if not rows or int(rows[0][0]) != seen + 1:
            return None
        named = {(str(r[1]), str(r[2])) for r in rows}
        return [(t, u) for t, u in held if (t, self._pseudonym(t, u)) in named]
