"""What a retrieve reads on every request, and what it may keep (issue 14: a single client's fixed cost)."""

from __future__ import annotations

from mnemo.bootstrap import Mnemo
from mnemo.crypto import tenant_hash
from mnemo.domain.models import Category, SourceKind
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
