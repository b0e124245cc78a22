"""The shifts a user works: "workin nights in dubai", "I'm on days now, 7 to 7:30", "no more nights".

Nurses, drivers, carers and factory workers say when they work in a few words the tagger reads as nothing
("im on nights this week") or as the job ("User's job: night shifts at the care home."), yet a sleep plan, a meal
plan or a week's schedule turns on it. The phrases are few and exact, so they are read here: a shift said as
worked now, with its hours when they follow, and a shift said as left behind. One routine holds the user's
shift (pipeline keys it by SHIFT_KEY), so a new shift replaces the old one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mnemo.domain.extraction.dates import WEEKDAY_NAME

SHIFT_KEY = "work shift"

_SHIFT = (r"(?P<shift>(?:the\s+)?(?:night|day|early|late|evening|swing|graveyard|weekend|split|rotating|back|"
          r"morning|afternoon)\s+shifts?|"
          r"nights|days|earlies|lates|graveyard|"
          # mornings, afternoons, evenings as a shift only with nothing after them that they are for ("I work
          # mornings, 7 to 3"; not "I also work evenings on my novel")
          r"(?:mornings|afternoons|evenings)(?=\s*(?:[,.;!(]|$|\d|now\b|this\b|these\b))|"
          r"(?:\d{1,2}|eight|ten|twelve)[- ]?(?:h|hr|hrs|hour)s?\s+shifts|"
          r"shift work|"
          # a rota of days on and off: "4 nights on, 4 off", "three days on three off"
          r"(?:\d|two|three|four|five|six|seven)\s+(?:nights|days|earlies|lates|shifts)\s+on,?\s+"
          r"(?:\d|two|three|four|five|six|seven)\s+off)")
# an hour of the day: "7", "7:30", "6am", "7p"
_HOUR = r"\d{1,2}(?::\d{2})?\s*(?:a|am|p|pm)?"
# hours that may follow a shift: "7a-7p", "7 to 7:30", "from 6am to 2pm", "(6-2)"
_HOURS = rf"(?:(?:\s+now)?,?\s*\(?(?:from\s+)?(?P<hours>{_HOUR}\s*(?:-|–|to)\s*{_HOUR})\)?)?"
# hours said on their own, as the tagger reads them beside a shift ("on days now, 7 till 5")
_ONLY_HOURS = re.compile(rf"(?:from\s+)?{_HOUR}\s*(?:-|–|to|till|til|until)\s*{_HOUR}", re.IGNORECASE)


def only_hours(value: str) -> bool:
    """The value is a span of hours and nothing else: "7 till 5", "6am-2pm", "from 7 to 3"."""
    return _ONLY_HOURS.fullmatch(value) is not None
# said as worked: "i work nights", "im on nights", "been doing earlies", "workin nights", a line opening "on nights"
_WORKED = re.compile(
    r"(?:\b(?:i|we|still|now|currently|mostly|usually|also|only)\s+(?:work|do)\s+|"
    r"\b(?:i'?m|im|i am|i'?ve been|ive been|been|still|now|currently|back|mostly)\s+(?:working\s+|workin'?\s+|"
    r"doing\s+|on\s+(?:the\s+)?)|(?:^|[,.;!]\s*)(?:working|workin'?|on)\s+|"
    # someone moved the user onto it: "manager move me to day shift", "they put me back on night shift"
    r"\b(?:move|moves|moved|put|puts|switched|switch|changed|transferred|swapped)\s+me\s+(?:back\s+)?"
    r"(?:to|on|onto)\s+(?:the\s+)?)"
    + _SHIFT + r"(?!\s+(?:off|out|like|when|where|that|ago|before|after|later|of)\b)" + _HOURS, re.IGNORECASE)
# a shift said bare with its hours: "day shift 7a-7p yay"
_WITH_HOURS = re.compile(r"\b(?P<shift>(?:night|day|early|late|evening)\s+shifts?)" + _HOURS, re.IGNORECASE)
# a shift said bare as the one now: "back shift noo, two tae midnight", "Day shift na this month"
_NOW = re.compile(r"(?:^|[,.;!]\s*)(?!the\b)" + _SHIFT + r"\s+(?:now|noo|nw|rn|nowadays|these days|"
                  r"na this (?:week|month)|this (?:week|month)|from (?:now|today|this week|monday))\b"
                  r"(?!\s+(?:has|have|had|is|are|was|were|will)\b)", re.IGNORECASE)
# said as left: "no more nights", "came off nights", "done with night shifts"
_LEFT = re.compile(r"\b(?:no more|no longer (?:on|doing|working)|done with|finished with|came off|come off|"
                   r"coming off|quit|stopped(?: doing)?)\s+" + _SHIFT + r"\b", re.IGNORECASE)


@dataclass(frozen=True)
class Shift:
    start: int  # where the user says it in the text
    end: int
    value: str  # "works nights", "works day shift, 7a-7p"
    worked: bool  # False: a shift the user no longer works


def _value(m: re.Match[str]) -> str:
    shift = re.sub(r"^the\s+", "", m.group("shift").strip(), flags=re.IGNORECASE)
    hours = m.groupdict().get("hours")
    return f"works {shift}" + (f", {hours.strip()}" if hours and any(c.isdigit() for c in hours) else "")


def shifts_in(text: str) -> list[Shift]:
    """The shifts the text says the user works or has left, in the order said (one per place in the text)."""
    found: list[Shift] = []
    for m in _LEFT.finditer(text):
        found.append(Shift(m.start(), m.end(), _value(m), False))
    for pattern in (_WORKED, _WITH_HOURS, _NOW):
        for m in pattern.finditer(text):
            at = m.start("shift")
            if any(s.start <= at < s.end for s in found):
                continue  # "no more nights" is no night worked
            if pattern is _WITH_HOURS and not m.group("hours"):
                continue
            found.append(Shift(m.start(), m.end(), _value(m), True))
    return sorted(found, key=lambda s: s.start)


_SHIFT_WORDS = re.compile(r"^(?:(?:night|day|early|late)\s+)?(?:shifts?|nights?|days|earlies|lates)$", re.IGNORECASE)


def only_a_shift(value: str) -> bool:
    """Whether a value is nothing but a shift's word ("shift" of "just got off shift", "nights" of "came off
    nights"): no health condition, whatever the tagger read."""
    return bool(_SHIFT_WORDS.match(value.strip()))


