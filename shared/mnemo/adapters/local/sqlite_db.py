"""One SQLite database in WAL mode, a connection per thread, explicit write transactions."""

from __future__ import annotations

import fcntl
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from mnemo.adapters.local import priority
from mnemo.errors import BackendUnavailable

log = logging.getLogger("mnemo.sqlite")

SCHEMA = """
CREATE TABLE IF NOT EXISTS memories (
    tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, memory_id TEXT NOT NULL,
    scope TEXT NOT NULL, project_id TEXT, session_id TEXT,
    category TEXT NOT NULL, status TEXT NOT NULL,
    subject_hash TEXT NOT NULL, fingerprint TEXT NOT NULL,
    confidence REAL NOT NULL, version INTEGER NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, expires_at TEXT,
    sealed BLOB NOT NULL, embedding BLOB, parts BLOB,
    -- the user's generation that last wrote the row: another process's cached index reads only what changed
    written INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, user_id, memory_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS memories_subject ON memories (tenant_id, user_id, subject_hash);
CREATE INDEX IF NOT EXISTS memories_fingerprint ON memories (tenant_id, user_id, fingerprint);
CREATE INDEX IF NOT EXISTS memories_created ON memories (tenant_id, user_id, created_at, memory_id);
CREATE TABLE IF NOT EXISTS memory_versions (
    tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, memory_id TEXT NOT NULL, version INTEGER NOT NULL,
    sealed BLOB NOT NULL, updated_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, user_id, memory_id, version)
) WITHOUT ROWID;
-- generation: moved on by every write of the user's memories; reset: the last one that removed rows (a
-- delete) or began the user anew (a first write, or the first after an erase), which a cached index older
-- than it cannot follow by reading the rows written since
CREATE TABLE IF NOT EXISTS user_generations (
    tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, generation INTEGER NOT NULL,
    reset INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, user_id)
) WITHOUT ROWID;
-- one counter for the whole store: a user's generation is always a value never handed out before, so a
-- worker's cached index can never match a later state by accident (an erase does not restart at 1)
CREATE TABLE IF NOT EXISTS store_generation (
    id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL
);
INSERT OR IGNORE INTO store_generation SELECT 1, COALESCE(MAX(generation), 0) FROM user_generations;
CREATE TABLE IF NOT EXISTS profiles (
    tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, sealed BLOB NOT NULL, updated_at TEXT NOT NULL,
    generation INTEGER NOT NULL DEFAULT 0, built_at INTEGER NOT NULL DEFAULT -1, valid_until TEXT, custom BLOB,
    PRIMARY KEY (tenant_id, user_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS user_settings (
    tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (tenant_id, user_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS turn_buffer (
    tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, conversation_id TEXT NOT NULL, seq INTEGER NOT NULL,
    message_id TEXT NOT NULL, role TEXT NOT NULL, project_id TEXT,
    sealed BLOB, created_at TEXT NOT NULL, buffered_at TEXT NOT NULL, expires_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, user_id, conversation_id, seq)
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS turn_buffer_message
    ON turn_buffer (tenant_id, user_id, conversation_id, message_id);
CREATE TABLE IF NOT EXISTS extraction_jobs (
    tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, conversation_id TEXT NOT NULL,
    up_to_seq INTEGER NOT NULL, due_at TEXT NOT NULL,
    schedule_id TEXT NOT NULL DEFAULT '', claimed_id TEXT, claimant TEXT, claimed_until TEXT,
    PRIMARY KEY (tenant_id, user_id, conversation_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS extraction_jobs_due ON extraction_jobs (due_at);
-- a rowid table: each row carries a trace's body (~5 KB), which WITHOUT ROWID would keep in its key's b-tree,
-- where an insert cost about twice as much (SQLite's advice: WITHOUT ROWID only for rows well under a page)
CREATE TABLE IF NOT EXISTS traces (
    tenant_id TEXT NOT NULL, trace_id TEXT NOT NULL, user_id TEXT NOT NULL,
    body TEXT NOT NULL, expires_at TEXT NOT NULL, conversation_id TEXT, created_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, trace_id)
);
CREATE INDEX IF NOT EXISTS traces_user ON traces (tenant_id, user_id);
CREATE INDEX IF NOT EXISTS traces_conversation ON traces (tenant_id, user_id, conversation_id, created_at);
CREATE TABLE IF NOT EXISTS audit_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, action TEXT NOT NULL, actor TEXT NOT NULL,
    memory_ids TEXT NOT NULL, at TEXT NOT NULL, detail TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_user ON audit_events (tenant_id, user_id, id);
CREATE TABLE IF NOT EXISTS sessions (
    tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, session_id TEXT NOT NULL, sealed BLOB NOT NULL,
    expires_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, user_id, session_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tuned_weights (
    tenant_id TEXT NOT NULL, version INTEGER NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (tenant_id, version)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS feedback (
    tenant_id TEXT NOT NULL, trace_id TEXT NOT NULL, user_id TEXT NOT NULL, sealed BLOB NOT NULL, at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, trace_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS feedback_at ON feedback (tenant_id, at);
CREATE INDEX IF NOT EXISTS feedback_user ON feedback (tenant_id, user_id);
CREATE TABLE IF NOT EXISTS vault_meta (
    name TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS data_keys (
    tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, wrapped BLOB NOT NULL, created_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, user_id)
) WITHOUT ROWID;
-- when each erased user was erased, under a keyed pseudonym (mnemo.adapters.local.erase_fence)
CREATE TABLE IF NOT EXISTS erase_fences (
    tenant_id TEXT NOT NULL, pseudonym TEXT NOT NULL, erased_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, pseudonym)
) WITHOUT ROWID;
-- each finished erase, numbered, under a keyed pseudonym: every process drops what it caches of the user
-- (mnemo.adapters.local.erase_notices)
CREATE TABLE IF NOT EXISTS erase_notices (
    number INTEGER PRIMARY KEY AUTOINCREMENT, tenant_id TEXT NOT NULL, pseudonym TEXT NOT NULL,
    erased_at TEXT NOT NULL
);
-- users whose erase has begun and not finished: no data key is created for them meanwhile
CREATE TABLE IF NOT EXISTS erasing (
    tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, since TEXT NOT NULL,
    PRIMARY KEY (tenant_id, user_id)
) WITHOUT ROWID;
"""

