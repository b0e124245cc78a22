"""Sealing user text with the user's data key (AES-GCM, associated data binds the owner)."""

from __future__ import annotations

import hashlib
import hmac
import os
import threading
from collections import OrderedDict

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from mnemo.domain.text import normalise_content, terms
from mnemo.errors import BackendUnavailable
from mnemo.ports import KeyVault

NONCE_BYTES = 12
VERSION = b"\x01"


class SealError(BackendUnavailable):
    """A sealed value could not be opened (wrong owner, tampering, or a destroyed key)."""


def associated_data(tenant_id: str, user_id: str, record_id: str, kind: str) -> bytes:
    return "\x1f".join((kind, tenant_id, user_id, record_id)).encode()


class UserCipher:
    """Seals and opens user text; derives keyed hashes for lookups that must not reveal text."""

    def __init__(self, vault: KeyVault, cache_size: int = 4096) -> None:
        self._vault = vault
        self._aead: OrderedDict[tuple[str, str], tuple[bytes, AESGCM, bytes]] = OrderedDict()
        self._lock = threading.Lock()
        self._cache_size = cache_size

    def _keys(self, tenant_id: str, user_id: str) -> tuple[AESGCM, bytes]:
        owner = (tenant_id, user_id)
        # asked every time: the vault knows when the key changed (an erase and a new key, possibly by
        # another worker process); only the objects derived from a key are cached here
        key = self._vault.data_key(tenant_id, user_id)
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

    def forget(self, tenant_id: str, user_id: str) -> None:
        with self._lock:
            self._aead.pop((tenant_id, user_id), None)

    # KeyVault, so the composition root can hand this out as the vault: destroying a key must
    # also drop the copy cached here, or new data would be sealed under the shredded key.
    def data_key(self, tenant_id: str, user_id: str) -> bytes:
        return self._vault.data_key(tenant_id, user_id)

    def destroy(self, tenant_id: str, user_id: str) -> None:
        self.forget(tenant_id, user_id)
        self._vault.destroy(tenant_id, user_id)

    def seal(self, tenant_id: str, user_id: str, record_id: str, kind: str, plaintext: bytes) -> bytes:
        aead, _ = self._keys(tenant_id, user_id)
        nonce = os.urandom(NONCE_BYTES)
        return VERSION + nonce + aead.encrypt(nonce, plaintext,
                                              associated_data(tenant_id, user_id, record_id, kind))

    def open(self, tenant_id: str, user_id: str, record_id: str, kind: str, sealed: bytes) -> bytes:
        aead, _ = self._keys(tenant_id, user_id)
        if sealed[:1] != VERSION:
            raise SealError("unknown sealed format")
        nonce, body = sealed[1:1 + NONCE_BYTES], sealed[1 + NONCE_BYTES:]
        try:
            return aead.decrypt(nonce, body, associated_data(tenant_id, user_id, record_id, kind))
        except InvalidTag as exc:
            raise SealError("sealed value failed authentication") from exc

    def keyed_hash(self, tenant_id: str, user_id: str, value: str) -> str:
        _, hash_key = self._keys(tenant_id, user_id)
        return hmac.new(hash_key, value.encode(), hashlib.sha256).hexdigest()[:32]

    def fingerprint(self, tenant_id: str, user_id: str, content: str) -> str:
        """Keyed hash of the normalised content: exact-duplicate lookups without plaintext."""
        return self.keyed_hash(tenant_id, user_id, "content:" + normalise_content(content))

    def term_hashes(self, tenant_id: str, user_id: str, text: str) -> list[str]:
        """Index terms as opaque keyed hashes (server-side BM25 without plaintext, AWS home)."""
        return self.keyed_hash_terms(tenant_id, user_id, terms(text))

    def keyed_hash_terms(self, tenant_id: str, user_id: str, words: list[str]) -> list[str]:
        _, hash_key = self._keys(tenant_id, user_id)
        return [hmac.new(hash_key, t.encode(), hashlib.sha256).hexdigest()[:16] for t in words]


# the owner of each tenant's own secret in the vault: '#' is never in a user id, so no user can be it
TENANT_KEY_OWNER = "#tenant"


def tenant_hash(vault: KeyVault, tenant_id: str, purpose: str, value: str) -> str:
    """A keyed hash under the tenant's secret (HMAC): a pseudonym or a query hash that someone holding
    the stored data cannot confirm by hashing a guess, and that never matches across tenants."""
    key = hmac.new(vault.data_key(tenant_id, TENANT_KEY_OWNER), b"mnemo/tenant-hash/v1/" + purpose.encode(),
                   hashlib.sha256).digest()
    return hmac.new(key, value.encode(), hashlib.sha256).hexdigest()[:16]
