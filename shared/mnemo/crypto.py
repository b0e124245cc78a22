"""Sealing user text with the user's data key (AES-GCM, associated data binds the owner)."""

from __future__ import annotations

import hashlib
import hmac
import os
import threading
from collections import OrderedDict
from collections.abc import Iterable

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from mnemo.domain.text import normalise_content, terms
from mnemo.errors import BackendUnavailable
from mnemo.ports import KeyVault

NONCE_BYTES = 12
VERSION = b"\x01"


class SealError(BackendUnavailable):
    """A sealed value could not be opened (wrong owner, tampering, or a destroyed key)."""


class NoDataKey(SealError):
    """The user has no data key (never written, or erased): what is found sealed for them is left
    over from an erase, and reading never creates a key to try it with."""


def associated_data(tenant_id: str, user_id: str, record_id: str, kind: str) -> bytes:
    return "\x1f".join((kind, tenant_id, user_id, record_id)).encode()


class UserCipher:
    """Seals and opens user text; derives keyed hashes for lookups that must not reveal text."""

    def __init__(self, vault: KeyVault, cache_size: int = 4096) -> None:
        self._vault = vault
        self._aead: OrderedDict[tuple[str, str], tuple[bytes, AESGCM, bytes]] = OrderedDict()
        self._lock = threading.Lock()
        self._cache_size = cache_size

    def _derived(self, tenant_id: str, user_id: str, key: bytes) -> tuple[AESGCM, bytes]:
        """The sealing and hashing keys made from ``key`` (cached per user while the key stays)."""
        owner = (tenant_id, user_id)
        with self._lock:
            found = self._aead.get(owner)
            if found is not None and hmac.compare_digest(found[0], key):
                self._aead.move_to_end(owner)
                return found[1], found[2]
        # a separate sub-key for hashing, so the hash key never encrypts anything
        hash_key = hmac.new(key, b"mnemo/keyed-hash/v1", hashlib.sha256).digest()
        aead = AESGCM(key)
        with self._lock:
            self._aead[owner] = (key, aead, hash_key)
            while len(self._aead) > self._cache_size:
                self._aead.popitem(last=False)
        return aead, hash_key

    # the vault is asked every time: it knows when the key changed (an erase and a new key, possibly by
    # another worker process); only the objects derived from a key are cached here
    def _writing(self, tenant_id: str, user_id: str) -> tuple[AESGCM, bytes]:
        """For a write: the key is made the first time."""
        return self._derived(tenant_id, user_id, self._vault.data_key(tenant_id, user_id))

    def _existing(self, tenant_id: str, user_id: str) -> tuple[AESGCM, bytes] | None:
        """For a read: None when the user has no key (none is made)."""
        key = self._vault.existing_key(tenant_id, user_id)
        return None if key is None else self._derived(tenant_id, user_id, key)

    def _reading(self, tenant_id: str, user_id: str) -> tuple[AESGCM, bytes]:
        keys = self._existing(tenant_id, user_id)
        if keys is None:
            raise NoDataKey("the user has no data key")
        return keys

    def forget(self, tenant_id: str, user_id: str) -> None:
        with self._lock:
            self._aead.pop((tenant_id, user_id), None)

    # a per-user cache (mnemo.services.user_caches): the key and what is derived from it
    def owners(self) -> set[tuple[str, str]]:
        with self._lock:
            return set(self._aead)

    def forget_user(self, tenant_id: str, user_id: str) -> None:
        self.forget(tenant_id, user_id)

    # KeyVault, so the composition root can hand this out as the vault: destroying a key must
    # also drop the copy cached here, or new data would be sealed under the shredded key.
    def data_key(self, tenant_id: str, user_id: str) -> bytes:
        return self._vault.data_key(tenant_id, user_id)

    def existing_key(self, tenant_id: str, user_id: str) -> bytes | None:
        return self._vault.existing_key(tenant_id, user_id)

    def destroy(self, tenant_id: str, user_id: str) -> None:
        self.forget(tenant_id, user_id)
        self._vault.destroy(tenant_id, user_id)

    def erasing(self, tenant_id: str, user_id: str) -> bool:
        return self._vault.erasing(tenant_id, user_id)

    def finish_erase(self, tenant_id: str, user_id: str) -> None:
        self._vault.finish_erase(tenant_id, user_id)

    def seal(self, tenant_id: str, user_id: str, record_id: str, kind: str, plaintext: bytes) -> bytes:
        aead, _ = self._writing(tenant_id, user_id)
        nonce = os.urandom(NONCE_BYTES)
        return VERSION + nonce + aead.encrypt(nonce, plaintext,
                                              associated_data(tenant_id, user_id, record_id, kind))

    def open(self, tenant_id: str, user_id: str, record_id: str, kind: str, sealed: bytes) -> bytes:
        """Never creates a key: ``NoDataKey`` when the user has none."""
        aead, _ = self._reading(tenant_id, user_id)
        if sealed[:1] != VERSION:
            raise SealError("unknown sealed format")
        nonce, body = sealed[1:1 + NONCE_BYTES], sealed[1 + NONCE_BYTES:]
        try:
            return aead.decrypt(nonce, body, associated_data(tenant_id, user_id, record_id, kind))
        except InvalidTag as exc:
            raise SealError("sealed value failed authentication") from exc

    def keyed_hash(self, tenant_id: str, user_id: str, value: str) -> str:
        """For a write (creates the key the first time); a lookup asks ``lookup_hash``."""
        _, hash_key = self._writing(tenant_id, user_id)
        return _hash(hash_key, value)[:32]

    def fingerprint(self, tenant_id: str, user_id: str, content: str) -> str:
        """Keyed hash of the normalised content: exact-duplicate lookups without plaintext."""
        return self.keyed_hash(tenant_id, user_id, _fingerprinted(content))

    def term_hashes(self, tenant_id: str, user_id: str, text: str) -> list[str]:
        """Index terms as opaque keyed hashes (server-side BM25 without plaintext, AWS home)."""
        _, hash_key = self._writing(tenant_id, user_id)
        return [_hash(hash_key, t)[:16] for t in terms(text)]

    # lookups: the same hashes, or None when the user has no key (then nothing can match; none is made)
    def lookup_hashes(self, tenant_id: str, user_id: str, values: list[str]) -> list[str] | None:
        keys = self._existing(tenant_id, user_id)
        return None if keys is None else [_hash(keys[1], v)[:32] for v in values]

    def lookup_fingerprint(self, tenant_id: str, user_id: str, content: str) -> str | None:
        found = self.lookup_hashes(tenant_id, user_id, [_fingerprinted(content)])
        return None if found is None else found[0]

    def lookup_terms(self, tenant_id: str, user_id: str, words: list[str]) -> list[str] | None:
        keys = self._existing(tenant_id, user_id)
        return None if keys is None else [_hash(keys[1], t)[:16] for t in words]


