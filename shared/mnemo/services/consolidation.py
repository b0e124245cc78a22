"""The scheduled maintenance of SPEC R8 and R9, per user, idempotent and resumable.

Every step reads the current state and moves records forward; a summary and the archiving of
its originals are written in one transaction. Killed halfway, a rerun finishes the job and
loses nothing; run twice, the second run finds nothing to do.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from mnemo.domain.lifecycle import is_due_for_archive, is_due_for_deletion, is_expired, is_prunable
from mnemo.domain.models import RETRIEVABLE as LIVE
from mnemo.domain.models import AuditEvent, Category, Memory, MemoryVersion, Provenance, SourceKind, Status
from mnemo.domain.ranking import recency
from mnemo.domain.summarise import RuleBasedSummariser, SummaryFact
from mnemo.domain.topics import find_topics
from mnemo.ports import Summariser
from mnemo.services.context import Ports
from mnemo.services.writing import stable_id

log = logging.getLogger("mnemo.consolidation")
# why a summary became a tombstone: one of the memories it was drawn from was forgotten, deleted or edited
SOURCE_CHANGED = "source_changed"


@dataclass
class UserReport:
    expired: int = 0
    pruned: int = 0
    archived: int = 0
    deleted: int = 0
    summarised: int = 0
    summaries: int = 0
    merged: int = 0
    evicted: int = 0

    def total(self) -> int:
        return sum(vars(self).values())


@dataclass
class ConsolidationReport:
    users: int = 0
    totals: UserReport = field(default_factory=UserReport)


class Consolidator:
    def __init__(self, ports: Ports, summariser: Summariser | None = None) -> None:
        self.p = ports
        self.summariser = summariser or RuleBasedSummariser()

    def run(self, tenant_id: str, user_id: str | None = None,
            progress: Callable[[int, int, str], object] | None = None) -> ConsolidationReport:
        users = [user_id] if user_id else self.p.memories.users(tenant_id)
        report = ConsolidationReport()
        for done, user in enumerate(users, start=1):
            one = self.run_user(tenant_id, user)
            report.users += 1
            for name, value in vars(one).items():
                setattr(report.totals, name, getattr(report.totals, name) + value)
            if progress:
                progress(done, len(users), user)
        return report

    def run_user(self, tenant_id: str, user_id: str) -> UserReport:
        s = self.p.settings
        now = self.p.clock.now()
        report = UserReport()
        with self.p.locks.hold(tenant_id, user_id):
            # a write of the user interrupted since the last run: its versions and audit events first
            self.p.memories.recover(tenant_id, user_id)
            memories = list(self.p.memories.all_for_user(tenant_id, user_id))
            changed: list[Memory] = []
            doomed: list[str] = []
            for m in memories:
                if is_expired(m, now):
                    changed.append(m.model_copy(update={"status": Status.EXPIRED, "updated_at": now}))
                    report.expired += 1
                elif is_prunable(m, now, s.prune_confidence, s.probation_prune_days):
                    doomed.append(m.memory_id)
                    report.pruned += 1
                elif is_due_for_archive(m, now, s.superseded_archive_days):
                    changed.append(m.model_copy(update={"status": Status.ARCHIVED, "updated_at": now}))
                    report.archived += 1
                elif is_due_for_deletion(m, now, s.superseded_archive_days):
                    doomed.append(m.memory_id)
                    report.deleted += 1
            if changed:
                self.p.memories.save(changed)
            if doomed:
                self.p.memories.delete(tenant_id, user_id, doomed)
            # one read of the user's memories serves every step (unsealing 1,000 of them is the slow part)
            current = {m.memory_id: m for m in memories}
            current.update((m.memory_id, m) for m in changed)
            for memory_id in doomed:
                current.pop(memory_id, None)
            current.update((m.memory_id, m) for m in self._summarise(tenant_id, user_id, list(current.values()),
                                                                     now, report))
            self._enforce_cap([m for m in current.values() if m.status in LIVE], now, report)
        if report.total():
            self.p.audit.record([AuditEvent(tenant_id=tenant_id, user_id=user_id, action="consolidate",
                                            actor="scheduler", at=now,
                                            detail={k: str(v) for k, v in vars(report).items() if v})])
        return report

    def _summarise(self, tenant_id: str, user_id: str, everything: list[Memory], now: datetime,
                   report: UserReport) -> list[Memory]:
        """Episodic memories of one topic, once there are enough, become a few summary facts (R9).

        Topics come first (mnemo.domain.topics); a summary is drawn from one topic's members only.
        The sources of the live summaries take part in the grouping, so new episodes of a topic
        already summarised are recognised as such: once ``consolidation_refresh_size`` of them have
        come, the topic is summarised again from all its episodes and the new summaries supersede
        the old ones, claim by claim (same slot: ``summary:<topic>:<kind>``). Returns what it wrote.
        """
        s = self.p.settings
        by_id = {m.memory_id: m for m in everything}
        previous = [m for m in everything if m.category is Category.SUMMARY and m.status in LIVE
                    and m.metadata.get("topic")]
        topic_of = {source: m.metadata["topic"] for m in previous for source in m.provenance.memory_ids}
        fresh = [m for m in everything if m.status in LIVE and self.p.policy[m.category].summarisable
                 and m.category is not Category.SUMMARY and m.embedding is not None]
        smallest = min(s.consolidation_cluster_size, s.consolidation_refresh_size) if previous \
            else s.consolidation_cluster_size
        if len(fresh) < smallest:
            return []
        earlier = [by_id[i] for i in topic_of if i in by_id and by_id[i].embedding is not None]
        pool = fresh + earlier
        vectors = np.asarray([m.embedding for m in pool], dtype=np.float32)
        plans: list[tuple[str, list[Memory], list[Memory], list[Memory], list[SummaryFact]]] = []
        for topic in find_topics(pool, vectors, s.cluster_similarity, smallest):
            new = [pool[i] for i in topic if pool[i].memory_id not in topic_of]
            known = Counter(topic_of[pool[i].memory_id] for i in topic if pool[i].memory_id in topic_of)
            if known:
                topic_id = known.most_common(1)[0][0]
                if len(new) < s.consolidation_refresh_size:
                    continue
                sources = new + [by_id[i] for i, t in topic_of.items() if t == topic_id and i in by_id]
                replaced = [m for m in previous if m.metadata["topic"] == topic_id]
            else:
                if len(new) < s.consolidation_cluster_size:
                    continue
                topic_id = stable_id(tenant_id, user_id, "topic", *sorted(m.memory_id for m in new))[:12]
                sources, replaced = new, []
            facts = self.summariser.summarise(sources, np.asarray([m.embedding for m in sources], dtype=np.float32))
            if facts:
                plans.append((topic_id, sources, new, replaced, facts))
        if not plans:
            return []
        # every topic's summaries embedded in one call: one batch costs far less than one per topic
        embedded = iter(self.p.embedder.embed([f.text for plan in plans for f in plan[4]]))
        written: list[Memory] = []
        for topic_id, sources, new, replaced, facts in plans:
            vectors = np.asarray([next(embedded) for _ in facts], dtype=np.float32)
            written += self._write_topic(tenant_id, user_id, now, topic_id, sources, new, replaced, facts, vectors)
            report.summarised += len(new)
            report.summaries += len(facts)
        return written

    def _write_topic(self, tenant_id: str, user_id: str, now: datetime, topic_id: str, sources: list[Memory],
                     new: list[Memory], replaced: list[Memory], facts: list[SummaryFact],
                     summary_vectors: np.ndarray) -> list[Memory]:
        """One topic's summaries, the archiving of its new episodes and the superseding of its old
        summaries, in one transaction."""
        source_ids = sorted(m.memory_id for m in sources)
        confirmed = {m.memory_id: m.last_confirmed_at for m in sources}
        before = {m.subject: m for m in replaced}
        summaries = []
        for fact, vector in zip(facts, summary_vectors, strict=True):
            subject = f"summary:{topic_id}:{fact.kind}"
            prior = before.get(subject)
            summaries.append(Memory(
                memory_id=stable_id(tenant_id, user_id, "summary", topic_id, fact.kind, *source_ids),
                tenant_id=tenant_id, user_id=user_id, category=Category.SUMMARY, subject=subject,
                content=fact.text, confidence=self.p.settings.summary_confidence, status=Status.ACTIVE,
                version=prior.version + 1 if prior else 1, supersedes=prior.memory_id if prior else None,
                created_at=now, updated_at=now,
                last_confirmed_at=max(confirmed.get(i, now) for i in fact.sources) if fact.sources else now,
                expires_at=self.p.policy.expiry_for(Category.SUMMARY, now), tags=["summary"],
                metadata={"topic": topic_id, "episodes": str(len(sources))},
                provenance=Provenance(source=SourceKind.SUMMARY, extractor=fact.author,
                                      memory_ids=list(fact.sources),
                                      evidence=f"{len(fact.sources)} of {len(sources)} episodic memories"),
                embedding=vector.tolist()))
        after = {m.subject: m.memory_id for m in summaries}
        superseded = [m.model_copy(update={"status": Status.SUPERSEDED, "updated_at": now,
                                           "superseded_by": after.get(m.subject, summaries[0].memory_id)})
                      for m in replaced]
        archived = [m.model_copy(update={"status": Status.ARCHIVED, "updated_at": now,
                                         "superseded_by": summaries[0].memory_id,
                                         "tags": [*(t for t in m.tags if t != "summarised"), "summarised"]})
                    for m in new]
        self.p.memories.save([*summaries, *superseded, *archived])  # one transaction: all or nothing
        return [*summaries, *superseded, *archived]

    def refresh_summaries(self, tenant_id: str, user_id: str, memories: list[Memory], gone: set[str]) -> list[Memory]:
        """Summaries drawn from a memory that was just forgotten, deleted or edited (``gone``) are derived
        text that still says what it said: each becomes a tombstone without its text, and its topic is
        summarised again from the episodes that remain (or, too few for a summary, they are live again
        until the next consolidation folds them). ``memories`` is everything of the user as it is now;
        the caller holds the user's lock. Returns what was written."""
        derived = [m for m in memories if m.category is Category.SUMMARY and m.status is not Status.DELETED
                   and gone & set(m.provenance.memory_ids)]
        if not derived:
            return []
        now = self.p.clock.now()
        by_id = {m.memory_id: m for m in memories}
        topics = {m.metadata["topic"] for m in derived if m.status in LIVE and m.metadata.get("topic")}
        # a live summary is replaced with its whole topic: its claims were drawn together
        doomed = {m.memory_id: m for m in memories if m.category is Category.SUMMARY and m.status in LIVE
                  and m.metadata.get("topic") in topics}
        doomed.update((m.memory_id, m) for m in derived)
        history = [h.model_copy(update={"content": "", "reason": SOURCE_CHANGED})
                   for m in doomed.values() for h in self.p.memories.history(tenant_id, user_id, m.memory_id)]
        tombstones = [m.model_copy(update={
            "subject": f"note:{m.memory_id[:8]}",  # a slot may be named after the text it no longer has
            "status": Status.DELETED, "superseded_by": SOURCE_CHANGED, "confidence": 0.0, "content": "",
            "updated_at": now, "metadata": {}, "tags": [], "part_embeddings": None,
            "provenance": m.provenance.model_copy(update={"evidence": None}),
            "embedding": [0.0] * len(m.embedding or [0.0] * self.p.embedder.dimension)}) for m in doomed.values()]
        history.extend(MemoryVersion(memory_id=m.memory_id, version=m.version, content="", category=m.category,
                                     status=m.status, confidence=m.confidence, updated_at=now, reason=SOURCE_CHANGED)
                       for m in doomed.values())
        self.p.memories.save(tombstones, history)
        written = list(tombstones)
        smallest = min(self.p.settings.consolidation_cluster_size, self.p.settings.consolidation_refresh_size)
        for topic_id in sorted(topics):
            summaries = {m.memory_id for m in doomed.values() if m.metadata.get("topic") == topic_id}
            source_ids = {i for m in doomed.values() if m.memory_id in summaries for i in m.provenance.memory_ids}
            source_ids |= {m.memory_id for m in memories if m.superseded_by in summaries}
            remaining = [by_id[i] for i in sorted(source_ids - gone) if i in by_id
                         and by_id[i].status in {*LIVE, Status.ARCHIVED} and by_id[i].embedding is not None]
            facts = self.summariser.summarise(remaining, np.asarray([m.embedding for m in remaining],
                                                                    dtype=np.float32)) \
                if len(remaining) >= smallest else []
            if facts:
                vectors = self.p.embedder.embed([f.text for f in facts])
                written += self._write_topic(tenant_id, user_id, now, topic_id, remaining, remaining, [], facts,
                                             vectors)
                continue
            revived = [m.model_copy(update={"status": Status.ACTIVE, "superseded_by": None, "updated_at": now,
                                            "tags": [t for t in m.tags if t != "summarised"]})
                       for m in remaining if m.status is Status.ARCHIVED and m.superseded_by in summaries]
            if revived:
                self.p.memories.save(revived)
                written += revived
        return written

    def _enforce_cap(self, live: list[Memory], now: datetime, report: UserReport) -> None:
        """Near the cap, merge near-duplicates; over it, archive the least valuable (R9)."""
        s = self.p.settings
        if len(live) <= int(s.max_active_memories * 0.9):
            return
        vectors = np.asarray([m.embedding for m in live], dtype=np.float32)
        sims = vectors @ vectors.T
        gone: set[int] = set()
        changed: list[Memory] = []
        order = sorted(range(len(live)), key=lambda i: -live[i].confidence)
        for i in order:
            if i in gone:
                continue
            for found in np.flatnonzero(sims[i] >= s.duplicate_similarity):
                j = int(found)
                if j == i or j in gone or live[j].category is not live[i].category \
                        or (live[j].subject != live[i].subject and live[j].polarity != live[i].polarity):
                    continue
                gone.add(j)
                changed.append(live[j].model_copy(update={"status": Status.ARCHIVED, "updated_at": now,
                                                          "superseded_by": live[i].memory_id}))
                report.merged += 1
        remaining = [m for k, m in enumerate(live) if k not in gone]
        excess = len(remaining) - s.max_active_memories
        if excess > 0:
            def value(m: Memory) -> float:
                return m.confidence * recency(m, now, s.recency_lambda)

            protected = {Category.CONSTRAINT}  # never evict what keeps the user safe
            candidates = sorted((m for m in remaining if m.category not in protected), key=value)
            for m in candidates[:excess]:
                changed.append(m.model_copy(update={"status": Status.ARCHIVED, "updated_at": now}))
                report.evicted += 1
        if changed:
            self.p.memories.save(changed)

