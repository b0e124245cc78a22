"""The erases of the embedded home, numbered, for every process that caches users (mnemo.services.user_caches).

A notice names the user by a keyed pseudonym (an HMAC under the tenant's secret), never the plaintext
id; a process matches the users it holds against it. Notices are kept a day: a process that has not
looked for that long drops all it holds instead (``erased_among`` answers None).

Every request and job asks for the last notice's number (``latest``). Beside the database a file of
eight bytes holds the number of the last notice announced, written inside the notice's transaction,
before its commit: a process reads it (one ``pread``) and asks SQLite only when it moved since SQLite
last answered at least that number. A notice is never committed before the file names it, so an
unchanged file means no new notice, even after a writer killed between its write and its commit (the
file then names a number SQLite does not hold yet, and readers keep asking until one does). The SQL
read this replaces was ~37 us of a ~1.3 ms warm retrieve in a served worker (issue 14).
"""

from __future__ import annotations

import os
import struct
import threading
from collections.abc import Callable, Iterable
from datetime import timedelta
from pathlib import Path

from mnemo.adapters.local.sqlite_db import Database
from mnemo.clock import Clock, iso
from mnemo.crypto import keyed_hash

_NUMBER = struct.Struct("<q")


class NoticeCounter:
    """The file beside the database naming the last erase notice announced (see the module docstring).

    Its descriptor is opened at first use and kept (one shared across fork reads and writes the same file
    at explicit offsets, which is all it is used for: no lock is taken on it, the database's write lock
    orders the writers); after ``close`` the next use opens it again."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._guard = threading.Lock()

    def _file(self) -> int:
        with self._guard:
            if self._fd is None:
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            return self._fd

    def read(self) -> int:
        raw = os.pread(self._file(), _NUMBER.size, 0)
        # a file not yet written (or cut short): 0, which SQLite's answer always covers
        return _NUMBER.unpack(raw)[0] if len(raw) == _NUMBER.size else 0

    def write(self, number: int) -> None:
        os.pwrite(self._file(), _NUMBER.pack(number), 0)

    def close(self) -> None:
        with self._guard:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None


class SqliteEraseNotices:
    KEPT = timedelta(days=1)

    def __init__(self, db: Database, tenant_key: Callable[[str], bytes], clock: Clock) -> None:
        self._db = db
        self._tenant_key = tenant_key
        self._clock = clock
        self._counter = NoticeCounter(db.path.with_name(db.path.name + ".erase-notices"))
        # the counter's value at SQLite's last answer that covered it, and that answer
        self._answered: tuple[int, int] | None = None
        self._lock = threading.Lock()

    def close(self) -> None:
        self._counter.close()

    def _pseudonym(self, tenant_id: str, user_id: str) -> str:
        return keyed_hash(self._tenant_key(tenant_id), user_id)

    def latest(self) -> int:
        counted = self._counter.read()
        with self._lock:
            answered = self._answered
        if answered is not None and answered[0] == counted:
            return answered[1]
        with self._db.read() as conn:
            row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'erase_notices'").fetchone()
        latest = int(row[0]) if row else 0
        if latest >= counted:  # else a notice named by the file is not committed yet: ask again next time
            with self._lock:
                self._answered = (counted, latest)
        return latest

    def announce(self, tenant_id: str, user_id: str) -> int:
        now = self._clock.now()
        with self._db.write() as conn:
            conn.execute("DELETE FROM erase_notices WHERE erased_at < ?", (iso(now - self.KEPT),))
            cursor = conn.execute("INSERT INTO erase_notices (tenant_id, pseudonym, erased_at) VALUES (?,?,?)",
                                  (tenant_id, self._pseudonym(tenant_id, user_id), iso(now)))
            number = int(cursor.lastrowid or 0)
            self._counter.write(number)  # before the commit: see the module docstring
            return number

    def erased_among(self, seen: int, held: Iterable[tuple[str, str]]) -> list[tuple[str, str]] | None:
        with self._db.read() as conn:
            rows = conn.execute("SELECT number, tenant_id, pseudonym FROM erase_notices WHERE number > ? "
                                "ORDER BY number", (seen,)).fetchall()
        # pruned oldest first, so what is kept is a run of numbers: one missing after ``seen`` is gone
        if not rows or int(rows[0][0]) != seen + 1:
            return None
        named = {(str(r[1]), str(r[2])) for r in rows}
        return [(t, u) for t, u in held if (t, self._pseudonym(t, u)) in named]
