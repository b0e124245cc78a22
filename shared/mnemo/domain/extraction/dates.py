"""Relative dates anchored to the message's time ("next friday" said on 2026-03-02 -> 2026-03-06).

Date words are a closed grammar, so exact patterns are right here (unlike facts)."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "couple of": 2,
            "few": 3, "a few": 3, "a couple of": 2}
_WEEKDAY = r"(?P<wd>mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|sday|nesday|rsday|urday)?"
_MONTH = (r"(?P<mon>jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)(?:uary|ruary|ch|il|e|y|ust|tember|ober|"
          r"ember)?")
_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b(?:yesterday|last night)\b", re.I), "yesterday"),
    (re.compile(r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b", re.I), "today"),
    (re.compile(r"\b(?:tomorrow|tmrw|tmr|2moro)\b", re.I), "tomorrow"),
    (re.compile(rf"\b(?P<rel>last|this|next|on|this coming|coming)?\s*{_WEEKDAY}\b", re.I), "weekday"),
    (re.compile(r"\b(?P<n>\d+|a|an|one|two|three|four|five|six|a few|few|a couple of|couple of)\s+"
                r"(?P<unit>day|week|month|year)s?\s+(?P<dir>ago|from now)\b", re.I), "offset"),
    # not "the first time in three years", "best day in a year": a span of time, not a date
    (re.compile(r"(?<!time )(?<!first )(?<!day )\bin\s+(?P<n>\d+|a|an|one|two|three|four|five|six|a few|a couple of)\s+"
                r"(?P<unit>day|week|month|year)s?\b", re.I), "in"),
    (re.compile(r"\b(?P<rel>last|next|this)\s+(?P<unit>week|month|year|weekend|summer|winter|spring|autumn|fall)\b",
                re.I), "relative"),
    (re.compile(rf"\b{_MONTH}\.?\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\b", re.I), "day_month"),
    (re.compile(rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?(?:\s+of)?\s+{_MONTH}\b", re.I), "day_month"),
    (re.compile(rf"\b(?:in|this|next|last|early|late|end of|mid|beginning of|by)\s+{_MONTH}\b", re.I), "month"),
    # "on the 16th" with no month: that day of this month, the next or the last one (after the patterns
    # that read a month, so "the 14th of february" is not read here)
    (re.compile(r"\bthe\s+(?P<day>\d{1,2})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:century|floor|time|birthday|anniversary))",
                re.I), "day_only"),
]


def anchor(text: str, when: datetime, tense: str = "any") -> str | None:
    """The date (or month) the text refers to, in ISO form, or None when it names none. A day and
    month without a year is the nearest one, or with ``tense`` "future" (a plan) the next one and
    with "past" (an event) the last one."""
    today = when.date()
    for pattern, kind in _PATTERNS:
        m = pattern.search(text)
        if not m:
            continue
        resolved = _resolve(kind, m, today, tense)
        if resolved:
            return resolved
    return None


def _resolve(kind: str, m: re.Match[str], today: date, tense: str = "any") -> str | None:
    if kind == "yesterday":
        return (today - timedelta(days=1)).isoformat()
    if kind == "today":
        return today.isoformat()
    if kind == "tomorrow":
        return (today + timedelta(days=1)).isoformat()
    if kind == "weekday":
        return _weekday(m, today)
    if kind in ("offset", "in"):
        n = _count(m.group("n"))
        sign = -1 if kind == "offset" and m.group("dir").lower() == "ago" else 1
        return _shift(today, m.group("unit").lower(), sign * n)
    if kind == "relative":
        return _relative(m.group("rel").lower(), m.group("unit").lower(), today)
    if kind == "day_only":
        return _nearest_day(today, int(m.group("day")), tense)
    if kind == "day_month":
        month = _month(m.group("mon"))
        day = int(m.group("day"))
        return _nearest(today, month, day, tense)
    month = _month(m.group("mon"))
    year = today.year if month >= today.month - 6 else today.year + 1
    return f"{year:04d}-{month:02d}"


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBERS.get(word.lower(), 1)


def _month(word: str) -> int:
    prefix = word.lower()[:3]
    return next(i + 1 for i, name in enumerate(_MONTHS) if name.startswith(prefix))


def _weekday(m: re.Match[str], today: date) -> str | None:
    target = next(i for i, name in enumerate(_WEEKDAYS) if name.startswith(m.group("wd").lower()[:3]))
    rel = (m.group("rel") or "").lower().strip()
    ahead = (target - today.weekday()) % 7
    if rel == "last":
        back = (today.weekday() - target) % 7 or 7
        return (today - timedelta(days=back)).isoformat()
    if rel == "next":
        return (today + timedelta(days=ahead or 7)).isoformat()
    if not rel and not ahead:
        return today.isoformat()
    return (today + timedelta(days=ahead or 7)).isoformat()


def _shift(today: date, unit: str, n: int) -> str:
    if unit == "day":
        return (today + timedelta(days=n)).isoformat()
    if unit == "week":
        return (today + timedelta(weeks=n)).isoformat()
    months = today.year * 12 + today.month - 1 + (n if unit == "month" else 12 * n)
    return f"{months // 12:04d}-{months % 12 + 1:02d}"


def _relative(rel: str, unit: str, today: date) -> str:
    step = {"last": -1, "next": 1, "this": 0}[rel]
    if unit in ("week", "weekend"):
        return (today + timedelta(weeks=step)).isoformat()
    if unit == "month":
        return _shift(today, "month", step)
    if unit == "year":
        return f"{today.year + step:04d}"
    season = {"spring": 4, "summer": 7, "autumn": 10, "fall": 10, "winter": 1}[unit]
    year = today.year + step if not (unit == "winter" and step == 1 and today.month == 12) else today.year + 1
    return f"{year:04d}-{season:02d}"


def _nearest_day(today: date, day: int, tense: str = "any") -> str | None:
    """A day of the month alone: that day in the month before, this month or the next, the nearest one
    (or the next for a plan, the last for an event)."""
    options = []
    for step in (-1, 0, 1):
        months = today.year * 12 + today.month - 1 + step
        try:
            options.append(date(months // 12, months % 12 + 1, day))
        except ValueError:
            continue
    return _closest(options, today, tense)


def _nearest(today: date, month: int, day: int, tense: str = "any") -> str | None:
    """A day and month without a year: the occurrence nearest to the message's date (the next one
    for a plan, the last one for an event)."""
    options = []
    for year in (today.year - 1, today.year, today.year + 1):
        try:
            options.append(date(year, month, day))
        except ValueError:
            continue
    return _closest(options, today, tense)


def _closest(options: list[date], today: date, tense: str) -> str | None:
    if tense == "future":
        options = [d for d in options if d >= today]
    elif tense == "past":
        options = [d for d in options if d <= today]
    if not options:
        return None
    return min(options, key=lambda d: abs((d - today).days)).isoformat()


_DAY_MONTH = [pattern for pattern, kind in _PATTERNS if kind == "day_month"]


def whole_date(value: str, clause: str) -> str:
    """A value the tagger cut inside a date runs on to the date's end: "30" of "30 June" -> "30 June", "june"
    of "june 30" -> "june 30" (a deadline of "30" says nothing a later question can use)."""
    at = clause.find(value)
    if at < 0:
        return value
    end = at + len(value)
    for pattern in _DAY_MONTH:
        for m in pattern.finditer(clause):
            if at <= m.start() < end < m.end():
                return clause[at:m.end()]
    return value


def without_dates(text: str) -> str:
    """The text with every day, month and relative date this grammar reads taken out ("go back to Busan on
    July 3" -> "go back to Busan on "): what a plan is, whatever its day."""
    for pattern, _kind in _PATTERNS:
        text = pattern.sub(" ", text)
    return text