def _hash(key: bytes, value: str) -> str:
    return hmac.new(key, value.encode(), hashlib.sha256).hexdigest()


def _fingerprinted(content: str) -> str:
    return "content:" + normalise_content(content)


# the owner of each tenant's own secret in the vault: '#' is never in a user id, so no user can be it
TENANT_KEY_OWNER = "#tenant"


def user_key_owners(owners: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
    """The users among the owners of cached data keys: the tenant's own secret is no user's (no erase reaches it)."""
    return {owner for owner in owners if owner[1] != TENANT_KEY_OWNER}


def tenant_hash(vault: KeyVault, tenant_id: str, purpose: str, value: str) -> str:
    """A keyed hash under the tenant's secret (HMAC): a pseudonym or a query hash that someone holding
    the stored data cannot confirm by hashing a guess, and that never matches across tenants."""
    return keyed_hash(tenant_hash_key(vault, tenant_id, purpose), value)


def tenant_hash_key(vault: KeyVault, tenant_id: str, purpose: str) -> bytes:
    """The key ``tenant_hash`` hashes with for one purpose. The tenant's secret is never destroyed (no
    user id is its owner, so no erase reaches it) and never changes (a master key rotation wraps the
    same secret again), so a process may keep this key for its whole life."""
    return hmac.new(vault.data_key(tenant_id, TENANT_KEY_OWNER), b"mnemo/tenant-hash/v1/" + purpose.encode(),
                    hashlib.sha256).digest()


class TenantHashKeys:
    """``tenant_hash_key`` for one purpose, derived once per tenant and kept for the process's life (the
    tenant's secret never changes; deriving it reads the vault). Bounded: tenants are few, and a miss after
    the bound costs one read."""

    KEPT = 1024  # tenants whose key a process keeps

    def __init__(self, vault: KeyVault, purpose: str) -> None:
        self._vault, self._purpose = vault, purpose
        self._keys: dict[str, bytes] = {}

    def __call__(self, tenant_id: str) -> bytes:
        key = self._keys.get(tenant_id)
        if key is None:
            if len(self._keys) >= self.KEPT:
                self._keys.clear()
            key = self._keys[tenant_id] = tenant_hash_key(self._vault, tenant_id, self._purpose)
        return key


def keyed_hash(key: bytes, value: str) -> str:
    return hmac.new(key, value.encode(), hashlib.sha256).hexdigest()[:16]