# columns added after a table's first release: (table, column, declaration); added to older files on open
ADDED_COLUMNS = (
    ("extraction_jobs", "schedule_id", "TEXT NOT NULL DEFAULT ''"),
    ("extraction_jobs", "claimed_id", "TEXT"),
    ("extraction_jobs", "claimant", "TEXT"),
    ("extraction_jobs", "claimed_until", "TEXT"),
    ("profiles", "generation", "INTEGER NOT NULL DEFAULT 0"),
    ("profiles", "built_at", "INTEGER NOT NULL DEFAULT -1"),
    ("profiles", "valid_until", "TEXT"),
    ("profiles", "custom", "BLOB"),
    ("memories", "written", "INTEGER NOT NULL DEFAULT 0"),
    ("user_generations", "reset", "INTEGER NOT NULL DEFAULT 0"),
)
# indexes over added columns: made once the columns are there
ADDED_INDEXES = (
    "CREATE INDEX IF NOT EXISTS memories_written ON memories (tenant_id, user_id, written)",
)
# tables declared WITHOUT ROWID by an older release and now rowid tables: rebuilt once, rows and indexes kept
REBUILT_AS_ROWID = ("traces",)


def _rebuild_as_rowid(conn: sqlite3.Connection, table: str) -> None:
    """The table as SCHEMA declares it now, when the file has it WITHOUT ROWID (same columns, key and
    indexes: CREATE TABLE IF NOT EXISTS leaves an existing table as it is). Inside the caller's write
    transaction: a crash leaves the old table whole, and a second process opening the file finds it done."""
    row = conn.execute("SELECT sql FROM sqlite_master WHERE type='table' AND name=?", (table,)).fetchone()
    if row is None or "WITHOUT ROWID" not in row[0].upper():
        return
    code = "\n".join(line for line in SCHEMA.splitlines() if not line.lstrip().startswith("--"))
    statements = [s.strip() for s in code.split(";")]
    create = next(s for s in statements if s.startswith(f"CREATE TABLE IF NOT EXISTS {table} ("))
    indexes = [s for s in statements if s.startswith("CREATE INDEX") and f" ON {table} (" in s]
    rebuilt = f"{table}_rebuilt"
    conn.execute(create.replace(f"IF NOT EXISTS {table} (", f"{rebuilt} (", 1))
    conn.execute(f"INSERT INTO {rebuilt} SELECT * FROM {table}")  # noqa: S608 (names from REBUILT_AS_ROWID)
    conn.execute(f"DROP TABLE {table}")  # its indexes with it
    conn.execute(f"ALTER TABLE {rebuilt} RENAME TO {table}")
    for statement in indexes:
        conn.execute(statement)
    log.info("table rebuilt as a rowid table", extra={"table": table})


