"""A pet just got, a new home named by its town and a home the user is back in (domain/extraction/pets.py,
new_homes.py)."""

from __future__ import annotations

import pytest

from mnemo.domain.extraction.new_homes import back_home, living_in, new_homes
from mnemo.domain.extraction.pets import pet_value, pets_got


@pytest.mark.parametrize(("text", "pets"), [
    ("GOT A KITTEN 🐱🐱 shes called miso, jas said yes", ["kitten named Miso"]),
    ("GOT A HAMSTER. his name is mochi, hes like the size of a potato", ["hamster named Mochi"]),
    ("we adopted a greyhound named Horace last week", ["greyhound named Horace"]),
    ("my sister got a puppy", []),     # hers
    ("have a nice day", []),
    # the user's pet by its name in the languages users switch to
    ("pis notre chien Caramel", ["dog named Caramel"]),
    ("mi perra Luna tiene 3 años", ["dog named Luna"]),
    ("so... may kitten na ako, si Kiwi, orange tabby", ["kitten named Kiwi"]),
    ("ma soeur a un chien, Rex", []),  # hers
    ("si Marco ang bf ko", []),  # a person
    ("may cat yung kapatid ko, si Ming, super arte", []),  # the sibling's
    ("Si Ana may aso na, si Bantay", []),  # Ana's
    ("unser Hund Bello ist krank", ["dog named Bello"]), ("Notre chien Caramel est malade", ["dog named Caramel"]),
])
def test_a_pet_the_user_just_got(text: str, pets: list[str]) -> None:
    assert [value for _s, _e, value in pets_got(text)] == pets


@pytest.mark.parametrize(("text", "places"), [
    ("and we moved! the new flat in Easton has a little yard", ["Easton"]),
    ("our new house is in Didsbury, finally", ["Didsbury"]),
    ("my parents' new house in Leeds is huge", []),   # theirs
    ("we rented a holiday flat in Nice", []),         # no new home
    # in the languages users switch to
    ("o quarto novo em Alfama tem janela pro rio!!", ["Alfama"]),
    ("mi nuevo piso en Gràcia es pequeño", ["Gràcia"]),
    ("notre nouvel appart à Verdun est petit", ["Verdun"]),
    # a move, then the place alone with "now"
    ("moved flats. friedrichshain now, shared with two others", ["friedrichshain"]),
    ("moved house last week, Headingley now", ["Headingley"]),
    ("moved flats. exhausted now", []),               # how the user is, not where
    ("moved out. Happy now", []),
    ("I moved the car, parked now", []),
])
def test_a_new_home_named_by_its_town(text: str, places: list[str]) -> None:
    assert [place for _s, _e, place in new_homes(text)] == places


@pytest.mark.parametrize(("text", "places"), [
    ("I'm a Kiwi living in London, homesick, what NZ snacks can I get here", ["London"]),
    ("how do I fix a leaky tap, I rent a flat in Leeds and the landlord is useless", ["Leeds"]),
    ("Niaje, I stay Rongai and I'm a second year at UoN doing law", ["Rongai"]),
    ("Chale I dey stay Tema Community 25, which market get cheap tomatoes", ["Tema Community 25"]),
    ("hola, soy Lucía, vivo en Sevilla, soy profesora", ["Sevilla"]),
    ("Frau Müller hier, ich wohne in Leipzig", ["Leipzig"]),
    ("I LIVE IN TULSA AND I NEED A RECIPE", ["TULSA"]),
    ("on a déménagé à Laval l'an passé", ["Laval"]),
    ("nos mudamos a Valencia en verano", ["Valencia"]),
    ("wir sind nach Leipzig gezogen", ["Leipzig"]),
    ("lipat na kami sa Cebu last month", ["Cebu"]),
    ("update: nasa Skokie na ako, share kami ni ate Joy sa 2-bedroom niya", ["Skokie"]),
    ("nasa Manila na ako for the conference tomorrow", []),  # a stay
    # someone else's home, a wish, a past home, a visit, no town
    ("my sister is living in Leeds", []),
    ("I'd love living in Lisbon one day", []),
    ("I used to live in Paris", []),
    ("I don't live in Bath anymore", []),
    ("I'm staying in Rome for the weekend", []),
    ("we live in a van", []),
    ("i live in leeds", []),  # no capital: left to the tagger, which reads it
])
def test_where_the_user_lives_said_in_words_the_tagger_seldom_saw(text: str, places: list[str]) -> None:
    assert [place for _s, _e, place in living_in(text)] == places


@pytest.mark.parametrize(("value", "kept"), [("called Nala", "Nala"), ("Mimi", "Mimi"),
                                             ("golden retriever", "golden retriever"), ("her name", None),
                                             ("dogs name", None), ("mom", None), ("my sister", None)])
def test_a_pets_value_is_an_animal_or_its_name(value: str, kept: str | None) -> None:
    # "live w my mom n 2 cats" stored "User has a pet: mom."; "her name is Mimi" stored "her name"
    assert pet_value(value) == kept


@pytest.mark.parametrize(("text", "places"), [
    ("I came back to Tashkent after 5 years in Seoul", ["Tashkent"]),
    ("moved back home to Galway after 10 years in Boston", ["Galway"]),
    ("back in Manila for good, the Dubai contract ended", ["Manila"]),
    ("Home in Glasgow again after two years in Sydney!", ["Glasgow"]),
    ("I am back in Leeds for the weekend", []),  # a visit
    ("going back to Busan on July 3", []),  # a trip to come
    ("I'm done with London, moving back to Cork in May", []),  # a move to come
    ("when I come back to London I will call", []),
    ("I've gone back to Windows, the Mac was a work laptop", []),  # a tool gone back to
    ("my mother lives in a care home in Cork, and I'm in Boston", []),  # someone else's home
    ("came back to Python after a year of R", []),  # a tool taken up again
    ("I am back in Figma again after trying Sketch", []),
    ("We came back to Tokyo last spring for cherry blossoms", []),  # a past visit
])
def test_back_where_the_user_lived_before(text: str, places: list[str]) -> None:
    assert [place for _s, _e, place in back_home(text)] == places
