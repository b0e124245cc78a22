"""The aids a user lives with, read as health facts (domain/extraction/aids.py)."""

from __future__ import annotations

import pytest

from mnemo.domain.extraction.aids import aids_in


@pytest.mark.parametrize(("text", "values"), [
    ("I use a wheelchair manual one since a climbing accident about eight years ago", ["uses a wheelchair"]),
    ("i use a cpap every night", ["uses a CPAP machine"]),
    ("I wear hearing aids in both ears", ["uses hearing aids"]),
    ("im a wheelchair user so step-free please", ["uses a wheelchair"]),
    ("my insulin pump alarm went off twice", ["uses an insulin pump"]),
    ("i got crutches after the fall", ["uses crutches"]),
])
def test_an_aid_the_user_has(text: str, values: list[str]) -> None:
    assert [a.value for a in aids_in(text)] == values


@pytest.mark.parametrize("text", [
    "my mum uses a walker",          # someone else's
    "my dad's crutches are in the car",
    "should i get a cane?",          # asked about, not had
    "the venue has a wheelchair ramp",
])
def test_no_aid_of_the_users(text: str) -> None:
    assert aids_in(text) == []
