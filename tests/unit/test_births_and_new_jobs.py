"""A child just born to the user (births.py), a job told by when it began (new_jobs.py), quantities."""

from __future__ import annotations

import pytest

from mnemo.domain.extraction.births import births
from mnemo.domain.extraction.new_jobs import last_days_at, left_jobs
from mnemo.domain.extraction.pipeline import only_measures


@pytest.mark.parametrize(("text", "children"), [
    ("Baby Nora arrived on July 12! 7 lbs 2 oz, everyone's doing well", ["baby Nora"]),
    ("baby leo arrived 3 weeks early but hes fine", ["baby Leo"]),
    ("our baby girl Maya was born at 3am", ["baby girl Maya"]),
    ("we had the baby! a little girl, Ada, born tuesday", ["baby girl Ada"]),
    ("We welcomed our baby boy yesterday", ["baby boy"]),        # no name said
    ("she's here!! Meera, born 6 september, 3.2kg, everyone is fine", ["baby Meera"]),
    ("she's here at last, the train was late", []),               # a visitor
    ("my sister's baby Leo arrived", []),                          # hers
    ("her baby boy Sam was born", []),
    ("the baby is crying again", []),                              # no birth
    ("Baby Shark is on repeat in this house", []),
    ("The baby monitor arrived today", []),
    ("my cousin had her baby! the baby girl is here, Ava, born at 3am", []),   # the cousin's
    ("my sister's new baby Leo arrived", []),
])
def test_a_child_just_born_to_the_user(text: str, children: list[str]) -> None:
    assert [value for _s, _e, value in births(text)] == children


@pytest.mark.parametrize(("value", "expected"), [
    ("lbs 2", True), ("3.4 kg", True), ("500 mg", True), ("7", True), ("5mg", True), ("2.5mg", True),
    ("ps5", False), ("Q3", False), ("metformin 500mg", False), ("M3", False), ("L4", False),
    ("metformin 500 mg", False), ("bad knee", False), ("team of 4", False), ("", False),
])
def test_a_value_of_numbers_and_units_only_is_a_quantity(value: str, expected: bool) -> None:
    assert only_measures(value) is expected


@pytest.mark.parametrize(("value", "job"), [
    ("started last week as deputy principal at Scoil Éanna in Oranmore",
     "deputy principal at Scoil Éanna in Oranmore"),
    ("began on Monday as a driver for Arriva", "driver for Arriva"),
    ("started as planned on monday", None),
    ("started running again", None),
])
def test_an_event_of_beginning_work_as_something_is_the_job(value: str, job: str | None) -> None:
    from mnemo.domain.extraction.new_jobs import began_as

    assert began_as(value) == job


@pytest.mark.parametrize(("text", "jobs"), [
    ("But the big news is that I started last week as head of maths at St Brigid's in Tuam, the old head left",
     ["head of maths at St Brigid's in Tuam"]),
    ("I've just started as a driver for Arriva and it is hard", ["driver for Arriva"]),
    ("I started a new job as a receptionist at the Hilton", ["receptionist at the Hilton"]),
    ("i started as a joke", []),
    ("When I started as a nurse in 1990 things were different", []),   # long past
    ("I started running as a way to cope", []),                        # no work begun
    ("20 years ago I started as a cashier, now I manage the whole store", []),  # a memory
    ("I started as an intern and worked my way up to CTO at Monzo", []),
    # working for a workplace since a time begun
    ("driving for Raben since Monday better money and I am home every weekend", ["driving for Raben"]),
    ("I've been teaching at Riverside Primary since September", ["teaching at Riverside Primary"]),
    ("I've been working at Google since 2019", ["Google"]),
    ("I've been training for the London Marathon since January", []),
    ("been cooking for Mum since she got sick, exhausting", []),
    ("my husband is working for Google since May", []),                  # someone else's
    ("working on my garden since Monday", []),                           # no workplace
])
def test_a_job_told_by_when_it_began(text: str, jobs: list[str]) -> None:
    from mnemo.domain.extraction.new_jobs import new_jobs

    assert [value for _s, _e, value in new_jobs(text)] == jobs


@pytest.mark.parametrize(("text", "places"), [
    ("I quit my job at Tesco yesterday!!! freedom", ["Tesco"]),
    ("I resigned from Shoprite and now I'm at Capitec", ["Shoprite"]),
    ("I have just quit my job with Deloitte to travel", ["Deloitte"]),
    ("I left my job at the travel agency in february", ["travel agency"]),
    ("I retired from the railway last year", ["railway"]),
    ("if I quit my job at Tesco, could I still get a mortgage?", []),  # a wish, not news
    ("I quit smoking", []),  # no workplace
    ("after forty-one years I retired on Friday", []),  # no workplace named
    ("I left Tesco with no milk again", []),  # a shop left is no job left
    # a job lost, or ended by its last day
    ("i got laid off from amazon last friday", ["amazon"]),
    ("got made redundant from Barclays in may", ["Barclays"]),
    ("they let me go at the warehouse last week", ["warehouse"]),
    ("I was fired from my job at the bank", ["bank"]),
    ("yesterday was my last day at walmart im starting at target monday", ["walmart"]),
    ("my husband got laid off from Ford", []),  # someone else's
    ("my dad was made redundant from the mill", []),
    ("her last day at Google was sad", []),
    ("I might get laid off from Ford soon", []),  # feared, not so
    ("my last day at school was in 1990", []),  # no workplace
    ("Half my team got laid off from Meta today. I survived", []),  # the team's, not the user's
    ("tonight is my last shift at the hospital before my week off in Crete", []),  # a break, not the end
    ("Today was my last day at Disney World with the kids, we fly home tomorrow", []),  # a holiday's
    ("Tomorrow is my last day in Lisbon", []),
    ("my boss let me go at lunch so I am free", []),  # a time of day
])
def test_a_workplace_the_user_left(text: str, places: list[str]) -> None:
    assert [place for _s, _e, place in left_jobs(text)] == places


@pytest.mark.parametrize(("text", "places"), [
    # a last day said with no word of work: a job's only where the user's job is there (the write path decides)
    ("yesterday was my last day at walmart, what do i do now", ["walmart"]),
    ("Today was my last day at Disney World with the kids, we fly home tomorrow", ["Disney World"]),
    ("yesterday was my last day at walmart im starting at target monday", []),  # work said: left_jobs reads it
    ("i got laid off from amazon last friday", []),  # a job lost: left_jobs reads it
    ("tonight is my last shift at the hospital before my week off in Crete", []),  # a break
])
def test_a_last_day_said_with_no_word_of_work(text: str, places: list[str]) -> None:
    assert [place for _s, _e, place in last_days_at(text)] == places
