"""The profile as a derived view of the memories (SPEC R2), cached until they change.

Nothing writes profile values: the profile is built from the user's active, unexpired memories
(``mnemo.domain.profile_builder``) and cached with the generation of the memories it was built
from. Every save or delete of a memory moves the user's generation on (``ProfileTrackedMemories``
wraps the memory store, so no code path can forget to), and a cached build is also stale from
the moment the first of its memories expires. A stale build is rebuilt when read.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import timedelta
from typing import Any

from mnemo.domain.models import PROFILE_CUSTOM_MAX_KEYS, Category, Memory, MemoryVersion, Profile, Status
from mnemo.domain.profile_builder import build_profile, first_expiry
from mnemo.domain.ranking import Hit
from mnemo.errors import InvalidField
from mnemo.ports import MemoryStore, Page, ProfileStore, SearchRequest, Vector
from mnemo.services.context import Ports


class ProfileView:
    """Reads the profile, rebuilding it from the memories when the cached build no longer stands."""

    def __init__(self, ports: Ports) -> None:
        self.p = ports

    def current(self, tenant_id: str, user_id: str) -> Profile:
        stored = self.p.profiles.get(tenant_id, user_id)
        if stored.profile is not None and stored.is_current(self.p.clock.now()):
            return stored.profile.model_copy(update={"custom": dict(stored.custom)})
        return self._build(tenant_id, user_id, stored.generation, stored.custom)

    def refresh(self, tenant_id: str, user_id: str) -> Profile:
        """Build now (after a write, so the next read finds the cache warm)."""
        stored = self.p.profiles.get(tenant_id, user_id)
        return self._build(tenant_id, user_id, stored.generation, stored.custom)

    def merged_custom(self, tenant_id: str, user_id: str, changes: dict[str, str | None]) -> dict[str, str]:
        """The app's own fields once ``changes`` are merged in (an empty value removes a field), refused
        past PROFILE_CUSTOM_MAX_KEYS: each request is held to that many, and without this its keys would
        add to the stored ones without bound (and be printed in every block)."""
        custom = {**self.p.profiles.get(tenant_id, user_id).custom, **changes}
        kept = {k: v for k, v in custom.items() if v}
        if len(kept) > PROFILE_CUSTOM_MAX_KEYS:
            reason = f"at most {PROFILE_CUSTOM_MAX_KEYS} fields; remove one with an empty value to add another"
            raise InvalidField(f"custom: {reason}", details={"field": "custom", "reason": reason})
        return kept

    def put_custom(self, tenant_id: str, user_id: str, custom: dict[str, str]) -> None:
        """Store the app's own fields as ``merged_custom`` gave them."""
        self.p.profiles.put_custom(tenant_id, user_id, custom)

    def set_custom(self, tenant_id: str, user_id: str, changes: dict[str, str | None]) -> None:
        """The app's own fields: merged, an empty value removes the field."""
        self.put_custom(tenant_id, user_id, self.merged_custom(tenant_id, user_id, changes))

    def _build(self, tenant_id: str, user_id: str, generation: int, custom: dict[str, str]) -> Profile:
        # the generation is read before the memories: a change that lands meanwhile moves it on,
        # so this build is stored as stale and the next read builds again
        now = self.p.clock.now()
        if self.p.vault.existing_key(tenant_id, user_id) is None:
            # nothing readable to build from (never written, or an erase not finished): an empty profile,
            # not stored, since a read must not make the user a key (and none is made during an erase)
            return build_profile([], {}, now, self.p.settings.profile_max_bytes).model_copy(
                update={"custom": dict(custom)})
        facts = self.p.memories.page(tenant_id, user_id, statuses=[Status.ACTIVE], category=None,
                                     limit=2 * self.p.settings.max_active_memories, cursor=None).items
        derived = build_profile(facts, {}, now, self.p.settings.profile_max_bytes)
        # the cache is also rebuilt now and then: were a writer to die between its change and the
        # move of the generation, a stale build would not outlive this bound
        expiry = first_expiry(facts, now)
        bound = now + timedelta(hours=self.p.settings.profile_rebuild_hours)
        self.p.profiles.put(tenant_id, user_id, derived, generation, min(expiry, bound) if expiry else bound)
        return derived.model_copy(update={"custom": dict(custom)})


