"""A planned move, come due (domain/extraction/moves.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from mnemo.domain.extraction.moves import due_move

APRIL_10 = datetime(2026, 4, 10, tzinfo=UTC)


@pytest.mark.parametrize(("plan", "place"), [
    ("User plans: moving to toronto in april (for 2026-04).", "toronto"),
    ("User plans: relocating to Valencia on the 2nd (for 2026-04-02).", "Valencia"),
    ("User plans: moving back to New York City after the lease ends (for 2026-03).", "New York City"),
    # the new home's kind first, the day said between
    ("User plans: moving into a little house in Ames (for 2026-04).", "Ames"),
    ("User plans: moving the 1st of April, to a flat in Bath (for 2026-04-01).", "Bath"),
])
def test_a_move_whose_date_has_come_names_the_home(plan: str, place: str) -> None:
    assert due_move(plan, APRIL_10) == place


@pytest.mark.parametrize("plan", [
    "User plans: moving to Leeds next month (for 2026-05).",  # not yet
    "User plans: relocating to Valencia on the 20th (for 2026-04-20).",  # not yet
    "User plans: moving to a bigger flat (for 2026-03).",  # no place
    "User plans: moving to nights (for 2026-03).",
    "User plans: visiting Lisbon (for 2026-03).",  # no move
    "User plans: moving to Leeds.",  # no date
])
def test_no_home_from_a_plan_not_yet_due_or_not_a_move(plan: str) -> None:
    assert due_move(plan, APRIL_10) is None
