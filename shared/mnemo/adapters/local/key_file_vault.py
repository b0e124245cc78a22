"""Per-user data keys wrapped by a local master key file: the embedded stand-in for KMS."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from mnemo.adapters.local.sqlite_db import Database
from mnemo.clock import Clock, iso
from mnemo.errors import BackendUnavailable, ConfigurationError

KEY_BYTES = 32


def load_or_create_master_key(path: Path) -> bytes:
    """32 random bytes in a file only its owner can read (0600)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            raise ConfigurationError(f"{path.name} must not be readable by others (chmod 600)") from None
        key = path.read_bytes()
        if len(key) != KEY_BYTES:
            raise ConfigurationError(f"{path.name} is not a {KEY_BYTES}-byte key") from None
        return key
    key = os.urandom(KEY_BYTES)
    with os.fdopen(fd, "wb") as fh:
        fh.write(key)
    return key


class KeyFileVault:
    """Envelope encryption as with KMS: the wrapped key is stored, the plaintext only cached."""

    def __init__(self, db: Database, master_key_path: Path, clock: Clock) -> None:
        self._db = db
        self._master = AESGCM(load_or_create_master_key(master_key_path))
        self._clock = clock
        self._cache: dict[tuple[str, str], tuple[bytes, bytes]] = {}  # owner -> (wrapped, key)
        self._lock = threading.Lock()

    @staticmethod
    def _context(tenant_id: str, user_id: str) -> bytes:
        return f"mnemo-data-key\x1f{tenant_id}\x1f{user_id}".encode()

    def data_key(self, tenant_id: str, user_id: str) -> bytes:
        """The user's key. The wrapped key is read every time (one indexed row): another worker
        process may have erased the user and a later write created a new key, and a key cached
        here must then not seal or open anything. Only the unwrapping is cached."""
        owner = (tenant_id, user_id)
        with self._db.read() as conn:
            row = conn.execute("SELECT wrapped FROM data_keys WHERE tenant_id=? AND user_id=?", owner).fetchone()
        if row is None:
            key = os.urandom(KEY_BYTES)
            nonce = os.urandom(12)
            wrapped = nonce + self._master.encrypt(nonce, key, self._context(*owner))
            with self._db.write() as conn:
                conn.execute("INSERT OR IGNORE INTO data_keys VALUES (?,?,?,?)",
                             (*owner, wrapped, iso(self._clock.now())))
                row = conn.execute("SELECT wrapped FROM data_keys WHERE tenant_id=? AND user_id=?",
                                   owner).fetchone()
        blob = bytes(row[0])
        with self._lock:
            cached = self._cache.get(owner)
        if cached is not None and cached[0] == blob:
            return cached[1]
        try:
            key = self._master.decrypt(blob[:12], blob[12:], self._context(*owner))
        except InvalidTag as exc:
            raise BackendUnavailable("a data key could not be unwrapped") from exc
        with self._lock:
            self._cache[owner] = (blob, key)
        return key

    def destroy(self, tenant_id: str, user_id: str) -> None:
        with self._lock:
            self._cache.pop((tenant_id, user_id), None)
        with self._db.write() as conn:
            conn.execute("DELETE FROM data_keys WHERE tenant_id=? AND user_id=?", (tenant_id, user_id))
