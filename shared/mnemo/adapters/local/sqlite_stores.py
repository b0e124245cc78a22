"""The small local stores: profiles, settings, traces, audit, turn buffer, debounce queue, locks."""

from __future__ import annotations

import hmac
import json
import os
import sqlite3
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta

from mnemo.adapters.local.background_writer import BackgroundWriter
from mnemo.adapters.local.erase_fence import EraseFence
from mnemo.adapters.local.sqlite_db import Database
from mnemo.clock import iso
from mnemo.crypto import NoDataKey, SealError, UserCipher
from mnemo.domain.models import (
    AuditEvent,
    BufferedTurn,
    FeedbackRecord,
    Message,
    Profile,
    RetrievalTrace,
    SessionState,
    TunedWeights,
    UserSettings,
)
from mnemo.ports import BufferResult, Claim, ExtractionJob, StoredProfile


class SqliteProfileStore:
    """Profiles hold user text, so they are sealed like memories. One row per user: the derived
    profile (``sealed``, empty before the first build), the generation it was built from, the
    current generation, and the app's ``custom`` fields sealed on their own."""

    def __init__(self, db: Database, cipher: UserCipher, cache_size: int = 4096) -> None:
        self._db = db
        self._cipher = cipher
        # the last row opened per user, with the key that opened it: a retrieve reads the row and the key
        # every time (another process may have rebuilt the profile, or erased the user), and opens it again
        # only when either changed (decrypting and parsing the JSON was most of a warm profile read)
        self._opened: OrderedDict[tuple[str, str], tuple[bytes, bytes, bytes | None, Profile | None,
                                                          dict[str, str]]] = OrderedDict()
        self._opened_lock = threading.Lock()
        self._cache_size = cache_size

    # without a key (an erase not finished) nothing sealed is readable; the generation still is. Opening
    # reads the user's key once, and says when there is none (it was looked up first, a second read of it
    # on every retrieve)
    def _open(self, tenant_id: str, user_id: str, sealed: bytes | None) -> Profile | None:
        if not sealed:
            return None
        try:
            return Profile.model_validate_json(self._cipher.open(tenant_id, user_id, "profile", "profile", sealed))
        except NoDataKey:
            return None

    def _custom(self, tenant_id: str, user_id: str, sealed: bytes | None, legacy: Profile | None) -> dict[str, str]:
        if sealed is None:  # a row written before the app's fields were kept apart
            return dict(legacy.custom) if legacy else {}
        try:
            return dict(json.loads(self._cipher.open(tenant_id, user_id, "profile", "custom", sealed)))
        except NoDataKey:
            return {}

    def get(self, tenant_id: str, user_id: str) -> StoredProfile:
        with self._db.read() as conn:
            row = conn.execute("SELECT sealed, generation, built_at, valid_until, custom FROM profiles "
                               "WHERE tenant_id=? AND user_id=?", (tenant_id, user_id)).fetchone()
        if row is None:
            self._forget_opened(tenant_id, user_id)  # erased, maybe by another process: drop what was opened
            return StoredProfile()
        profile, custom = self._opened_row(tenant_id, user_id, bytes(row[0] or b""),
                                           None if row[4] is None else bytes(row[4]))
        return StoredProfile(profile=profile, built_at=int(row[2]), generation=int(row[1]),
                             valid_until=datetime.fromisoformat(row[3]) if row[3] else None, custom=dict(custom))

    def _opened_row(self, tenant_id: str, user_id: str, sealed: bytes,
                    sealed_custom: bytes | None) -> tuple[Profile | None, dict[str, str]]:
        """The profile and the app's fields of a row, opened once per row and key. Each seal draws a new
        nonce, so equal bytes are the same write; and equal bytes under the same key open to the same text.
        The key is still read every time: an erase by another process is seen at once."""
        owner = (tenant_id, user_id)
        key = self._cipher.existing_key(tenant_id, user_id)
        if key is None:
            # no key (never written, or erased): nothing sealed is readable, and nothing opened is kept
            self._forget_opened(tenant_id, user_id)
            return None, {}
        with self._opened_lock:
            found = self._opened.get(owner)
            if (found is not None and found[1] == sealed and found[2] == sealed_custom
                    and hmac.compare_digest(found[0], key)):
                self._opened.move_to_end(owner)
                return found[3], found[4]
        profile = self._open(tenant_id, user_id, sealed)
        custom = self._custom(tenant_id, user_id, sealed_custom, profile)
        if profile is not None and profile.custom:
            profile = profile.model_copy(update={"custom": {}})
        with self._opened_lock:
            self._opened[owner] = (key, sealed, sealed_custom, profile, custom)
            while len(self._opened) > self._cache_size:
                self._opened.popitem(last=False)
        return profile, custom

    def put(self, tenant_id: str, user_id: str, profile: Profile, built_at: int, valid_until: datetime | None) -> None:
        derived = profile.model_copy(update={"custom": {}})
        sealed = self._cipher.seal(tenant_id, user_id, "profile", "profile", derived.model_dump_json().encode())
        with self._db.write() as conn:
            row = conn.execute("SELECT sealed, custom, generation FROM profiles WHERE tenant_id=? AND user_id=?",
                               (tenant_id, user_id)).fetchone()
            if (int(row[2]) if row else 0) != built_at:
                return  # overtaken by a change (or an erase) since the build began
            if row is not None and row[1] is None and row[0]:
                # keep the app's fields of a row from before they were kept apart
                self._put_custom(conn, tenant_id, user_id, self._custom(tenant_id, user_id, None,
                                                                         self._open(tenant_id, user_id, row[0])))
            conn.execute(
                "INSERT INTO profiles (tenant_id, user_id, sealed, updated_at, built_at, valid_until) "
                "VALUES (?,?,?,?,?,?) ON CONFLICT(tenant_id, user_id) DO UPDATE SET sealed=excluded.sealed, "
                "updated_at=excluded.updated_at, built_at=excluded.built_at, valid_until=excluded.valid_until",
                (tenant_id, user_id, sealed, iso(profile.updated_at) or "", built_at, iso(valid_until)))

    def put_custom(self, tenant_id: str, user_id: str, custom: dict[str, str]) -> None:
        with self._db.write() as conn:
            self._put_custom(conn, tenant_id, user_id, custom)

    def _put_custom(self, conn: sqlite3.Connection, tenant_id: str, user_id: str, custom: dict[str, str]) -> None:
        sealed = self._cipher.seal(tenant_id, user_id, "profile", "custom", json.dumps(custom).encode())
        conn.execute("INSERT INTO profiles (tenant_id, user_id, sealed, updated_at, custom) VALUES (?,?,'','',?) "
                     "ON CONFLICT(tenant_id, user_id) DO UPDATE SET custom=excluded.custom",
                     (tenant_id, user_id, sealed))

    def invalidate(self, tenant_id: str, user_id: str) -> None:
        with self._db.write() as conn:
            conn.execute("INSERT INTO profiles (tenant_id, user_id, sealed, updated_at, generation) "
                         "VALUES (?,?,'','',1) ON CONFLICT(tenant_id, user_id) DO UPDATE SET generation=generation+1",
                         (tenant_id, user_id))

    def _forget_opened(self, tenant_id: str, user_id: str) -> None:
        with self._opened_lock:
            self._opened.pop((tenant_id, user_id), None)

    # a per-user cache (mnemo.services.user_caches): the opened profiles
    def owners(self) -> set[tuple[str, str]]:
        with self._opened_lock:
            return set(self._opened)

    def forget_user(self, tenant_id: str, user_id: str) -> None:
        self._forget_opened(tenant_id, user_id)

    def delete_user(self, tenant_id: str, user_id: str) -> None:
        self._forget_opened(tenant_id, user_id)
        with self._db.write() as conn:
            conn.execute("DELETE FROM profiles WHERE tenant_id=? AND user_id=?", (tenant_id, user_id))


