"""A job that ends with no new one named: lost ("i got laid off from amazon"), ended by its last day, or given up for
retirement ("I WAS A NURSE FOR 40 YEARS NOW IM RETIRED", which the screen read as a former job and dropped whole).
The job ended must not stay the user's, and retirement is the job now. The shipped model, one message each, and
through the local home a job stored first."""

from __future__ import annotations

import pytest

from mnemo.bootstrap import Mnemo
from mnemo.domain.extraction.pipeline import LearnedExtractor
from tests.integration.conversation_steps import kept, live_facts, say_next_day, stored

TENANT, USER = "t-jobs-ended", "u-jobs-ended"


def _jobs_said(extractor: LearnedExtractor, text: str) -> list[str]:
    return [c.content for c in kept(extractor, text) if c.subject == "job"]


@pytest.mark.parametrize(("text", "left"), [
    ("I'm 52, just retired from Singapore Airlines. want to try selling kueh from home", "Singapore Airlines"),
    ("I WAS A NURSE FOR 40 YEARS NOW IM RETIRED", "nurse"),
])
def test_retirement_is_the_job_now_and_ends_the_one_before(extractor: LearnedExtractor, text: str, left: str) -> None:
    jobs = _jobs_said(extractor, text)
    assert sorted(jobs) == sorted(["User's job: retired.", f"User no longer works as/at {left}."]), jobs


@pytest.mark.parametrize(("text", "job"), [
    ("ex teacher here, now I drive for Uber", "Uber"),  # the job said as the one now, after a former one
])
def test_the_job_now_after_a_former_one_is_kept(extractor: LearnedExtractor, text: str, job: str) -> None:
    assert job in stored(extractor, text).get("job", "")


def test_a_former_job_alone_is_still_no_job(extractor: LearnedExtractor) -> None:
    assert "job" not in stored(extractor, "I was a waitress before uni, loved it")


@pytest.mark.parametrize("ended", [
    "yesterday was my last day at walmart, what do i do now",
    "i got laid off from walmart last friday, need a cv",
])
def test_a_job_lost_or_ended_by_its_last_day_is_no_longer_the_users(learned_service: Mnemo, ended: str) -> None:
    say_next_day(learned_service, TENANT, USER, "c1", "i work at walmart on the registers")
    assert any("walmart" in j for j in live_facts(learned_service, TENANT, USER, "job"))
    say_next_day(learned_service, TENANT, USER, "c2", ended)
    assert not any("walmart" in j for j in live_facts(learned_service, TENANT, USER, "job"))


def test_a_job_ended_for_retirement_leaves_retirement(learned_service: Mnemo) -> None:
    say_next_day(learned_service, TENANT, USER, "c1", "I am a nurse at St Marys.")
    say_next_day(learned_service, TENANT, USER, "c2", "I WAS A NURSE FOR 40 YEARS NOW IM RETIRED")
    assert live_facts(learned_service, TENANT, USER, "job") == ["User's job: retired."]


def test_a_last_day_somewhere_else_ends_no_job(learned_service: Mnemo) -> None:
    say_next_day(learned_service, TENANT, USER, "c1", "I'm a software engineer at Disney.")
    say_next_day(learned_service, TENANT, USER, "c2", "Today was my last day at Disney World with the kids, "
                                                      "we fly home tomorrow")
    assert live_facts(learned_service, TENANT, USER, "job") == ["User's job: software engineer at Disney."]


def test_a_job_since_a_day_gone_is_the_job_and_no_plan(extractor: LearnedExtractor) -> None:
    facts = stored(extractor, "driving for Raben since Monday better money and I am home every weekend")
    assert facts.get("job") == "User's job: driving for Raben."
    assert not [s for s in facts if s.startswith("plan:")]
    assert not [c for s, c in facts.items() if s.startswith("habit:") and "Raben" in c]
    # a day to come beside the day begun is a plan all the same
    assert [s for s in stored(extractor, "I learn Japanese now since 3 months, for the N4 exam in December.")
            if s.startswith("plan:")]
