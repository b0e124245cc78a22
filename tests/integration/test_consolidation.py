"""Consolidation (SPEC R8, R9) with the manual clock: TTL, pruning, archiving, summaries, the cap."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from mnemo.bootstrap import Mnemo, build_local
from mnemo.domain.models import Category, SourceKind, Status
from mnemo.services.writing import NewFact


def fact(content: str, subject: str, category: Category = Category.PREFERENCE, confidence: float = 0.9,
         when: datetime | None = None) -> NewFact:
    return NewFact(content=content, category=category, subject=subject, confidence=confidence,
                   source=SourceKind.EXTRACTED, occurred_at=when or datetime(2026, 1, 1, tzinfo=UTC))


def statuses(service: Mnemo, user: str = "u") -> dict[str, str]:
    return {m.content: m.status.value for m in service.ports.memories.all_for_user("t", user)}


def test_ttl_eviction_by_category(service: Mnemo, clock) -> None:
    service.writer.write("t", "u", [fact("User went to the dentist.", "event:dentist", Category.EPISODIC),
                                    fact("User is allergic to nuts.", "allergy:nut", Category.CONSTRAINT)])
    clock.advance(days=91)
    report = service.consolidator.run("t")
    assert report.totals.expired == 1
    assert statuses(service) == {"User went to the dentist.": "expired", "User is allergic to nuts.": "active"}


def test_low_confidence_unused_probationary_memory_is_pruned_after_60_days(service: Mnemo, clock) -> None:
    service.writer.write("t", "u", [fact("User might like opera.", "likes:opera", confidence=0.25),
                                    fact("User likes jazz.", "likes:jazz", confidence=0.45)])
    clock.advance(days=59)
    assert service.consolidator.run("t").totals.pruned == 0
    clock.advance(days=2)
    assert service.consolidator.run("t").totals.pruned == 1
    assert statuses(service) == {"User likes jazz.": "probationary"}


def test_superseded_is_archived_after_30_days_then_deleted(service: Mnemo, clock) -> None:
    service.writer.write("t", "u", [fact("User lives in Lisbon.", "location", Category.BIOGRAPHICAL)])
    clock.advance(days=1)
    service.writer.write("t", "u", [fact("User lives in Berlin.", "location", Category.BIOGRAPHICAL, when=clock.now())])
    clock.advance(days=31)
    service.consolidator.run("t")
    assert statuses(service)["User lives in Lisbon."] == "archived"
    clock.advance(days=31)
    service.consolidator.run("t")
    assert statuses(service) == {"User lives in Berlin.": "active"}


def test_fifty_episodes_of_one_topic_become_a_few_summaries(service: Mnemo, clock) -> None:
    start = clock.now() - timedelta(days=60)
    runs = [fact(f"User went for a {5 + i % 10} km run along the river on day {i}.", f"event:run_{i}",
                 Category.EPISODIC, when=start + timedelta(days=i)) for i in range(55)]
    others = [fact("User adopted a cat named Tom.", "event:cat", Category.EPISODIC, when=start),
              fact("User prefers tea.", "prefers:drink")]
    service.writer.write("t", "u", runs + others, resolve_conflicts=False)
    report = service.consolidator.run("t").totals
    assert report.summarised == 55
    assert 3 <= report.summaries <= 5
    memories = list(service.ports.memories.all_for_user("t", "u"))
    summaries = {m.subject.rsplit(":", 1)[1]: m for m in memories if m.category is Category.SUMMARY}
    # distinct claims, each in its own slot of the topic, all from the runs and only them
    assert len({m.content for m in summaries.values()}) == len(summaries)
    assert len({m.subject.split(":")[1] for m in summaries.values()}) == 1  # one topic
    assert summaries["habit"].content == "User went for a run 55 times, about 7 times a week."
    first, last = start.date(), (start + timedelta(days=54)).date()
    assert f"first went for a run on {first.day} " in summaries["span"].content
    assert f"the latest was on {last.day} " in summaries["span"].content
    assert summaries["quantity"].content == "Each time User went for a run, it was 5 to 14 km, typically 9 km."
    archived = {m.memory_id for m in memories if m.status is Status.ARCHIVED}
    assert len(archived) == 55  # originals kept, not lost
    for m in summaries.values():
        assert m.provenance.source is SourceKind.SUMMARY
        assert set(m.provenance.memory_ids) <= archived
        assert m.metadata["episodes"] == "55"
    assert len(summaries["habit"].provenance.memory_ids) == 55
    assert statuses(service)["User adopted a cat named Tom."] == "active"
    assert statuses(service)["User prefers tea."] == "active"  # preferences are never summarised
    # idempotent: a second run finds nothing to do
    assert service.consolidator.run("t").totals.total() == 0


def test_each_topic_is_summarised_from_its_own_episodes(service: Mnemo, clock) -> None:
    start = clock.now() - timedelta(days=70)
    runs = [fact(f"User went for a {5 + i % 7} km run along the river on day {i}.", f"event:run_{i}",
                 Category.EPISODIC, when=start + timedelta(days=i)) for i in range(60)]
    piano = [fact(f"User practised the piano for {20 + 5 * (i % 6)} minutes on day {i}.", f"event:piano_{i}",
                  Category.EPISODIC, when=start + timedelta(days=i, hours=5)) for i in range(0, 70, 1)][:52]
    service.writer.write("t", "u", runs + piano, resolve_conflicts=False)
    report = service.consolidator.run("t").totals
    assert report.summarised == 112
    memories = {m.memory_id: m for m in service.ports.memories.all_for_user("t", "u")}
    summaries = [m for m in memories.values() if m.category is Category.SUMMARY]
    topics = {m.metadata["topic"] for m in summaries}
    assert len(topics) == 2
    for m in summaries:
        sources = {memories[i].content.split()[2] for i in m.provenance.memory_ids}
        assert len(sources) == 1  # 'went' or 'practised': never both
    habits = sorted(m.content for m in summaries if m.subject.endswith(":habit"))
    assert habits == ["User practised the piano 52 times, about 7 times a week.",
                      "User went for a run 60 times, about 7 times a week."]


def test_new_episodes_of_a_topic_supersede_its_summaries(service: Mnemo, clock) -> None:
    start = clock.now() - timedelta(days=60)
    service.writer.write("t", "u", [fact(f"User went for a {5 + i % 5} km run along the river on day {i}.",
                                         f"event:run_{i}", Category.EPISODIC, when=start + timedelta(days=i))
                                    for i in range(50)], resolve_conflicts=False)
    service.consolidator.run("t")
    before = {m.subject: m for m in service.ports.memories.all_for_user("t", "u") if m.category is Category.SUMMARY}
    clock.advance(days=14)
    service.writer.write("t", "u", [fact(f"User went for a {12 + i % 3} km run along the river on day {60 + i}.",
                                         f"event:run_{60 + i}", Category.EPISODIC,
                                         when=start + timedelta(days=60 + i)) for i in range(12)],
                         resolve_conflicts=False)
    report = service.consolidator.run("t").totals
    assert report.summarised == 12
    memories = {m.memory_id: m for m in service.ports.memories.all_for_user("t", "u")}
    after = {m.subject: m for m in memories.values() if m.category is Category.SUMMARY and m.status is Status.ACTIVE}
    assert set(before) <= set(after)  # the same topic, the same slots
    assert after[next(s for s in after if s.endswith(":habit"))].content.startswith("User went for a run 62 times")
    for subject, old in before.items():
        old_now = memories[old.memory_id]
        assert old_now.status is Status.SUPERSEDED
        assert old_now.superseded_by == after[subject].memory_id
        assert after[subject].supersedes == old.memory_id
        assert after[subject].version == 2
    assert "it was 5 to 14 km" in after[next(s for s in after if s.endswith(":quantity"))].content
    assert len(after[next(s for s in after if s.endswith(":habit"))].provenance.memory_ids) == 62


def test_an_injected_summary_is_explained_by_the_trace(service: Mnemo, clock) -> None:
    start = clock.now() - timedelta(days=60)
    service.writer.write("t", "u", [fact(f"User went for a {5 + i % 5} km run along the river on day {i}.",
                                         f"event:run_{i}", Category.EPISODIC, when=start + timedelta(days=i))
                                    for i in range(52)], resolve_conflicts=False)
    service.consolidator.run("t")
    result = service.retriever.retrieve("t", "u", "How often do I go running?", top_k=5, token_budget=500)
    summaries = [s.memory for s in result.memories if s.memory.category is Category.SUMMARY]
    assert summaries
    trace = service.ports.traces.get("t", result.trace_id, clock.now())
    assert trace is not None
    explained = {c.memory_id: c.derived_from for c in trace.candidates if c.selected}
    for m in summaries:
        assert len(explained[m.memory_id]) >= 50  # the archived runs it was drawn from


def test_a_killed_run_is_completed_by_the_next(service: Mnemo, clock, settings, embedder) -> None:
    service.writer.write("t", "u", [fact("User went to the dentist.", "event:dentist", Category.EPISODIC)])
    clock.advance(days=91)
    # a second process over the same data, as after a restart, finishes the job
    other = build_local(settings, clock=clock, embedder=embedder)
    try:
        assert other.consolidator.run("t").totals.expired == 1
        assert service.consolidator.run("t").totals.total() == 0
    finally:
        other.close()


def test_the_cap_merges_near_duplicates_then_evicts_the_least_valuable(tmp_path, clock, embedder) -> None:
    from mnemo.settings import Settings

    small = build_local(Settings(data_dir=tmp_path, max_active_memories=10), clock=clock, embedder=embedder)
    try:
        facts = [fact(f"User likes the color number {i} in paintings.", f"likes:c{i}", confidence=0.5 + i / 100)
                 for i in range(14)]
        facts.append(fact("User is allergic to nuts.", "allergy:nut", Category.CONSTRAINT, confidence=0.6))
        small.writer.write("t", "u", facts, resolve_conflicts=False)
        report = small.consolidator.run("t").totals
        live = [m for m in small.ports.memories.all_for_user("t", "u") if m.status is Status.ACTIVE]
        assert len(live) <= 10
        assert report.merged + report.evicted >= 5
        assert any(m.category is Category.CONSTRAINT for m in live)  # never evicted
    finally:
        small.close()


def test_admin_route_runs_it_for_the_tenant(api, clock) -> None:
    api.say("u1", "c1", "I have a dentist appointment next Tuesday.")
    clock.advance(days=91)
    status, body = api.call("POST", "/v1/admin/consolidate", {})
    assert status == 200
    assert (body["users"], body["expired"]) == (1, 1)