class SqliteSettingsStore:
    """Read on every request, written rarely: cached briefly so another process's change shows soon."""

    def __init__(self, db: Database, cache_seconds: float = 2.0) -> None:
        self._db = db
        self._cache: dict[tuple[str, str], tuple[float, UserSettings]] = {}
        self._cache_seconds = cache_seconds
        self._lock = threading.Lock()

    def get(self, tenant_id: str, user_id: str) -> UserSettings:
        owner = (tenant_id, user_id)
        now = time.monotonic()
        with self._lock:
            hit = self._cache.get(owner)
        if hit is not None and now - hit[0] < self._cache_seconds:
            return hit[1].model_copy()
        with self._db.read() as conn:
            row = conn.execute("SELECT body FROM user_settings WHERE tenant_id=? AND user_id=?", owner).fetchone()
        settings = UserSettings.model_validate_json(row[0]) if row else UserSettings()
        with self._lock:
            if len(self._cache) > 10_000:
                self._cache.clear()
            self._cache[owner] = (now, settings)
        return settings.model_copy()

    def put(self, tenant_id: str, user_id: str, settings: UserSettings) -> None:
        with self._db.write() as conn:
            conn.execute("INSERT OR REPLACE INTO user_settings VALUES (?,?,?)",
                         (tenant_id, user_id, settings.model_dump_json()))
        with self._lock:
            self._cache.pop((tenant_id, user_id), None)

    def delete_user(self, tenant_id: str, user_id: str) -> None:
        with self._db.write() as conn:
            conn.execute("DELETE FROM user_settings WHERE tenant_id=? AND user_id=?", (tenant_id, user_id))
        with self._lock:
            self._cache.pop((tenant_id, user_id), None)


