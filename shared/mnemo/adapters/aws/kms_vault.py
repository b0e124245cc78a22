"""Per-user data keys from KMS (envelope encryption, DESIGN.md section 7).

GenerateDataKey under the service's customer managed key, with the encryption context
{tenant_id, user_id}: a wrapped key can only be unwrapped for the user it was made for. The
wrapped key lives in DynamoDB beside the user's state; the plaintext key is cached briefly in the
function, so a warm Lambda does not call KMS on every request. Erasing a user deletes the wrapped
key first (crypto-shredding).
"""

from __future__ import annotations

import threading
import time
from typing import Any

from mnemo.adapters.aws.dynamo_state import DynamoTable, pk
from mnemo.adapters.aws.errors import aws_errors


class KmsKeyVault:
    def __init__(self, kms: Any, table: DynamoTable, key_id: str, cache_seconds: float = 300.0) -> None:
        self._kms = kms
        self._t = table
        self._key_id = key_id
        self._cache_seconds = cache_seconds
        self._cache: dict[tuple[str, str], tuple[float, bytes]] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _context(tenant_id: str, user_id: str) -> dict[str, str]:
        return {"tenant_id": tenant_id, "user_id": user_id}

    def data_key(self, tenant_id: str, user_id: str) -> bytes:
        owner = (tenant_id, user_id)
        now = time.monotonic()
        with self._lock:
            hit = self._cache.get(owner)
        if hit is not None and now - hit[0] < self._cache_seconds:
            return hit[1]
        item = self._t.get(pk(tenant_id, user_id), "DATAKEY")
        if item is None:
            key = self._create(tenant_id, user_id)
        else:
            with aws_errors("KMS"):
                key = self._kms.decrypt(CiphertextBlob=item["wrapped"]["B"], KeyId=self._key_id,
                                        EncryptionContext=self._context(tenant_id, user_id))["Plaintext"]
        with self._lock:
            self._cache[owner] = (now, key)
        return bytes(key)

    def _create(self, tenant_id: str, user_id: str) -> bytes:
        with aws_errors("KMS"):
            generated = self._kms.generate_data_key(KeyId=self._key_id, KeySpec="AES_256",
                                                    EncryptionContext=self._context(tenant_id, user_id))
        # two workers may race to create the first key: only one wins, the other uses it
        if not self._t.put_if({"pk": {"S": pk(tenant_id, user_id)}, "sk": {"S": "DATAKEY"},
                               "wrapped": {"B": generated["CiphertextBlob"]}}, "attribute_not_exists(pk)"):
            return self.data_key(tenant_id, user_id)
        return bytes(generated["Plaintext"])

    def destroy(self, tenant_id: str, user_id: str) -> None:
        with self._lock:
            self._cache.pop((tenant_id, user_id), None)
        self._t.delete(pk(tenant_id, user_id), "DATAKEY")
