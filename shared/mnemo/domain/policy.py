"""The memory policy table (SPEC R4): what each category may do and how long it lives."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from mnemo.domain.models import Category, Scope


@dataclass(frozen=True)
class CategoryPolicy:
    category: Category
    storable: bool
    in_profile: bool  # mirrored into the always-injected profile
    retention: timedelta | None  # None: never auto-expires
    refresh_on_repeat: bool  # a restatement pushes the expiry out again
    summarisable: bool  # consolidation may fold it into a summary (R9)
    deleted_by: str


_DELETION = {
    Category.PREFERENCE: "user forget/edit, newer contradicting preference, TTL",
    Category.CONSTRAINT: "user forget/edit, explicit contradiction only",
    Category.BIOGRAPHICAL: "user forget/edit, newer contradicting fact",
    Category.EPISODIC: "TTL, consolidation into a summary",
    Category.PROCEDURAL: "user forget/edit, TTL",
    Category.PROJECT_FACT: "TTL, project closed, user forget",
    Category.TASK_STATE: "task closed, TTL",
    Category.SUMMARY: "TTL, re-consolidation",
    Category.TOOL_RESULT: "TTL",
}


class PolicyTable:
    """Built from settings so that every retention is configurable."""

    def __init__(self, retention_days: dict[str, int | None]) -> None:
        self._policies: dict[Category, CategoryPolicy] = {}
        for category in Category:
            days = retention_days.get(category.value)
            self._policies[category] = CategoryPolicy(
                category=category,
                storable=True,
                in_profile=category in {Category.PREFERENCE, Category.CONSTRAINT, Category.BIOGRAPHICAL,
                                        Category.PROCEDURAL},
                retention=None if days is None else timedelta(days=days),
                refresh_on_repeat=category in {Category.PREFERENCE, Category.PROCEDURAL,
                                               Category.PROJECT_FACT},
                summarisable=category in {Category.EPISODIC, Category.TOOL_RESULT},
                deleted_by=_DELETION[category],
            )

    def __getitem__(self, category: Category) -> CategoryPolicy:
        return self._policies[category]

    def expiry_for(
        self, category: Category, start: datetime, scope: Scope = Scope.USER,
        session_ttl: timedelta | None = None,
    ) -> datetime | None:
        """When a fact of this category, confirmed at ``start``, expires."""
        retention = self._policies[category].retention
        if scope is Scope.SESSION and session_ttl is not None:
            retention = session_ttl if retention is None else min(retention, session_ttl)
        if retention is None:
            return None
        try:
            return start + retention
        except OverflowError:  # a start near year 9999 (stored before future dates were refused)
            return datetime.max.replace(tzinfo=start.tzinfo)

    def describe(self) -> list[dict[str, object]]:
        return [
            {
                "category": p.category.value,
                "storable": p.storable,
                "in_profile": p.in_profile,
                "retention_days": None if p.retention is None else p.retention.days,
                "refresh_on_repeat": p.refresh_on_repeat,
                "summarisable": p.summarisable,
                "deleted_by": p.deleted_by,
            }
            for p in self._policies.values()
        ]