class SqliteTraceStore:
    """Traces carry ids and scores only (no text), keyed by tenant so ids never cross tenants.

    Written in batches off the request path (see BackgroundWriter); readable at once.
    """

    def __init__(self, db: Database, fence: EraseFence | None = None) -> None:
        self._db = db
        # another worker's erase: a trace made before it is not written after it (see EraseFence)
        self._fence = fence
        self._writer: BackgroundWriter[RetrievalTrace] = BackgroundWriter(self._write, name="mnemo-traces")

    def _write(self, traces: Sequence[RetrievalTrace]) -> None:
        # the rows before the write lock: under load this thread gets the interpreter lock only between the
        # request thread's switches, and every process that writes meanwhile waits for the lock it holds
        rows = {t.trace_id: (t.tenant_id, t.trace_id, t.user_id, t.model_dump_json(), iso(t.expires_at),
                             t.conversation_id, iso(t.created_at)) for t in traces}
        with self._db.write() as conn:
            if self._fence is not None:
                traces = self._fence.kept(conn, traces, lambda t: (t.tenant_id, t.user_id, t.created_at))
            conn.executemany("INSERT OR REPLACE INTO traces VALUES (?,?,?,?,?,?,?)",
                             [rows[t.trace_id] for t in traces])

    def put(self, trace: RetrievalTrace) -> None:
        self._writer.put(trace)

    def close(self) -> None:
        self._writer.close()

    def flush(self) -> None:
        self._writer.flush()

    # another worker process of `mnemo serve` may have answered the retrieve and not yet flushed its
    # trace (it does within one writer interval): a miss is read again for a short while
    OTHER_PROCESS_WAIT = 0.15

    def get(self, tenant_id: str, trace_id: str, now: datetime) -> RetrievalTrace | None:
        for trace in self._writer.pending():
            if trace.tenant_id == tenant_id and trace.trace_id == trace_id:
                return trace if trace.expires_at > now else None
        deadline = time.monotonic() + self.OTHER_PROCESS_WAIT
        while True:
            with self._db.read() as conn:
                row = conn.execute("SELECT body FROM traces WHERE tenant_id=? AND trace_id=? AND expires_at > ?",
                                   (tenant_id, trace_id, iso(now))).fetchone()
            if row or time.monotonic() >= deadline:
                return RetrievalTrace.model_validate_json(row[0]) if row else None
            time.sleep(0.01)

    def latest(self, tenant_id: str, user_id: str, conversation_id: str, now: datetime) -> RetrievalTrace | None:
        for trace in reversed(self._writer.pending()):
            if (trace.tenant_id, trace.user_id, trace.conversation_id) == (tenant_id, user_id, conversation_id):
                return trace if trace.expires_at > now else None
        with self._db.read() as conn:
            row = conn.execute("SELECT body FROM traces WHERE tenant_id=? AND user_id=? AND conversation_id=? "
                               "AND expires_at > ? ORDER BY created_at DESC LIMIT 1",
                               (tenant_id, user_id, conversation_id, iso(now))).fetchone()
        return RetrievalTrace.model_validate_json(row[0]) if row else None

    def delete_user(self, tenant_id: str, user_id: str) -> None:
        self._writer.flush()
        with self._db.write() as conn:
            conn.execute("DELETE FROM traces WHERE tenant_id=? AND user_id=?", (tenant_id, user_id))
            if self._fence is not None:
                self._fence.mark(conn, tenant_id, user_id)


