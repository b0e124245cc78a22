"""Memories in SQLite, sealed at rest, searched through a per-user in-memory index."""

from __future__ import annotations

import base64
import json
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from mnemo.adapters.local.sqlite_db import Database
from mnemo.adapters.local.user_index import UserIndex
from mnemo.clock import iso
from mnemo.crypto import UserCipher
from mnemo.domain.models import Category, Memory, MemoryVersion, Status
from mnemo.domain.ranking import Hit
from mnemo.errors import InvalidInput
from mnemo.ports import Page, SearchRequest, Vector

INDEXED = frozenset({Status.ACTIVE, Status.PROBATIONARY, Status.PENDING})
_INDEXED_VALUES = frozenset(s.value for s in INDEXED)
# what a user's index is built from (row[6], the status, tells the live rows from those that left the index)
_INDEX_ROWS = ("SELECT tenant_id, user_id, memory_id, sealed, embedding, parts, status FROM memories "
               "WHERE tenant_id=? AND user_id=? ")


class SqliteMemoryStore:
    def __init__(self, db: Database, cipher: UserCipher, dimension: int, bm25_k1: float = 1.2,
                 bm25_b: float = 0.75, cached_users: int = 256) -> None:
        self._db = db
        self._cipher = cipher
        self._dimension = dimension
        self._k1 = bm25_k1
        self._b = bm25_b
        self._indexes: OrderedDict[tuple[str, str], UserIndex] = OrderedDict()
        self._cached_users = cached_users
        self._lock = threading.RLock()

    # -- sealing
    def _seal(self, memory: Memory) -> bytes:
        body = memory.model_dump_json(exclude={"embedding"}).encode()
        return self._cipher.seal(memory.tenant_id, memory.user_id, memory.memory_id, "memory", body)

    def _open(self, tenant_id: str, user_id: str, memory_id: str, sealed: bytes,
              embedding: bytes | None) -> Memory:
        body = self._cipher.open(tenant_id, user_id, memory_id, "memory", sealed)
        memory = Memory.model_validate_json(body)
        if embedding is not None:
            memory.embedding = self._open_vector(tenant_id, user_id, memory_id, "embedding", embedding).tolist()
        return memory

    # Vectors are sealed like the text (DESIGN.md section 7): with the database file and the public model
    # alone, a stored vector would confirm a guessed text at cosine 1.00.
    def _seal_vector(self, m: Memory, kind: str, vector: Vector) -> bytes:
        return self._cipher.seal(m.tenant_id, m.user_id, m.memory_id, kind, vector.astype(np.float32).tobytes())

    def _open_vector(self, tenant_id: str, user_id: str, memory_id: str, kind: str, blob: bytes) -> Vector:
        raw = bytes(blob)
        if len(raw) % 4:  # sealed (version byte + nonce + tag); a plain float32 array is 4-byte aligned
            raw = self._cipher.open(tenant_id, user_id, memory_id, kind, raw)
        return np.frombuffer(raw, dtype=np.float32)

    def _row_to_memory(self, row: sqlite3.Row | tuple[object, ...], with_vector: bool = False) -> Memory:
        tenant_id, user_id, memory_id, sealed, embedding = row[:5]
        return self._open(str(tenant_id), str(user_id), str(memory_id), bytes(sealed),  # type: ignore[arg-type]
                          bytes(embedding) if with_vector and embedding is not None else None)  # type: ignore[arg-type]

    # -- the per-user index
    def _generation(self, conn: sqlite3.Connection, tenant_id: str, user_id: str) -> int:
        return self._generations(conn, tenant_id, user_id)[0]

    @staticmethod
    def _generations(conn: sqlite3.Connection, tenant_id: str, user_id: str) -> tuple[int, int]:
        """The user's generation and the last one a cached index cannot catch up from (see ``_index``)."""
        row = conn.execute("SELECT generation, reset FROM user_generations WHERE tenant_id=? AND user_id=?",
                           (tenant_id, user_id)).fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    def _readable(self, tenant_id: str, user_id: str) -> bool:
        """A user without a data key has nothing readable: rows found are an unfinished erase's
        leftovers (its key went first), and a read must neither serve them nor create a key."""
        return self._cipher.existing_key(tenant_id, user_id) is not None

    def _index(self, tenant_id: str, user_id: str) -> UserIndex:
        owner = (tenant_id, user_id)
        if not self._readable(tenant_id, user_id):
            return UserIndex(self._dimension, -1, self._k1, self._b)  # empty, and never cached
        with self._db.read() as conn:
            generation, reset = self._generations(conn, tenant_id, user_id)
            with self._lock:
                index = self._indexes.get(owner)
                if index is not None and index.generation == generation:
                    self._indexes.move_to_end(owner)
                    return index
            # stale (another process wrote) or absent (first use). Stale, it reads only the rows written since
            # its generation, where a rebuild opened every row of the user again (decrypted, parsed, stemmed:
            # ~4 ms of a retrieve at 20 memories, paid by every worker after each remember or extraction
            # elsewhere); unless rows were removed or the user began anew since (``reset``), which no row
            # written since shows. The generations and the rows are read in one snapshot, so a write in
            # between cannot hide under an older generation number
            base = index.generation if index is not None and reset <= index.generation < generation else None
            own = not conn.in_transaction
            if own:
                conn.execute("BEGIN")
            try:
                generation, reset = self._generations(conn, tenant_id, user_id)
                if base is not None and reset <= base < generation:
                    rows = conn.execute(_INDEX_ROWS + "AND written > ?", (*owner, base)).fetchall()
                else:
                    base = None
                    rows = conn.execute(_INDEX_ROWS + "AND status IN ('active','probationary','pending')",
                                        owner).fetchall()
            finally:
                if own:
                    conn.execute("COMMIT")
        live = [(self._row_to_memory(row), row) for row in rows if row[6] in _INDEXED_VALUES]
        changes = [(memory, self._open_vector(*owner, memory.memory_id, "embedding", row[4]),
                    self._parts(*owner, memory.memory_id, row[5])) for memory, row in live]
        if base is not None:
            gone = [str(row[2]) for row in rows if row[6] not in _INDEXED_VALUES]
            with self._lock:
                cached = self._indexes.get(owner)
                if cached is not None and cached.generation == base:
                    cached.catch_up(changes, gone, generation)
                if cached is not None and cached.generation == generation:
                    self._indexes.move_to_end(owner)
                    return cached
                # moved meanwhile by another thread of this process: read it whole, as if it had not been cached
                self._indexes.pop(owner, None)
            return self._index(tenant_id, user_id)
        index = UserIndex(self._dimension, generation, self._k1, self._b)
        for memory, vector, parts in changes:
            index.put(memory, vector, parts)
        with self._lock:
            self._indexes[owner] = index
            self._indexes.move_to_end(owner)
            while len(self._indexes) > self._cached_users:
                self._indexes.popitem(last=False)
        return index

    # -- port methods
    def get(self, tenant_id: str, user_id: str, memory_id: str) -> Memory | None:
        if not self._readable(tenant_id, user_id):
            return None
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT tenant_id, user_id, memory_id, sealed, embedding FROM memories "
                "WHERE tenant_id=? AND user_id=? AND memory_id=?", (tenant_id, user_id, memory_id)).fetchone()
        return self._row_to_memory(row, with_vector=True) if row else None

    def get_many(self, tenant_id: str, user_id: str, memory_ids: Sequence[str]) -> list[Memory]:
        found = {}
        for memory_id in dict.fromkeys(memory_ids):
            memory = self.get(tenant_id, user_id, memory_id)
            if memory is not None:
                found[memory_id] = memory
        return [found[i] for i in memory_ids if i in found]

    def save(self, memories: Sequence[Memory], history: Sequence[MemoryVersion] = ()) -> None:
        if not memories and not history:
            return
        rows = []
        vectors: dict[str, tuple[Vector, Vector | None]] = {}
        for m in memories:
            vector, parts = self._vectors_for(m)
            vectors[m.memory_id] = (vector, parts)
            rows.append([
                m.tenant_id, m.user_id, m.memory_id, m.scope.value, m.project_id, m.session_id,
                m.category.value, m.status.value,
                self._cipher.keyed_hash(m.tenant_id, m.user_id, "subject:" + m.subject),
                self._cipher.fingerprint(m.tenant_id, m.user_id, m.content),
                m.confidence, m.version, iso(m.created_at), iso(m.updated_at), iso(m.expires_at),
                self._seal(m), self._seal_vector(m, "embedding", vector),
                self._seal_vector(m, "parts", parts) if parts is not None else None,
                0,  # written: the user's new generation, known inside the transaction
            ])
        owners = {m.owner for m in memories}
        by_id = {m.memory_id: m for m in memories}
        version_rows = []
        for h in history:
            if h.memory_id not in by_id:
                raise InvalidInput("a version must be saved together with its memory")
            tenant_id, user_id = by_id[h.memory_id].owner
            sealed = self._cipher.seal(tenant_id, user_id, f"{h.memory_id}#{h.version}", "version",
                                       h.model_dump_json().encode())
            version_rows.append((tenant_id, user_id, h.memory_id, h.version, sealed, iso(h.updated_at)))
        with self._db.write() as conn:
            generations = {}
            for tenant_id, user_id in owners:
                before = self._generation(conn, tenant_id, user_id)
                generations[(tenant_id, user_id)] = (before, self._new_generation(conn, tenant_id, user_id))
            for row in rows:
                row[-1] = generations[(str(row[0]), str(row[1]))][1]
            conn.executemany("INSERT OR REPLACE INTO memories VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
            conn.executemany("INSERT OR REPLACE INTO memory_versions VALUES (?,?,?,?,?,?)", version_rows)
            # update the cached indexes inside the transaction so no reader sees a half state
            with self._lock:
                for owner, (before, generation) in generations.items():
                    index = self._indexes.get(owner)
                    if index is None:
                        continue
                    if index.generation != before:
                        del self._indexes[owner]  # someone else wrote meanwhile: rebuild lazily
                        continue
                    for m in memories:
                        if m.owner != owner:
                            continue
                        if m.status in INDEXED:
                            vector, parts = vectors[m.memory_id]
                            index.put(m.model_copy(update={"embedding": None, "part_embeddings": None}),
                                      vector, parts)
                        else:
                            index.remove(m.memory_id)
                    index.generation = generation

    def _vectors_for(self, m: Memory) -> tuple[Vector, Vector | None]:
        """The memory's embeddings, or the stored ones when an update carries none."""
        if m.embedding is not None:
            parts = (np.asarray(m.part_embeddings, dtype=np.float32).reshape(-1, self._dimension)
                     if m.part_embeddings else None)
            return np.asarray(m.embedding, dtype=np.float32), parts
        with self._db.read() as conn:
            row = conn.execute("SELECT embedding, parts FROM memories WHERE tenant_id=? AND user_id=? AND "
                               "memory_id=?", (m.tenant_id, m.user_id, m.memory_id)).fetchone()
        if row is None or row[0] is None:
            raise InvalidInput("a new memory must be embedded before it is saved")
        return (self._open_vector(m.tenant_id, m.user_id, m.memory_id, "embedding", row[0]),
                self._parts(m.tenant_id, m.user_id, m.memory_id, row[1]))

    def _parts(self, tenant_id: str, user_id: str, memory_id: str, blob: bytes | None) -> Vector | None:
        if not blob:
            return None
        return self._open_vector(tenant_id, user_id, memory_id, "parts", blob).reshape(-1, self._dimension)

    def by_subject(self, tenant_id: str, user_id: str, subjects: Sequence[str]) -> list[Memory]:
        wanted = set(subjects)
        index = self._index(tenant_id, user_id)
        return [m.model_copy(update={"embedding": vector.tolist()})
                for m, vector in index.live() if m.subject in wanted]

    def by_fingerprint(self, tenant_id: str, user_id: str, content: str) -> list[Memory]:
        fingerprint = self._cipher.lookup_fingerprint(tenant_id, user_id, content)
        if fingerprint is None:
            return []  # no key, nothing readable (and a lookup creates none)
        with self._db.read() as conn:
            rows = conn.execute(
                # without statistics the planner prefers the primary key prefix: a scan of the user's rows
                "SELECT tenant_id, user_id, memory_id, sealed, embedding FROM memories INDEXED BY memories_fingerprint "
                "WHERE tenant_id=? AND user_id=? AND fingerprint=? AND status != 'deleted'",
                (tenant_id, user_id, fingerprint)).fetchall()
        return [self._row_to_memory(r, with_vector=True) for r in rows]

    def similar(self, tenant_id: str, user_id: str, vector: Vector, limit: int) -> list[tuple[Memory, float]]:
        return self._index(tenant_id, user_id).similar(vector, limit)

    def search(self, tenant_id: str, user_id: str, request: SearchRequest) -> list[Hit]:
        return self._index(tenant_id, user_id).search(request)

    def common_terms(self, tenant_id: str, user_id: str, terms: Sequence[str], share: float) -> frozenset[str]:
        return self._index(tenant_id, user_id).common_terms(terms, share)

    def page(self, tenant_id: str, user_id: str, *, statuses: Sequence[Status] | None,
             category: Category | None, limit: int, cursor: str | None) -> Page:
        if statuses and not cursor and INDEXED.issuperset(statuses):
            # the first page of live memories (the profile's build, after every write and on a stale read):
            # the user's index holds them opened already, where the rows would all be decrypted again
            return self._page_of_index(tenant_id, user_id, set(statuses), category, limit)
        sql = ("SELECT tenant_id, user_id, memory_id, sealed, embedding, created_at FROM memories "
               "WHERE tenant_id=? AND user_id=?")
        args: list[object] = [tenant_id, user_id]
        if statuses:
            sql += f" AND status IN ({','.join('?' * len(statuses))})"
            args.extend(s.value for s in statuses)
        if category is not None:
            sql += " AND category=?"
            args.append(category.value)
        if cursor:
            try:
                created_at, memory_id = json.loads(base64.urlsafe_b64decode(cursor.encode()))
            except (ValueError, TypeError) as exc:
                raise InvalidInput("cursor is not valid", details={"field": "cursor"}) from exc
            if not (isinstance(created_at, str) and isinstance(memory_id, str)):  # [[1],[2]] is no cursor we made
                raise InvalidInput("cursor is not valid", details={"field": "cursor"})
            sql += " AND (created_at, memory_id) < (?, ?)"
            args.extend([created_at, memory_id])
        sql += " ORDER BY created_at DESC, memory_id DESC LIMIT ?"
        args.append(limit + 1)
        if not self._readable(tenant_id, user_id):
            return Page([], None)
        with self._db.read() as conn:
            rows = conn.execute(sql, args).fetchall()
        items = [self._row_to_memory(r) for r in rows[:limit]]
        next_cursor = None
        if len(rows) > limit:
            last = rows[limit - 1]
            next_cursor = base64.urlsafe_b64encode(json.dumps([last[5], last[2]]).encode()).decode()
        return Page(items, next_cursor)

    def _page_of_index(self, tenant_id: str, user_id: str, statuses: set[Status], category: Category | None,
                       limit: int) -> Page:
        """``page`` from the index: the same rows in the same order (created_at, then id, newest first)."""
        found = sorted(((iso(m.created_at), m.memory_id, m) for m, _ in self._index(tenant_id, user_id).live()
                        if m.status in statuses and (category is None or m.category is category)),
                       key=lambda row: (row[0], row[1]), reverse=True)
        items = [m.model_copy() for _, _, m in found[:limit]]  # the caller's own objects, never the index's
        next_cursor = None
        if len(found) > limit:
            last = found[limit - 1]
            next_cursor = base64.urlsafe_b64encode(json.dumps([last[0], last[1]]).encode()).decode()
        return Page(items, next_cursor)

    def history(self, tenant_id: str, user_id: str, memory_id: str) -> list[MemoryVersion]:
        if not self._readable(tenant_id, user_id):
            return []
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT version, sealed FROM memory_versions WHERE tenant_id=? AND user_id=? AND memory_id=? "
                "ORDER BY version", (tenant_id, user_id, memory_id)).fetchall()
        return [MemoryVersion.model_validate_json(
            self._cipher.open(tenant_id, user_id, f"{memory_id}#{v}", "version", bytes(s))) for v, s in rows]

    def count(self, tenant_id: str, user_id: str, statuses: Sequence[Status]) -> int:
        with self._db.read() as conn:
            row = conn.execute(
                f"SELECT COUNT(*) FROM memories WHERE tenant_id=? AND user_id=? AND status IN "  # noqa: S608
                f"({','.join('?' * len(statuses))})", (tenant_id, user_id, *(s.value for s in statuses))).fetchone()
        return int(row[0])

    def all_for_user(self, tenant_id: str, user_id: str) -> Iterator[Memory]:
        if not self._readable(tenant_id, user_id):
            return
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT tenant_id, user_id, memory_id, sealed, embedding FROM memories "
                "WHERE tenant_id=? AND user_id=? ORDER BY created_at, memory_id", (tenant_id, user_id)).fetchall()
        for row in rows:
            yield self._row_to_memory(row, with_vector=True)

    def delete(self, tenant_id: str, user_id: str, memory_ids: Sequence[str]) -> None:
        with self._db.write() as conn:
            for memory_id in memory_ids:
                conn.execute("DELETE FROM memories WHERE tenant_id=? AND user_id=? AND memory_id=?",
                             (tenant_id, user_id, memory_id))
                conn.execute("DELETE FROM memory_versions WHERE tenant_id=? AND user_id=? AND memory_id=?",
                             (tenant_id, user_id, memory_id))
            self._bump(conn, tenant_id, user_id)

    # a per-user cache (mnemo.services.user_caches): the users' indexes, their memories decrypted
    def owners(self) -> set[tuple[str, str]]:
        with self._lock:
            return set(self._indexes)

    def forget_user(self, tenant_id: str, user_id: str) -> None:
        with self._lock:
            self._indexes.pop((tenant_id, user_id), None)

    def delete_user(self, tenant_id: str, user_id: str) -> None:
        with self._db.write() as conn:
            conn.execute("DELETE FROM memories WHERE tenant_id=? AND user_id=?", (tenant_id, user_id))
            conn.execute("DELETE FROM memory_versions WHERE tenant_id=? AND user_id=?", (tenant_id, user_id))
            conn.execute("DELETE FROM user_generations WHERE tenant_id=? AND user_id=?", (tenant_id, user_id))
            # no row of the user is left (not even its name in this table): the shared counter moves on,
            # so a later write gives the user a generation no process has cached before
            conn.execute("UPDATE store_generation SET value = value + 1 WHERE id = 1")
        with self._lock:
            self._indexes.pop((tenant_id, user_id), None)
        # secure_delete zeroed the pages in the database; the WAL still holds their old images
        self._db.checkpoint()

    @contextmanager
    def atomic(self) -> Iterator[None]:
        # begun at the first write: the reads before it (a write's resolution against the stored facts) hold
        # no write lock; every caller holds the user's lock, which every writer of a user's memories takes
        with self._db.deferred():
            try:
                yield
            except BaseException:
                with self._lock:  # the cached indexes took writes that are now rolled back
                    self._indexes.clear()
                raise

    def recover(self, tenant_id: str, user_id: str) -> int:
        return 0  # a write and its audit events are one SQLite transaction: nothing is ever half done

    def tenants(self) -> list[str]:
        with self._db.read() as conn:
            return [r[0] for r in conn.execute("SELECT DISTINCT tenant_id FROM memories ORDER BY tenant_id")]

    def users(self, tenant_id: str) -> list[str]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT DISTINCT user_id FROM memories WHERE tenant_id=? ORDER BY user_id",
                                (tenant_id,)).fetchall()
        return [r[0] for r in rows]

    @staticmethod
    def _new_generation(conn: sqlite3.Connection, tenant_id: str, user_id: str, *, removes: bool = False) -> int:
        """A store-wide fresh number for the user: every worker process's cached index of this user
        (whose number is older) catches up on its next read, from the rows written since; or, for a write
        that ``removes`` rows or the user's first (a new row here: never written, or erased since), reads
        them all again."""
        conn.execute("UPDATE store_generation SET value = value + 1 WHERE id = 1")
        generation = int(conn.execute("SELECT value FROM store_generation WHERE id = 1").fetchone()[0])
        conn.execute("INSERT INTO user_generations (tenant_id, user_id, generation, reset) VALUES (?,?,?,?) "
                     "ON CONFLICT(tenant_id, user_id) DO UPDATE SET generation = excluded.generation, "
                     "reset = CASE WHEN ? THEN excluded.reset ELSE reset END",
                     (tenant_id, user_id, generation, generation, removes))
        return generation

    def _bump(self, conn: sqlite3.Connection, tenant_id: str, user_id: str) -> None:
        self._new_generation(conn, tenant_id, user_id, removes=True)
        with self._lock:
            self._indexes.pop((tenant_id, user_id), None)
