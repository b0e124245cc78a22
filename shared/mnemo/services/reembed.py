"""Re-embedding every memory with the current embedder (a model change, DESIGN.md 5).

A vector from one model means nothing to another, so changing the embedder (MiniLM to Titan, or
Titan's dimension) means re-embedding everything. The job walks tenants and users, holds each
user's write lock while it rewrites that user's memories (so no write interleaves with stale
vectors), and writes into ``target``: the same store when the dimension is unchanged, a new
OpenSearch index when it changes (an index's dimension is fixed). It is idempotent: saves are
upserts by id, so a run that stops half-way is simply run again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from mnemo.domain.models import Memory, MemoryVersion
from mnemo.ports import MemoryStore
from mnemo.services.context import Ports
from mnemo.services.writing import embed_memories

log = logging.getLogger("mnemo.reembed")


@dataclass
class ReembedReport:
    tenants: int = 0
    users: int = 0
    memories: int = 0


class Reembedder:
    def __init__(self, ports: Ports, target: MemoryStore | None = None, batch_size: int = 128) -> None:
        self.p = ports
        self.target = target or ports.memories
        self.batch_size = batch_size

    def run(self, progress: Callable[[int, int], object] | None = None) -> ReembedReport:
        """Every user of every tenant; ``progress(users done, users in all)`` after each user."""
        report = ReembedReport()
        # the users are listed first, so that progress has a total
        work = [(tenant_id, list(self.p.memories.users(tenant_id))) for tenant_id in self.p.memories.tenants()]
        total = sum(len(users) for _, users in work)
        for tenant_id, users in work:
            report.tenants += 1
            for user_id in users:
                report.users += 1
                report.memories += self.run_user(tenant_id, user_id)
                if progress:
                    progress(report.users, total)
        log.info("re-embedding finished", extra={"tenants": report.tenants, "users": report.users,
                                                 "memories": report.memories, "model": self.p.embedder.model_id})
        return report

    def run_user(self, tenant_id: str, user_id: str) -> int:
        copying = self.target is not self.p.memories
        done = 0
        with self.p.locks.hold(tenant_id, user_id):
            for batch in _batches(self.p.memories.all_for_user(tenant_id, user_id), self.batch_size):
                vectors, parts = embed_memories(self.p, [m.content for m in batch], [m.created_at for m in batch],
                                                [m.provenance.source for m in batch])
                fresh = [m.model_copy(update={
                    "embedding": v.tolist(), "part_embeddings": p.tolist() if p is not None else None})
                    for m, v, p in zip(batch, vectors, parts, strict=True)]
                # a new index needs the version chains too; in place they are already there
                history: list[MemoryVersion] = [version for m in batch for version in
                                                self.p.memories.history(tenant_id, user_id, m.memory_id)
                                                ] if copying else []
                self.target.save(fresh, history)
                done += len(fresh)
        return done


def _batches(memories: Iterator[Memory], size: int) -> Iterator[list[Memory]]:
    batch: list[Memory] = []
    for memory in memories:
        batch.append(memory)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