class SqliteAuditLog:
    """Events of a write go into the write's own transaction; the rest (retrievals) are batched off
    the request path (see BackgroundWriter) and flushed on close."""

    def __init__(self, db: Database, fence: EraseFence | None = None) -> None:
        self._db = db
        # another worker's erase: an event made before it is not written after it (see EraseFence)
        self._fence = fence
        self._writer: BackgroundWriter[AuditEvent] = BackgroundWriter(self._write, name="mnemo-audit")

    def record(self, events: Sequence[AuditEvent]) -> None:
        if events and self._db.in_transaction():
            # recorded with the data it describes: a crash keeps both or neither
            self._write(events)
            return
        for event in events:
            self._writer.put(event)

    def close(self) -> None:
        self._writer.close()

    def flush(self) -> None:
        self._writer.flush()

    def _write(self, events: Sequence[AuditEvent]) -> None:
        rows = {id(e): (e.tenant_id, e.user_id, e.action, e.actor, json.dumps(e.memory_ids), iso(e.at),
                        json.dumps(e.detail))
                for e in events}  # before the write lock, as the traces' (SqliteTraceStore._write)
        with self._db.write() as conn:
            if self._fence is not None:
                events = self._fence.kept(conn, events, lambda e: (e.tenant_id, e.user_id, e.at))
            conn.executemany(
                "INSERT INTO audit_events (tenant_id, user_id, action, actor, memory_ids, at, detail) "
                "VALUES (?,?,?,?,?,?,?)", [rows[id(e)] for e in events])

    def delete_user(self, tenant_id: str, user_id: str) -> None:
        self._writer.flush()
        with self._db.write() as conn:
            conn.execute("DELETE FROM audit_events WHERE tenant_id=? AND user_id=?", (tenant_id, user_id))
            if self._fence is not None:
                self._fence.mark(conn, tenant_id, user_id)

    def for_user(self, tenant_id: str, user_id: str, limit: int) -> list[AuditEvent]:
        self._writer.flush()
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT action, actor, memory_ids, at, detail FROM audit_events WHERE tenant_id=? AND user_id=? "
                "ORDER BY id DESC LIMIT ?", (tenant_id, user_id, limit)).fetchall()
        return [AuditEvent(tenant_id=tenant_id, user_id=user_id, action=a, actor=actor,
                           memory_ids=json.loads(ids), at=datetime.fromisoformat(at), detail=json.loads(d))
                for a, actor, ids, at, d in rows]


