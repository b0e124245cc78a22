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
_DAY_OF_MONTH = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    # a weekday that only labels the date beside it ("Thursday Feb 19", "thurs 5 feb", "Friday the 14th"):
    # the date is the exact one, the weekday says nothing more (read first, or the weekday alone would be)
    (re.compile(rf"\b{_WEEKDAY}\.?,?\s+{_MONTH}\.?\s+{_DAY_OF_MONTH}\b", re.I), "day_month"),
    (re.compile(rf"\b{_WEEKDAY}\.?,?\s+(?:the\s+)?{_DAY_OF_MONTH}(?:\s+of)?\s+{_MONTH}\b", re.I), "day_month"),
    (re.compile(rf"\b{_WEEKDAY}\.?,?\s+the\s+{_DAY_OF_MONTH}\b", re.I), "day_only"),
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


def anchor_near(text: str, start: int, end: int, when: datetime, tense: str = "any") -> tuple[str, str] | None:
    """The date the text names nearest to text[start:end] (a value in its clause), as (ISO form, the words that
    name it): "Monday was a board meeting, Tuesday I had jury duty" dates the jury duty Tuesday. At the same
    distance the patterns' order decides, as in ``anchor``."""
    today = when.date()
    best: tuple[int, int, str, str] | None = None
    for order, (pattern, kind) in enumerate(_PATTERNS):
        for m in pattern.finditer(text):
            distance = max(0, m.start() - end, start - m.end())
            if best is not None and (distance, order) >= best[:2]:
                continue
            resolved = _resolve(kind, m, today, tense)
            if resolved:
                best = (distance, order, resolved, m.group(0).strip())
    return (best[2], best[3]) if best else None


def anchor(text: str, when: datetime, tense: str = "any") -> str | None:
    """The date (or month) the text refers to, in ISO form, or None when it names none. A day and
    month without a year is the nearest one, or with ``tense`` "future" (a plan) the next one and
    with "past" (an event) the last one."""
    found = _anchored(text, when, tense)
    return found[0] if found else None


def _anchored(text: str, when: datetime, tense: str) -> tuple[str, re.Match[str]] | None:
    today = when.date()
    for pattern, kind in _PATTERNS:
        m = pattern.search(text)
        if not m:
            continue
        resolved = _resolve(kind, m, today, tense)
        if resolved:
            return resolved, m
    return None


def _resolve(kind: str, m: re.Match[str], today: date, tense: str = "any") -> str | None:
    if kind == "yesterday":
        return (today - timedelta(days=1)).isoformat()
    if kind == "today":
        return today.isoformat()
    if kind == "tomorrow":
        return (today + timedelta(days=1)).isoformat()
    if kind == "weekday":
        return _weekday(m, today, tense)
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
    if tense == "past":  # an event's month is the last one: "my mum passed in october", said in March
        year = today.year if month <= today.month else today.year - 1
    else:
        year = today.year if month >= today.month - 6 else today.year + 1
    return f"{year:04d}-{month:02d}"


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBERS.get(word.lower(), 1)


def _month(word: str) -> int:
    prefix = word.lower()[:3]
    return next(i + 1 for i, name in enumerate(_MONTHS) if name.startswith(prefix))


def _weekday(m: re.Match[str], today: date, tense: str = "any") -> str | None:
    target = next(i for i, name in enumerate(_WEEKDAYS) if name.startswith(m.group("wd").lower()[:3]))
    rel = (m.group("rel") or "").lower().strip()
    ahead = (target - today.weekday()) % 7
    # an event's weekday without "last" or "next" is the last one ("Tuesday I had jury duty", said on Thursday)
    if rel == "last" or (tense == "past" and rel in ("", "on")):
        back = (today.weekday() - target) % 7 or (7 if rel == "last" else 0)
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


