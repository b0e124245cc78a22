"""Per-user data keys from KMS (envelope encryption, DESIGN.md section 7).

GenerateDataKey under the service's customer managed key, with the encryption context
{tenant_id, user_id}: a wrapped key can only be unwrapped for the user it was made for. The
plaintext key is cached briefly in the function, so a warm Lambda does not call KMS on every
request. Erasing a user deletes the wrapped key first (crypto-shredding).

What is cached is the unwrapping, not the belief that the key is still the user's: another function may
have erased the user since, and a later write made a new key. So the first use of a key in each request or
job (``new_request``, run by the handlers through ``UserCaches.drop_erased``) reads the wrapped key again
(one consistent GetItem, no KMS call while it is the same): a request or job that starts after an erase
elsewhere does not seal a new write under the shredded key (nobody could open it again, and it would outlive
the erase), hash lookups with it (every lexical match of the user's new memories would be missed) or find
the erased user's key. Within one request the key read first is trusted; the writer's first use is under the
user's lock, which an erase also holds. The plaintext is dropped ``cache_seconds`` after KMS gave it (at the
next sweep, a minute late at most), and at most ``kept`` users are held.

Where the wrapped keys live decides what an erase destroys. The KMS key never changes per erase
(KMS keeps every key version it ever had, so rotating it would not help), so whoever holds a copy
of a wrapped key can unwrap it for as long as the service runs. The stack therefore keeps them in
their own table (MNEMO_KEY_TABLE) with no point-in-time recovery, no backups and no stream: a backup
or a restore of the state table holds sealed data and no key to open it, and the erase's delete of
the one wrapped key is final. A key still found in the state table (written before the key table
existed) is moved into the key table on first use, and an erase deletes it from both.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from mnemo.adapters.aws.dynamo_state import DynamoTable, pk
from mnemo.adapters.aws.errors import aws_errors
from mnemo.crypto import TENANT_KEY_OWNER, user_key_owners
from mnemo.errors import BackendUnavailable, ErasureUnderway

DATA_KEY = "DATAKEY"
ERASING = "erasing"  # the attribute of the mark an erase under way leaves in place of the key


@dataclass(frozen=True)
class _Held:
    unwrapped_at: float  # monotonic: the plaintext is used ``cache_seconds`` after KMS gave it, then dropped
    wrapped: bytes  # what the key table held when last read: the key is the user's while it still does
    key: bytes | None  # None once dropped (the wrapped copy stays, to tell a replaced key)
    request: int  # the request in which the key table was last read


class KmsKeyVault:
    def __init__(self, kms: Any, keys: DynamoTable, key_id: str, cache_seconds: float = 300.0,
                 legacy: DynamoTable | None = None, kept: int = 4096) -> None:
        """``keys`` holds the wrapped keys; ``legacy`` is the state table where they were kept before
        (read once per user to move the key over, and cleared on erase), or None when it is the same."""
        self._kms = kms
        self._t = keys
        self._legacy = legacy if legacy is not None and legacy.table != keys.table else None
        self._key_id = key_id
        self._cache_seconds = cache_seconds
        self._cache: OrderedDict[tuple[str, str], _Held] = OrderedDict()  # least recently used first
        self._kept = kept
        self._request = 0
        self._swept = time.monotonic()
        self._lock = threading.Lock()
        # told when a key held here turns out gone or replaced: the user was erased by another function, and
        # whatever else this one keeps of the user (queries, last questions, readings) goes too
        self.erased_elsewhere: Callable[[str, str], None] | None = None

    def new_request(self) -> None:
        """A request or job starts: each cached key is checked against the key table at its next use."""
        now = time.monotonic()
        with self._lock:
            self._request += 1
            if now - self._swept >= min(self._cache_seconds, 60.0):  # expired plaintext goes, a minute at most late
                self._swept = now
                for owner, held in self._cache.items():
                    if held.key is not None and now - held.unwrapped_at >= self._cache_seconds:
                        self._cache[owner] = _Held(held.unwrapped_at, held.wrapped, None, held.request)

    @staticmethod
    def _context(tenant_id: str, user_id: str) -> dict[str, str]:
        return {"tenant_id": tenant_id, "user_id": user_id}

    def existing_key(self, tenant_id: str, user_id: str) -> bytes | None:
        """The user's key, or None when there is none: never creates one (a read finds nothing)."""
        owner = (tenant_id, user_id)
        now = time.monotonic()
        with self._lock:
            hit = self._cache.get(owner)
            request = self._request
        held = hit.key if hit is not None and now - hit.unwrapped_at < self._cache_seconds else None
        # the tenant's secret is no user's: never erased, never replaced (mnemo.crypto.tenant_hash_key)
        if hit is not None and held is not None and (hit.request == request or user_id == TENANT_KEY_OWNER):
            return held
        item = self._t.get(pk(tenant_id, user_id), DATA_KEY) or self._move_legacy(tenant_id, user_id)
        wrapped = bytes(item["wrapped"]["B"]) if item is not None and "wrapped" in item else None
        if hit is not None and wrapped != hit.wrapped:
            self.forget_user(tenant_id, user_id)
            if self.erased_elsewhere is not None:
                self.erased_elsewhere(tenant_id, user_id)
        if wrapped is None:  # none, or an erase's mark in its place
            return None
        if hit is not None and held is not None and hit.wrapped == wrapped:  # still the user's key: no KMS call
            key, unwrapped_at = held, hit.unwrapped_at
        else:
            with aws_errors("KMS"):
                key = bytes(self._kms.decrypt(CiphertextBlob=wrapped, KeyId=self._key_id,
                                              EncryptionContext=self._context(tenant_id, user_id))["Plaintext"])
            unwrapped_at = now
        self._keep(owner, _Held(unwrapped_at, wrapped, key, request))
        return key

    def _keep(self, owner: tuple[str, str], held: _Held) -> None:
        with self._lock:
            self._cache[owner] = held
            self._cache.move_to_end(owner)
            while len(self._cache) > self._kept:
                self._cache.popitem(last=False)

    def data_key(self, tenant_id: str, user_id: str) -> bytes:
        key = self.existing_key(tenant_id, user_id)
        return key if key is not None else self._create(tenant_id, user_id)

    def _move_legacy(self, tenant_id: str, user_id: str) -> dict[str, Any] | None:
        """A key from before the key table: copied over (unless another worker did it first), then removed
        from the state table, whose backups must not hold it any longer than they already do."""
        if self._legacy is None:
            return None
        item = self._legacy.get(pk(tenant_id, user_id), DATA_KEY)
        if item is None:
            return None
        # one transaction across both tables: a move never lands after an erase deleted the old copy
        try:
            with aws_errors("DynamoDB"):
                self._t.client.transact_write_items(TransactItems=[
                    {"Put": {"TableName": self._t.table, "Item": item,
                             "ConditionExpression": "attribute_not_exists(pk)"}},
                    {"Delete": {"TableName": self._legacy.table, "Key": {"pk": item["pk"], "sk": item["sk"]},
                                "ConditionExpression": "attribute_exists(pk)"}}])
        except BackendUnavailable as exc:
            if not _cancelled(exc):
                raise
            return self._t.get(pk(tenant_id, user_id), DATA_KEY)  # another worker moved it, or an erase won
        return item

    def _create(self, tenant_id: str, user_id: str) -> bytes:
        with aws_errors("KMS"):
            generated = self._kms.generate_data_key(KeyId=self._key_id, KeySpec="AES_256",
                                                    EncryptionContext=self._context(tenant_id, user_id))
        # only where no item is: two workers may race to create the first key (one wins, the other
        # uses it), and an erase under way holds the item with its mark (no key until it is over)
        if not self._t.put_if({"pk": {"S": pk(tenant_id, user_id)}, "sk": {"S": DATA_KEY},
                               "wrapped": {"B": generated["CiphertextBlob"]}}, "attribute_not_exists(pk)"):
            if self.erasing(tenant_id, user_id):
                raise ErasureUnderway("the user is being erased; retry once the erase has finished")
            return self.data_key(tenant_id, user_id)
        key = bytes(generated["Plaintext"])
        self._keep((tenant_id, user_id), _Held(time.monotonic(), bytes(generated["CiphertextBlob"]), key,
                                               self._request))
        return key

    def erasing(self, tenant_id: str, user_id: str) -> bool:
        item = self._t.get(pk(tenant_id, user_id), DATA_KEY)
        return item is not None and ERASING in item

    def destroy(self, tenant_id: str, user_id: str) -> None:
        """The erase's mark replaces the key in one write: from then on no key can be created for the
        user until ``finish_erase`` (retrying an erase repeats this harmlessly)."""
        self.forget_user(tenant_id, user_id)
        self._t.put({"pk": {"S": pk(tenant_id, user_id)}, "sk": {"S": DATA_KEY}, ERASING: {"BOOL": True}})
        if self._legacy is not None:  # a legacy copy is never moved over the mark (its move is conditional)
            self._legacy.delete(pk(tenant_id, user_id), DATA_KEY)

    # a per-user cache (mnemo.services.user_caches): the unwrapped keys
    def owners(self) -> set[tuple[str, str]]:
        with self._lock:
            return user_key_owners(self._cache)

    def forget_user(self, tenant_id: str, user_id: str) -> None:
        with self._lock:
            self._cache.pop((tenant_id, user_id), None)

    def finish_erase(self, tenant_id: str, user_id: str) -> None:
        self._t.delete_if(pk(tenant_id, user_id), DATA_KEY, "attribute_exists(#e)", names={"#e": ERASING})


def _cancelled(exc: BackendUnavailable) -> bool:
    cause = exc.__cause__
    return isinstance(cause, ClientError) and \
        cause.response.get("Error", {}).get("Code") == "TransactionCanceledException"