class SqliteTurnBuffer:
    """Buffered messages are sealed; acknowledged ones keep only their id (idempotency)."""

    def __init__(self, db: Database, cipher: UserCipher, ttl: timedelta) -> None:
        self._db = db
        self._cipher = cipher
        self._ttl = ttl

    def append(self, turns: Sequence[BufferedTurn], now: datetime) -> BufferResult:
        if not turns:
            raise ValueError("no turns")
        first = turns[0]
        owner = (first.tenant_id, first.user_id, first.conversation_id)
        accepted = 0
        dropped: list[str] = []
        with self._db.write() as conn:
            row = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM turn_buffer WHERE tenant_id=? AND user_id=? "
                               "AND conversation_id=?", owner).fetchone()
            seq = int(row[0])
            for turn in turns:
                exists = conn.execute(
                    "SELECT 1 FROM turn_buffer WHERE tenant_id=? AND user_id=? AND conversation_id=? "
                    "AND message_id=?", (*owner, turn.message.message_id)).fetchone()
                if exists:
                    dropped.append(turn.message.message_id)
                    continue
                seq += 1
                record_id = f"{turn.conversation_id}/{turn.message.message_id}"
                sealed = self._cipher.seal(turn.tenant_id, turn.user_id, record_id, "turn",
                                           turn.message.content.encode())
                conn.execute(
                    "INSERT INTO turn_buffer VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    (*owner, seq, turn.message.message_id, turn.message.role, turn.project_id, sealed,
                     iso(turn.message.created_at), iso(now), iso(now + self._ttl)))
                accepted += 1
            pending_row = conn.execute(
                "SELECT COUNT(*), MIN(buffered_at) FROM turn_buffer WHERE tenant_id=? AND user_id=? "
                "AND conversation_id=? AND sealed IS NOT NULL AND role='user'", owner).fetchone()
        first_at = datetime.fromisoformat(pending_row[1]) if pending_row[1] else None
        return BufferResult(accepted=accepted, pending=int(pending_row[0]), last_seq=seq, last_at=now,
                            first_pending_at=first_at, dropped=dropped)

    def pending(self, tenant_id: str, user_id: str, conversation_id: str, up_to_seq: int) -> list[BufferedTurn]:
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT seq, message_id, role, project_id, sealed, created_at FROM turn_buffer "
                "WHERE tenant_id=? AND user_id=? AND conversation_id=? AND seq <= ? AND sealed IS NOT NULL "
                "ORDER BY seq", (tenant_id, user_id, conversation_id, up_to_seq)).fetchall()
        out = []
        for seq, message_id, role, project_id, sealed, created_at in rows:
            content = self._cipher.open(tenant_id, user_id, f"{conversation_id}/{message_id}", "turn", sealed)
            out.append(BufferedTurn(
                tenant_id=tenant_id, user_id=user_id, conversation_id=conversation_id, project_id=project_id,
                seq=seq, message=Message(role=role, content=content.decode(), message_id=message_id,
                                         created_at=datetime.fromisoformat(created_at))))
        return out

    def for_user(self, tenant_id: str, user_id: str) -> list[BufferedTurn]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT DISTINCT conversation_id FROM turn_buffer WHERE tenant_id=? AND user_id=? "
                                "AND sealed IS NOT NULL ORDER BY conversation_id", (tenant_id, user_id)).fetchall()
        return [t for (conversation_id,) in rows for t in self.pending(tenant_id, user_id, conversation_id, 2**62)]

    def rewrite(self, turn: BufferedTurn, content: str) -> bool:
        sealed = self._cipher.seal(turn.tenant_id, turn.user_id, f"{turn.conversation_id}/{turn.message.message_id}",
                                   "turn", content.encode())
        with self._db.write() as conn:
            return bool(conn.execute(
                "UPDATE turn_buffer SET sealed=? WHERE tenant_id=? AND user_id=? AND conversation_id=? AND seq=? "
                "AND sealed IS NOT NULL",
                (sealed, turn.tenant_id, turn.user_id, turn.conversation_id, turn.seq)).rowcount > 0)

    def acknowledge(self, tenant_id: str, user_id: str, conversation_id: str, seqs: Sequence[int]) -> int:
        with self._db.write() as conn:
            return conn.executemany(
                "UPDATE turn_buffer SET sealed=NULL WHERE tenant_id=? AND user_id=? AND conversation_id=? "
                "AND seq=? AND sealed IS NOT NULL", [(tenant_id, user_id, conversation_id, s) for s in seqs]).rowcount

    def purge_expired(self, now: datetime) -> int:
        with self._db.write() as conn:
            return conn.execute("DELETE FROM turn_buffer WHERE expires_at <= ? AND sealed IS NULL",
                                (iso(now),)).rowcount

    def delete_user(self, tenant_id: str, user_id: str) -> None:
        with self._db.write() as conn:
            conn.execute("DELETE FROM turn_buffer WHERE tenant_id=? AND user_id=?", (tenant_id, user_id))
            conn.execute("DELETE FROM extraction_jobs WHERE tenant_id=? AND user_id=?", (tenant_id, user_id))