class Database:
    """Thread-safe access to the SQLite file: readers run concurrently, writers one at a time."""

    def __init__(self, path: Path, busy_timeout_ms: int = 10_000, autocheckpoint_pages: int | None = None) -> None:
        """``autocheckpoint_pages``: a commit that leaves the WAL this long checkpoints it (None: SQLite's
        default, 1,000 pages). That checkpoint runs inside the commit, so under the write lock (see
        ``WalCheckpointer`` for `mnemo serve`, where another process checkpoints off the lock)."""
        self.path = path
        self._busy_ms = busy_timeout_ms
        self._autocheckpoint = autocheckpoint_pages
        path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._write_lock = threading.RLock()
        self._writer_path = path.with_name(path.name + ".writer-lock")
        self._writer_fd: int | None = None
        self._writer_pid = 0
        with self._write_lock, self._writer():
            # executescript manages its own transaction
            self.connection().executescript(SCHEMA)
            self._add_columns()

    def _add_columns(self) -> None:
        """A database written by an older release gets the columns added since (CREATE TABLE IF NOT
        EXISTS leaves an existing table as it is)."""
        with self.write() as conn:  # one transaction: two processes opening an old file add each column once
            for table, column, declaration in ADDED_COLUMNS:
                present = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
                if column not in present:
                    conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
            for statement in ADDED_INDEXES:
                conn.execute(statement)
            for table in REBUILT_AS_ROWID:
                _rebuild_as_rowid(conn, table)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=self._busy_ms / 1000, isolation_level=None,
                               check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute(f"PRAGMA busy_timeout={int(self._busy_ms)}")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA secure_delete=ON")  # erased rows do not linger in free pages
        if self._autocheckpoint is not None:
            conn.execute(f"PRAGMA wal_autocheckpoint={int(self._autocheckpoint)}")
        return conn

    def connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = self._connect()
            except sqlite3.Error as exc:
                raise BackendUnavailable("the local database cannot be opened") from exc
            self._local.conn = conn
        return conn

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        try:
            yield self.connection()
        except sqlite3.OperationalError as exc:
            raise BackendUnavailable("the local database is unavailable") from exc

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One atomic write transaction (BEGIN IMMEDIATE); nested calls join the outer one, and the first
        write inside a ``deferred`` block begins the transaction that block ends."""
        conn = self.connection()
        deferred: ExitStack | None = getattr(self._local, "deferred", None)
        if deferred is not None and not getattr(self._local, "depth", 0):
            deferred.enter_context(self._transaction(conn))
        depth: int = getattr(self._local, "depth", 0)
        if depth:
            self._local.depth = depth + 1
            try:
                yield conn
            finally:
                self._local.depth = depth
            return
        with self._transaction(conn):
            yield conn

    @contextmanager
    def deferred(self) -> Iterator[None]:
        """One atomic write transaction that begins at the first write inside the block, not at its start.

        What the block reads before its first write holds no write lock, which every writer of every
        user waits for (a write's resolution against the user's stored facts: ~5 ms of a remember's
        transaction and more of an extraction's, measured under load). Only for a block whose reads
        nothing else can change meanwhile: the caller holds the lock of every writer of those rows (the
        user's lock). Nested in a transaction or another deferred block, it joins that one."""
        if getattr(self._local, "depth", 0) or getattr(self._local, "deferred", None) is not None:
            yield
            return
        with ExitStack() as stack:
            self._local.deferred = stack
            try:
                yield
            finally:
                # the transaction begun meanwhile, if any, commits (or rolls back) as the stack unwinds
                self._local.deferred = None

    @contextmanager
    def _transaction(self, conn: sqlite3.Connection) -> Iterator[None]:
        with self._write_lock, self._writer():
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise BackendUnavailable("the local database is busy") from exc
            self._local.depth = 1
            try:
                yield
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            else:
                try:
                    conn.execute("COMMIT")
                except sqlite3.OperationalError as exc:
                    conn.execute("ROLLBACK")
                    raise BackendUnavailable("the local database could not commit") from exc
            finally:
                self._local.depth = 0

    @contextmanager
    def _writer(self) -> Iterator[None]:
        """The write lock across processes (the threads of this one are already queued on ``_write_lock``).

        SQLite's own wait for a busy writer sleeps 1, 2, 5, 10, 15, 20, 25... ms between tries, so a
        transaction that found another process committing waited whole steps after that commit was
        over, and every request queued on the waiting worker with it. A kernel lock taken first is
        polled at a fine grain instead, so the waiter starts within a fraction of a millisecond of
        the release; it dies with its holder (kill -9 leaves no lock). Past the busy timeout: 503.
        """
        fd = self._writer_file()
        deadline = time.monotonic() + self._busy_ms / 1000
        pause = 0.0001
        # a background thread of lower priority takes, holds and releases it at the request workers'
        # priority: preempted just before its unlock, it would keep every waiting worker waiting
        # (mnemo.adapters.local.priority)
        with priority.raised(priority.WRITE_LOCK):
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise BackendUnavailable("the local database is busy") from None
                    time.sleep(pause)
                    pause = min(pause * 2, 0.001)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)

    def _writer_file(self) -> int:
        # a descriptor of this process: one inherited across fork would share its lock with the parent
        with self._write_lock:
            if self._writer_fd is None or self._writer_pid != os.getpid():
                self._writer_fd = os.open(self._writer_path, os.O_RDWR | os.O_CREAT, 0o600)
                self._writer_pid = os.getpid()
            return self._writer_fd

    def close(self) -> None:
        """Close this thread's connection (before a fork: a connection must not cross into a child)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def in_transaction(self) -> bool:
        """Whether this thread is inside a write transaction, or a deferred one (a write would join it)."""
        return bool(getattr(self._local, "depth", 0)) or getattr(self._local, "deferred", None) is not None

    def checkpoint(self) -> None:
        with self.read() as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


class WalCheckpointer:
    """Checkpoints the WAL from a thread of its own, outside the write lock (`mnemo serve`'s jobs process).

    SQLite's automatic checkpoint runs in whichever commit finds the WAL past 1,000 pages, while that
    connection still holds the write lock: measured under load (tests/bench/serve_load.py, chat mix at
    70% of saturation), one commit every ~0.7 s took 25-35 ms instead of ~1 ms, and every request
    worker that wrote meanwhile (a turn, a remember) waited for it, and the requests queued behind
    that worker with it. A PASSIVE checkpoint needs neither the write lock nor the readers to finish,
    so run here it delays nobody; the request workers' connections keep an automatic checkpoint only
    as a backstop at a much longer WAL (``autocheckpoint_pages``), should this thread fall behind.
    """

    def __init__(self, path: Path, interval_seconds: float, busy_timeout_ms: int = 10_000) -> None:
        self._path = path
        self._interval = interval_seconds
        self._busy_ms = busy_timeout_ms
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mnemo-wal-checkpoint", daemon=True)

    def start(self) -> None:
        self._thread.start()


    def _run(self) -> None:
        try:
            conn = sqlite3.connect(self._path, timeout=self._busy_ms / 1000, isolation_level=None,
                                   check_same_thread=False)
        except sqlite3.Error as exc:
            log.warning("the WAL checkpointer could not open the database; commits checkpoint past the "
                        "fallback size instead", extra={"error": type(exc).__name__})
            return
        failing = False
        try:
            while not self._stop.wait(self._interval):
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()  # all: the statement is reset
                    failing = False
                except sqlite3.Error as exc:  # the file busy or gone for a moment: the next round tries again
                    if not failing:  # said once a spell of failures, by type only: a lasting one is seen
                        log.warning("a WAL checkpoint failed; commits checkpoint past the fallback size "
                                    "meanwhile", extra={"error": type(exc).__name__})
                    failing = True
        finally:
            conn.close()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
