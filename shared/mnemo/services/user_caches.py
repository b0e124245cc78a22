"""What a process holds of each user beside the stores, and how an erase anywhere empties it.

Each worker process of `mnemo serve` (and its jobs process) keeps per-user caches: the query
embeddings of retrieve and search (by digest), the last question of each conversation (implicit
signals), the opened profile, the user's index of decrypted memories, the user's data key and the
keys derived from it. An erase answered by one worker empties that worker's caches at once
(``forget_user``); the others learn of it from the store (``EraseNotices``) at the start of their
next request or job (``drop_erased``): before, they kept an erased user's memories, profile, key and
questions until their LRU evicted them, however long that took.

A request or job that began before a user was dropped may still be filling a cache of that user when the
drop runs (another request thread of the process dropped it, or erased it): its entry would come in
after the drop and stay (and another process's erase was matched against what the process held at its
drop: a user not held yet was not dropped, and its notice counted as seen). So the end of every request and
job (``settle``) drops again the users erased since it began: those this process dropped by id, and those
the erase notices read meanwhile name, matched against what the process holds now.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
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
    # the users whose drop numbers are kept; a request or job older than the oldest kept drops everything again
    REMEMBERED_DROPS = 1024

    def __init__(self, caches: Sequence[UserCache] = (), notices: EraseNotices | None = None) -> None:
        self.caches: list[UserCache] = list(caches)
        self._notices: EraseNotices | None = None
        self._seen = 0
        self._lock = threading.Lock()
        # each drop's number (``settle``): the last per user, and the last drop of everyone or of a user no
        # longer remembered
        self._drops = 0
        self._dropped: OrderedDict[tuple[str, str], int] = OrderedDict()
        self._dropped_all = 0
        # the drop number and the last notice seen when this thread's request or job began
        self._began = threading.local()
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

    def _number_drop(self, owner: tuple[str, str] | None) -> None:
        """Before a drop (under ``_lock``): a request that began before it and fills a cache after it is
        settled by this number. ``None``: everyone."""
        self._drops += 1
        if owner is None:
            self._dropped_all = self._drops
            self._dropped.clear()
            return
        self._dropped[owner] = self._drops
        self._dropped.move_to_end(owner)
        while len(self._dropped) > self.REMEMBERED_DROPS:
            _, number = self._dropped.popitem(last=False)
            self._dropped_all = max(self._dropped_all, number)

    def forget_user(self, tenant_id: str, user_id: str) -> None:
        """This process's erase: drop the user here, then tell the other processes."""
        with self._lock:
            self._number_drop((tenant_id, user_id))
        for cache in self.caches:
            cache.forget_user(tenant_id, user_id)
        if self._notices is not None:
            number = self._notices.announce(tenant_id, user_id)
            with self._lock:
                if number == self._seen + 1:  # nothing else announced meanwhile: nothing to read back
                    self._seen = number

    def drop_erased(self) -> None:
        """At the start of a request or a job: drop every user erased by another process since the last look.
        One read of the store's last notice number when nothing happened. Pair it with ``settle`` at the end."""
        for hook in self._per_request:
            hook()
        with self._lock:
            if self._notices is not None:
                latest = self._notices.latest()
                if latest != self._seen:
                    self._drop(self._notices.erased_among(self._seen, self.held()))
                    self._seen = latest
            self._began.at = (self._drops, self._seen)

    def _drop(self, erased: list[tuple[str, str]] | None) -> None:
        """Drop these users from every cache (None: everyone)."""
        for cache in self.caches:
            for owner in cache.owners() if erased is None else erased:
                cache.forget_user(*owner)

    def settle(self) -> None:
        """At the end of a request or job begun with ``drop_erased``: drop again the users erased since it began
        (what it put in a cache of theirs after their drop). Nothing to do, and no read, when no erase was
        seen meanwhile: the common case."""
        began: tuple[int, int] | None = getattr(self._began, "at", None)
        self._began.at = None
        if began is None:
            return
        drops, seen = began
        with self._lock:
            if self._drops == drops and self._seen == seen:
                return
            by_id = None if self._dropped_all > drops else [o for o, n in self._dropped.items() if n > drops]
            self._drop(by_id)
            if self._notices is not None and self._seen != seen:
                self._drop(self._notices.erased_among(seen, self.held()))
