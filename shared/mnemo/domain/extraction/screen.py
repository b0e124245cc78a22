"""The screen step: which found values may become facts, judged on the clause they sit in.

The shared screening (domain/screening.py: secrets, injections, identity claims, one-off requests,
guesses, passing states) applies to every extractor; this adds what only a span finder needs:
questions, wishes and other people's facts ("my coworker is allergic to shellfish")."""

from __future__ import annotations

import re

from mnemo.domain.extraction.segment import is_question
from mnemo.domain.screening import rejection_reason
from mnemo.domain.sensitive import MARKER

_MARKED = re.compile(re.escape(MARKER) + r"[^\]]*\]")
_WISH = re.compile(
    r"\b(?:i wish|i'd love to|i would love to|id love to|one day|someday|some day|i could have|could i have|"
    r"i should get|pretend|imagine|i dream of|dreaming of|if only|would be nice|what if|in another life)\b",
    re.IGNORECASE)
_PEOPLE = (r"(?:co-?workers?|colleagues?|boss|manager|friends?|bff|best friend|brother|bro|sister|sis|mom|mum|mother|"
           r"dad|father|parents?|husband|wife|partner|bf|gf|boyfriend|girlfriend|fianc[eé]e?|son|daughter|kids?|"
           r"child|children|baby|aunt|uncle|cousin|niece|nephew|grandma|grandpa|grandmother|grandfather|"
           r"roommate|flatmate|housemate|neighbou?r|coach|teacher|doctor|gp|therapist|landlord|team(?:mate)?|"
           r"client|customer|students?|classmates?|in-laws?|mother-in-law|father-in-law|ex|cat|dog)")
# "my coworker is allergic to X", "our neighbour just moved to Y", "my brother's a vegan"
_OTHER_PERSON = re.compile(
    rf"^\W*(?:and |but |also |so |oh |btw |lol )*(?:my|our|his|her|their|a|the)\s+(?:\w+\s+)?{_PEOPLE}"
    rf"(?:'s)?\s+(?:\(?[A-Z]\w+\)?\s+)?(?:is|are|was|were|has|had|just|also|really|loves?|likes?|hates?|"
    rf"lives?|works?|moved|eats?|can't|cannot|doesn't|does|don't|got|gets|wants?|says|said|started|"
    rf"'s|'re|keeps?|never|always)\b", re.IGNORECASE)
# the value, at most two more words ("AWS" "key"), then "is", ":" or "=" and the marker
_LABELS_A_SECRET = re.compile(r"^\s*(?:[\w'-]+\s+){0,2}(?:is|are|was|=|:|-)?\s*" + re.escape(MARKER), re.IGNORECASE)
# slots where a relative is the value itself ("my sister" -> family), not someone else's fact
_ABOUT_THE_USER_ANYWAY = frozenset({"family", "relationship_status", "pet"})


def _names_a_secret(value: str, clause: str) -> bool:
    """The value is what a redacted secret is ("my AWS key is [REDACTED...]", "pin: [REDACTED...]"): the
    label of a secret says nothing durable about the user and points at what was taken out."""
    at = clause.lower().find(value.lower())
    return at >= 0 and bool(_LABELS_A_SECRET.match(clause[at + len(value):]))


def screen(value: str, clause: str, slot: str, explicit: bool = False) -> str | None:
    """Why the value must not become a fact, or None."""
    if MARKER in value or _names_a_secret(value, clause):
        return "sensitive_data"
    if not explicit and is_question(clause):
        return "question"
    if not explicit and _WISH.search(clause):
        return "hypothetical"
    if slot not in _ABOUT_THE_USER_ANYWAY and _OTHER_PERSON.search(clause):
        return "about_someone_else"
    # a secret redacted beside the value is no reason to refuse the value ("card [REDACTED:card] and I'm vegan")
    reason = rejection_reason(_MARKED.sub(" ", clause))
    if reason == "uncertain" and explicit:
        return None
    return reason
