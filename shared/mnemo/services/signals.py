"""Implicit feedback (SPEC R7, channel B): corrections decay what misled; rephrasings are misses."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from datetime import datetime, timedelta

import numpy as np

from mnemo.domain.lifecycle import adjust_confidence
from mnemo.domain.models import RETRIEVABLE, AuditEvent, FeedbackRecord, RetrievalTrace
from mnemo.domain.user_entries import drop_user, owners_of
from mnemo.ports import Vector
from mnemo.services.context import Ports

REPHRASE_SIMILARITY = 0.8
REPHRASE_WINDOW = timedelta(minutes=10)
MISLED_SIMILARITY = 0.5


class ImplicitSignals:
    def __init__(self, ports: Ports) -> None:
        self.p = ports
        self._last_query: OrderedDict[tuple[str, str, str], tuple[str, Vector, str, datetime]] = OrderedDict()
        self._lock = threading.Lock()

    # a per-user cache (mnemo.services.user_caches): the last question of each conversation, in the clear
    def owners(self) -> set[tuple[str, str]]:
        with self._lock:
            return owners_of(self._last_query)

    def forget_user(self, tenant_id: str, user_id: str) -> None:
        with self._lock:
            drop_user(self._last_query, tenant_id, user_id)

    def corrected(self, tenant_id: str, user_id: str, conversation_id: str, contents: Sequence[str],
                  subjects: Sequence[str]) -> list[str]:
        """The user corrected the assistant: decay the memories injected last time that the correction
        is about (same slot, or close in meaning). The corrected fact itself is stored by extraction."""
        now = self.p.clock.now()
        trace = self.p.traces.latest(tenant_id, user_id, conversation_id, now)
        if trace is None or not trace.selected:
            return []
        vectors = self.p.embedder.embed(list(contents))
        decayed = []
        with self.p.locks.hold(tenant_id, user_id):
            for memory in self.p.memories.get_many(tenant_id, user_id, trace.selected):
                if memory.status not in RETRIEVABLE or memory.embedding is None:
                    continue
                closeness = float(np.max(vectors @ np.asarray(memory.embedding, dtype=np.float32)))
                if memory.subject in subjects or closeness >= MISLED_SIMILARITY:
                    self.p.memories.save([adjust_confidence(memory, -self.p.settings.correction_decay, now,
                                                            self.p.settings.active_confidence)])
                    decayed.append(memory.memory_id)
        if decayed:
            self._record(trace, "correction", decayed, now)
        return decayed

    def observe_query(self, trace: RetrievalTrace, query: str, vector: Vector) -> bool:
        """Called on each retrieve of a conversation: a near-repeat of the previous question soon after
        it means the first retrieval missed something. Returns True when a miss was recorded."""
        if not trace.conversation_id:
            return False
        key = (trace.tenant_id, trace.user_id, trace.conversation_id)
        with self._lock:
            previous = self._last_query.get(key)
            self._last_query[key] = (query.strip().lower(), vector, trace.trace_id, trace.created_at)
            self._last_query.move_to_end(key)
            while len(self._last_query) > 10_000:
                self._last_query.popitem(last=False)
        if previous is None:
            return False
        text, last_vector, last_trace_id, at = previous
        if text == query.strip().lower() or trace.created_at - at > REPHRASE_WINDOW:
            return False
        if float(np.dot(vector, last_vector)) < REPHRASE_SIMILARITY:
            return False
        earlier = self.p.traces.get(trace.tenant_id, last_trace_id, trace.created_at)
        if earlier is not None:
            self._record(earlier, "miss", earlier.selected, trace.created_at)
        return True

    def _record(self, trace: RetrievalTrace, kind: str, memory_ids: list[str], now: datetime) -> None:
        categories = {m.memory_id: m.category.value
                      for m in self.p.memories.get_many(trace.tenant_id, trace.user_id, memory_ids)}
        # a rating by the user of the same trace wins over an inferred one
        if self.p.feedback.get(trace.tenant_id, trace.trace_id) is None:
            self.p.feedback.put(FeedbackRecord(tenant_id=trace.tenant_id, user_id=trace.user_id,
                                               trace_id=trace.trace_id, rating=kind, categories=categories, at=now))
        self.p.audit.record([AuditEvent(tenant_id=trace.tenant_id, user_id=trace.user_id,
                                        action=f"retrieval.{kind}", actor="signals", memory_ids=memory_ids, at=now,
                                        detail={"trace_id": trace.trace_id})])
