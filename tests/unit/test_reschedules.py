"""A plan moved to another date (domain/extraction/reschedules.py): that a date moved, to when, what a plan is about."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from mnemo.domain.extraction import reschedules
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
    # said not to happen, by its name
    ("So Tulum isn't going to happen anymore, the retreat center flooded", ["So Tulum"]),
    ("Ach, no Highland Show for us this year. Lambing's looking late", ["Highland Show"]),
    ("the Lisbon trip fell through", ["the Lisbon"]),
    ("the party is not going ahead", ["the party"]),
    ("my sister's wedding isn't happening", []),  # someone else's
    ("if the trip isn't happening, what then?", []),
    # a question in a later clause asks nothing of the plan
    ("So Tulum isn't going to happen anymore, the retreat center flooded, so May is wide open, which feels spacious?",
     ["So Tulum"]),
    # a plan the user had, then a "but"
    ("We had intended to travel to Furano in Hokkaido in August. However, my knee will not permit such a journey",
     ["travel to Furano in Hokkaido in"]),
    ("I had planned to visit mum in May and it's all booked", []),
    # a dream come true, a plan kept in a smaller way, a meal, and a statement asked about again
    ("We'd always wanted to go to Japan but never had the money, so this trip is a dream", []),
    ("I had planned to run the marathon in under 4 hours, though my knee is a bit sore now", []),
    ("ok no dinner for me, I'm fasting", []),
    ("so the BBQ is cancelled, or did I misread the email?", []),
    ("the party is cancelled, are you sure?", []),
])
def test_a_plan_said_to_be_off_by_its_name(text: str, off: list[str]) -> None:
    assert called_off_plans(text) == off


@pytest.mark.parametrize(("text", "back"), [
    # the day taken back by naming it: "--16" is the 16th of whichever month the plan is in
    ("actually no its the 23rd not the 16th, i read the letter wrong", [("--16", "--23", "the 23rd")]),
    ("the exam is not in June, it is on 24 May", [("2026-06", "2026-05-24", "on 24 May")]),
    ("we fly on the 3rd not the 4th of May", [("2026-05-04", "2026-05-03", "the 3rd of May")]),
    # times of day, weekdays and numbers are no dates taken back
    ("its not 5pm, its 6pm", []),
    ("on Saturday, not Sunday", []),
    ("Leon becomes 9, not 8.", []),
    # ... unless the weekday is said as a correction: the plan on that weekday, held on the one meant
    ("sorry i meant thursday nt wednesday", [("wd:2", "wd:3", "thursday")]),
    ("Saturday, not Sunday, my mistake", [("wd:6", "wd:5", "Saturday")]),
])
def test_a_day_taken_back_by_naming_it(text: str, back: list[tuple[str, str, str]]) -> None:
    assert reschedules.taken_back(text, MARCH) == back


def test_which_stored_plan_a_day_taken_back_names_and_its_day_meant() -> None:
    assert reschedules.on_the_day("User plans: confirmation (for 2026-05-16).", "--16") == "2026-05-16"
    assert reschedules.on_the_day("User plans: Boki exam is in June (for 2026-06).", "2026-06") == "2026-06"
    assert reschedules.on_the_day("User plans: confirmation (for 2026-05-16).", "--17") is None
    assert reschedules.meant_day("2026-05-16", "--23") == "2026-05-23"
    assert reschedules.meant_day("2026-06", "2026-05-24") == "2026-05-24"
    assert moved_plan_value("User plans: flying to Lisbon on the 16th of May for a wedding (for 2026-05-16).",
                            "the 23rd") == "flying to Lisbon for a wedding, now the 23rd"


@pytest.mark.parametrize(("text", "stored", "meant"), [
    ("Correction: it is at 3:15 pm, not 2:15 pm.", "dentist on 12 May at 2:15 pm", "dentist on 12 May at 3:15 pm"),
    ("Correction: it is at 3:15 pm, not 2:15 pm.", "dentist on 12 May at 2:15", "dentist on 12 May at 3:15 pm"),
    ("sorry its 9am not 10am", "physio at 10 am on Friday", "physio at 9am on Friday"),
    ("sorry its 9am not 10am", "physio at 10 pm on Friday", None),  # another time
    ("sorry its 9am not 10am", "physio at 110 am on Friday", None),  # no time of day
])
def test_a_time_of_day_taken_back_by_naming_it(text: str, stored: str, meant: str | None) -> None:
    [(was, now)] = reschedules.times_corrected(text)
    assert (was.sub(now, stored, count=1) if was.search(stored) else None) == meant


@pytest.mark.parametrize("text", ["at 3 not 2", "the 12th, not the 14th", "not in June, it is on 24 May"])
def test_no_time_taken_back_where_none_is_said_as_one(text: str) -> None:
    assert reschedules.times_corrected(text) == []


@pytest.mark.parametrize(("held", "meant", "day"), [
    ("2026-03-11", "wd:3", "2026-03-12"),  # the Thursday of a Wednesday's week
    ("2026-03-09", "wd:4", "2026-03-13"),  # the Friday of a Monday's week
    ("2026-03-15", "wd:5", "2026-03-14"),  # the Saturday of a Sunday's week
    ("2026-03-16", "--23", "2026-03-23"),
])
def test_the_day_a_correction_means_for_a_plan(held: str, meant: str, day: str) -> None:
    assert reschedules.meant_day(held, meant) == day
    assert reschedules.on_the_day(f"User plans: exam (for {held}).", "wd:" + str(
        __import__("datetime").date.fromisoformat(held).weekday())) == held
