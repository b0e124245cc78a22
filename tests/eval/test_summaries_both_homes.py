"""Consolidation by topic in both homes (SQLite, and DynamoDB + KMS + OpenSearch under moto and the fake).

The same episodes give the same summaries, with their provenance, and the superseding of a topic's
summaries works wherever the memories live.
"""

from __future__ import annotations

from datetime import timedelta

from mnemo.bootstrap import Mnemo
from mnemo.domain.models import Category, SourceKind, Status
from mnemo.services.writing import NewFact


def runs(clock, first: int, count: int, km: int) -> list[NewFact]:
    start = clock.now() - timedelta(days=70)
    return [NewFact(content=f"User went for a {km + i % 4} km run along the river on day {first + i}.",
                    category=Category.EPISODIC, subject=f"event:run_{first + i}", confidence=0.9,
                    source=SourceKind.EXTRACTED, occurred_at=start + timedelta(days=first + i))
            for i in range(count)]


def test_a_topic_is_summarised_then_superseded(service: Mnemo, clock) -> None:
    service.writer.write("t", "u", runs(clock, 0, 52, 5), resolve_conflicts=False)
    assert service.consolidator.run("t").totals.summarised == 52
    first = {m.subject: m for m in service.ports.memories.all_for_user("t", "u") if m.category is Category.SUMMARY}
    habit = next(m for s, m in first.items() if s.endswith(":habit"))
    assert habit.content == "User went for a run 52 times, about 7 times a week."
    assert len(habit.provenance.memory_ids) == 52
    service.writer.write("t", "u", runs(clock, 60, 10, 9), resolve_conflicts=False)
    assert service.consolidator.run("t").totals.summarised == 10
    memories = {m.memory_id: m for m in service.ports.memories.all_for_user("t", "u")}
    for subject, old in first.items():
        assert memories[old.memory_id].status is Status.SUPERSEDED
        new = memories[memories[old.memory_id].superseded_by or ""]
        assert (new.subject, new.status, new.version) == (subject, Status.ACTIVE, 2)
    assert sum(1 for m in memories.values() if m.status is Status.ARCHIVED) == 62
