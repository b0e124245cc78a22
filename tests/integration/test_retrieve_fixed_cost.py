"""What a retrieve reads on every request, and what it may keep (issue 14: a single client's fixed cost)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from mnemo.adapters.local.key_file_vault import KeyFileVault
from mnemo.adapters.local.sqlite_db import Database
from mnemo.adapters.local.sqlite_stores import SqliteProfileStore
from mnemo.bootstrap import Mnemo
from mnemo.clock import ManualClock
from mnemo.crypto import UserCipher, tenant_hash
from mnemo.domain.models import Category, Profile, SourceKind
from mnemo.services.writing import NewFact


def remember(service: Mnemo, user: str, content: str, subject: str, category: Category) -> None:
    service.writer.write("t", user, [NewFact(content=content, category=category, subject=subject, confidence=1.0,
                                             source=SourceKind.USER_EXPLICIT,
                                             occurred_at=service.ports.clock.now())])


def test_the_query_hash_is_the_tenants_keyed_hash_and_survives_an_erase(service: Mnemo) -> None:
    query = "what should I cook tonight?"
    remember(service, "u", "User is allergic to shellfish.", "allergy:shellfish", Category.CONSTRAINT)
    first = service.retriever.retrieve("t", "u", query, top_k=5, token_budget=500)
    other = service.retriever.retrieve("t2", "u", query, top_k=5, token_budget=500)
    traces = service.ports.traces
    now = service.ports.clock.now()
    hashed = traces.get("t", first.trace_id, now).query_hash
    assert hashed == tenant_hash(service.ports.vault, "t", "query", query)
    assert traces.get("t2", other.trace_id, now).query_hash != hashed  # never matches across tenants
    service.control.erase("t", "u")  # a user's erase leaves the tenant's secret, so its key stands
    again = service.retriever.retrieve("t", "v", query, top_k=5, token_budget=500)
    assert traces.get("t", again.trace_id, now).query_hash == hashed


def test_a_profile_read_while_an_erase_is_under_way_finds_nothing(service: Mnemo) -> None:
    remember(service, "u", "User is allergic to shellfish.", "allergy:shellfish", Category.CONSTRAINT)
    service.profiles.set_custom("t", "u", {"plan": "pro"})
    assert service.profiles.current("t", "u").constraints == ["User is allergic to shellfish."]
    # the erase's first step, as another worker's erase would leave it for a moment: the key is gone,
    # the rows not yet
    service.ports.vault.destroy("t", "u")
    stored = service.ports.profiles.get("t", "u")
    assert stored.profile is None
    assert stored.custom == {}
    assert service.profiles.current("t", "u").is_empty()


def two_processes(tmp_path: Path) -> tuple[SqliteProfileStore, SqliteProfileStore, UserCipher]:
    """Two worker processes' profile stores on one data directory (each with its own vault and caches)."""
    clock = ManualClock(datetime(2026, 6, 1, tzinfo=UTC))
    stores: list[SqliteProfileStore] = []
    ciphers: list[UserCipher] = []
    for _ in range(2):
        db = Database(tmp_path / "m.db")
        cipher = UserCipher(KeyFileVault(db, tmp_path / "master.key", clock))
        stores.append(SqliteProfileStore(db, cipher))
        ciphers.append(cipher)
    return stores[0], stores[1], ciphers[1]


def test_a_profile_is_opened_once_per_write_and_another_workers_changes_show_at_once(tmp_path: Path) -> None:
    mine, other, other_vault = two_processes(tmp_path)
    other.put("t", "u", Profile(name="Ana", constraints=["User is allergic to sesame."]), 0, None)
    other.put_custom("t", "u", {"plan": "pro"})
    other.put("t2", "u", Profile(name="Bea"), 0, None)
    other.put("t", "u2", Profile(name="Cy"), 0, None)
    opened: list[tuple[str, str]] = []
    open_sealed = mine._cipher.open

    def counted(tenant_id: str, user_id: str, record_id: str, kind: str, sealed: bytes) -> bytes:
        opened.append((tenant_id, user_id))
        return open_sealed(tenant_id, user_id, record_id, kind, sealed)

    mine._cipher.open = counted  # type: ignore[method-assign]
    first = mine.get("t", "u")
    assert (first.profile.name, first.custom) == ("Ana", {"plan": "pro"})
    assert len(opened) == 2  # the profile and the app's fields
    # read again, unchanged: nothing is decrypted again; tenant and user are both in the key
    assert mine.get("t", "u").profile.name == "Ana"
    assert (mine.get("t2", "u").profile.name, mine.get("t", "u2").profile.name) == ("Bea", "Cy")
    assert mine.get("t", "u").profile.name == "Ana"
    assert opened.count(("t", "u")) == 2
    # another worker rebuilds the profile or changes the app's fields: seen on the next read
    other.put("t", "u", Profile(name="Ana", constraints=["User is allergic to peanuts."]), 0, None)
    assert mine.get("t", "u").profile.constraints == ["User is allergic to peanuts."]
    other.put_custom("t", "u", {"plan": "free"})
    assert mine.get("t", "u").custom == {"plan": "free"}
    # another worker's erase begins (the key goes first, the rows later): nothing is served at once
    other_vault.destroy("t", "u")
    stored = mine.get("t", "u")
    assert (stored.profile, stored.custom) == (None, {})
    # and what this worker had opened of that user (the profile, the data key) is dropped with it
    assert ("t", "u") not in mine._opened
    assert mine.get("t2", "u").profile.name == "Bea"
