"""Tastes said in passing: "I've gotten into X", "no X either" (domain/extraction/tastes.py)."""

from __future__ import annotations

import pytest

from mnemo.domain.extraction.tastes import also_avoided, taken_up


@pytest.mark.parametrize(("text", "liked"), [
    ("still no gluten obviously I've gotten into Korean food for some reason", ["Korean food"]),
    ("ive been getting into bouldering lately", ["bouldering"]),
    ("my son got into robotics at school", []),       # the son's
    ("I got into Oxford!", []),                      # admitted
    ("i got into the habit of walking", []),
    ("i got into trouble at work", []),
])
def test_what_the_user_took_up_is_a_like(text: str, liked: list[str]) -> None:
    assert [found[1] for found in taken_up(text)] == liked


@pytest.mark.parametrize(("text", "avoided"), [
    ("we are vegetarian, no eggs either, and his mother lives with us", ["eggs"]),
    ("I don't eat pork, no shellfish either", ["shellfish"]),
    ("no car either lol", []),                       # nothing avoided before it
    ("my flat has no balcony, no garden either", []),
])
def test_no_x_either_after_a_diet_is_one_more_thing_avoided(text: str, avoided: list[str]) -> None:
    assert [found[1] for found in also_avoided(text)] == avoided
