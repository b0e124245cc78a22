"""Per-user data keys wrapped by a local master key file: the embedded stand-in for KMS.

Erasing a user deletes the user's wrapped key and then rotates the master key: a new master key
re-wraps every remaining data key in the same transaction and replaces the file, and the old
master key is gone. A copy of the database taken before the erase holds the erased user's wrapped
key, but only under the old master key: with the key material left afterwards it opens nothing.
(README "Backups and erasure" says what a backup can and cannot recover.)

Rotation is crash-safe: the new key is written beside the old one (``master.key.next``) before the
transaction, and the database records which master key wraps its keys (a fingerprint in
``vault_meta``); on start, and whenever an unwrap fails (another process rotated), the file that
matches the database is taken.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import os
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from mnemo.adapters.local.sqlite_db import Database
from mnemo.clock import Clock, iso
from mnemo.crypto import user_key_owners
from mnemo.errors import BackendUnavailable, ConfigurationError, ErasureUnderway

KEY_BYTES = 32
NEXT_SUFFIX = ".next"


def _read_key(path: Path) -> bytes:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise ConfigurationError(f"{path.name} must not be readable by others (chmod 600)")
    key = path.read_bytes()
    if len(key) != KEY_BYTES:
        raise ConfigurationError(f"{path.name} is not a {KEY_BYTES}-byte key")
    return key


def _write_key(path: Path, key: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(key)
        fh.flush()
        os.fsync(fh.fileno())


def load_or_create_master_key(path: Path) -> bytes:
    """32 random bytes in a file only its owner can read (0600)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read_key(path)
    key = os.urandom(KEY_BYTES)
    with os.fdopen(fd, "wb") as fh:
        fh.write(key)
    return key


def fingerprint(master: bytes) -> str:
    """Names a master key without revealing it (stored in the database to match file and keys)."""
    return hmac.new(master, b"mnemo/master-key-id/v1", hashlib.sha256).hexdigest()[:32]


