"""A plan moved to another date (domain/extraction/reschedules.py): that a date moved, to when, what a plan is about."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from mnemo.domain.extraction.reschedules import called_off_plans, moved_plan_value, moved_to, plan_topic

MARCH = datetime(2026, 3, 1, 9, tzinfo=UTC)


@pytest.mark.parametrize(("text", "moved"), [
    ("Baner opening is delayed, landlord issues. Now it will be January next year.", ("2027", "January next year")),
    ("The IELTS they change the date, now is 19 of March, not the 12", ("2026-03-19", "19 of March")),
    ("the trip got pushed back to the 14th, ugh", ("2026-03-14", "the 14th")),
    # said of the plan as what happened to it, the new date in the next words
    ("Surgery got moved. May 4 now. Surgeon was sick.", ("2026-05-04", "May 4")),
    ("no. he moved it. 9th june now. he's a man short", ("2026-06-09", "9th june")),
    ("my exam was postponed, no idea when", None),
    # no date moved
    ("im at the gym now", None),
    ("the wedding is on june 5", None),
    ("now its raining", None),
    ("ugh work is busy. now it's Friday finally, the kitchen looks awful", None),
    ("my mum's dentist appointment was pushed back to next Friday", None),   # someone else's
])
def test_a_date_said_to_have_moved_and_where_to(text: str, moved: tuple[str, str] | None) -> None:
    assert moved_to(text, MARCH) == moved


def test_what_a_plan_is_about_leaves_out_its_dates_and_the_words_of_every_plan() -> None:
    content = "User plans: make the IELTS exam in 12 of March (for 2026-03-12)."
    assert plan_topic(content) == {"ielt", "exam"}
    assert moved_plan_value(content, "19 of March") == "make the IELTS exam, now 19 of March"


@pytest.mark.parametrize(("text", "off"), [
    ("And Valencia is cancelled too, Kerem's father is sick in Izmir", ["And Valencia"]),
    ("the dentist got cancelled", ["the dentist"]),
    ("we cancelled the Lisbon trip because of work", ["Lisbon trip"]),
    ("the BBQ on sunday is off", ["the BBQ on sunday"]),
    ("yoga was cancelled today", []),  # one evening's
    ("my mum's appointment was cancelled", []),  # someone else's
    ("is the party off?", []),
    ("it is off", []),  # names nothing
    ("If the Lisbon trip is cancelled, can I get my money back?", []),  # what may happen
    ("yoga is off tomorrow", []),
    ("we cancelled the " + "a" * 400 + "/", []),  # one long word, read once
])
def test_a_plan_said_to_be_off_by_its_name(text: str, off: list[str]) -> None:
    assert called_off_plans(text) == off
