"""The write path with the real model and SQLite: R6 conflict handling, idempotency, serialisation."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

from mnemo.bootstrap import Mnemo
from mnemo.domain.extraction.slots import RETRACTION_TAG
from mnemo.domain.models import Category, Scope, SourceKind, Status
from mnemo.services.writing import NewFact


def fact(content: str, subject: str, *, category: Category = Category.PREFERENCE, polarity: bool = True,
         when: datetime | None = None, memory_id: str | None = None, scope: Scope = Scope.USER,
         project: str | None = None, source: SourceKind = SourceKind.EXTRACTED, high_stakes: bool = False,
         confidence: float = 0.9) -> NewFact:
    return NewFact(content=content, category=category, subject=subject, confidence=confidence, source=source,
                   occurred_at=when or datetime(2026, 1, 1, tzinfo=UTC), polarity=polarity, scope=scope,
                   project_id=project, memory_id=memory_id, high_stakes=high_stakes)


def active(service: Mnemo, user: str = "u") -> list:
    return [m for m in service.ports.memories.all_for_user("t", user) if m.status is Status.ACTIVE]


def test_restated_fact_is_kept_once_and_refreshed(service: Mnemo, clock) -> None:
    first = service.writer.write("t", "u", [fact("User likes green tea.", "likes:green_tea")])[0]
    clock.advance(days=10)
    again = service.writer.write("t", "u", [fact("User likes green tea.", "likes:green_tea",
                                                 when=clock.now())])[0]
    assert again.outcome == "merged"
    assert again.memory.memory_id == first.memory.memory_id
    assert again.memory.last_confirmed_at == clock.now()
    assert len(active(service)) == 1


def test_contradiction_supersedes_with_a_version_chain(service: Mnemo, clock) -> None:
    old = service.writer.write("t", "u", [fact("User lives in Lisbon.", "location",
                                               category=Category.BIOGRAPHICAL)])[0].memory
    clock.advance(days=30)
    result = service.writer.write("t", "u", [fact("User lives in Berlin.", "location", when=clock.now(),
                                                  category=Category.BIOGRAPHICAL)])[0]
    assert result.outcome == "superseded"
    assert result.superseded == [old.memory_id]
    assert result.memory.version == 2
    retired = service.ports.memories.get("t", "u", old.memory_id)
    assert retired.status is Status.SUPERSEDED
    assert retired.superseded_by == result.memory.memory_id
    assert retired.confidence == 0.0
    assert [h.version for h in service.ports.memories.history("t", "u", old.memory_id)] == [1]
    assert [m.content for m in active(service)] == ["User lives in Berlin."]


def test_near_duplicate_in_another_slot_is_merged(service: Mnemo) -> None:
    service.writer.write("t", "u", [fact("User is allergic to peanuts.", "allergy:peanut")])
    result = service.writer.write("t", "u", [fact("The user is allergic to peanuts.", "note:x")])[0]
    assert result.outcome == "merged"


def test_independent_facts_are_both_stored(service: Mnemo) -> None:
    service.writer.write("t", "u", [fact("User likes green tea.", "likes:tea"),
                                    fact("User has a dog named Rex.", "pet:rex")])
    assert len(active(service)) == 2


def test_project_fact_does_not_override_the_profile_fact(service: Mnemo) -> None:
    service.writer.write("t", "u", [fact("User prefers Python.", "prefers:programming_language")])
    result = service.writer.write("t", "u", [fact("For this repo, use Go.", "prefers:programming_language",
                                                  scope=Scope.PROJECT, project="repo-1")])[0]
    assert result.outcome == "created"
    assert len(active(service)) == 2


def test_redelivered_extraction_never_duplicates(service: Mnemo) -> None:
    f = fact("User has a cat named Tom.", "pet:tom", memory_id="00000000-0000-5000-8000-000000000001")
    service.writer.write("t", "u", [f])
    again = service.writer.write("t", "u", [f])[0]
    assert again.outcome == "merged"
    assert len(active(service)) == 1


def test_high_stakes_fact_waits_for_confirmation(service: Mnemo) -> None:
    result = service.writer.write("t", "u", [fact("Budget is 50k.", "budget", category=Category.PROJECT_FACT,
                                                  high_stakes=True)])[0]
    assert result.memory.status is Status.PENDING


def test_low_confidence_fact_is_probationary(service: Mnemo) -> None:
    result = service.writer.write("t", "u", [fact("User might like jazz.", "likes:jazz", confidence=0.45,
                                                  source=SourceKind.IMPORTED)])[0]
    assert result.memory.status is Status.PROBATIONARY


def test_secrets_are_refused_even_from_an_explicit_remember(service: Mnemo) -> None:
    result = service.writer.write("t", "u", [fact("My API key is sk-live-abcdefghijklmnop1234567",
                                                  "note:key", source=SourceKind.USER_EXPLICIT)])[0]
    assert result.outcome == "rejected"
    assert result.reason == "sensitive_data"
    assert active(service) == []


def test_parallel_writers_leave_one_active_fact_per_slot(service: Mnemo) -> None:
    cities = ["Lisbon", "Berlin", "Paris", "Madrid", "Rome", "Oslo", "Vienna", "Prague"]
    barrier = threading.Barrier(len(cities))

    def write(city: str, i: int) -> None:
        barrier.wait()
        service.writer.write("t", "race", [fact(f"User lives in {city}.", "location", category=Category.BIOGRAPHICAL,
                                                when=datetime(2026, 1, 1 + i, tzinfo=UTC))])

    threads = [threading.Thread(target=write, args=(c, i)) for i, c in enumerate(cities)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    live = [m for m in service.ports.memories.all_for_user("t", "race") if m.status is Status.ACTIVE]
    assert [m.content for m in live] == ["User lives in Prague."]  # the latest event wins, whatever the order
    assert len(list(service.ports.memories.all_for_user("t", "race"))) == len(cities)


def test_profile_follows_the_facts(service: Mnemo) -> None:
    service.writer.write("t", "u", [fact("User's name is Ana.", "name", category=Category.BIOGRAPHICAL),
                                    fact("User is allergic to shellfish.", "allergy:shellfish",
                                         category=Category.CONSTRAINT)])
    profile = service.profiles.current("t", "u")
    assert profile.name == "Ana"
    assert profile.constraints == ["User is allergic to shellfish."]


ALLERGY = fact("User is allergic to shellfish.", "allergy:shellfish", category=Category.CONSTRAINT)


class WriteDuringRebuild:
    """The profile store, with another user's write sent from another thread when a rebuild of the
    profile begins (as a request in another worker would); records whether that write could finish
    meanwhile. With the rebuild inside the write transaction, it waits for the whole rebuild."""

    def __init__(self, service: Mnemo) -> None:
        self.service, self.real, self.finished = service, service.ports.profiles, False
        self.request: threading.Thread | None = None

    def __getattr__(self, name: str) -> object:
        return getattr(self.real, name)

    def get(self, tenant_id: str, user_id: str) -> object:
        if self.request is None and user_id == "u":
            self.request = threading.Thread(target=self.service.writer.write,
                                            args=("t", "other", [fact("User likes jazz.", "likes:jazz")]))
            self.request.start()
            self.request.join(timeout=5)
            self.finished = not self.request.is_alive()
        return self.real.get(tenant_id, user_id)


def test_the_profile_is_rebuilt_outside_the_write_transaction(service: Mnemo) -> None:
    rebuild = WriteDuringRebuild(service)
    service.ports.profiles = rebuild  # type: ignore[assignment]
    service.writer.write("t", "u", [ALLERGY])
    assert rebuild.request is not None
    rebuild.request.join()
    assert rebuild.finished  # the other user's write did not wait for this user's rebuild
    assert [m.content for m in active(service, "other")] == ["User likes jazz."]
    stored = rebuild.real.get("t", "u")  # built by the write, not left to the next read
    assert stored.profile is not None
    assert stored.is_current(service.ports.clock.now())
    assert stored.profile.constraints == ["User is allergic to shellfish."]


class FailingPut:
    """The profile store refusing to store a build (a busy store, an erase begun meanwhile)."""

    def __init__(self, real: object) -> None:
        self.real = real

    def __getattr__(self, name: str) -> object:
        return getattr(self.real, name)

    def put(self, *_args: object) -> None:
        raise RuntimeError("the store refused the build")


def test_a_failed_profile_rebuild_leaves_the_committed_write_and_the_next_read_builds_it(service: Mnemo) -> None:
    real = service.ports.profiles
    service.ports.profiles = FailingPut(real)  # type: ignore[assignment]
    result = service.writer.write("t", "u", [ALLERGY])[0]
    assert result.outcome == "created"
    assert [m.content for m in active(service)] == ["User is allergic to shellfish."]
    service.ports.profiles = real
    assert service.profiles.current("t", "u").constraints == ["User is allergic to shellfish."]


def test_a_retraction_retires_every_live_fact_that_names_its_value(service: Mnemo, clock) -> None:
    service.writer.write("t", "u", [fact("User likes watercolours.", "likes:watercolour"),
                                    fact("User's hobby: painting in watercolours as a girl.",
                                         "hobby:paint_watercolour_girl"),
                                    fact("User's hobby: community choir.", "hobby:community_choir")])
    clock.advance(days=30)
    service.writer.write("t", "u", [fact("User no longer does watercolours.", "hobby:watercolour",
                                         polarity=False, when=clock.now())])
    # the closest one was retired before; the other fact that names watercolours stayed active
    assert sorted(m.content for m in active(service)) == ["User no longer does watercolours.",
                                                          "User's hobby: community choir."]


def test_a_lifted_answer_rule_with_nothing_to_retire_is_kept_but_never_injected(service: Mnemo, clock) -> None:
    # "you don't need to add the Chinese words anymore" where no such rule was stored (or it went already):
    # the block says how to answer now, and this only names what the user dropped
    service.writer.write("t", "u", [fact("How to answer the user: you don't need to add Chinese anymore.",
                                         "instruction:add_chinese", category=Category.PROCEDURAL,
                                         polarity=False, when=clock.now())])
    lift = next(m for m in service.ports.memories.all_for_user("t", "u"))
    assert lift.status is Status.ACTIVE
    assert RETRACTION_TAG in lift.tags
    block = service.retriever.retrieve("t", "u", "explain overfitting simply", top_k=8,
                                      token_budget=500).context or ""
    assert "Chinese" not in block
