"""Explicit feedback on a retrieval (SPEC R7): thumbs up boosts, thumbs down decays what was injected."""

from __future__ import annotations

from dataclasses import dataclass, field

from mnemo.domain.lifecycle import adjust_confidence
from mnemo.domain.models import RETRIEVABLE, AuditEvent, FeedbackRecord
from mnemo.domain.sensitive import contains_sensitive
from mnemo.errors import InvalidInput, NotFound
from mnemo.services.context import Ports

FOLLOW_UP = "What should I have known?"


@dataclass
class FeedbackResult:
    adjusted: list[tuple[str, float]] = field(default_factory=list)
    follow_up: str | None = None


class FeedbackService:
    def __init__(self, ports: Ports) -> None:
        self.p = ports

    def rate(self, tenant_id: str, user_id: str, trace_id: str, rating: str,
             comment: str | None = None) -> FeedbackResult:
        if comment and contains_sensitive(comment):
            raise InvalidInput("comment must not carry secrets", details={"field": "comment"})
        now = self.p.clock.now()
        trace = self.p.traces.get(tenant_id, trace_id, now)
        if trace is None or trace.user_id != user_id:
            raise NotFound("no such retrieval for this user", details={"field": "trace_id"})
        delta = self.p.settings.feedback_up if rating == "up" else -self.p.settings.feedback_down
        previous = self.p.feedback.get(tenant_id, trace_id)
        adjusted: list[tuple[str, float]] = []
        applied: dict[str, float] = {}
        categories: dict[str, str] = {}
        with self.p.locks.hold(tenant_id, user_id):
            changed = []
            for memory in self.p.memories.get_many(tenant_id, user_id, trace.selected):
                if memory.status not in RETRIEVABLE:
                    continue
                # rating the same retrieval again replaces the earlier rating instead of adding to it
                undo = previous.adjustments.get(memory.memory_id, 0.0) if previous else 0.0
                change = delta - undo
                updated = adjust_confidence(memory, change, now, self.p.settings.active_confidence)
                changed.append(updated)
                applied[memory.memory_id] = round(updated.confidence - memory.confidence + undo, 4)
                categories[memory.memory_id] = memory.category.value
                adjusted.append((memory.memory_id, updated.confidence))
            self.p.memories.save(changed)
        self.p.feedback.put(FeedbackRecord(tenant_id=tenant_id, user_id=user_id, trace_id=trace_id, rating=rating,
                                           comment=comment, adjustments=applied, categories=categories, at=now))
        self.p.audit.record([AuditEvent(tenant_id=tenant_id, user_id=user_id, action=f"feedback.{rating}",
                                        actor="api", memory_ids=[m for m, _ in adjusted], at=now,
                                        detail={"trace_id": trace_id})])
        return FeedbackResult(adjusted=adjusted, follow_up=FOLLOW_UP if rating == "down" else None)
