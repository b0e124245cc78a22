"""A stored fact ended by naming it after a way of stopping (domain/extraction/named_endings.py). The stored facts are
keyed as the extraction keys them (slots.value_key; a diet, single-valued, has no key)."""

from __future__ import annotations

import time

import pytest

from mnemo.domain.extraction.named_endings import NamedEnding, Stored, ended_by_name, restates
from mnemo.domain.extraction.slots import value_key


def _fact(memory_id: str, slot: str, value: str) -> Stored:
    return Stored(memory_id, slot, value, "" if slot == "diet" else value_key(value))


STORED = [
    _fact("med", "health", "meloxicam"),
    _fact("choir", "habit", "go to choir on Thursdays"),
    _fact("chemo", "habit", "chemo every three weeks"),
    _fact("gym", "habit", "go to the gym every morning"),
    _fact("run", "habit", "run every morning"),
    _fact("horse", "pet", "horse called Biscuit"),
    _fact("cat", "pet", "cat called Mochi"),
    _fact("car", "owns", "Corolla"),
    _fact("bike", "owns", "bike"),
    _fact("crossfit", "hobby", "CrossFit"),
    _fact("notion", "uses", "Notion"),
    _fact("insulin", "health", "insulin"),
    _fact("keto", "diet", "keto"),
    _fact("two", "hobby", "building mechanical keyboards and bouldering"),
    _fact("cycle", "habit", "cycle to work every day even with the rain, 25 minutes"),
    _fact("band", "hobby", "play bass in a band called Low Tide Choir"),
    _fact("spotify", "uses", "a Spotify subscription"),
    _fact("vitd", "health", "vitamin D"),
    _fact("b12", "health", "vitamin B12"),
    _fact("smoke", "habit", "smoke about 10 a day"),
    _fact("coffee", "habit", "coffee every morning"),
    _fact("tennis", "hobby", "tennis"),
    _fact("yoga", "hobby", "yoga"),
]


def _ended(text: str, stored: list[Stored] = STORED) -> set[str]:
    return {e.memory_id for e in ended_by_name(text, stored)}


@pytest.mark.parametrize(("text", "ended"), [
    ("doctor say back better, stop the meloxicam", {"med"}),
    ("no more meloxicam for me", {"med"}),
    ("finished the meloxicam", {"med"}),
    ("off the meloxicam now", {"med"}),
    ("I'm off the meloxicam, doctor weaned me off", {"med"}),
    ("stop the meloxicam tablets please", {"med"}),  # a kind word after the name
    ("left the choir last month, too much drama", {"choir"}),
    ("Just left choir, too much drama", {"choir"}),  # an opener before the verb
    ("finished the chemo last friday!!", {"chemo"}),
    ("sold the horse in the end, couldn't afford the livery", {"horse"}),
    ("finally sold the Corolla", {"car"}),
    ("no more crossfit for me after the knee", {"crossfit"}),
    ("I've stopped using Notion, too slow", {"notion"}),
    ("not on insulin anymore since the surgery", {"insulin"}),
    ("I'm not on insulin anymore", {"insulin"}),
    ("I don't do keto anymore", {"keto"}),
    ("so I quit keto and the crossfit", {"keto", "crossfit"}),  # names joined to the first
    ("choir on Thursday I stop. too tired after work", {"choir"}),
    ("I've stopped cycling, the knee", {"cycle"}),  # a detail after a comma is no second thing
    ("left Low Tide Choir after the tour", {"band"}),  # a name in a keyed fact, said whole
    ("bueno the keto lasted 4 days jaja, I need my carne guisada", {"keto"}),
    ("stopped the vitamin D, levels fine now", {"vitd"}),  # not B12: the name's last word decides
    ("sold the horse for a good price", {"horse"}),  # a price, not a pause
    ("stop the meloxicam lol", {"med"}),
    ("done w chemo!!! rang the bell", {"chemo"}),
    ("finished chemo today!!! rang the bell", {"chemo"}),
    ("so I'm giving up the crossfit completely", {"crossfit"}),
])
def test_a_stored_value_named_after_a_way_of_stopping_is_ended(text: str, ended: set[str]) -> None:
    assert _ended(text) == ended


