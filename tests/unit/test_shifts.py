"""The shifts a user works, read from their few words (domain/extraction/shifts.py)."""

from __future__ import annotations

import pytest

from mnemo.domain.extraction.shifts import is_shift, only_a_shift, shifts_in


@pytest.mark.parametrize(("text", "said"), [
    ("joyce here 29 RN from cebu, workin nights in dubai", [("works nights", True)]),
    ("im on nights this week", [("works nights", True)]),
    ("I work night shifts at the care home", [("works night shifts", True)]),
    ("and I'm on days now, 7 to 7:30. no more nights thank god", [("works days, 7 to 7:30", True),
                                                                 ("works nights", False)]),
    ("and no more nights there, day shift 7a-7p yay", [("works nights", False), ("works day shift, 7a-7p", True)]),
    ("been doing 12 hour shifts since march", [("works 12 hour shifts", True)]),
    # moved onto it by someone, or said bare as the one now
    ("Good news, manager move me to day shift from this week.", [("works day shift", True)]),
    ("and they put me back on night shift, because new contract", [("works night shift", True)]),
    ("back shift noo, two tae midnight", [("works back shift", True)]),
    ("Day shift na this month, thank God", [("works Day shift", True)]),
    # a rota of days on and off
    ("I'm on 4 nights on, 4 off. live in Sutton", [("works 4 nights on, 4 off", True)]),
])
def test_a_shift_worked_or_left(text: str, said: list[tuple[str, bool]]) -> None:
    assert [(s.value, s.worked) for s in shifts_in(text)] == said


@pytest.mark.parametrize("text", [
    "i was working days off all month",   # days off are no shift
    "on days like this I stay in",
    "we had nights out every week",
    "5 working days to finish it",
    "my sister works nights",             # someone else's shift
    "they moved the meeting to day shift handover",
    "the night shift now has two nurses",  # no shift of the user's
])
def test_other_days_and_nights_are_no_shift(text: str) -> None:
    assert [s for s in shifts_in(text) if s.worked] == []


def test_a_shift_routine_is_keyed_as_the_one_shift() -> None:
    assert is_shift("works nights")
    assert is_shift("works day shift, 7a-7p")
    assert not is_shift("works from home on fridays")
    assert only_a_shift("shift")
    assert only_a_shift("nights")
    assert not only_a_shift("asthma")


def test_mornings_or_evenings_are_a_shift_only_with_nothing_after_them_they_are_for() -> None:
    assert [s.value for s in shifts_in("since last week I work mornings, 7 to 3")] == ["works mornings, 7 to 3"]
    assert shifts_in("I'm a nurse. I also work evenings on my novel.") == []
