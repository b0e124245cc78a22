"""A stored fact ended by naming it after a way of stopping (domain/extraction/named_endings.py)."""

from __future__ import annotations

import pytest

from mnemo.domain.extraction.named_endings import Stored, ended_by_name

STORED = [
    Stored("med", "health", "meloxicam"),
    Stored("choir", "habit", "go to choir on Thursdays"),
    Stored("chemo", "habit", "chemo every three weeks"),
    Stored("gym", "habit", "go to the gym every morning"),
    Stored("run", "habit", "run every morning"),
    Stored("horse", "pet", "horse called Biscuit"),
    Stored("car", "owns", "Corolla"),
    Stored("crossfit", "hobby", "CrossFit"),
    Stored("notion", "uses", "Notion"),
    Stored("insulin", "health", "insulin"),
    Stored("keto", "diet", "keto"),
    Stored("two", "hobby", "building mechanical keyboards and bouldering"),
    Stored("cycle", "habit", "cycle to work every day even with the rain, 25 minutes"),
    Stored("band", "hobby", "play bass in a band called Low Tide Choir", "play_bass_band"),
    Stored("spotify", "uses", "a Spotify subscription", "spotify"),
]


def _ended(text: str) -> set[str]:
    return {e.memory_id for e in ended_by_name(text, STORED)}


@pytest.mark.parametrize(("text", "ended"), [
    ("doctor say back better, stop the meloxicam", {"med"}),
    ("no more meloxicam for me", {"med"}),
    ("finished the meloxicam", {"med"}),
    ("off the meloxicam now", {"med"}),
    ("I'm off the meloxicam, doctor weaned me off", {"med"}),
    ("left the choir last month, too much drama", {"choir"}),
    ("finished the chemo last friday!!", {"chemo"}),
    ("sold the horse in the end, couldn't afford the livery", {"horse"}),
    ("we finally sold the Corolla", {"car"}),
    ("no more crossfit for me after the knee", {"crossfit"}),
    ("I've stopped using Notion, too slow", {"notion"}),
    ("not on insulin anymore since the surgery", {"insulin"}),
    ("I don't do keto anymore", {"keto"}),
    ("so I quit keto and the crossfit", {"keto"}),
    ("choir on Thursday I stop. too tired after work", {"choir"}),
    ("I've stopped cycling, the knee", {"cycle"}),  # a detail after a comma is no second thing
    ("left Low Tide Choir after the tour", {"band"}),  # a name in a keyed fact names it
    ("bueno the keto lasted 4 days jaja, I need my carne guisada", {"keto"}),
])
def test_a_stored_value_named_after_a_way_of_stopping_is_ended(text: str, ended: set[str]) -> None:
    assert _ended(text) == ended


@pytest.mark.parametrize("text", [
    "thinking of quitting crossfit tbh",  # wished
    "I want to stop the meloxicam but the pain",  # wished
    "should I stop the meloxicam?",  # asked
    "my husband quit crossfit last year",  # someone else's
    "she stopped the meloxicam",
    "left the gym early today, was knackered",  # a gym is left at six: no group
    "finished my run, now what should I eat",  # a run is finished: no course
    "stopped the Corolla at the lights",  # a thing owned is sold, not stopped
    "no more crossfit for a couple of weeks while my knee heals",  # for a while
    "stopped using Notion for work stuff but still use it at home",  # in part
    "once I quit crossfit I'll have more time",  # still to come
    "I never stopped the meloxicam",  # denied
    "stopped at the gym on the way home",  # stopped somewhere, not something
    "sold my old bike",  # nothing stored of that name
    "I stopped the subscription to the gym, too pricey",  # a word of a keyed value that is not its key
    "I have stopped bouldering for at least 12 weeks.",  # for a while, and one of two things a fact names
    "if the choir gets worse I stop",  # on a condition
    "choir on Thursday should I stop?",  # asked
])
def test_no_ending_said_otherwise(text: str) -> None:
    assert _ended(text) == set()


def test_one_of_several_things_a_fact_names_does_not_end_it() -> None:
    assert _ended("I have stopped bouldering, the finger is gone") == set()
    assert _ended("I quit building mechanical keyboards and bouldering") == set()  # the name stops at "and"


def test_the_words_named_are_the_values_own() -> None:
    [ending] = ended_by_name("finished the chemo last friday!!", STORED)
    assert ending.words == {"chemo"}
