"""When each erased user was erased, so a record another worker made before the erase and writes
after it is dropped rather than landing for good.

`mnemo serve` runs several worker processes, and each writes its retrieval traces and audit events
in batches off the request path (BackgroundWriter). An erase answered by one worker flushes only its
own batches: a retrieve answered by another worker a moment before leaves a trace and audit events
(user id, memory and trace ids) that are written after the erase's deletion. The erase's deletion and
the fence are one transaction, and every batch checks the fence in its own write transaction: a batch
committed before the erase is deleted by it, one committed after finds the fence and drops what
predates it.

The table is in mnemo.adapters.local.sqlite_db's schema. The fence names the user by a keyed
pseudonym (an HMAC under the tenant's secret), never the plaintext id, and is dropped once no batch
can still hold a record from before it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import TypeVar

from mnemo.clock import Clock, iso
from mnemo.crypto import keyed_hash

T = TypeVar("T")


class EraseFence:
    # a batch is written within a writer interval (50 ms) and retried after a failed write; a day
    # is far beyond any batch still held, and bounds the table
    KEPT = timedelta(days=1)

    def __init__(self, tenant_key: Callable[[str], bytes], clock: Clock) -> None:
        """``tenant_key``: the tenant's key for the fence's pseudonyms, kept once derived
        (mnemo.crypto.TenantHashKeys): a batch looks its users up inside the write transaction every writer
        waits for, and deriving a key reads the vault."""
        self._tenant_key = tenant_key
        self._clock = clock

    def _pseudonym(self, tenant_id: str, user_id: str) -> str:
        return keyed_hash(self._tenant_key(tenant_id), user_id)

    def mark(self, conn: sqlite3.Connection, tenant_id: str, user_id: str) -> None:
        """In the erase's own write transaction (with its deletion of the user's rows)."""
        now = self._clock.now()
        conn.execute("INSERT OR REPLACE INTO erase_fences VALUES (?,?,?)",
                     (tenant_id, self._pseudonym(tenant_id, user_id), iso(now)))
        self._drop_old(conn)

    def _drop_old(self, conn: sqlite3.Connection) -> None:
        # at every batch too, not only at the next erase: the last erases' pseudonyms are not kept for
        # good when no other erase follows, and a fence past its day no longer costs every batch a look-up
        conn.execute("DELETE FROM erase_fences WHERE erased_at < ?", (iso(self._clock.now() - self.KEPT),))

    def kept(self, conn: sqlite3.Connection, records: Sequence[T],
             owner: Callable[[T], tuple[str, str, datetime]]) -> list[T]:
        """The records not made before their user's erase, read in the batch's write transaction."""
        if not records:
            return []
        self._drop_old(conn)
        if conn.execute("SELECT 1 FROM erase_fences LIMIT 1").fetchone() is None:
            return list(records)
        fences: dict[tuple[str, str], str | None] = {}
        out: list[T] = []
        for record in records:
            tenant_id, user_id, at = owner(record)
            if (tenant_id, user_id) not in fences:
                row = conn.execute("SELECT erased_at FROM erase_fences WHERE tenant_id=? AND pseudonym=?",
                                   (tenant_id, self._pseudonym(tenant_id, user_id))).fetchone()
                fences[(tenant_id, user_id)] = row[0] if row else None
            erased_at = fences[(tenant_id, user_id)]
            # the same instant is kept: a test clock that stands still stamps the erase and what follows alike
            if erased_at is None or (iso(at) or "") >= erased_at:
                out.append(record)
        return out