class KeyFileVault:
    """Envelope encryption as with KMS: the wrapped key is stored, the plaintext only cached."""

    def __init__(self, db: Database, master_key_path: Path, clock: Clock) -> None:
        self._db = db
        self._path = master_key_path
        self._clock = clock
        self._cache: dict[tuple[str, str], tuple[bytes, bytes]] = {}  # owner -> (wrapped, key)
        self._lock = threading.Lock()
        self._master_key = load_or_create_master_key(master_key_path)
        self._master = AESGCM(self._master_key)
        self._recover()

    @staticmethod
    def _context(tenant_id: str, user_id: str) -> bytes:
        return f"mnemo-data-key\x1f{tenant_id}\x1f{user_id}".encode()

    def _stored_fingerprint(self) -> str | None:
        with self._db.read() as conn:
            row = conn.execute("SELECT value FROM vault_meta WHERE name='master'").fetchone()
        return str(row[0]) if row else None

    @contextmanager
    def _files(self) -> Iterator[None]:
        """Exclusive use of the key files across processes (a rotation, or the recovery at start)."""
        fd = os.open(self._path.with_name(self._path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # releases the lock

    def _recover(self) -> None:
        """At start: finish or discard a rotation a crash interrupted, then take the current key."""
        with self._files():
            stored = self._stored_fingerprint()
            following = self._path.with_name(self._path.name + NEXT_SUFFIX)
            if following.exists():
                if stored is not None and fingerprint(_read_key(following)) == stored:
                    os.replace(following, self._path)  # committed, not yet renamed
                else:
                    following.unlink()  # never committed
            self._reload()

    def _reload(self) -> None:
        """Take (in memory only) the key file the database's keys are wrapped under: another process
        may have rotated it (``.next`` between its commit and its rename)."""
        stored = self._stored_fingerprint()
        following = self._path.with_name(self._path.name + NEXT_SUFFIX)
        for path in (self._path, following):
            try:
                key = _read_key(path)
            except (OSError, ConfigurationError):
                continue
            if stored is None or fingerprint(key) == stored:
                with self._lock:
                    self._master_key, self._master = key, AESGCM(key)
                return

    def _unwrap(self, owner: tuple[str, str], blob: bytes) -> bytes:
        try:
            return self._master.decrypt(blob[:12], blob[12:], self._context(*owner))
        except InvalidTag:
            self._reload()  # another process may have rotated the master key
        try:
            return self._master.decrypt(blob[:12], blob[12:], self._context(*owner))
        except InvalidTag as exc:
            raise BackendUnavailable("a data key could not be unwrapped") from exc

    def _wrap(self, master: AESGCM, owner: tuple[str, str], key: bytes) -> bytes:
        nonce = os.urandom(12)
        return nonce + master.encrypt(nonce, key, self._context(*owner))

    def existing_key(self, tenant_id: str, user_id: str) -> bytes | None:
        """The user's key, or None when there is none: never creates one (a read finds nothing). The
        wrapped key is read every time (one indexed row): another worker process may have erased the
        user and a later write created a new key, and a key cached here must then not seal or open
        anything. Only the unwrapping is cached."""
        owner = (tenant_id, user_id)
        with self._db.read() as conn:
            row = conn.execute("SELECT wrapped FROM data_keys WHERE tenant_id=? AND user_id=?", owner).fetchone()
        return None if row is None else self._unwrapped(owner, bytes(row[0]))

    def data_key(self, tenant_id: str, user_id: str) -> bytes:
        """The user's key, created the first time (a write); refused while an erase is under way."""
        key = self.existing_key(tenant_id, user_id)
        if key is not None:
            return key
        owner = (tenant_id, user_id)
        key = os.urandom(KEY_BYTES)
        with self._db.write() as conn:
            if conn.execute("SELECT 1 FROM erasing WHERE tenant_id=? AND user_id=?", owner).fetchone():
                raise ErasureUnderway("the user is being erased; retry once the erase has finished")
            # wrapped under the master key the database records, never a stale one of this process
            stored = conn.execute("SELECT value FROM vault_meta WHERE name='master'").fetchone()
            if stored is not None and stored[0] != fingerprint(self._master_key):
                self._reload()
            if stored is None:
                conn.execute("INSERT INTO vault_meta VALUES ('master', ?)", (fingerprint(self._master_key),))
            conn.execute("INSERT OR IGNORE INTO data_keys VALUES (?,?,?,?)",
                         (*owner, self._wrap(self._master, owner, key), iso(self._clock.now())))
            row = conn.execute("SELECT wrapped FROM data_keys WHERE tenant_id=? AND user_id=?", owner).fetchone()
        return self._unwrapped(owner, bytes(row[0]))

    def _unwrapped(self, owner: tuple[str, str], blob: bytes) -> bytes:
        with self._lock:
            cached = self._cache.get(owner)
        if cached is not None and cached[0] == blob:
            return cached[1]
        key = self._unwrap(owner, blob)
        with self._lock:
            self._cache[owner] = (blob, key)
        return key

    # a per-user cache (mnemo.services.user_caches): the unwrapped keys
    def owners(self) -> set[tuple[str, str]]:
        with self._lock:
            return user_key_owners(self._cache)

    def forget_user(self, tenant_id: str, user_id: str) -> None:
        with self._lock:
            self._cache.pop((tenant_id, user_id), None)

    def erasing(self, tenant_id: str, user_id: str) -> bool:
        with self._db.read() as conn:
            return conn.execute("SELECT 1 FROM erasing WHERE tenant_id=? AND user_id=?",
                                (tenant_id, user_id)).fetchone() is not None

    def finish_erase(self, tenant_id: str, user_id: str) -> None:
        with self._db.write() as conn:
            conn.execute("DELETE FROM erasing WHERE tenant_id=? AND user_id=?", (tenant_id, user_id))
        # secure_delete zeroed the row in the database; the WAL still holds its old image (the user's id)
        self._db.checkpoint()

    def destroy(self, tenant_id: str, user_id: str) -> None:
        """Delete the user's wrapped key and mark the erase under way (one transaction: no key can be
        created until ``finish_erase``), then rotate the master key over every remaining one."""
        with self._lock:
            self._cache.pop((tenant_id, user_id), None)
        new_key = os.urandom(KEY_BYTES)
        new_master = AESGCM(new_key)
        following = self._path.with_name(self._path.name + NEXT_SUFFIX)
        with self._files():
            self._rotate(tenant_id, user_id, new_key, new_master, following)
        with self._lock:
            self._cache = {owner: (wrapped, key) for owner, (wrapped, key) in self._cache.items()
                           if owner != (tenant_id, user_id)}

    def _rotate(self, tenant_id: str, user_id: str, new_key: bytes, new_master: AESGCM, following: Path) -> None:
        with self._db.write() as conn:
            stored = conn.execute("SELECT value FROM vault_meta WHERE name='master'").fetchone()
            if stored is not None and stored[0] != fingerprint(self._master_key):
                self._reload()
            _write_key(following, new_key)
            conn.execute("DELETE FROM data_keys WHERE tenant_id=? AND user_id=?", (tenant_id, user_id))
            conn.execute("INSERT OR IGNORE INTO erasing VALUES (?,?,?)", (tenant_id, user_id, iso(self._clock.now())))
            rows = conn.execute("SELECT tenant_id, user_id, wrapped FROM data_keys").fetchall()
            rewrapped = [(self._wrap(new_master, (t, u), self._unwrap((t, u), bytes(w))), t, u) for t, u, w in rows]
            conn.executemany("UPDATE data_keys SET wrapped=? WHERE tenant_id=? AND user_id=?", rewrapped)
            conn.execute("INSERT OR REPLACE INTO vault_meta VALUES ('master', ?)", (fingerprint(new_key),))
        # the old master key is overwritten before the new one takes its name: no copy of it is left
        with open(self._path, "r+b") as fh:
            fh.write(bytes(KEY_BYTES))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(following, self._path)
        directory = os.open(self._path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
        with self._lock:
            self._master_key, self._master = new_key, new_master
