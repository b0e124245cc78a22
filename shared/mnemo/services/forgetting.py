"""Forget by query (R7): semantic and lexical match, the memory is retired and its text wiped."""

from __future__ import annotations

from mnemo.domain.models import AuditEvent, MemoryVersion, Status
from mnemo.domain.ranking import RankingParams, rank
from mnemo.domain.text import terms
from mnemo.ports import SearchRequest
from mnemo.services.context import Ports

USER_DELETED = "user_deleted"


class Forgetter:
    def __init__(self, ports: Ports) -> None:
        self.p = ports

    def forget(self, tenant_id: str, user_id: str, query: str, *, actor: str = "api") -> list[str]:
        """Retire the memories that match ``query`` closely; returns their ids."""
        query = query.strip()
        if not query:
            return []
        vector = self.p.embedder.embed_queries([query])[0]
        now = self.p.clock.now()
        query_terms = terms(query)
        with self.p.locks.hold(tenant_id, user_id):
            hits = self.p.memories.search(tenant_id, user_id, SearchRequest(
                vector=vector, terms=query_terms, limit=20, now=now,
                statuses=frozenset({Status.ACTIVE, Status.PROBATIONARY, Status.PENDING})))
            params = RankingParams(a=1.0, b=0.0, c=0.0, importance=0.0, access=0.0,
                                   lexical_weight=0.5, recency_lambda=0.0,
                                   sentence_weight=self.p.settings.sentence_weight)
            scored = rank(hits, now, params)
            doomed = [s.memory for s in scored
                      if s.relevance >= self.p.settings.forget_min_relevance and (s.lexical > 0 or s.cosine >= 0.6)]
            retired = []
            history = []
            for m in doomed:
                history.append(MemoryVersion(memory_id=m.memory_id, version=m.version, content="",
                                             category=m.category, status=m.status, confidence=m.confidence,
                                             updated_at=now, reason="forgotten by the user"))
                # the record stays as a tombstone without its text: its id (derived from the source
                # message) keeps a replay of the old turn from teaching the fact again
                retired.append(m.model_copy(update={"status": Status.DELETED, "superseded_by": USER_DELETED,
                                                    "confidence": 0.0, "content": "", "updated_at": now,
                                                    "metadata": {}, "tags": []}))
            if retired:
                self.p.memories.save(retired, history)
        if retired:
            self.p.audit.record([AuditEvent(tenant_id=tenant_id, user_id=user_id, action="memory.forget",
                                            actor=actor, memory_ids=[m.memory_id for m in retired], at=now)])
        return [m.memory_id for m in retired]
