"""Routines said in the languages users switch to (domain/extraction/routines.py): the clause that says how often,
by the user, not a relative's or a friend's, and nothing in English (the tagger's)."""

from __future__ import annotations

import pytest

from mnemo.domain.extraction.routines import routines_said


@pytest.mark.parametrize(("text", "routines"), [
    ("corro 5k todos los domingos con mi running club, what shoes are good for flat feet?",
     ["corro 5k todos los domingos con mi running club"]),
    ("faço muay thai 3x por semana", ["faço muay thai 3x por semana"]),
    ("je fais du bouldering deux fois par semaine à Arkose", ["je fais du bouldering deux fois par semaine à Arkose"]),
    ("ich gehe jeden Morgen um 6 schwimmen vor der Arbeit", ["ich gehe jeden Morgen um 6 schwimmen vor der Arbeit"]),
    ("gioco a padel il martedì e giovedì sera", ["gioco a padel il martedì e giovedì sera"]),
    ("biegam 3 razy w tygodniu rano przed pracą", ["biegam 3 razy w tygodniu rano przed pracą"]),
    ("me encanta la salsa y la bachata, voy a clases los jueves", ["voy a clases los jueves"]),
    ("mi hermana corre todos los domingos", []),  # the sister's
    ("meine Frau geht jeden Morgen schwimmen", []),
    ("I swim every morning before work", []),  # English: the tagger's
])
def test_a_routine_said_in_another_language(text: str, routines: list[str]) -> None:
    assert [value for _s, _e, value in routines_said(text)] == routines