class SqliteExtractionQueue:
    """The durable local debounce queue: one row per conversation, overwritten by newer schedules.

    ``schedule_id`` names the current generation; ``claimed_id`` / ``claimant`` / ``claimed_until``
    are the lease of the delivery extracting the conversation (its schedule id, its process, until
    when). A lease survives a newer schedule, so the newer generation waits for the holder.
    """

    def __init__(self, db: Database) -> None:
        self._db = db
        self.wakeup = threading.Event()

    def schedule(self, job: ExtractionJob) -> None:
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO extraction_jobs (tenant_id, user_id, conversation_id, up_to_seq, due_at, schedule_id) "
                "VALUES (?,?,?,?,?,?) ON CONFLICT(tenant_id, user_id, conversation_id) DO UPDATE SET "
                "up_to_seq=MAX(up_to_seq, excluded.up_to_seq), due_at=excluded.due_at, "
                "schedule_id=excluded.schedule_id",
                (job.tenant_id, job.user_id, job.conversation_id, job.up_to_seq, iso(job.due_at), uuid.uuid4().hex))
        self.wakeup.set()

    def due(self, now: datetime, limit: int) -> list[ExtractionJob]:
        moment = iso(now)
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT tenant_id, user_id, conversation_id, up_to_seq, due_at, schedule_id FROM extraction_jobs "
                "WHERE due_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?) ORDER BY due_at LIMIT ?",
                (moment, moment, limit)).fetchall()
        return [ExtractionJob(t, u, c, s, datetime.fromisoformat(d), i) for t, u, c, s, d, i in rows]

    def next_due_at(self) -> datetime | None:
        with self._db.read() as conn:
            row = conn.execute("SELECT MIN(due_at) FROM extraction_jobs").fetchone()
        return datetime.fromisoformat(row[0]) if row and row[0] else None

    def claim(self, job: ExtractionJob, now: datetime, lease: timedelta) -> Claim:
        key = (job.tenant_id, job.user_id, job.conversation_id)
        with self._db.write() as conn:
            row = conn.execute("SELECT schedule_id, claimed_until FROM extraction_jobs WHERE tenant_id=? AND "
                               "user_id=? AND conversation_id=?", key).fetchone()
            if row is None or row[0] != job.schedule_id:
                return Claim.STALE
            if row[1] is not None and row[1] > iso(now):
                return Claim.BUSY
            conn.execute("UPDATE extraction_jobs SET claimed_id=?, claimant=?, claimed_until=? WHERE tenant_id=? "
                         "AND user_id=? AND conversation_id=?",
                         (job.schedule_id, str(os.getpid()), iso(now + lease), *key))
        return Claim.CLAIMED

    def complete(self, job: ExtractionJob) -> None:
        key = (job.tenant_id, job.user_id, job.conversation_id)
        with self._db.write() as conn:
            conn.execute("DELETE FROM extraction_jobs WHERE tenant_id=? AND user_id=? AND conversation_id=? "
                         "AND schedule_id=?", (*key, job.schedule_id))
            self._hand_back(conn, job)  # a newer generation stays: it may run now
        self.wakeup.set()

    def release(self, job: ExtractionJob, retry_at: datetime) -> None:
        with self._db.write() as conn:
            conn.execute("UPDATE extraction_jobs SET due_at=MAX(due_at, ?) WHERE tenant_id=? AND user_id=? AND "
                         "conversation_id=? AND schedule_id=? AND claimed_id=?",
                         (iso(retry_at), job.tenant_id, job.user_id, job.conversation_id, job.schedule_id,
                          job.schedule_id))
            self._hand_back(conn, job)
        self.wakeup.set()

    def defer(self, job: ExtractionJob, at: datetime) -> None:
        """Nothing to do: the row is still there and ``due`` offers it once the lease is handed back."""

    def drop(self, job: ExtractionJob) -> None:
        """Nothing to do: a stale copy changes no row."""

    def recover_claims(self) -> int:
        """Hand back the leases of processes that are gone (a worker killed mid-job), so their jobs run
        now rather than when the lease runs out. Returns how many were handed back."""
        with self._db.write() as conn:
            claimants = [row[0] for row in conn.execute(
                "SELECT DISTINCT claimant FROM extraction_jobs WHERE claimant IS NOT NULL")]
            dead = [c for c in claimants if not _process_alive(c)]
            return conn.executemany(
                "UPDATE extraction_jobs SET claimed_id=NULL, claimant=NULL, claimed_until=NULL WHERE claimant=?",
                [(c,) for c in dead]).rowcount if dead else 0

    @staticmethod
    def _hand_back(conn: sqlite3.Connection, job: ExtractionJob) -> None:
        conn.execute("UPDATE extraction_jobs SET claimed_id=NULL, claimant=NULL, claimed_until=NULL WHERE "
                     "tenant_id=? AND user_id=? AND conversation_id=? AND claimed_id=?",
                     (job.tenant_id, job.user_id, job.conversation_id, job.schedule_id))


