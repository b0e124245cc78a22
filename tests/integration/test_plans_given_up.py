"""A plan given up: said as meant once and given up after a "but" in the same sentence ("I was gonna do the 5k on the
28th but nah not anymore"), or named and called off in the next words, past a "?" or a comma ("remember the dentist
thing on the 3rd? cancelled"). The tagger reads the plan and not what follows, and a block told the user to get
ready for a race they had dropped. The shipped model, one message each, and through the local home a plan stored
first."""

from __future__ import annotations

import pytest

from mnemo.bootstrap import Mnemo
from mnemo.domain.extraction.pipeline import LearnedExtractor
from tests.integration.conversation_steps import live_facts, say_next_day, stored

TENANT, USER = "t-given-up", "u-given-up"


@pytest.mark.parametrize("text", [
    "i was gonna do the 5k on the 28th but nah not anymore, too hot",
    "I was going to visit Rome in June but we cancelled it.",
    "we were meant to be at my brother's wedding in Goa on the 9th, but my husband's passport didn't come in time "
    "so we're not going.",
    "remember the dentist thing on the 3rd? cancelled, they called in sick",
    "the BBQ on sunday - its off, rain",
])
def test_a_plan_meant_once_and_given_up_is_no_plan(extractor: LearnedExtractor, text: str) -> None:
    plans = [c for s, c in stored(extractor, text).items() if s.startswith("plan")]
    assert plans
    assert all(c.startswith("User no longer plans") for c in plans), plans


@pytest.mark.parametrize(("text", "plan"), [
    ("I'm going to visit Rome in June but I can't afford a hotel, any hostels?", "Rome"),  # meant now
    ("I was going to visit Rome in June but I don't know which hotel yet", "Rome"),  # a question open
    ("my exam on the 12th, it's off my mind now", "exam"),  # off the mind, not off
    ("dentist on the 3rd, then off to work", "dentist"),
    # moved or replaced, not given up
    ("I was supposed to fly to Paris on the 5th but the flight got cancelled so they rebooked me on the 6th", "Paris"),
    ("We were planning to go to Cornwall in August but we can't afford the hotel so we're camping instead",
     "Cornwall"),
    ("I was going to visit Rome in June but I can't go until July now", "Rome"),
])
def test_a_plan_with_a_but_that_gives_nothing_up_stands(extractor: LearnedExtractor, text: str, plan: str) -> None:
    plans = [c for s, c in stored(extractor, text).items() if s.startswith("plan")]
    assert any(plan in c for c in plans), plans
    assert not any(c.startswith("User no longer plans") and plan in c for c in plans), plans


def test_a_stored_plan_given_up_later_is_called_off(learned_service: Mnemo) -> None:
    say_next_day(learned_service, TENANT, USER, "c1", "I'm running the Cork 10k on the 28th of June, first race ever!")
    assert any("10k" in p for p in live_facts(learned_service, TENANT, USER, "plan"))
    given_up = "I was going to run the Cork 10k on the 28th of June but I gave up, my knee is not right"
    say_next_day(learned_service, TENANT, USER, "c2", given_up)
    assert not any("10k" in p for p in live_facts(learned_service, TENANT, USER, "plan"))
