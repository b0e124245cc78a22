"""A pet just got and a new home named by its town (domain/extraction/pets.py, new_homes.py)."""

from __future__ import annotations

import pytest

from mnemo.domain.extraction.new_homes import new_homes
from mnemo.domain.extraction.pets import pets_got


@pytest.mark.parametrize(("text", "pets"), [
    ("GOT A KITTEN 🐱🐱 shes called miso, jas said yes", ["kitten named Miso"]),
    ("GOT A HAMSTER. his name is mochi, hes like the size of a potato", ["hamster named Mochi"]),
    ("we adopted a greyhound named Horace last week", ["greyhound named Horace"]),
    ("my sister got a puppy", []),     # hers
    ("have a nice day", []),
])
def test_a_pet_the_user_just_got(text: str, pets: list[str]) -> None:
    assert [value for _s, _e, value in pets_got(text)] == pets


@pytest.mark.parametrize(("text", "places"), [
    ("and we moved! the new flat in Easton has a little yard", ["Easton"]),
    ("our new house is in Didsbury, finally", ["Didsbury"]),
    ("my parents' new house in Leeds is huge", []),   # theirs
    ("we rented a holiday flat in Nice", []),         # no new home
    # a move, then the place alone with "now"
    ("moved flats. friedrichshain now, shared with two others", ["friedrichshain"]),
    ("moved house last week, Headingley now", ["Headingley"]),
    ("moved flats. exhausted now", []),               # how the user is, not where
    ("moved out. Happy now", []),
    ("I moved the car, parked now", []),
])
def test_a_new_home_named_by_its_town(text: str, places: list[str]) -> None:
    assert [place for _s, _e, place in new_homes(text)] == places
