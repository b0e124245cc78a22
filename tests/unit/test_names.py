"""Whether a name is one the user gives themselves (domain/extraction/names.py)."""

from __future__ import annotations

import pytest

from mnemo.domain.extraction.names import names_self


@pytest.mark.parametrize(("text", "name"), [
    ("hey im dana, 41, nurse in leeds", "dana"),
    ("My name is Kwame Mensah and I export cocoa", "Kwame Mensah"),
    ("Name's Bjørn. 58. Fisherman.", "Bjørn"),
    ("joyce here 29 RN from cebu", "joyce"),
    ("Paul, history teacher, Adelaide-based", "Paul"),
    ("hello, Fatima here, 33, pharmacist", "Fatima"),
    ("quick intro: Chloé, 31, architect", "Chloé"),
    ("hey there, it's Priyanka, everyone calls me Pree", "Priyanka"),
    ("you can call me Thandi", "Thandi"),
    ("I am Dr. Anjali Rao, oncologist", "Anjali Rao"),
    ("Hola, me llamo Lucía y vivo en Sevilla", "Lucía"),
    ("that's all for today, thanks, Ray", "Ray"),
    ("I'm Dr. Patel, a GP in Leeds", "Patel"),
    ("name is dana, 41, nurse", "dana"),
    ("my nmae is dana", "dana"),
    ("Sawasdee ka, I am Nok na, 34 year old", "Nok"),
    ("Hi, I'm Salam, a pharmacist in Amman", "Salam"),  # a name that is also a greeting, said as the user's
    ("hi there, name is dana, 41, nurse", "dana"),
])
def test_a_name_the_user_gives_themselves(text: str, name: str) -> None:
    assert names_self(name, text)


@pytest.mark.parametrize(("text", "name"), [
    ("my supervisor, Karin, finally agreed", "Karin"),
    ("Femke passed her exams!", "Femke"),
    ("my charge nurse is filipina too", "filipina"),
    ("workin nights at al zahra hosp icu", "zahra hosp"),
    ("had lunch with Marco and his wife", "Marco"),
    # a title names the user only after words that say so; a bare "name is" only where it opens what it says
    ("Dr. Faisal, my manager, has asked me to lead the anticoagulation clinic.", "Faisal"),
    ("I have small café in Neukölln on Weserstraße, name is Kahve Köşe.", "Kahve"),
    # a greeting is no name
    ("Sawasdee ka, I am Nok na, 34 year old", "Sawasdee ka"),
    ("Merhaba! Ich bin Elif, 38", "Merhaba"),
])
def test_a_name_the_user_gives_someone_else(text: str, name: str) -> None:
    assert not names_self(name, text)
