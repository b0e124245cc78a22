"""A dated happening of someone close to the user, which is on the user's calendar too: "our eldest daughter, Maryam,
is to be married on the 14th of June", "my sis ria is coming to visit jul 12-26", "my girlfriend Lily will come
to visit me in July".

The tagger learned plans from the user's own ("I'm flying to Lisbon on the 14th"); said of a relative it reads
the relative alone, or a plan the screen then sets aside as someone else's. A wedding, a visit, a move, a birth or
a graduation of the family is what the user plans around, so it is kept, said as theirs ("User's calendar: daughter
Maryam is to be married on the 14th of June."). Only with a date, only the family and close friends (a colleague's or a
patient's is not the user's calendar), and only a doing of the few that make such plans: an exact rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from mnemo.domain.extraction.dates import CALENDAR_NAMES, anchor, anchor_near
from mnemo.domain.extraction.diets import DIET_NAMES

_CLOSE = (r"(?:daughter|son|sister|sis|brother|bro|mum|mom|mother|dad|father|parents|girlfriend|gf|boyfriend|bf|"
          r"partner|wife|husband|fianc[eé]e?|grandma|grandpa|gran|nan|granny|grandmother|grandfather|grandson|"
          r"granddaughter|cousin|aunt|auntie|uncle|niece|nephew|in-laws|kids|twins|best friend|bff|stepson|"
          r"stepdaughter|mother-in-law|father-in-law|sister-in-law|brother-in-law)")
# what the user takes part in or hosts: a wedding, a visit, a move in with them, a birth, a graduation; not what is the
# relative's own ("my parents are retiring to Malaga", "my twins start kindergarten")
_DOINGS = (r"(?:getting married|to be married|marrying|married|coming|come|comes|visiting|visit|visits|flying in|"
           r"flying over|fly in|flies in|moving in|move in|moves in|moving back|graduating|graduate|graduates|due|"
           r"having a baby|having surgery|having an operation|giving birth|turning|turns|arriving|arrive|arrives|"
           r"coming home|coming over|coming back|back|home)")
_HAPPENING = re.compile(
    r"\b(?:my|our)\s+(?:(?:eldest|youngest|oldest|little|big|older|younger|baby|twin|step|only)\s+)?"
    r"(?P<who>" + _CLOSE + r")(?:,?\s+(?P<name>(?-i:[A-Z])[\w'-]+|[a-z][\w'-]+(?=\s+(?:is|are|will|'s|’s)\b)),?)?\s+"
    r"(?P<doing>(?:(?:is|are|'s|’s|will|'ll|will be|is going to|are going to|gonna)\s+)?(?:(?:finally|also|"
    r"actually|officially|really|hopefully|all)\s+)?(?:be\s+)?" + _DOINGS + r"\b)(?P<rest>[^.;!?\n]{0,70})",
    re.IGNORECASE)
_DATE_GOES_ON = re.compile(r"(?:(?:\s+of)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|"
                           r"\s*[-–]\s*\d{1,2}(?:st|nd|rd|th)?\b)*", re.IGNORECASE)
_ONLY_IF_BEFORE = re.compile(
    r"\b(?:if|whether|unless|in case|hope|hoping|wish|wishing|maybe|perhaps)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
_THE_USER_AMONG = re.compile(r"\b(?:me|i)\s*(?:and|&|n|\+)\s*$", re.IGNORECASE)
_NOT_A_NAME = frozenset({"is", "are", "will", "and", "who", "that", "just", "also", "finally", "gonna", "be"})


# a birthday of someone the user names ("Caleb's birthday is on the 9th of May, he will be 12", "Pia birthday March 3",
# "my daughter's bday is the 14th"): the user plans the party and the present. Not the user's own ("my birthday")
_BIRTHDAY = re.compile(
    r"(?:\b(?:my|our)\s+(?:(?:eldest|youngest|oldest|little|big|older|younger|baby)\s+)?(?P<who>" + _CLOSE +
    r")(?:['’]s?)?(?:,?\s+(?P<name>(?-i:[A-Z])[\w'-]+)(?:['’]s?)?)?|"
    r"\b(?P<alone>(?-i:[A-Z])[\w-]{1,30})(?:['’]s?)?)\s+(?:(?:\d+(?:st|nd|rd|th)|first|\w+teenth)\s+)?"
    r"(?P<doing>birthday|bday|b-day|b'day)\b(?P<rest>[^.;!?\n]{0,50})", re.IGNORECASE)
_NOT_SOMEONE = CALENDAR_NAMES | frozenset({
    "my", "our", "his", "her", "their", "your", "the", "a", "this", "next", "happy", "its", "it's", "i", "im", "i'm",
    "what", "when", "birthday", "and", "so", "but", "also", "for", "on", "ok", "okay", "big", "btw", "just", "surprise",
    "me", "mi", "last", "first", "oh", "well", "yes", "yeah", "anyway", "plus", "ps", "jan", "today", "tomorrow",
    "upcoming"})


@dataclass(frozen=True)
class Happening:
    start: int
    end: int
    value: str  # "daughter Maryam is to be married on the 14th of June"


def family_happenings(text: str, when: datetime) -> list[Happening]:
    """Each dated happening of someone close to the user, up to the words of its date."""
    found = []
    for m in _HAPPENING.finditer(text):
        if _ONLY_IF_BEFORE.search(text[:m.start()]) or _THE_USER_AMONG.search(text[:m.start()]):
            continue  # "if my sister visits in may"; "me & my bf are moving to Leeds": the user's own plan
        rest = m.group("rest")
        day, dated = anchor(rest, when, "future"), anchor_near(rest, 0, 0, when, "future")
        if day is None or dated is None or day < when.date().isoformat()[:len(day)]:
            continue  # no date, or one gone by: no plan
        end = rest.find(dated[1]) + len(dated[1])
        # the rest of the date's words: "the 14th" + " of June", "jul 12" + "-26"
        goes_on = _DATE_GOES_ON.match(rest, end)
        end = goes_on.end() if goes_on else end
        name = m.group("name")
        who = m.group("who") if not name or name.lower() in _NOT_A_NAME else f"{m.group('who')} {name}"
        said = f"{who} {m.group('doing')}{rest[:end]}"
        found.append(Happening(m.start(), m.start("rest") + end, " ".join(said.split())))
    for m in _BIRTHDAY.finditer(text):
        alone = m.group("alone")
        if (alone and alone.lower() in _NOT_SOMEONE) or any(h.start <= m.start() < h.end for h in found):
            continue
        rest = m.group("rest")
        day, dated = anchor(rest, when, "future"), anchor_near(rest, 0, 0, when, "future")
        if day is None or dated is None or len(day) != len("2026-01-01"):
            continue  # a birthday said with its day only
        end = rest.find(dated[1]) + len(dated[1])
        goes_on = _DATE_GOES_ON.match(rest, end)
        end = goes_on.end() if goes_on else end
        who = alone or " ".join(p for p in (m.group("who"), m.group("name")) if p)
        said = f"{who}'s {m.group('doing').lower()}{rest[:end]}"
        found.append(Happening(m.start(), m.start("rest") + end, " ".join(said.split())))
    return found


# what the relative coming needs at the user's table, said of them right after ("My mother come to visit ... She
# don't eat meat, she is vegetarian", "my mom is coming to visit on may 20, she's diabetic"): the calendar keeps it,
# so that cooking for the visit finds it, and it goes with the visit (a plan, past when the day has gone)
_WHAT_THEY_NEED = re.compile(
    r"\b(?:(?:she|he)\s*(?:['’]s|is|has|have|(?:do(?:es)?n['’]?t|does not|can['’]?t|cannot)\s+eat)|shes|hes)\s+"
    r"(?:also\s+)?"
    r"(?:an?\s+)?"
    r"(?P<x>" + DIET_NAMES + r"|coeliac|celiac|diabetic|diabetes|lactose intolerant|halal|"
    r"kosher|allergic to [a-z]+(?: [a-z]+)?|(?:nut|peanut|egg|shellfish|gluten|dairy|fish|sesame) allergy|"
    r"meat|pork|beef|fish|dairy|gluten|eggs|nuts)\b", re.IGNORECASE)
_REACH = 160


def what_they_need(text: str, after: int) -> str | None:
    """What the relative whose happening ends at ``after`` needs at the user's table, as the user said it ("she is
    vegetarian"), from the words that follow within a sentence or two; None when nothing such is said."""
    reach = min(len(text), after + _REACH)
    found = [" ".join(m.group(0).split()) for m in _WHAT_THEY_NEED.finditer(text, after, reach)]
    return ", ".join(found[:3]) or None
