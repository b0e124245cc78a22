"""Telling a language from a place (domain/extraction/languages.py, screen.py)."""

from __future__ import annotations

from mnemo.domain.extraction.languages import is_a_language
from mnemo.domain.extraction.screen import screen


def test_a_language_is_told_from_a_place() -> None:
    assert is_a_language("tagalog")
    assert is_a_language("Haitian Creole")
    assert not is_a_language("Georgia")
    assert not is_a_language("Cebu")
    assert not is_a_language("")


def test_a_language_is_refused_as_where_the_user_lives_but_not_as_what_they_speak() -> None:
    clause = "any mass in tagalog near me"
    assert screen("tagalog", clause, "home_location") == "not_a_place"
    assert screen("tagalog", clause, "hometown") == "not_a_place"
    assert screen("Manila", "i live in Manila", "home_location") is None
    assert screen("tagalog", "i speak tagalog at home", "languages_spoken") is None


def test_a_place_something_is_looked_for_near_is_not_the_home() -> None:
    assert screen("Shibuya", "any good ramen places near Shibuya", "home_location") == "not_home"
    assert screen("Leeds", "I live near Leeds", "home_location") is None
    assert screen("Leeds", "we're based in Leeds", "home_location") is None
