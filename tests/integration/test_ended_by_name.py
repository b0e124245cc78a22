"""A stored fact the user names after a way of stopping ends (the extraction service's _with_ended_by_name, the
learned extractor in the local home): "doctor say back better, stop the meloxicam", "left the choir last month";
what else the extractor read of the ended value in that message is not written, and a stopping wished for, someone
else's or for a while ends nothing."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mnemo.bootstrap import Mnemo
from mnemo.domain.models import Category, SourceKind
from mnemo.services.writing import NewFact
from tests.integration.conversation_steps import learned_home, say_next_day

TENANT, USER = "t-named", "u-named"
START = datetime(2026, 3, 1, 9, tzinfo=UTC)  # learned_home's clock


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Mnemo]:
    with learned_home(tmp_path) as built:
        yield built


def _remember(service: Mnemo, content: str, subject: str, category: Category) -> None:
    service.writer.write(TENANT, USER, [NewFact(content=content, category=category, subject=subject,
                                                confidence=0.95, source=SourceKind.EXTRACTED, occurred_at=START)])


def _live_naming(service: Mnemo, word: str) -> list[str]:
    """The live facts naming ``word``, but events (what happened: "left the choir" may be one)."""
    now = service.ports.clock.now()
    return [m.content for m in service.ports.memories.all_for_user(TENANT, USER)
            if m.is_live(now) and m.polarity and m.category is not Category.EPISODIC and word in m.content.lower()]


@pytest.mark.parametrize("said", ["doctor say back better, stop the meloxicam", "finished the meloxicam",
                                  "off the meloxicam now", "no more meloxicam for me"])
def test_a_medicine_named_after_a_way_of_stopping_ends(service: Mnemo, said: str) -> None:
    _remember(service, "User's health: meloxicam.", "health:meloxicam", Category.CONSTRAINT)
    say_next_day(service, TENANT, USER, "c2", said)
    # nor is it read again as anything else ("finished the meloxicam": a hobby; "off the meloxicam": a diet)
    assert _live_naming(service, "meloxicam") == []


def test_a_choir_left_ends_the_routine_of_going(service: Mnemo) -> None:
    _remember(service, "User's routine: go to choir on Thursdays.", "habit:choir_thursday", Category.PROCEDURAL)
    say_next_day(service, TENANT, USER, "c2", "left the choir last month, too much drama")
    assert _live_naming(service, "choir") == []


@pytest.mark.parametrize("said", ["thinking of quitting the choir tbh", "my wife left the choir last month",
                                  "no more choir for a couple of weeks while I'm away"])
def test_a_stopping_wished_for_someone_elses_or_for_a_while_ends_nothing(service: Mnemo, said: str) -> None:
    _remember(service, "User's routine: go to choir on Thursdays.", "habit:choir_thursday", Category.PROCEDURAL)
    say_next_day(service, TENANT, USER, "c2", said)
    assert _live_naming(service, "choir") == ["User's routine: go to choir on Thursdays."]


def _live_subjects(service: Mnemo) -> dict[str, str]:
    now = service.ports.clock.now()
    return {m.subject: m.content for m in service.ports.memories.all_for_user(TENANT, USER)
            if m.is_live(now) and m.polarity}


def test_one_message_naming_two_stored_facts_ends_both(service: Mnemo) -> None:
    _remember(service, "User's routine: crossfit 3x a week.", "habit:crossfit_3x_week", Category.PROCEDURAL)
    _remember(service, "User's hobby: CrossFit.", "hobby:crossfit", Category.PREFERENCE)
    say_next_day(service, TENANT, USER, "c2", "no more crossfit for me after the knee")
    assert _live_naming(service, "crossfit") == []


def test_a_thing_ended_and_a_new_one_of_its_kind_leaves_the_new_one(service: Mnemo) -> None:
    _remember(service, "User owns Corolla.", "owns:corolla", Category.BIOGRAPHICAL)
    say_next_day(service, TENANT, USER, "c2", "sold my old Corolla and bought a 2022 Corolla hybrid")
    owned = [c for s, c in _live_subjects(service).items() if s.startswith("owns:")]
    assert owned
    assert all("2022" in c for c in owned)


@pytest.mark.parametrize("said", ["Off to the gym! leg day today", "left the gym early today, was knackered",
                                  "finished my gym session, feeling rough"])
def test_going_to_it_or_one_sitting_of_it_ends_nothing(service: Mnemo, said: str) -> None:
    _remember(service, "User's routine: go to the gym every morning.", "habit:gym_every_morn", Category.PROCEDURAL)
    say_next_day(service, TENANT, USER, "c2", said)
    assert "habit:gym_every_morn" in _live_subjects(service)


def test_a_name_that_fits_two_stored_facts_alike_ends_neither(service: Mnemo) -> None:
    _remember(service, "User has a pet: cat called Mochi.", "pet:cat_call_mochi", Category.BIOGRAPHICAL)
    _remember(service, "User has a pet: cat called Luna.", "pet:cat_call_luna", Category.BIOGRAPHICAL)
    say_next_day(service, TENANT, USER, "c2", "we rehomed the cat, allergies")
    live = _live_subjects(service)
    assert "pet:cat_call_mochi" in live
    assert "pet:cat_call_luna" in live
