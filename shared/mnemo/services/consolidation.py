"""The scheduled maintenance of SPEC R8 and R9, per user, idempotent and resumable.

Every step reads the current state and moves records forward; a summary and the archiving of
its originals are written in one transaction. Killed halfway, a rerun finishes the job and
loses nothing; run twice, the second run finds nothing to do.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from mnemo.domain.lifecycle import is_due_for_archive, is_due_for_deletion, is_expired, is_prunable
from mnemo.domain.models import AuditEvent, Category, Memory, Provenance, SourceKind, Status
from mnemo.domain.ranking import recency
from mnemo.domain.summarise import RuleBasedSummariser
from mnemo.ports import Summariser
from mnemo.services.context import Ports
from mnemo.services.writing import stable_id

log = logging.getLogger("mnemo.consolidation")


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
            self._summarise(tenant_id, user_id, now, report)
            self._enforce_cap(tenant_id, user_id, now, report)
        if report.total():
            self.p.audit.record([AuditEvent(tenant_id=tenant_id, user_id=user_id, action="consolidate",
                                            actor="scheduler", at=now,
                                            detail={k: str(v) for k, v in vars(report).items() if v})])
        return report

    def _live(self, tenant_id: str, user_id: str) -> list[Memory]:
        return [m for m in self.p.memories.all_for_user(tenant_id, user_id)
                if m.status in {Status.ACTIVE, Status.PROBATIONARY}]

    def _summarise(self, tenant_id: str, user_id: str, now: datetime, report: UserReport) -> None:
        """Episodic memories of one topic, once there are enough, become 3-5 summary facts (R9)."""
        episodes = [m for m in self._live(tenant_id, user_id)
                    if self.p.policy[m.category].summarisable and m.embedding is not None]
        if len(episodes) < self.p.settings.consolidation_cluster_size:
            return
        vectors = np.asarray([m.embedding for m in episodes], dtype=np.float32)
        for cluster in clusters(vectors, self.p.settings.cluster_similarity,
                                self.p.settings.consolidation_cluster_size):
            members = [episodes[i] for i in cluster]
            texts = self.summariser.summarise(members, vectors[cluster])
            summary_vectors = self.p.embedder.embed(texts)
            ids = sorted(m.memory_id for m in members)
            summaries = [Memory(
                memory_id=stable_id(tenant_id, user_id, "summary", *ids, str(i)), tenant_id=tenant_id,
                user_id=user_id, category=Category.SUMMARY, subject=f"summary:{stable_id(*ids)[:8]}:{i}",
                content=text, confidence=0.8, status=Status.ACTIVE, created_at=now, updated_at=now,
                last_confirmed_at=max(m.last_confirmed_at for m in members),
                expires_at=self.p.policy.expiry_for(Category.SUMMARY, now), tags=["summary"],
                provenance=Provenance(source=SourceKind.SUMMARY, extractor=self.summariser.name,
                                      evidence=f"{len(members)} episodic memories"),
                embedding=vector.tolist()) for i, (text, vector) in enumerate(zip(texts, summary_vectors, strict=True))]
            archived = [m.model_copy(update={"status": Status.ARCHIVED, "updated_at": now,
                                             "superseded_by": summaries[0].memory_id,
                                             "tags": [*m.tags, "summarised"]}) for m in members]
            self.p.memories.save([*summaries, *archived])  # one transaction: all or nothing
            report.summarised += len(members)
            report.summaries += len(summaries)

    def _enforce_cap(self, tenant_id: str, user_id: str, now: datetime, report: UserReport) -> None:
        """Near the cap, merge near-duplicates; over it, archive the least valuable (R9)."""
        s = self.p.settings
        live = self._live(tenant_id, user_id)
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


def clusters(vectors: np.ndarray, threshold: float, min_size: int = 1) -> list[list[int]]:
    """Greedy clustering around seeds, largest first; each memory in at most one cluster.

    The seed is the memory with the most unassigned neighbours; clusters smaller than
    ``min_size`` are not formed (their members stay free for a later run).
    """
    near = (vectors @ vectors.T) >= threshold
    free = np.ones(len(vectors), dtype=bool)
    counts = near.sum(axis=1).astype(np.int64)
    out: list[list[int]] = []
    while free.any():
        masked = np.where(free, counts, -1)
        seed = int(np.argmax(masked))
        if masked[seed] < min_size:
            break
        members = np.flatnonzero(near[seed] & free)
        out.append([int(i) for i in members])
        free[members] = False
        counts -= near[:, members].sum(axis=1)
    return out
