"""What a process holds of each user beside the stores, and how an erase anywhere empties it.

Each worker process of `mnemo serve` (and its jobs process) keeps per-user caches: the query
embeddings of retrieve and search (by digest), the last question of each conversation (implicit
signals), the opened profile, the user's index of decrypted memories, the user's data key and the
keys derived from it. An erase answered by one worker empties that worker's caches at once
(``forget_user``); the others learn of it from the store (``EraseNotices``) at the start of their
next request or job (``drop_erased``): before, they kept an erased user's memories, profile, key and
questions until their LRU evicted them, however long that took.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol


class UserCache(Protocol):
    def owners(self) -> set[tuple[str, str]]:
        """The (tenant, user) pairs this cache holds something of."""
        ...

    def forget_user(self, tenant_id: str, user_id: str) -> None:
        ...


class EraseNotices(Protocol):
    """The erases every process of a home has to hear of, in order (a number each)."""

    def latest(self) -> int:
        """The number of the last erase announced (0 when none)."""
        ...

    def announce(self, tenant_id: str, user_id: str) -> int:
        """After the erase deleted every row of the user: its number."""
        ...

    def erased_among(self, seen: int, held: Iterable[tuple[str, str]]) -> list[tuple[str, str]] | None:
        """Those of ``held`` erased after notice ``seen``; None when notices after ``seen`` are no longer
        kept (the caller then drops everything: it cannot tell whom they named)."""
        ...


class UserCaches:
    def __init__(self, caches: Sequence[UserCache] = (), notices: EraseNotices | None = None) -> None:
        self.caches: list[UserCache] = list(caches)
        self._notices: EraseNotices | None = None
        self._seen = 0
        self._lock = threading.Lock()
        # what a cache checks afresh once per request or job (the AWS home's data keys: see KmsKeyVault)
        self._per_request: list[Callable[[], None]] = []
        if notices is not None:
            self.listen(notices)

    def listen(self, notices: EraseNotices) -> None:
        """Hear of erases from now on (what was erased before holds nothing here yet)."""
        self._notices = notices
        self._seen = notices.latest()

    def add(self, *caches: UserCache) -> None:
        self.caches.extend(caches)

    def on_request(self, hook: Callable[[], None]) -> None:
        """Run ``hook`` at the start of every request and job (``drop_erased``)."""
        self._per_request.append(hook)

    def held(self) -> set[tuple[str, str]]:
        return set().union(*(cache.owners() for cache in self.caches))

    def sizes(self) -> dict[str, int]:
        """How many users each cache holds something of, by the cache's name (its ``cache_name``, else its
        class's). A walk over every entry: for the operator's metrics now and then, not for every request."""
        sizes: dict[str, int] = {}
        for cache in self.caches:
            name = str(getattr(cache, "cache_name", type(cache).__name__))
            sizes[name] = sizes.get(name, 0) + len(cache.owners())
        return sizes

    def forget_user(self, tenant_id: str, user_id: str) -> None:
        """This process's erase: drop the user here, then tell the other processes."""
        for cache in self.caches:
            cache.forget_user(tenant_id, user_id)
        if self._notices is not None:
            number = self._notices.announce(tenant_id, user_id)
            with self._lock:
                if number == self._seen + 1:  # nothing else announced meanwhile: nothing to read back
                    self._seen = number

    def drop_erased(self) -> None:
        """At the start of a request or a job: drop every user erased by another process since the last look.
        One read of the store's last notice number when nothing happened."""
        for hook in self._per_request:
            hook()
        if self._notices is None:
            return
        with self._lock:
            latest = self._notices.latest()
            if latest == self._seen:
                return
            erased = self._notices.erased_among(self._seen, self.held())
            for cache in self.caches:
                if erased is None:
                    for owner in cache.owners():
                        cache.forget_user(*owner)
                else:
                    for owner in erased:
                        cache.forget_user(*owner)
            self._seen = latest
