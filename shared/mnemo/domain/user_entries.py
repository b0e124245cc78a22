"""The per-user caches of a process keep entries under keys that start (tenant, user, ...): whose entries a
cache holds, and dropping one user's (an erase; mnemo.services.user_caches). Callers hold their own lock."""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping
from typing import Any


def owners_of(keys: Iterable[tuple[Any, ...]]) -> set[tuple[str, str]]:
    return {(key[0], key[1]) for key in keys}


def drop_user(entries: MutableMapping[Any, Any], tenant_id: str, user_id: str) -> None:
    for key in [k for k in entries if k[0] == tenant_id and k[1] == user_id]:
        del entries[key]