def _process_alive(claimant: str) -> bool:
    """Whether the local process that holds a lease still runs (claimants are process ids)."""
    try:
        os.kill(int(claimant), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True  # it exists, owned by someone else
    return True


class ThreadUserLocks:
    """One lock per user inside this process; SQLite's write lock covers other processes.

    Re-entrant: the extraction holds the user's lock from reading the buffer to the last write
    (an erase must not slip in between), and the writes it calls take the same lock again.
    """

    def __init__(self) -> None:
        self._locks: dict[tuple[str, str], threading.RLock] = {}
        self._guard = threading.Lock()

    @contextmanager
    def hold(self, tenant_id: str, user_id: str) -> Iterator[None]:
        with self._guard:
            lock = self._locks.setdefault((tenant_id, user_id), threading.RLock())
        with lock:
            yield


class SqliteFeedbackStore:
    """Ratings of retrievals; sealed, since a comment is the user's own words."""

    def __init__(self, db: Database, cipher: UserCipher) -> None:
        self._db = db
        self._cipher = cipher

    def _open(self, tenant_id: str, user_id: str, trace_id: str, sealed: bytes) -> FeedbackRecord:
        return FeedbackRecord.model_validate_json(
            self._cipher.open(tenant_id, user_id, trace_id, "feedback", sealed))

    def get(self, tenant_id: str, trace_id: str) -> FeedbackRecord | None:
        with self._db.read() as conn:
            row = conn.execute("SELECT user_id, sealed FROM feedback WHERE tenant_id=? AND trace_id=?",
                               (tenant_id, trace_id)).fetchone()
        return self._open(tenant_id, row[0], trace_id, row[1]) if row else None

    def put(self, record: FeedbackRecord) -> None:
        sealed = self._cipher.seal(record.tenant_id, record.user_id, record.trace_id, "feedback",
                                   record.model_dump_json().encode())
        with self._db.write() as conn:
            conn.execute("INSERT OR REPLACE INTO feedback VALUES (?,?,?,?,?)",
                         (record.tenant_id, record.trace_id, record.user_id, sealed, iso(record.at)))

    def since(self, tenant_id: str, moment: datetime) -> list[FeedbackRecord]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT user_id, trace_id, sealed FROM feedback WHERE tenant_id=? AND at >= ? "
                                "ORDER BY at", (tenant_id, iso(moment))).fetchall()
        out = []
        for user_id, trace_id, sealed in rows:
            try:
                out.append(self._open(tenant_id, user_id, trace_id, sealed))
            except SealError:
                continue  # an erased user's leftovers cannot be read, by design
        return out

    def for_user(self, tenant_id: str, user_id: str) -> list[FeedbackRecord]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT trace_id, sealed FROM feedback WHERE tenant_id=? AND user_id=? ORDER BY at",
                                (tenant_id, user_id)).fetchall()
        return [self._open(tenant_id, user_id, trace_id, sealed) for trace_id, sealed in rows]

    def delete_user(self, tenant_id: str, user_id: str) -> None:
        with self._db.write() as conn:
            conn.execute("DELETE FROM feedback WHERE tenant_id=? AND user_id=?", (tenant_id, user_id))