@pytest.mark.parametrize("text", [
    # wished, asked, someone else's, still to come, denied, on a condition
    "thinking of quitting crossfit tbh",
    "I want to stop the meloxicam but the pain",
    "should I stop the meloxicam?",
    "my husband quit crossfit last year",
    "she stopped the meloxicam",
    "once I quit crossfit I'll have more time",
    "I never stopped the meloxicam",
    "selling the bike next month, anyone interested?",
    "if the choir gets worse I stop",
    "choir on Thursday should I stop?",
    "Next month tennis I stop, too expensive",
    "After tennis I stop.",
    "The coach said: tennis I stop.",
    # going to it, or away
    "Off to the gym! leg day today",
    "ok, off to choir now, talk later",
    "I'm off to the gym, back at 8",
    "left for choir at 7, back late",
    "stopped at the gym, then went home",
    # one sitting of it, not the whole
    "finished the chemo session, feeling rough",
    "left choir practice early tonight, migraine",
    "I've done the chemo for 3 years now",
    # a thing of it, or a word of its key that is not what it is
    "sold the bike rack, the garage is big enough now",
    "I returned the call from the vet, all good",
    "stop the dog barking at night, any tips?",
    "I stopped the subscription to the gym, too pricey",
    "left the gym early today, was knackered",
    "finished my run, now what should I eat",
    "stopped the Corolla at the lights",
    # for a while, in part, or taken back
    "no more crossfit for a couple of weeks while my knee heals",
    "Stopped smoking for Lent, day 12!",
    "no more coffee after 2pm, sleep is awful",
    "stopped using Notion for work stuff but still use it at home",
    "I don't play tennis anymore with Jake, just with my wife",
    "I stopped going to the gym when I was pregnant and now I'm doing it every morning again",
    "stopped keto lol jk",
    "I have stopped bouldering for at least 12 weeks.",
    "I have stopped bouldering, the finger is gone",  # one of two things a fact names
    # (the second review's)
    "my chemo lasted 5 hours, exhausted",  # a sitting's length
    "my husband's keto lasted 4 days",  # someone else's
    "if the keto lasted 2 weeks I'd be amazed",
    "finished round 2 of chemo, halfway",
    "finished the last of the meloxicam, need a refill",
    "mum: stop the meloxicam. me: no",
    "I'm quitting the choir after Christmas",  # still to come
    "I'm giving up smoking in the new year",
    "im quitting crossfit in june",
    "I quit hot yoga but I'm doing yin yoga now",  # another yoga (stored: see below)
])
def test_no_ending_said_otherwise(text: str) -> None:
    assert _ended(text) == set()


@pytest.mark.parametrize("text", ["And Mochi has gone to a shepherd over at Glendale, it wasnae safe",
                                  "Mochi est mort samedi, 13 ans. les kids sont crushés",
                                  "our cat Mochi passed away last week", "our cat was put to sleep yesterday",
                                  "Mochi went to live with my parents on their farm"])
def test_a_pet_gone_said_by_its_name_first_is_ended(text: str) -> None:
    assert _ended(text) == {"cat"}


@pytest.mark.parametrize("text", ["my sister's cat Mochi died", "if Mochi died I would be lost", "Mochi died?",
                                  "Mochi has gone to the vet for her jabs", "Biscuit has gone to a farm",
                                  # passing a test, passing out, putting a ball down, adopted, away for a while, a film
                                  "Mochi passed her vet check with flying colours", "Mochi passed out on the sofa lol",
                                  "I said drop it and Mochi put down the toy", "Mochi was rehomed to us from a rescue",
                                  "Mochi went to a friend's place for the week", "Mochi has gone to a family friend "
                                  "while we're in Rome", "Watched Marley and Me, the cat died and I sobbed"])
def test_another_pet_a_pet_away_or_a_death_feared_ends_none(text: str) -> None:
    # ("Biscuit" is the horse: it alone is ended, never the cat)
    assert "cat" not in _ended(text)


def test_a_name_joined_by_a_comma_alone_is_another_sentence() -> None:
    assert _ended("I quit crossfit, tennis is my thing now") == {"crossfit"}


def test_a_name_that_fits_two_facts_alike_names_neither() -> None:
    cats = [_fact("mochi", "pet", "cat called Mochi"), _fact("luna", "pet", "cat called Luna")]
    assert _ended("we rehomed the cat, allergies", cats) == set()
    assert _ended("we rehomed Luna, allergies", cats) == {"luna"}


def test_what_the_extractor_read_of_the_ended_thing_alone_is_no_news() -> None:
    [ending] = ended_by_name("finished the meloxicam", STORED)
    assert restates("meloxicam", ending)
    [ending] = ended_by_name("sold my old Corolla and bought a 2022 Corolla hybrid", STORED)
    assert not restates("2022 Corolla hybrid", ending)
    [ending] = ended_by_name("left Low Tide Choir after the tour", STORED)
    assert restates("left Low Tide", ending)
    assert restates("left Low Tide Choir after the Germany tour creative", ending)


def test_the_words_named_are_the_values_own() -> None:
    [ending] = ended_by_name("finished the chemo last friday!!", STORED)
    assert ending == NamedEnding("chemo", frozenset({"chemo"}), ending.said, frozenset({"finish"}))


def test_a_long_message_is_read_in_linear_time() -> None:
    # every way of stopping re-read the whole message once (28.7 s for 20,000 characters end to end): the cost of
    # four times the text must stay near four times the cost, not sixteen
    def cost(n: int) -> float:
        text = "when I stop the meloxicam, no more crossfit, " * n
        began = time.perf_counter()
        ended_by_name(text, STORED)
        return time.perf_counter() - began
    cost(20)
    small, large = min(cost(100) for _ in range(3)), min(cost(400) for _ in range(3))
    assert large < small * 8
