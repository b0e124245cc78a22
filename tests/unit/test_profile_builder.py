"""The profile holds slot values of live facts, and only those (issue 18)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from mnemo.domain.models import Category, Memory, Scope, Status
from mnemo.domain.profile_builder import build_profile, first_expiry, location_value

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def fact(subject: str, content: str, category: Category = Category.BIOGRAPHICAL, *, age_days: float = 1,
         **extra: object) -> Memory:
    when = NOW - timedelta(days=age_days)
    return Memory(memory_id=f"{subject}-{content[:12]}", tenant_id="t", user_id="u", category=category,
                  subject=subject, content=content, confidence=0.9, created_at=when, updated_at=when,
                  last_confirmed_at=when, **extra)  # type: ignore[arg-type]


@pytest.mark.parametrize(("content", "value"), [
    ("User lives in Lisbon.", "Lisbon"),
    ("I live in Berlin", "Berlin"),
    ("User moved from Porto to Lisbon last month.", "Lisbon"),
    ("User is based in Leeds now.", "Leeds"),
    ("User lives in Lisbon, not Porto.", "Lisbon"),
    ("I'm staying at the Grand Budapest hotel this week", None),
    ("User is staying at the Grand Budapest hotel this week.", None),
    ("User is visiting Paris for a conference.", None),
    ("User lives in a hostel in Rome for a few weeks.", None),
    ("User no longer lives in Lisbon.", None),
    ("User is going on a trip to Oslo.", None),
])
def test_only_a_residence_is_the_location(content: str, value: str | None) -> None:
    assert location_value(fact("location", content)) == value


def test_identity_fields_are_slot_values_of_the_newest_fact() -> None:
    profile = build_profile([
        fact("name", "User's name is Ana Souza.", age_days=5),
        fact("preferred_name", "User wants to be called Nina.", Category.PREFERENCE),
        fact("location", "User lives in Porto.", age_days=9),
        fact("home_location", "User lives in Lisbon.", age_days=2),
        fact("location", "User is staying at the Grand Budapest hotel this week.", age_days=0.1),
        fact("job", "User works as a nurse.", age_days=3),
        fact("employer", "User works at St James's.", age_days=3),
    ], {}, NOW, 2048)
    assert (profile.name, profile.location, profile.occupation) == ("Nina", "Lisbon", "nurse at St James's")


@pytest.mark.parametrize(("content", "occupation"), [
    ("User's job: drive for Bring, local delivery with a van.", "drive for Bring, local delivery"),
    ("User works as a nurse for 10 years.", "nurse"),
    ("User's job: writes for The Guardian.", "writes for The Guardian"),
])
def test_whom_the_work_is_for_stays_in_the_occupation(content: str, occupation: str) -> None:
    assert build_profile([fact("job", content)], {}, NOW, 2048).occupation == occupation


def test_a_memory_that_fills_no_profile_slot_never_becomes_one() -> None:
    profile = build_profile([
        fact("note:remember_locker", "User's locker is number 12.", Category.PREFERENCE),
        fact("habit:walk_work", "User walks to work every day.", Category.PROCEDURAL),
        fact("event:ran_10k", "User ran a 10k last Sunday.", Category.EPISODIC),
        fact("hometown", "User is originally from Lima.", Category.BIOGRAPHICAL),
        fact("allergy:peanut", "User is allergic to peanuts.", Category.CONSTRAINT),
        fact("likes:sushi", "User likes sushi.", Category.PREFERENCE),
        fact("style:bullets", "Use bullet points in answers.", Category.PROCEDURAL),
        fact("profile:no_meetings", "No meetings before 10.", Category.CONSTRAINT),
    ], {}, NOW, 2048)
    assert profile.constraints == ["User is allergic to peanuts.", "No meetings before 10."]
    assert profile.preferences == ["User likes sushi."]
    assert profile.instructions == ["Use bullet points in answers."]
    assert (profile.name, profile.location, profile.occupation) == (None, None, None)


def test_retired_expired_and_scoped_facts_are_not_in_it() -> None:
    profile = build_profile([
        fact("location", "User lives in Lisbon.", status=Status.SUPERSEDED),
        fact("name", "User's name is Ana.", expires_at=NOW - timedelta(seconds=1)),
        fact("allergy:nut", "User is allergic to nuts.", Category.CONSTRAINT, status=Status.PROBATIONARY),
        fact("likes:jazz", "User likes jazz.", Category.PREFERENCE, scope=Scope.PROJECT, project_id="p1"),
        fact("job", "User no longer works as a nurse.", polarity=False),
    ], {}, NOW, 2048)
    assert profile.is_empty()


def test_the_build_is_valid_until_its_first_memory_expires() -> None:
    soon, later = NOW + timedelta(seconds=3), NOW + timedelta(days=2)
    facts = [fact("name", "User's name is Ana.", expires_at=later),
             fact("location", "User is staying at a hotel this week.", expires_at=soon),
             fact("job", "User works as a nurse.", expires_at=NOW - timedelta(days=1))]  # expired already
    assert first_expiry(facts, NOW) == soon
    assert first_expiry([fact("name", "User's name is Ana.")], NOW) is None