class ProfileTrackedMemories:
    """The memory store, moving the user's profile generation on around every change.

    Before and after: a reader that builds between the first move and the write stores a build
    that the second move makes stale, and a writer that dies before the second move has already
    made the old build stale.
    """

    def __init__(self, memories: MemoryStore, profiles: ProfileStore) -> None:
        self._m = memories
        self._profiles = profiles

    def __getattr__(self, name: str) -> Any:
        return getattr(self._m, name)  # adapter extras (e.g. ``on_index`` of the OpenSearch store)

    def _invalidate(self, owners: set[tuple[str, str]]) -> None:
        for tenant_id, user_id in sorted(owners):
            self._profiles.invalidate(tenant_id, user_id)

    def save(self, memories: Sequence[Memory], history: Sequence[MemoryVersion] = ()) -> None:
        owners = {m.owner for m in memories}
        self._invalidate(owners)
        self._m.save(memories, history)
        self._invalidate(owners)

    def delete(self, tenant_id: str, user_id: str, memory_ids: Sequence[str]) -> None:
        self._invalidate({(tenant_id, user_id)})
        self._m.delete(tenant_id, user_id, memory_ids)
        self._invalidate({(tenant_id, user_id)})

    def recover(self, tenant_id: str, user_id: str) -> int:
        settled = self._m.recover(tenant_id, user_id)
        if settled:
            self._invalidate({(tenant_id, user_id)})
        return settled

    def delete_user(self, tenant_id: str, user_id: str) -> None:
        self._m.delete_user(tenant_id, user_id)
        # no memory is left to derive anything from (and an erased user leaves no row behind)
        self._profiles.delete_user(tenant_id, user_id)

    # -- reads pass through
    def get(self, tenant_id: str, user_id: str, memory_id: str) -> Memory | None:
        return self._m.get(tenant_id, user_id, memory_id)

    def get_many(self, tenant_id: str, user_id: str, memory_ids: Sequence[str]) -> list[Memory]:
        return self._m.get_many(tenant_id, user_id, memory_ids)

    def by_subject(self, tenant_id: str, user_id: str, subjects: Sequence[str]) -> list[Memory]:
        return self._m.by_subject(tenant_id, user_id, subjects)

    def by_fingerprint(self, tenant_id: str, user_id: str, content: str) -> list[Memory]:
        return self._m.by_fingerprint(tenant_id, user_id, content)

    def similar(self, tenant_id: str, user_id: str, vector: Vector, limit: int) -> list[tuple[Memory, float]]:
        return self._m.similar(tenant_id, user_id, vector, limit)

    def search(self, tenant_id: str, user_id: str, request: SearchRequest) -> list[Hit]:
        return self._m.search(tenant_id, user_id, request)

    def common_terms(self, tenant_id: str, user_id: str, terms: Sequence[str], share: float) -> frozenset[str]:
        return self._m.common_terms(tenant_id, user_id, terms, share)

    def page(self, tenant_id: str, user_id: str, *, statuses: Sequence[Status] | None, category: Category | None,
             limit: int, cursor: str | None) -> Page:
        return self._m.page(tenant_id, user_id, statuses=statuses, category=category, limit=limit, cursor=cursor)

    def history(self, tenant_id: str, user_id: str, memory_id: str) -> list[MemoryVersion]:
        return self._m.history(tenant_id, user_id, memory_id)

    def count(self, tenant_id: str, user_id: str, statuses: Sequence[Status]) -> int:
        return self._m.count(tenant_id, user_id, statuses)

    def all_for_user(self, tenant_id: str, user_id: str) -> Iterator[Memory]:
        return self._m.all_for_user(tenant_id, user_id)

    def users(self, tenant_id: str) -> list[str]:
        return self._m.users(tenant_id)

    def tenants(self) -> list[str]:
        return self._m.tenants()
