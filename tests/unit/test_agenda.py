"""Questions about the user's coming weeks, and the plans still ahead that answer them."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from mnemo.domain.agenda import is_agenda, target_day, upcoming
from mnemo.domain.models import Category, Memory

NOW = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)


def plan(content: str, subject: str = "plan:x", polarity: bool = True) -> Memory:
    return Memory(memory_id=content[:20], tenant_id="t", user_id="u", category=Category.EPISODIC, subject=subject,
                  content=content, polarity=polarity, confidence=0.8, created_at=NOW, updated_at=NOW,
                  last_confirmed_at=NOW)


@pytest.mark.parametrize(("query", "expected"), [
    ("whats coming up that i should practice for", True),
    ("What should I prepare for this summer?", True),
    ("What should be my priorities for next 6 weeks?", True),
    ("what do I need to prep for next month", True),
    ("What is coming up in the news this week?", False),  # nothing of the user's own
    ("how do I bake bread", False),
])
def test_a_question_about_the_users_coming_weeks(query: str, expected: bool) -> None:
    assert is_agenda(query) is expected


def test_the_day_a_plan_is_for_is_its_date_or_the_end_of_its_month() -> None:
    assert target_day(plan("User plans: driving test (for 2026-04-22).")) == date(2026, 4, 22)
    assert target_day(plan("User plans: move to Lyon (for 2026-02).")) == date(2026, 2, 28)
    assert target_day(plan("User plans: a trip.")) is None
    assert target_day(plan("User plans: x (for 2026-13-01).")) is None


def test_upcoming_plans_are_the_live_stated_ones_ahead_soonest_first() -> None:
    memories = [plan("User plans: wedding (for 2026-06-20)."), plan("User plans: exam (for 2026-03-10)."),
                plan("User plans: old trip (for 2026-02-10)."),  # already past
                plan("User plans: this month's thing (for 2026-03)."),  # still March: ahead
                plan("User no longer plans: gala (for 2026-04-01).", polarity=False),
                plan("User got married (on 2026-04-01).", subject="event:wedding")]
    assert [m.content for m in upcoming(memories, NOW, 3)] == [
        "User plans: exam (for 2026-03-10).", "User plans: this month's thing (for 2026-03).",
        "User plans: wedding (for 2026-06-20)."]
    assert len(upcoming(memories, NOW, 1)) == 1
