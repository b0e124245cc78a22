"""Relative dates anchored to the message's time ("next friday" said on 2026-03-02 -> 2026-03-06).

Date words are a closed grammar, so exact patterns are right here (unlike facts)."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]
# the names of the days and months, for readings that must not take one for a name ("with my girlfriend Saturday")
CALENDAR_NAMES = frozenset([*_WEEKDAYS, *_MONTHS])
WEEKDAY_NAME = "(?:" + "|".join(_WEEKDAYS) + ")"
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "couple of": 2,
            "few": 3, "a few": 3, "a couple of": 2}
_WEEKDAY = r"(?P<wd>mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|sday|nesday|rsday|urday)?"
_MONTH = (r"(?P<mon>jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)(?:uary|ruary|ch|il|e|y|ust|tember|ober|"
          r"ember)?")
_DAY_OF_MONTH = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_ORDINAL = r"(?P<day>\d{1,2})(?:st|nd|rd|th)"
_MONTH_NOT_NAMED = _MONTH.replace("?P<mon>", "?:")
# a month named in a few words, or a day and month in figures ("24 May", "June", "03-11")
_NAMES_A_MONTH = re.compile(rf"\b{_MONTH_NOT_NAMED}\.?\b|\b\d{{1,2}}[./-]\d{{1,2}}\b", re.IGNORECASE)


def names_a_month(words: str) -> bool:
    """The words of a date name its month ("24 May", "June", "03-11"; not "the 16th", "Saturday")."""
    return _NAMES_A_MONTH.search(words) is not None
# an ordinal that counts something other than days ("the 15th century", "on 3rd place"), or the day of a month
# named after it ("the 14th of february": read by the patterns that read the month, wherever the value stands)
_NOT_A_DAY = (r"(?!\s+(?:of\s+)?(?:century|centuries|floor|time|times|birthday|anniversary|place|grade|year|round|"
              r"row|street|avenue|edition|attempt|try|generation|percentile|term|lap|level|season|chapter|episode)\b)"
              rf"(?!(?:\s+of)?\s+{_MONTH_NOT_NAMED}\b)")
# a month named without a date word before it: full names, and the short forms no one writes for anything else
# ("Jan" and "Jun" are names, "mar" a verb); "May" and "March" only with their capital ("may I ask", "march on")
_MONTH_WORD = (r"(?P<mon>january|february|april|june|july|august|september|october|november|december|"
               r"feb|apr|aug|sept?|oct|nov|dec|(?-i:May|MAY|March|MARCH))")
# the weekday of a date named beside it ("Thursday Feb 19", "fri 5th"): the weekday alone is not read there, or a
# value before "on Friday the 12th" would be dated by the nearer "on Friday"
_A_DATE_AFTER = (rf"(?!\.?,?\s+(?:the\s+\d|\d{{1,2}}(?:st|nd|rd|th)\b|\d{{1,2}}(?:st|nd|rd|th)?(?:\s+of)?\s+"
                 rf"{_MONTH_NOT_NAMED}\b|{_MONTH_NOT_NAMED}\.?\s+\d))")
# the days of the fixed holidays people plan around, by the words that name them
_HOLIDAY = (r"(?P<holiday>(?:christmas|xmas)(?:\s+(?:eve|day))?|boxing\s+day|new\s+year(?:['’]?s)?(?:\s+(?:eve|day))?|"
            r"nye|hallowe['’]?en|valentine['’]?s(?:\s+day)?)")
_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    # a weekday that only labels the date beside it ("Thursday Feb 19", "thurs 5 feb"): the date is the exact
    # one, the weekday says nothing more (read first, or the weekday alone would be)
    (re.compile(rf"\b{_WEEKDAY}\.?,?\s+{_MONTH}\.?\s+{_DAY_OF_MONTH}\b", re.I), "day_month"),
    (re.compile(rf"\b{_WEEKDAY}\.?,?\s+(?:the\s+)?{_DAY_OF_MONTH}(?:\s+of)?\s+{_MONTH}\b", re.I), "day_month"),
    # a weekday and a day with no month ("Friday the 14th", "sun 15th"): the day whose weekday it is, if a month
    # near enough has one; an ordinal's suffix is needed without "the" ("Friday 5 people came" is no 5th)
    (re.compile(rf"(?<!\bi )(?<!\bwe )(?<!\bhe )(?<!\bshe )(?<!\bthey )(?<!\byou )"  # "I sat the 2nd paper"
                rf"\b{_WEEKDAY}\.?,?\s+(?:the\s+|(?=\d{{1,2}}(?:st|nd|rd|th)\b)){_DAY_OF_MONTH}\b"
                rf"{_NOT_A_DAY}", re.I), "weekday_day"),
    (re.compile(r"\b(?:yesterday|last night)\b", re.I), "yesterday"),
    (re.compile(r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b", re.I), "today"),
    (re.compile(r"\b(?:tomorrow|tmrw|tmr|2moro)\b", re.I), "tomorrow"),
    # a fortnight on (read before "next week" would be, in "the week after next week")
    (re.compile(r"\b(?:the\s+)?week(?:end)?\s+after\s+next(?:\s+week(?:end)?)?\b", re.I), "fortnight"),
    (re.compile(r"\b(?:the\s+)?(?:end|beginning|start|middle)\s+of\s+(?:(?:the|this)\s+)?month\b", re.I),
     "this_month"),
    # a part of a named month is the month (read before "last week" would be, in "the last week of August")
    (re.compile(rf"\b(?:the\s+)?(?:first|1st|second|2nd|third|3rd|fourth|4th|last|final)\s+(?:few\s+)?"
                rf"(?:weeks?|weekends?|fortnight|days)\s+(?:of|in)\s+{_MONTH}\b", re.I), "month"),
    (re.compile(rf"\b(?P<rel>last|this|next|on|this coming|coming)?\s*{_WEEKDAY}\b{_A_DATE_AFTER}", re.I), "weekday"),
    (re.compile(r"\b(?P<n>\d+|a|an|one|two|three|four|five|six|a few|few|a couple of|couple of)\s+"
                r"(?P<unit>day|week|month|year)s?\s+(?P<dir>ago|from now)\b", re.I), "offset"),
    # not "the first time in three years", "best day in a year": a span of time, not a date
    (re.compile(r"(?<!time )(?<!first )(?<!day )\bin\s+(?P<n>\d+|a|an|one|two|three|four|five|six|a few|a couple of)\s+"
                r"(?P<unit>day|week|month|year)s?\b", re.I), "in"),
    (re.compile(r"\b(?P<rel>last|next|this)\s+(?P<unit>week|month|year|weekend|summer|winter|spring|autumn|fall)\b",
                re.I), "relative"),
    (re.compile(rf"\b{_MONTH}\.?\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\b", re.I), "day_month"),
    (re.compile(rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?(?:\s+of)?\s+{_MONTH}\b", re.I), "day_month"),
    # a fixed holiday, after every other day a text names, so that "a Halloween themed party next Saturday" is
    # Saturday's; "christmas party" is Christmas (what the party is for is its day), not the new years that fall on
    # another day each year, nor a new year's resolution, a Christmas card or Christmas Island
    (re.compile(rf"(?<!chinese )(?<!lunar )(?<!jewish )(?<!persian )(?<!islamic )\b{_HOLIDAY}\b"
                r"(?!(?:['’]s)?\s+(?:resolutions?|cards?|jumpers?|sweaters?|movies?|films?|songs?|music|lights?|"
                r"tree|island|carol|themed|in\s+(?:july|june|august|summer))\b|-themed)", re.I),
     "holiday"),
    # a day and month in figures ("25/12", "12/25", "25.12.2026"), not inside a longer number, a decimal, a
    # score or a time ("2.5", "8.5/10", "24/7", "at 14.05")
    (re.compile(r"(?<![\w./:,£$€@-])(?<!\bat )(?<!\bsize )(?<!\bgot )(?<!\bscored )(?<!\bscore )(?<!\bbp )"
                r"(?<!\bin )(?<!\bunder )(?<!\bversion )(?!24/7\b)(?P<a>\d{1,2})(?P<sep>[/.])(?P<b>\d{1,2})"
                r"(?:(?P=sep)(?P<y>\d{4}|\d{2}))?(?![\w%]|[./:,-]\d|\s*(?:%|am|pm|h|hrs?|hours?|mins?|minutes?)\b)",
                re.I), "figures"),
    # a month, not the month of a day named after it ("by June 5" is the 5th)
    (re.compile(rf"\b(?:(?:in|this|next|last|early|late|end of|mid|beginning of|by)\s+|(?:mid|early|late)-\s*)"
                rf"{_MONTH}\b(?!\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b)", re.I), "month"),
    # a month after a word that says when ("until June", "moved to September"), not a person's ("to June's")
    (re.compile(rf"\b(?:until|till|til|around|before|after|since|during|through|throughout)\s+"
                rf"{_MONTH_WORD}\b(?!['’]s\b|\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b)", re.I), "month"),
    # after "to", "for" or "from" only a month that is seldom a name (not "dinner for May and her kids", "talked to
    # June")
    (re.compile(r"\b(?:to|for|from)\s+(?P<mon>january|february|july|august|september|october|november|december|"
                r"feb|aug|sept?|oct|nov|dec)\b(?!['’]s\b|\.?\s+\d{1,2}(?:st|nd|rd|th)?\b)", re.I), "month"),
    # a month and nothing else: an answer to "when?", or what a plan was moved to
    (re.compile(rf"^\W*{_MONTH_WORD}\W*$", re.I), "month"),
    # "on the 16th" with no month: that day of this month, the next or the last one (after the patterns
    # that read a month, so "the 14th of february" is not read here)
    (re.compile(rf"\bthe\s+{_ORDINAL}\b{_NOT_A_DAY}", re.I), "day_only"),
    # the same after a word that says when ("moved to 15th", "by 20th"), not "my 15th birthday"
    (re.compile(rf"\b(?:on|to|by|until|till|til|from|for|before|after|since)\s+{_ORDINAL}\b{_NOT_A_DAY}", re.I),
     "day_only"),
    # an ordinal and nothing else: what a plan was moved to ("moved to 15th" leaves "15th")
    (re.compile(rf"^\W*{_ORDINAL}\W*$", re.I), "day_only"),
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
    if kind == "weekday_day":
        return _weekday_day(today, int(m.group("day")), _weekday_index(m.group("wd")), tense)
    if kind == "holiday":
        month, day = _holiday(m.group("holiday"))
        return _nearest(today, month, day, tense)
    if kind == "fortnight":
        return (today + timedelta(weeks=2)).isoformat()
    if kind == "this_month":
        return _shift(today, "month", 0)
    if kind == "figures":
        return _figures(m, today, tense)
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


def _weekday_index(word: str) -> int:
    return next(i for i, name in enumerate(_WEEKDAYS) if name.startswith(word.lower()[:3]))


def _weekday(m: re.Match[str], today: date, tense: str = "any") -> str | None:
    target = _weekday_index(m.group("wd"))
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


def _weekday_day(today: date, day: int, weekday: int, tense: str) -> str | None:
    """A day of the month with its weekday ("sun 15th"): of the months a day alone is read in, and one more on
    in the tense's direction, the nearest whose day falls on that weekday; when none does, the weekday was a slip
    and the day alone is read (a 15th that is a Sunday half a year on is too far to be meant)."""
    steps = {"future": (-1, 0, 1, 2), "past": (-2, -1, 0, 1)}.get(tense, (-2, -1, 0, 1, 2))
    options = []
    for step in steps:
        months = today.year * 12 + today.month - 1 + step
        try:
            options.append(date(months // 12, months % 12 + 1, day))
        except ValueError:
            continue
    return _closest([d for d in options if d.weekday() == weekday], today, tense) or _nearest_day(today, day, tense)


def _holiday(name: str) -> tuple[int, int]:
    """(month, day) of a fixed holiday as _HOLIDAY reads its name."""
    words = name.lower()
    if words.startswith(("christmas", "xmas")):
        return (12, 24) if words.endswith("eve") else (12, 25)
    if words.startswith("boxing"):
        return 12, 26
    if words == "nye" or (words.startswith("new") and words.endswith("eve")):
        return 12, 31
    if words.startswith("new"):
        return 1, 1
    if words.startswith("hallow"):
        return 10, 31
    return 2, 14  # valentine's, the one name left


def _figures(m: re.Match[str], today: date, tense: str) -> str | None:
    """A date in figures: day and month in the order only one reading allows ("25/12" and "12/25" are both
    Christmas); "3/4" could be either, so it names none. A dotted one only with its year ("25.12.2026")."""
    a, b = int(m.group("a")), int(m.group("b"))
    if m.group("sep") == "." and not m.group("y"):
        return None  # "2.5", "22.10", "Node 18.12": a decimal, a time or a version; a dotted date has its year
    if a > 12 >= b:
        day, month = a, b
    elif b > 12 >= a:
        day, month = b, a
    else:
        return None
    year = m.group("y")
    if not year:
        return _nearest(today, month, day, tense)
    try:
        return date(int(year) + (2000 if len(year) == 2 else 0), month, day).isoformat()
    except ValueError:
        return None


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
           r"\d{1,2}(?:st|nd|rd|th)(?:\s+(?:of|o|de))?(?:\s+" + _MONTH_NOT_NAMED + r")?|"
           # "20 march", as many write it
           r"\d{1,2}\s+" + _MONTH_NOT_NAMED + r"\b|"
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
               r"naw|nah|hang on|hing oan|hold on|my bad|non|nein|não|nao|attends|espera|perdón|perdon|pardon|"
               # the courteous ways: "the 20th of March, no, forgive me, the 19th"
               r"forgive me|excuse me|pardon me|i['’]?m sorry|apologies|désolée?|disculpa|perdona|entschuldigung)\b"
               + _GAP + r")+(?:(?:it['’]?s|its|it is|c['’]est|es el|é)\b" + _GAP + r")?")
_CORRECTED_WHEN = re.compile(rf"\b(?P<old>{_A_WHEN})(?P<back>{_TAKEN_BACK})(?P<new>{_A_WHEN})(?![\w:])",
                             re.IGNORECASE)
# a day taken back across an aside the user broke off for ("feb 3rd - omg my flatmate just set off the fire alarm
# AGAIN - sorry, feb 13th"; "June 6 hold on one sec the dispatcher is calling me okay sorry it is June 9"; "the 12th
# of March - sorry, Eilidh's just tipped her porridge over Bess - the 21st, I mean"): set off by dashes and saying a
# word of taking back or of breaking off, or, undashed, breaking off and then taking back at once; the aside names
# no day of its own and ends no sentence. The aside goes with the day taken back: what it says is the moment's.
# (not the courtesies and eagerness the same words say: "sorry for the spam", "sorry if I sound nervous", "can't wait",
# "wait for the bus")
_BREAKS_OFF = (r"(?<!can't )(?<!cant )(?<!can’t )(?<!cannot )\b(?:sorry(?!\s+(?:for|if|about|to|that)\b)|"
               r"wait(?!\s+(?:for|till|until|to|and)\b)|pardon|hang on|hold on|one sec|a sec|sec|oops|i mean|i meant|"
               r"excuse me|apologies(?!\s+for\b)|my bad|brb|forgive me)\b")
# a word that takes back what was said, once, with its pauses (one, not a run of them: an aside is read at many
# places, and a run of "no no no" after each would cost the square of its length)
_BACK_ONCE = (r"[\s.…,;:!\-]{0,6}(?:(?:well|ah|oh|eh|uh|um|hmm)[\s.…,;:!\-]{1,6})?"
              r"(?:no+\s+wait|wait\s+no|no+|nope|wait|sorry|oops|i mean|i meant|actually|correction|make (?:that|it)|"
              r"or rather|rather|my bad|pardon|i beg your pardon|forgive me|excuse me)\b[\s.…,;:!\-]{0,6}"
              r"(?:(?:it['’]?s|its|it is)\b[\s,]{0,3})?")
_DASH = r"\s+[-–—]+\s+"
_ASIDE_TAKEN_BACK = re.compile(
    rf"\b(?P<old>{_A_WHEN})(?:{_DASH}(?P<dashed>[^-–—.?!\n]{{3,100}}?){_DASH}(?P<then>{_BACK_ONCE})?"
    r"(?:(?:from|on)\s+)?|"
    rf"\s+(?P<aside>[^.?!\n]{{3,80}}?)(?P<back>{_BACK_ONCE})|"
    # taken back first, then what the user checked, then the day: "6 March, no wait, I checked in email, it is 13 March"
    rf"(?P<first>{_BACK_ONCE})(?P<checked>[^.?!\n]{{3,60}}?)[,;:]\s*(?:it['’]?s|its|it\s+is|it\s+will\s+be|"
    r"it['’]ll\s+be)\s+(?:on\s+)?)"
    rf"(?P<new>{_A_WHEN})(?![\w:])"
    r"(?P<tail>,?\s*(?:i mean|i meant|sorry|rather)\b)?", re.IGNORECASE)
_BREAKING_OFF = re.compile(_BREAKS_OFF, re.IGNORECASE)
# what the user checked before the day meant: "I checked in email", "just looked at the letter"
_CHECKED = re.compile(r"\b(?:check\w*|look\w*|confirm\w*|saw|seen|read|email|e-mail|letter|calendar|ticket|booking|"
                      r"invite|invitation|app|website|schedule)\b", re.IGNORECASE)
# the day said after an aside as the subject of its own clause is another day ("the 5th is when we come back", "Friday I
# have another one", "Saturday is the wedding", "Tuesday also works"); a bare number before a word is a count ("2 kids
# screaming", "10 minutes from my office")
_ITS_OWN_CLAUSE = re.compile(r"^\s*(?:is|are|was|were|i|we|he|she|they|also|works|work|too|would|will|should|could|"
                             r"[a-z]+s\b)", re.IGNORECASE)
_A_COUNT = re.compile(r"^\s*(?:[^\W\d_]+)", re.IGNORECASE)
_A_DAY_SAID = re.compile(rf"\b{_A_WHEN}(?![\w:])", re.IGNORECASE)
_LEAD = re.compile(r"(?:(?:next|this|on|at|by|the)\s+)?", re.IGNORECASE)
_MONTH_NAMED = re.compile(_MONTH_NOT_NAMED, re.IGNORECASE)
_ORDINAL_ALONE = re.compile(r"(?:the\s+)?(\d{1,2}(?:st|nd|rd|th))", re.IGNORECASE)
_CLOCK = re.compile(r"\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|h)?", re.IGNORECASE)


# a day said as not the one, then the one ("the exam is not in June, it is on 24 May"), or the one and then not the
# other ("its the 23rd not the 16th")
_NOT_THEN_WHEN = re.compile(rf"\bnot\s+(?:in\s+)?(?P<old>{_A_WHEN})\s*[,;]\s*(?:(?:it['’]?s|its|it is|but|rather|"
                            rf"instead)\s+)*(?P<new>{_A_WHEN})(?![\w:])", re.IGNORECASE)
# ("nt" as texting writes it: "sorry i meant thursday nt wednesday")
_WHEN_NOT_THEN = re.compile(rf"\b(?P<new>{_A_WHEN})\s*,?\s*(?:not|nt)\s+(?:in\s+)?(?P<old>{_A_WHEN})(?![\w:])",
                            re.IGNORECASE)


def dates_taken_back(text: str) -> list[tuple[str, str]]:
    """(the day taken back, the day meant) for each "not X, (it's) Y" and "Y not X" the text says of days ("its the
    23rd not the 16th", "not on the 12th, on the 19th"), as the user wrote them; times of day are left out."""
    return _taken_back(text, "day")


def times_taken_back(text: str) -> list[tuple[str, str]]:
    """(the time taken back, the time meant) for each "not X, (it's) Y" and "Y not X" the text says of times of day
    ("the appointment is at 3:15 pm, not 2:15 pm"), as the user wrote them."""
    return _taken_back(text, "time")


def _taken_back(text: str, kind: str) -> list[tuple[str, str]]:
    out = []
    for pattern in (_NOT_THEN_WHEN, _WHEN_NOT_THEN):
        for m in pattern.finditer(text):
            old = m.group("old").strip()
            new = _the_one_meant(old, m.group("new").strip())
            if new is not None and _when_kind(old) == kind:
                out.append((old, new))
    return out


def _the_one_meant(old: str, new: str) -> str | None:
    """The day or time meant in place of ``old``, with the month ``old`` named where ``new`` is a day alone ("the 3rd
    not the 4th of May" -> "the 3rd of May"); None where the two are no day and day, or time and time."""
    if _when_kind(old) != _when_kind(new):
        return None
    month = _MONTH_NAMED.search(old)
    if month and not _MONTH_NAMED.search(new) and _ORDINAL_ALONE.fullmatch(new):
        return f"{new} of {month.group(0)}"
    return new


def _when_kind(when: str) -> str:
    """"time" for a time of day ("9", "10:30", "at 8pm"), "day" for anything else _A_WHEN reads."""
    lead = _LEAD.match(when)
    # "the 20" is a day ("we leave the 18th - no, the 20"), "at 9" or "9" a time
    if lead is not None and lead.group(0).lower().startswith("the") and re.fullmatch(r"\d{1,2}", when[lead.end():]):
        return "day"
    return "time" if _CLOCK.fullmatch(when[lead.end() if lead else 0:]) else "day"


def corrected_dates(text: str) -> str:
    """The text with a day or a time the user takes back in the same breath replaced by the one they meant:
    "it's tuesday, wait no, wednesday" -> "it's wednesday"; "Thursday Feb 19 at 9... sorry, 10:30" -> "Thursday
    Feb 19 at 10:30". Only a day or time followed at once by words that take it back and another day or time:
    "Tuesday, no idea why" is no correction."""
    def meant(m: re.Match[str]) -> str:
        return _meant(m.group("old"), m.group("new"), m.group(0))
    def across_an_aside(m: re.Match[str]) -> str:
        aside = next(a for a in (m.group("dashed"), m.group("aside"), m.group("checked")) if a is not None)
        if _A_DAY_SAID.search(aside) or _when_kind(m.group("old")) != _when_kind(m.group("new")):
            return m.group(0)
        after = m.string[m.end("new"):m.end("new") + 20]
        if not m.group("tail") and (_ITS_OWN_CLAUSE.match(after) or (re.fullmatch(r"\d{1,2}", m.group("new").strip())
                                                                      and _A_COUNT.match(after))):
            return m.group(0)
        # the words of breaking off read with what follows them ("sorry for the spam" is a courtesy)
        broke_off = _BREAKING_OFF.search(m.string, m.start("old"), m.end("new"))
        if m.group("checked") is not None:
            # taken back with more than a bare "no", and something checked ("no results yet, it's Friday" is not)
            said = m.string[m.start("first"):m.end("checked")]
            return (_meant(m.group("old"), m.group("new"), m.group(0))
                    if _BREAKING_OFF.search(said) and _CHECKED.search(m.group("checked")) else m.group(0))
        taken_back_by_the_dash = m.group("dashed") is not None and bool(m.group("tail") or m.group("then"))
        if not broke_off and not taken_back_by_the_dash:
            return m.group(0)
        return _meant(m.group("old"), m.group("new"), m.group(0))
    def one_not_other(m: re.Match[str]) -> str:
        return _the_one_meant(m.group("old"), m.group("new")) or m.group(0)
    # ("30 April, not 30 March" is left as said: the tagger reads the day and the one it is not, which a stored
    # deadline then gives up)
    return _NOT_THEN_WHEN.sub(one_not_other, _CORRECTED_WHEN.sub(meant, _ASIDE_TAKEN_BACK.sub(across_an_aside, text)))


def _meant(old: str, new: str, said: str) -> str:
    """The day or time meant, for ``said``: ``old`` taken back for ``new``."""
    if _when_kind(old) != _when_kind(new):  # "Friday no 5 people came": no day taken back
        return said
    month = _MONTH_NAMED.search(old)
    day = _ORDINAL_ALONE.fullmatch(new)
    lead = _LEAD.match(old)
    if month and day:  # "on march 14th, no wait its the 15th": on March the 15th
        opening = lead.group(0) if lead else ""
        if re.match(r"\d", old[len(opening):]):  # "the 6th of June, well actually it's the 7th"
            return f"{opening}{day.group(1)} of {month.group(0)}"
        return f"{opening}{month.group(0)} {day.group(1)}"
    # "at 9... sorry, 10:30": keep "at" when the new time does not say it again
    opening = lead.group(0) if lead and not re.match(r"(?:next|this|on|at|by|the)\s", new, re.IGNORECASE) else ""
    return opening + new