# a day or a time as a user names it, for a correction of one by another ("tuesday, wait no, wednesday")
_A_WHEN = (rf"(?:(?:next|this|on|at|by|the)\s+)?(?:(?:the\s+)?(?:end|start|beginning|middle)\s+of\s+)?"
           rf"(?:{_WEEKDAY.replace('?P<wd>', '?:')}|"
           rf"{_MONTH.replace('?P<mon>', '?:')}\.?(?:\s+\d{{1,2}}(?:st|nd|rd|th)?)?|"
           r"\d{1,2}(?:st|nd|rd|th)(?:\s+(?:of|o|de))?(?:\s+" + _MONTH.replace("?P<mon>", "?:") + r")?|"
           # "20 march", as many write it
           r"\d{1,2}\s+" + _MONTH.replace("?P<mon>", "?:") + r"\b|"
           r"\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|h)?|today|tonight|tomorrow|tmrw)")
# what takes the day or time before it back: "wait no", "sorry", "i mean", "actually", "no,", "make that",
# then perhaps "it's" ("no wait its the 15th"; "it's" alone adds to a date: "on Saturday, it's 8pm"). The
# separators are one character class, so a run of them is read one way only (a dotted one was read 2^n ways)
_GAP = r"[\s.…,;:!\-]*"
# ("well" only before one of them: "Saturday, well, Sunday works too" takes nothing back)
_TAKEN_BACK = (_GAP + r"(?:(?:well|ah|oh|eh|uh|um|hmm)\b" + _GAP + r")?"
               r"(?:(?:no+|nope|wait|sorry|oops|i mean|i meant|actually|scratch that|correction|"
               r"make (?:that|it)|or rather|rather|"
               # the same in the voices and languages users write in: "naw hing oan", "non attends", "não, espera"
               r"naw|nah|hang on|hing oan|hold on|my bad|non|nein|não|nao|attends|espera|perdón|perdon|pardon)\b"
               + _GAP + r")+(?:(?:it['’]?s|its|it is|c['’]est|es el|é)\b" + _GAP + r")?")
_CORRECTED_WHEN = re.compile(rf"\b(?P<old>{_A_WHEN})(?P<back>{_TAKEN_BACK})(?P<new>{_A_WHEN})(?![\w:])",
                             re.IGNORECASE)
_LEAD = re.compile(r"(?:(?:next|this|on|at|by|the)\s+)?", re.IGNORECASE)
_MONTH_NAMED = re.compile(_MONTH.replace("?P<mon>", "?:"), re.IGNORECASE)
_ORDINAL_ALONE = re.compile(r"(?:the\s+)?(\d{1,2}(?:st|nd|rd|th))", re.IGNORECASE)
_CLOCK = re.compile(r"\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|h)?", re.IGNORECASE)


def _when_kind(when: str) -> str:
    """"time" for a time of day ("9", "10:30", "at 8pm"), "day" for anything else _A_WHEN reads."""
    lead = _LEAD.match(when)
    return "time" if _CLOCK.fullmatch(when[lead.end() if lead else 0:]) else "day"


def corrected_dates(text: str) -> str:
    """The text with a day or a time the user takes back in the same breath replaced by the one they meant:
    "it's tuesday, wait no, wednesday" -> "it's wednesday"; "Thursday Feb 19 at 9... sorry, 10:30" -> "Thursday
    Feb 19 at 10:30". Only a day or time followed at once by words that take it back and another day or time:
    "Tuesday, no idea why" is no correction."""
    def meant(m: re.Match[str]) -> str:
        new = m.group("new")
        if _when_kind(m.group("old")) != _when_kind(new):  # "Friday no 5 people came": no day taken back
            return m.group(0)
        month = _MONTH_NAMED.search(m.group("old"))
        day = _ORDINAL_ALONE.fullmatch(new)
        lead = _LEAD.match(m.group("old"))
        if month and day:  # "on march 14th, no wait its the 15th": on March the 15th
            opening = lead.group(0) if lead else ""
            if re.match(r"\d", m.group("old")[len(opening):]):  # "the 6th of June, well actually it's the 7th"
                return f"{opening}{day.group(1)} of {month.group(0)}"
            return f"{opening}{month.group(0)} {day.group(1)}"
        # "at 9... sorry, 10:30": keep "at" when the new time does not say it again
        opening = lead.group(0) if lead and not re.match(r"(?:next|this|on|at|by|the)\s", new, re.IGNORECASE) else ""
        return opening + new
    return _CORRECTED_WHEN.sub(meant, text)
