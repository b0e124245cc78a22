"""Facts a user writes as labelled fields, as a form or a profile is filled in: "Employer: Bitpanda. Start 1 April.",
"Job: nurse\\nCity: Leeds\\nLanguages: English, Polish", "Diet: vegan. Allergies: peanuts, shellfish".

Terse writers and developers list themselves so; the tagger learned facts said in sentences and reads a field's
value as whatever it resembles ("User uses Bitpanda.", "User's job: nurse City.", an answer language of
"Languages: English, Polish"). The label says the slot exactly, so it is read by rule: a known label, a colon, and
the value up to the end of its line or sentence (a list's values one by one where the slot holds many).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# a label as users write it -> the slot it fills (docs/slots.md)
_LABELS: dict[str, str] = {
    **dict.fromkeys(("employer", "company", "workplace", "job", "role", "position", "occupation", "profession",
                     "work", "title", "job title"), "job"),
    **dict.fromkeys(("location", "city", "based", "based in", "home", "lives in", "living in", "town"),
                    "home_location"),
    **dict.fromkeys(("from", "hometown", "originally from", "grew up in"), "hometown"),
    **dict.fromkeys(("diet",), "diet"),
    **dict.fromkeys(("allergies", "allergy", "allergic to", "allergic"), "allergy"),
    **dict.fromkeys(("languages", "language", "speaks", "i speak"), "languages_spoken"),
    **dict.fromkeys(("hobbies", "hobby", "interests", "for fun"), "hobby"),
    **dict.fromkeys(("pets", "pet"), "pet"),
    **dict.fromkeys(("age",), "age"),
    **dict.fromkeys(("name",), "name"),
    **dict.fromkeys(("stack", "tech stack", "tech"), "project_stack"),
    **dict.fromkeys(("meds", "medication", "medications", "medicines", "conditions", "condition"), "health"),
    **dict.fromkeys(("editor", "ide", "os", "phone", "laptop"), "uses"),
}
_LABEL = "|".join(sorted((re.escape(k) for k in _LABELS), key=len, reverse=True))
# a label opening a line, a list item or a sentence, then its value to the end of the line or sentence
_FIELD = re.compile(
    r"(?:^|\n|[.;!?]\s+|\|\s*)[ \t]*(?:[-*•]\s*)?(?P<label>" + _LABEL + r")[ \t]*:[ \t]*"
    r"(?P<value>[^\n.;:!?|]+?)[ \t]*(?=$|\n|[.;!?|](?:\s|$))", re.IGNORECASE)
# slots that hold many values: a field's list is read value by value
_LISTED = frozenset({"allergy", "languages_spoken", "hobby", "pet", "health", "uses"})
_SPLIT = re.compile(r"\s*(?:,|/|\band\b|&|\+)\s*", re.IGNORECASE)
_MAX_WORDS = 8


@dataclass(frozen=True)
class Field:
    slot: str
    value: str
    start: int  # where the value is in the text
    end: int


def labelled_fields(text: str) -> list[Field]:
    """Each value the text gives under a known label, in order."""
    found: list[Field] = []
    for m in _FIELD.finditer(text):
        slot = _LABELS[m.group("label").lower()]
        value, start = m.group("value"), m.start("value")
        if not value.strip() or len(value.split()) > _MAX_WORDS or value.strip().endswith("?"):
            continue
        if slot in _LISTED:
            at = start
            for part in _SPLIT.split(value):
                if part.strip():
                    begin = text.find(part, at)
                    found.append(Field(slot, part.strip(), begin, begin + len(part)))
                    at = begin + len(part)
        else:
            found.append(Field(slot, value.strip(), start, start + len(value)))
    return found