# a routine that is a shift said bare, the shift first and nothing done after it: "nights mostly, 3x/wk, 12h",
# "day shifts only" (not "days out with the kids")
_BARE_SHIFT = re.compile(_SHIFT + r"(?=\s*(?:$|[,;(/-]|(?:mostly|only|now|again|too|please|pls)\b))", re.IGNORECASE)


def is_shift(value: str) -> bool:
    """Whether a routine is a shift worked ("works nights", "nights mostly, 3x/wk"), so keyed as the one shift the
    user works."""
    if value.lower().startswith("works "):
        return bool(re.match(_SHIFT, value[6:], re.IGNORECASE))
    return bool(_BARE_SHIFT.match(value))


# the user's days off work, one routine at a time ("Wednesday is my day off now ka, manager change the schedule"
# replaces "only Monday is off"): a week's plan turns on them
DAY_OFF_KEY = "day off"
_WEEKDAY = WEEKDAY_NAME
_DAYS_OFF = re.compile(
    rf"\b(?:(?:only\s+)?(?P<a>{_WEEKDAY}s?(?:\s+(?:and|&|n)\s+{_WEEKDAY}s?)?)\s+(?:is|are)\s+(?:my\s+|our\s+)?"
    # not a day off this once ("Monday is off for the bank holiday")
    rf"(?:days?\s+off|off)\b(?!\s+(?:for|this|next|because|due|thanks|today|tomorrow|work\s+for))|"
    rf"(?:my|our)\s+days?\s+off\s+(?:is|are)\s+(?:now\s+)?(?P<b>{_WEEKDAY}s?(?:\s+(?:and|&|n)\s+{_WEEKDAY}s?)?)|"
    rf"\bi['’]?m\s+off\s+(?:on\s+)?(?P<c>{_WEEKDAY}s(?:\s+(?:and|&|n)\s+{_WEEKDAY}s)?))\b", re.IGNORECASE)


def days_off(text: str) -> list[tuple[int, int, str]]:
    """(start, end, "day off: Monday") for each day off work the text says the user has."""
    out = []
    for m in _DAYS_OFF.finditer(text):
        days = next(g for g in (m.group("a"), m.group("b"), m.group("c")) if g)
        out.append((m.start(), m.end(), f"{DAY_OFF_KEY}: {days[:1].upper()}{days[1:]}"))
    return out


def is_day_off(value: str) -> bool:
    return value.lower().startswith(DAY_OFF_KEY + ":")
