"""Date phrases users write that the date grammar misread or missed: a weekday with an ordinal, an ordinal or a
month after a word that says when, dates in figures, parts of a month, the week after next and fixed holidays."""

from datetime import UTC, datetime

import pytest

from mnemo.domain.extraction.dates import anchor, anchor_near, without_dates
from mnemo.domain.extraction.reschedules import moved_to

FRIDAY = datetime(2026, 5, 1, 12, tzinfo=UTC)  # Friday 1 May 2026


@pytest.mark.parametrize(("text", "day"), [
    # a weekday and an ordinal: the day that falls on that weekday if one of the next months has it ("fri 5th" is
    # Friday 5 June), else the day alone (no 15th is a Sunday before November: the weekday was a slip)
    ("fri 5th", "2026-06-05"),
    ("dinner on sat the 13th", "2026-06-13"),
    ("sun 15th", "2026-05-15"),
    ("Saturday 14th", "2026-05-14"),
    ("Tuesday 17th", "2026-05-17"),
    # an ordinal after a word that says when
    ("the dentist moved to 15th", "2026-05-15"),
    ("on 15th", "2026-05-15"),
    ("send it by 20th", "2026-05-20"),
    ("I'm away until 3rd", "2026-05-03"),
    ("from 2nd", "2026-05-02"),
    ("15th", "2026-05-15"),
    # a month after a word that says when, or alone
    ("the trip got moved to August", "2026-08"),
    ("off work until June", "2026-06"),
    ("booked for September", "2026-09"),
    # a month without a year is this year's unless more than six months gone, as "in March" is read
    ("the move is around March", "2026-03"),
    ("before July", "2026-07"),
    ("after October", "2026-10"),
    ("since April", "2026-04"),
    ("August", "2026-08"),
    ("june", "2026-06"),
    ("May", "2026-05"),
    ("March", "2026-03"),
    ("mid-July", "2026-07"),
    # in figures, when only one order of day and month can be
    ("25/12", "2026-12-25"),
    ("25.12.2026", "2026-12-25"),
    ("12/25", "2026-12-25"),
    ("on 25/12/2026", "2026-12-25"),
    ("the exam is 14/6/27", "2027-06-14"),
    # this month, a fortnight on, a part of a month
    ("end of the month", "2026-05"),
    ("at the beginning of the month", "2026-05"),
    ("week after next", "2026-05-15"),
    ("the week after next", "2026-05-15"),
    ("the weekend after next", "2026-05-15"),
    ("the first week of June", "2026-06"),
    ("the last week of August", "2026-08"),
    ("first weekend of July", "2026-07"),
    # fixed holidays, the next one for a plan
    ("christmas", "2026-12-25"),
    ("Xmas at mum's", "2026-12-25"),
    ("christmas eve", "2026-12-24"),
    ("boxing day", "2026-12-26"),
    ("new year's eve", "2026-12-31"),
    ("NYE party", "2026-12-31"),
    ("new year's day", "2027-01-01"),
    ("home for the new year", "2027-01-01"),
    ("halloween", "2026-10-31"),
    ("valentine's day", "2027-02-14"),
    ("the christmas party", "2026-12-25"),
])
def test_a_plans_date_phrase_is_read(text: str, day: str) -> None:
    assert anchor(text, FRIDAY, "future") == day


@pytest.mark.parametrize(("text", "tense", "day"), [
    # an event's weekday and ordinal: the last such day, one month further back than a day alone is read
    ("sun 15th", "past", "2026-03-15"),
    ("sat the 14th", "past", "2026-03-14"),
    # none of the months near has a Friday 5th behind: the 5th alone
    ("fri 5th", "past", "2026-04-05"),
    ("christmas", "past", "2025-12-25"),
    ("halloween", "any", "2025-10-31"),
    ("25/12", "past", "2025-12-25"),
])
def test_an_events_date_phrase_is_the_last_one(text: str, tense: str, day: str) -> None:
    assert anchor(text, FRIDAY, tense) == day


@pytest.mark.parametrize(("text", "day"), [
    ("Friday 5 people came", "2026-05-01"),  # no suffix: a count, and the weekday is read alone
    ("my 15th birthday", None),
    ("the 15th century", None),
    ("the 15th floor", None),
    ("on 3rd place", None),
    ("may I ask", None),
    ("may", None),
    ("march", None),
    ("we march to the town hall", None),
    ("you may have to wait", None),
    ("2.5 hours", None),
    ("3/4", None),  # March 4th or the 3rd of April: no guess
    ("3/4/26", None),
    ("rated it 8.5/10", None),
    ("open 24/7", None),
    ("meet at 10.30", None),
    ("meet at 14.05", None),
    ("Python 3.12", None),
    ("chinese new year", None),
    ("my new year's resolution is to run more", None),  # a resolution, a card or a jumper names no day
    ("need christmas cards for the office", None),
    ("dinner at June's place", None),
    ("talked to June about it", None),  # a name after "to"
    ("25.12", None),  # a dotted date has its year: "22.10" is a race time, "18.12" a version
    ("hoping to finish in 22.10", None),
    ("Node 18.12", None),
    ("size 12/14", None),
    ("got 7/15 right", None),
    ("bp 13/8", None),
    ("flying to Christmas Island next month", "2026-06"),
    ("we're doing a Halloween themed birthday party next Saturday", "2026-05-02"),  # the day said, not the theme's
    ("cooking dinner for May and her kids on Saturday", "2026-05-02"),
    # already read, and kept
    ("end of this month", "2026-05"),
    ("end of next month", "2026-06"),
    ("mid July", "2026-07"),
    ("sat the 14th", "2026-05-14"),  # no Saturday 14th near: the 14th
])
def test_words_that_name_no_other_date_keep_their_reading(text: str, day: str | None) -> None:
    assert anchor(text, FRIDAY, "future") == day


@pytest.mark.parametrize(("text", "said", "day"), [
    # the date nearest the value is the whole date, not the weekday or the month at its head
    ("dinner on Friday the 12th", "Friday the 12th", "2026-06-12"),
    ("dinner on sun 15th", "sun 15th", "2026-05-15"),
    ("dinner on Thursday Feb 19", "Thursday Feb 19", "2027-02-19"),
    ("dinner by June 5", "June 5", "2026-06-05"),
    ("dinner until 3rd of June", "3rd of June", "2026-06-03"),  # read so before: "until 3rd" leaves it be
])
def test_the_date_nearest_a_value_is_the_whole_date(text: str, said: str, day: str) -> None:
    assert anchor_near(text, 0, len("dinner"), FRIDAY, "future") == (day, said)


def test_the_new_phrases_are_taken_out_of_a_plan_and_a_move_reads_them() -> None:
    assert without_dates("dinner with Sam on sun 15th").split() == ["dinner", "with", "Sam", "on"]
    assert without_dates("trip to Rome until June").split() == ["trip", "to", "Rome"]
    assert moved_to("the fishing trip got moved to august", FRIDAY) == ("2026-08", "august")
    assert moved_to("the dentist got moved to 15th", FRIDAY) == ("2026-05-15", "15th")
