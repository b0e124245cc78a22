"""Tenant API keys for the API Gateway Lambda authorizer (issue 5, README "Authentication").

A key is 32 random bytes shown once at creation; the table keeps only its SHA-256 (a key has
256 bits of entropy, so a fast hash is enough and a stolen table reveals no key). The item is
``pk = "_apikey#<sha256>"``, ``sk = "APIKEY"`` with the tenant; revoking deletes it. Keys never
appear in logs: only the first 8 hex digits of the hash identify one to an operator.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime

from mnemo.adapters.aws.dynamo_state import DynamoTable
from mnemo.clock import iso

TENANT = re.compile(r"^[A-Za-z0-9._:@-]{1,128}$")
PREFIX = "mk_"


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True)
class IssuedKey:
    key: str  # shown once, never stored
    key_id: str  # the first 8 hex digits of its hash


class DynamoApiKeys:
    def __init__(self, table: DynamoTable) -> None:
        self._table = table

    def create(self, tenant_id: str, now: datetime) -> IssuedKey:
        if not TENANT.match(tenant_id) or "#" in tenant_id:
            raise ValueError("tenant ids use 1-128 of [A-Za-z0-9._:@-]")
        key = PREFIX + secrets.token_urlsafe(32)
        digest = key_hash(key)
        self._table.put({"pk": {"S": f"_apikey#{digest}"}, "sk": {"S": "APIKEY"},
                         "tenant_id": {"S": tenant_id}, "created_at": {"S": iso(now)}})
        return IssuedKey(key, digest[:8])

    def tenant_for(self, key: str) -> str | None:
        """The tenant a presented key belongs to, or None (unknown, revoked, malformed)."""
        if not key.startswith(PREFIX) or len(key) > 128:
            return None
        item = self._table.get(f"_apikey#{key_hash(key)}", "APIKEY")
        return item["tenant_id"]["S"] if item else None

    def revoke(self, key: str) -> None:
        self._table.delete(f"_apikey#{key_hash(key)}", "APIKEY")
