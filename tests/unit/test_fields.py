"""Facts written as labelled fields (domain/extraction/fields.py)."""

from __future__ import annotations

import pytest

from mnemo.domain.extraction.fields import labelled_fields


@pytest.mark.parametrize(("text", "said"), [
    ("Employer: Bitpanda. Start 1 April.", [("job", "Bitpanda")]),
    ("Diet: vegan. Allergies: peanuts, shellfish. Location: Vienna.",
     [("diet", "vegan"), ("allergy", "peanuts"), ("allergy", "shellfish"), ("home_location", "Vienna")]),
    ("Job: nurse\nCity: Leeds\nLanguages: English, Polish",
     [("job", "nurse"), ("home_location", "Leeds"), ("languages_spoken", "English"), ("languages_spoken", "Polish")]),
    ("About me:\n- Name: Tomas\n- Stack: Go, Postgres", [("name", "Tomas"), ("project_stack", "Go, Postgres")]),
])
def test_a_known_label_gives_its_slot(text: str, said: list[tuple[str, str]]) -> None:
    found = labelled_fields(text)
    assert [(f.slot, f.value) for f in found] == said
    assert all(text[f.start:f.end].strip() == f.value for f in found)


@pytest.mark.parametrize("text", ["note to self: buy milk", "Question: what is my diet?",
                                  "the job: awful. the city: grey", "Reminder: call mum"])
def test_no_field_without_a_known_label_opening_it(text: str) -> None:
    assert labelled_fields(text) == []
