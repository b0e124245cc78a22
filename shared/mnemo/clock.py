"""The clock port: every time rule (TTL, recency, pruning) reads time through it."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """Current time, timezone-aware UTC."""
        ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class ManualClock:
    """A clock that only moves when told to: rules about days are tested without sleeping."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, tzinfo=UTC)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def advance(self, **delta: float) -> datetime:
        with self._lock:
            self._now += timedelta(**delta)
            return self._now

    def set(self, moment: datetime) -> None:
        with self._lock:
            self._now = moment


def to_utc(moment: datetime) -> datetime:
    """Naive datetimes are taken as UTC; aware ones converted."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def iso(moment: datetime | None) -> str | None:
    """Fixed-width UTC text (always microseconds), so stored times compare correctly as strings."""
    if moment is None:
        return None
    return to_utc(moment).isoformat(timespec="microseconds").replace("+00:00", "Z")
