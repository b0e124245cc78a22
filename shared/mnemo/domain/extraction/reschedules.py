"""A plan moved to another date: "Baner opening is delayed, landlord issues. Now it will be January next year",
"The IELTS they change the date, now is 19 of March, not the 12".

The tagger reads such a message as a deadline or as nothing, and the stored plan keeps its old date: a later
block tells the user to get ready for October. A message that says a date moved, and names what moved by a word
of a stored plan, ends that plan and holds it again at the new date. Which plan is the stored facts' business
(services/extraction.py); here are the exact readings: that a date moved, to when, and what a plan is about.
"""

from __future__ import annotations

import re
from datetime import datetime

from mnemo.domain.conflicts import plan_value
from mnemo.domain.extraction.dates import anchor, without_dates
from mnemo.domain.text import terms

# the words that say a date moved ("delayed", "pushed back", "they change the date", "now it will be")
_MOVED = re.compile(
    r"\b(?:delayed|postponed|pushed\s+(?:back|out|to)|moved\s+(?:it\s+)?(?:to|back|forward)|rescheduled|"
    # the thing moved named after the verb: "moved the wedding up to September 26th", "pushed my exam back to"
    r"(?:moved|pushed|bumped|brought)\s+(?P<thing>(?:the|our|my|their|his|her)\s+(?:[\w'-]+\s+){1,2}?)"
    r"(?:up|back|forward|out)\s+to|"
    r"brought\s+forward|(?:changed?|changing|move[ds]?)\s+the\s+date|new\s+date|date\s+(?:changed|moved|is\s+now))"
    r"\b", re.IGNORECASE)
# where the new date is said after the words of the move: "..., now is 19 of March", "Now it will be January"
_NOW = re.compile(r"[^\n]{0,60}?\bnow\s+(?:it['’]?s|its|it\s+is|is|it\s+will\s+be|will\s+be|on)\s+", re.IGNORECASE)
_CLAUSE = re.compile(r"[^,.;!?\n]{0,80}")
# someone else's date moved ("my mum's dentist appointment was pushed back"): none of the user's plans
_SOMEONE_ELSES = re.compile(r"\b(?:(?:my|our)\s+\w+['’]s|his|her|their)\s+(?:[\w'-]+\s+){0,3}$", re.IGNORECASE)
# the label of a plan's statement, and words every plan shares: no word of what the plan is about
_PLAN_WORDS = frozenset(terms("user plans plan planning planned going go make making have having do doing get "
                              "getting will next this week month year day weekend"))
WORDS_OF_A_DATE = 6


def moved_to(text: str, when: datetime) -> tuple[str, str] | None:
    """(ISO date, its words) of the date the text says something moved to, or None: the first date after the
    words that say it moved."""
    for moved in _MOVED.finditer(text):
        start = max(0, moved.start() - 60)
        # someone else's date, unless the thing moved is named after the verb ("Kayla and her fiancé moved the
        # wedding up to ...": whose plan it is, the stored plans' words decide)
        if moved.group("thing") is None and _SOMEONE_ELSES.search(text, start, moved.start()):
            continue
        at = moved.end()
        now = _NOW.match(text, at) if re.match(r"\s*[,.;!?]", text[at:at + 3]) else None
        clause = _CLAUSE.match(text, now.end() if now else at)
        said = re.split(r"\s+(?:but|and|because|so)\s+", clause.group(0) if clause else "", maxsplit=1)[0]
        said = re.sub(r"^\s*(?:to|until|till|for|on|in|it['’]?s|is|will be)\s+", "", said, flags=re.IGNORECASE).strip()
        iso = anchor(said, when, "future") if 0 < len(said.split()) <= WORDS_OF_A_DATE else None
        if iso is not None:
            return iso, said
    return None


def plan_topic(content: str) -> set[str]:
    """The words of what a plan is about, its dates and the words every plan shares left out."""
    return set(terms(without_dates(plan_value(content)))) - _PLAN_WORDS


def moved_plan_value(content: str, words: str) -> str:
    """The plan's value at its new date: "opening in October" moved to "January next year" -> "opening, now
    January next year"."""
    topic = re.sub(r"(?:\s+(?:in|on|at|for|by|from|to|the|of|until|till|and|is|are|was|will|be))+\s*$", "",
                   without_dates(plan_value(content)), flags=re.IGNORECASE)
    return " ".join(topic.split()).strip(" ,.") + f", now {words}"
