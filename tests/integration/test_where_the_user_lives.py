"""Where the user lives, read apart from where they stay and where they were. A stay is no home (docs/slots.md:
home_location is "never a trip, a visit or a stay"): "I'm in Penang for work trip till Thursday" was stored as "User
lives in Penang.", and a later block for a request at home named Penang. Back where they lived before is the home
now: "Home in Glasgow again after two years in Sydney!" was stored as a home in Sydney, "I came back to Tashkent" as
a hometown only. The shipped model, one message each."""

from __future__ import annotations

import pytest

from mnemo.domain.extraction.pipeline import LearnedExtractor
from tests.integration.conversation_steps import stored


@pytest.mark.parametrize("text", [
    "I'm in Penang for work trip till Thursday, any good char kuey teow near Georgetown?",
    "im in berlin till sunday for a conference, where to eat",
    "I'm in Lisbon on holiday this week, best pastel de nata?",
    "currently in Tokyo for two weeks visiting my cousin",
    "I'm in Manchester for the weekend for a wedding",
])
def test_a_stay_is_no_home(extractor: LearnedExtractor, text: str) -> None:
    assert "home_location" not in stored(extractor, text)


@pytest.mark.parametrize(("text", "home"), [
    ("I'm in Berlin for 3 years now", "Berlin"),  # years: where the user lives
    ("i'm in berlin, rust meetups?", "berlin"),
    ("I'm in Leeds now, moved last month", "Leeds"),
])
def test_where_the_user_lives_is_still_the_home(extractor: LearnedExtractor, text: str, home: str) -> None:
    assert stored(extractor, text).get("home_location") == f"User lives in {home}."


@pytest.mark.parametrize(("text", "home"), [
    ("I came back to Tashkent after 5 years in Seoul, now I live again with my parents.", "Tashkent"),
    ("Home in Glasgow again after two years in Sydney!", "Glasgow"),
    ("moved back home to Galway after 10 years in Boston", "Galway"),
    ("so glad. Back in Lisbon for good", "Lisbon"),
])
def test_back_where_the_user_lived_before_is_the_home_now(extractor: LearnedExtractor, text: str, home: str) -> None:
    assert stored(extractor, text).get("home_location") == f"User lives in {home}."


@pytest.mark.parametrize("text", [
    "I am back in Leeds for the weekend, any good brunch?",  # a visit
    "going back to Busan on July 3, what should I pack",  # a trip to come
])
def test_back_somewhere_for_a_while_is_no_home(extractor: LearnedExtractor, text: str) -> None:
    assert "home_location" not in stored(extractor, text)


@pytest.mark.parametrize(("text", "home"), [
    ("I live in Leeds and work as a data analyst. came back to Python after a year of R", "Leeds"),
    ("I'm based in Dublin. I'm back in Figma again after trying Sketch", "Dublin"),
])
def test_a_tool_taken_up_again_leaves_the_home(extractor: LearnedExtractor, text: str, home: str) -> None:
    assert stored(extractor, text).get("home_location") == f"User lives in {home}."


def test_a_new_place_said_at_the_start_of_a_sentence_is_the_home(extractor: LearnedExtractor) -> None:
    assert stored(extractor, "New place in Astoria is one bedroom, Baron loves window").get("home_location") == (
        "User lives in Astoria.")
