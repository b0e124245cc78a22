"""The lifecycle moves of SPEC R8, as pure functions of a memory and the time."""

from __future__ import annotations

from datetime import datetime, timedelta

from mnemo.domain.models import Memory, Status


def adjust_confidence(memory: Memory, delta: float, now: datetime, active_above: float) -> Memory:
    """Boost or decay: decayed to active_above or less -> probationary; confirmed above it -> active again."""
    confidence = round(min(1.0, max(0.0, memory.confidence + delta)), 4)
    status = memory.status
    if status is Status.ACTIVE and confidence <= active_above:
        status = Status.PROBATIONARY
    elif status is Status.PROBATIONARY and delta > 0 and confidence > active_above:
        status = Status.ACTIVE
    update: dict[str, object] = {"confidence": confidence, "status": status, "updated_at": now}
    if delta > 0:
        update["last_confirmed_at"] = now
    return memory.model_copy(update=update)


def is_expired(memory: Memory, now: datetime) -> bool:
    return memory.status in {Status.ACTIVE, Status.PROBATIONARY} and memory.expires_at is not None \
        and memory.expires_at <= now


def is_prunable(memory: Memory, now: datetime, min_confidence: float, unused_days: int) -> bool:
    """Probationary, low confidence and unused for a long time (R8, R9)."""
    last_use = max(filter(None, (memory.last_accessed_at, memory.last_confirmed_at)))
    return (memory.status is Status.PROBATIONARY and memory.confidence < min_confidence
            and now - last_use >= timedelta(days=unused_days))


def is_due_for_archive(memory: Memory, now: datetime, after_days: int) -> bool:
    return memory.status is Status.SUPERSEDED and now - memory.updated_at >= timedelta(days=after_days)


def is_due_for_deletion(memory: Memory, now: datetime, after_days: int) -> bool:
    """Archived superseded versions and expired facts leave after a grace period; summarised
    originals stay archived for good (they are the source of their summary)."""
    if memory.status is Status.EXPIRED:
        return now - memory.updated_at >= timedelta(days=after_days)
    return (memory.status is Status.ARCHIVED and memory.superseded_by is not None
            and "summarised" not in memory.tags and now - memory.updated_at >= timedelta(days=after_days))