class SqliteSessionStore:
    """Session state is sealed (it holds recent turns) and hidden once past its expiry."""

    def __init__(self, db: Database, cipher: UserCipher) -> None:
        self._db = db
        self._cipher = cipher

    def get(self, tenant_id: str, user_id: str, session_id: str, now: datetime) -> SessionState | None:
        with self._db.read() as conn:
            row = conn.execute("SELECT sealed FROM sessions WHERE tenant_id=? AND user_id=? AND session_id=? "
                               "AND expires_at > ?", (tenant_id, user_id, session_id, iso(now))).fetchone()
        if row is None:
            return None
        return SessionState.model_validate_json(self._cipher.open(tenant_id, user_id, session_id, "session", row[0]))

    def put(self, tenant_id: str, user_id: str, state: SessionState) -> None:
        sealed = self._cipher.seal(tenant_id, user_id, state.session_id, "session", state.model_dump_json().encode())
        with self._db.write() as conn:
            conn.execute("INSERT OR REPLACE INTO sessions VALUES (?,?,?,?,?)",
                         (tenant_id, user_id, state.session_id, sealed, iso(state.expires_at)))

    def for_user(self, tenant_id: str, user_id: str, now: datetime) -> list[SessionState]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT session_id, sealed FROM sessions WHERE tenant_id=? AND user_id=? "
                                "AND expires_at > ? ORDER BY session_id", (tenant_id, user_id, iso(now))).fetchall()
        return [SessionState.model_validate_json(self._cipher.open(tenant_id, user_id, sid, "session", sealed))
                for sid, sealed in rows]

    def purge_expired(self, now: datetime) -> int:
        with self._db.write() as conn:
            return conn.execute("DELETE FROM sessions WHERE expires_at <= ?", (iso(now),)).rowcount

    def delete_user(self, tenant_id: str, user_id: str) -> None:
        with self._db.write() as conn:
            conn.execute("DELETE FROM sessions WHERE tenant_id=? AND user_id=?", (tenant_id, user_id))


class SqliteWeightsStore:
    """Every version is kept (an audit of how ranking changed); reads are cached briefly."""

    def __init__(self, db: Database, cache_seconds: float = 30.0) -> None:
        self._db = db
        self._cache: dict[str, tuple[float, TunedWeights | None]] = {}
        self._cache_seconds = cache_seconds
        self._lock = threading.Lock()

    def current(self, tenant_id: str) -> TunedWeights | None:
        now = time.monotonic()
        with self._lock:
            hit = self._cache.get(tenant_id)
        if hit is not None and now - hit[0] < self._cache_seconds:
            return hit[1]
        with self._db.read() as conn:
            row = conn.execute("SELECT body FROM tuned_weights WHERE tenant_id=? ORDER BY version DESC LIMIT 1",
                               (tenant_id,)).fetchone()
        weights = TunedWeights.model_validate_json(row[0]) if row else None
        with self._lock:
            self._cache[tenant_id] = (now, weights)
        return weights

    def put(self, weights: TunedWeights) -> None:
        with self._db.write() as conn:
            conn.execute("INSERT OR IGNORE INTO tuned_weights VALUES (?,?,?)",
                         (weights.tenant_id, weights.version, weights.model_dump_json()))
        with self._lock:
            self._cache.pop(weights.tenant_id, None)
