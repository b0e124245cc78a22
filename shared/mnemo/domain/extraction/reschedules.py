"""A plan moved to another date: "Baner opening is delayed, landlord issues. Now it will be January next year",
"The IELTS they change the date, now is 19 of March, not the 12".

The tagger reads such a message as a deadline or as nothing, and the stored plan keeps its old date: a later
block tells the user to get ready for October. A message that says a date moved, and names what moved by a word
of a stored plan, ends that plan and holds it again at the new date. Which plan is the stored facts' business
(services/extraction.py); here are the exact readings: that a date moved, to when, and what a plan is about.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from mnemo.domain.conflicts import plan_value
from mnemo.domain.extraction.dates import (
    WEEKDAY_NAME,
    anchor,
    dates_taken_back,
    names_a_month,
    times_taken_back,
    without_dates,
)
from mnemo.domain.extraction.segment import sentence_around
from mnemo.domain.text import terms

# the words that say a date moved ("delayed", "pushed back", "they change the date", "now it will be")
_MOVED = re.compile(
    r"\b(?:delayed|postponed|pushed\s+(?:back|out|to)|moved\s+(?:it\s+)?(?:to|back|forward)|rescheduled|"
    # the thing moved named after the verb: "moved the wedding up to September 26th", "pushed my exam back to"
    r"(?:moved|pushed|bumped|brought)\s+(?P<thing>(?:the|our|my|their|his|her)\s+(?:[\w'-]+\s+){1,2}?)"
    r"(?:up|back|forward|out)\s+to|"
    r"brought\s+forward|(?:changed?|changing|move[ds]?)\s+the\s+date|new\s+date|date\s+(?:changed|moved|is\s+now)|"
    # said of the plan as what happened to it, the new date in the next words: "Surgery got moved. May 4 now."
    r"(?:got|been|was|were|is|are)\s+(?:moved|pushed\s+back|postponed|rescheduled|delayed)(?=\s*[,.;!?])|"
    r"moved\s+it(?=\s*[,.;!?]))"
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
        pause = re.match(r"\s*[,.;!?]+\s*", text[at:at + 6])
        now = _NOW.match(text, at) if pause else None
        # the new date said after a pause on its own: "Surgery got moved. May 4 now."
        clause = _CLAUSE.match(text, now.end() if now else at + pause.end() if pause else at)
        said = re.split(r"\s+(?:but|and|because|so)\s+", clause.group(0) if clause else "", maxsplit=1)[0]
        said = re.sub(r"\s+now$", "", said.strip(), flags=re.IGNORECASE)
        said = re.sub(r"^\s*(?:to|until|till|for|on|in|it['’]?s|is|will be)\s+", "", said, flags=re.IGNORECASE).strip()
        iso = anchor(said, when, "future") if 0 < len(said.split()) <= WORDS_OF_A_DATE else None
        if iso is not None:
            return iso, said
    return None


# the day of a stored plan, as its statement holds it ("User plans: confirmation (for 2026-05-16).")
_PLAN_DAY = re.compile(r"\(for (\d{4})-(\d{2})(?:-(\d{2}))?\)")


def taken_back(text: str, when: datetime) -> list[tuple[str, str, str]]:
    """(the day taken back, the day meant, its words) for each day the text corrects by naming the one it is not
    ("actually no its the 23rd not the 16th, i read the letter wrong", "not in June, it is on 24 May"): the day
    taken back as an ISO date, a month ("2026-06") or "--16" (the 16th of any month); the day meant as an ISO date,
    or "--23" where its words name no month (it is then in the month of the plan it moves)."""
    out = []
    for old, new in dates_taken_back(text):
        was_day, meant_day_ = _A_WEEKDAY.search(old), _A_WEEKDAY.search(new)
        at = text.find(old)
        sentence = sentence_around(text, at, at + len(old)) if at >= 0 else text
        if (was_day and meant_day_ and not re.search(r"\d", old + new) and corrects(text)
                and was_day.group(0).lower()[:3] != meant_day_.group(0).lower()[:3]
                and "?" not in sentence and not _NOT_SETTLED.search(sentence)
                and not _SOMEONE_ELSES_TIME.search(sentence)):
            # a weekday is no correction of a date ("on Saturday, not Sunday" is a preference), unless said as one
            # ("sorry i meant thursday nt wednesday"): the stored plan on that weekday, held on the one meant
            out.append((f"wd:{_weekday(was_day.group(0))}", f"wd:{_weekday(meant_day_.group(0))}", new))
            continue
        if not re.search(r"\d", new) or (not re.search(r"\d", old) and not names_a_month(old)):
            continue
        iso, old_iso = anchor(new, when, "future"), anchor(old, when, "future")
        if iso is None or old_iso is None or len(iso) != len("2026-01-01"):
            continue
        was = old_iso if names_a_month(old) else f"--{old_iso[-2:]}"
        out.append((was, iso if names_a_month(new) else f"--{iso[-2:]}", new))
    return out


_NOT_SETTLED = re.compile(r"\b(?:refus\w*|said\s+no|no\s+way|i['’]ll\s+ask|could|can\s+you|ok\s+for\s+you|wanted|"
                          r"wants|asked|asks|would|suggested|offered|if)\b", re.IGNORECASE)
_SOMEONE_ELSES_TIME = re.compile(r"\b(?:(?i:my\s+[\w-]+['’]s|his|her|their)|[A-Z][\w-]+['’]s)\s+(?:[\w-]+\s+){0,2}"
                                 r"(?i:flight|train|bus|appointment|class|shift|meeting|call|lesson|game|match|party)\b")


# a time of day as the user writes one: "2:15 pm", "14.30", "9am", "at 8"
_CLOCK_TIME = re.compile(r"(?P<hour>\d{1,2})(?:[:.](?P<minute>\d{2}))?\s*(?P<half>[ap]\.?m\.?)?", re.IGNORECASE)


def times_corrected(text: str) -> list[tuple[re.Pattern[str], str]]:
    """For each time of day the text takes back by naming it ("the appointment is at 3:15 pm, not 2:15 pm"), a pattern
    that finds the time taken back in a stored plan's words and the time meant. A time with no minutes needs its am
    or pm to be found ("at 2" is any number). None in a sentence that asks, weighs or refuses a time ("is 3:15 pm not
    2:15 pm ok for you?", "dentist wanted 3:15 pm, not 2:15 pm, but I refused") or speaks of someone else's ("my
    sister's flight lands at 4:15 pm, not 2:15 pm")."""
    out: list[tuple[re.Pattern[str], str]] = []
    for old, new in times_taken_back(text):
        at = text.find(old)
        sentence = sentence_around(text, at, at + len(old)) if at >= 0 else text
        if "?" in sentence or _NOT_SETTLED.search(sentence) or _SOMEONE_ELSES_TIME.search(sentence):
            continue
        was = _CLOCK_TIME.search(old)
        if was is None or (was.group("minute") is None and was.group("half") is None):
            continue
        hour, minute = was.group("hour").lstrip("0") or "0", was.group("minute")
        half = rf"{was.group('half')[0]}\.?m\.?" if was.group("half") else r"[ap]\.?m\.?"
        # with its minutes the stored time may lack the am or pm ("2:15"); without, it needs the one said
        said = rf"(?<![\d:.])0?{hour}" + (rf"[:.]{minute}(?:\s*{half})?" if minute else rf"(?::00)?\s*{half}")
        meant = re.sub(r"^(?:at|@|by|from)\s+", "", new, flags=re.IGNORECASE)
        out.append((re.compile(said + r"(?![\w:])", re.IGNORECASE), meant))
    return out


def retimed(content: str, was: re.Pattern[str], meant: str) -> str:
    """A stored plan's words with the time taken back (``was``) replaced by the time meant, keeping the stored time's
    am or pm where the user said none ("3:15" for "2:15 pm" is "3:15 pm")."""
    def replace(m: re.Match[str]) -> str:
        half = re.search(r"[ap]\.?m\.?$", m.group(0), re.IGNORECASE)
        said = _CLOCK_TIME.search(meant)
        if re.search(r"[ap]\.?m\b", meant, re.IGNORECASE) or half is None or said is None:
            return meant
        # the half of the day nearest the stored time: "1:30" for "11:30 am" is 1:30 pm, "11:30" for "12:30 pm" 11:30 am
        stored = _minutes(m.group(0))
        hour, minute = int(said.group("hour")) % 12, int(said.group("minute") or 0)
        am, pm = hour * 60 + minute, (hour + 12) * 60 + minute
        def apart(at: int) -> int:
            return min(abs(at - stored), 24 * 60 - abs(at - stored))
        return f"{meant} {'am' if apart(am) <= apart(pm) else 'pm'}"
    return was.sub(replace, content, count=1)


def _minutes(time: str) -> int:
    """Minutes after midnight of a time of day as written ("2:15 pm" -> 855, "12:30 pm" -> 750)."""
    said = _CLOCK_TIME.search(time)
    if said is None:
        return 0
    hour, minute = int(said.group("hour")) % 12, int(said.group("minute") or 0)
    afternoon = bool(said.group("half")) and said.group("half").lower().startswith("p")
    return (hour + (12 if afternoon else 0)) * 60 + minute


# the words of a correction: a day taken back with them is a plan's day corrected, not a choice between days ("For the
# team dinner I can do the 12th, not the 14th")
_CORRECTING = re.compile(r"\b(?:actually|sorry|i\s+mean|i\s+meant|my\s+mistake|my\s+bad|mistake|correction|wrong|"
                         r"misread|mixed\s+up|typo|oops|no\s+wait|wait\s+no)\b", re.IGNORECASE)


def corrects(text: str) -> bool:
    """The text says it corrects something said before."""
    return _CORRECTING.search(text) is not None


def on_the_day(content: str, day: str) -> str | None:
    """The ISO date of a stored plan that is for that day (an ISO date, a month, or "--DD": that day of any month),
    or None."""
    m = _PLAN_DAY.search(content)
    if m is None:
        return None
    held = "-".join(g for g in m.groups() if g)
    if day.startswith("wd:"):  # a weekday: a plan held on a date that is one
        return held if m.group(3) and date.fromisoformat(held).weekday() == int(day[3:]) else None
    return held if (m.group(3) == day[2:] if day.startswith("--") else held.startswith(day)) else None


def meant_day(held: str, meant: str) -> str:
    """The ISO date a correction means for a plan held on ``held``: "--23" is the 23rd of the plan's month; "wd:3"
    the Thursday of the plan's week (the day after a Wednesday taken back, four after a Monday)."""
    if meant.startswith("wd:"):
        on = date.fromisoformat(held)
        return (on + timedelta(days=int(meant[3:]) - on.weekday())).isoformat()
    return f"{held[:7]}-{meant[2:]}" if meant.startswith("--") else meant


_A_WEEKDAY = re.compile(rf"\b{WEEKDAY_NAME}\b", re.IGNORECASE)


def _weekday(name: str) -> int:
    """Monday 0 .. Sunday 6, from a weekday's name as users write it ("wednesday", "Thu", "weds")."""
    return ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].index(name.lower()[:3])


def plan_topic(content: str) -> set[str]:
    """The words of what a plan is about, its dates and the words every plan shares left out."""
    return set(terms(without_dates(plan_value(content)))) - _PLAN_WORDS


def moved_plan_value(content: str, words: str) -> str:
    """The plan's value at its new date: "opening in October" moved to "January next year" -> "opening, now
    January next year"."""
    topic = re.sub(r"(?:\s+(?:in|on|at|for|by|from|to|the|of|until|till|and|is|are|was|will|be))+\s*$", "",
                   without_dates(plan_value(content)), flags=re.IGNORECASE)
    # the words a date stood after, where it was taken out ("flying to Lisbon on the  for a wedding")
    topic = re.sub(r"\b(?:on|in|at|by|until|till)(?:\s+the)?\s+(?=(?:for|to|with|and|because|,|\.|$)\b|[,.])", "",
                   topic, flags=re.IGNORECASE)
    return " ".join(topic.split()).strip(" ,.") + f", now {words}"


# a plan said to be off, named before the words ("And Valencia is cancelled too", "the dentist got cancelled", "the
# BBQ is off") or after them ("we cancelled the Lisbon trip"); not for one day only ("yoga was cancelled today": a
# routine's evening), not asked about, and not someone else's ("my mum's appointment was cancelled")
# where a plan's name ends: a pause, the end, or the reason after it
_AT_A_PAUSE = r"(?=\s*(?:[,.;:!?\n]|$|\s+(?:because|bc|cuz|since|as|so|and)\b))"
_OFF = r"(?:cancel+ed|called\s+off|scrapped)"
_OFF_AFTER_NAME = re.compile(
    r"(?:^|[,.;:!?\n]\s*|\b(?:and|but|so|also|oh|well)\s+)(?P<name>(?:[\w'’-]+\s+){1,4}?)(?:trip\s+|plans?\s+)?"
    rf"(?:is|are|was|were|got|has\s+been|have\s+been|'s)\s+(?:now\s+|also\s+)?(?:{_OFF}|off)"
    rf"(?:\s+too|\s+as\s+well|\s+now)?{_AT_A_PAUSE}", re.IGNORECASE)
_OFF_BEFORE_NAME = re.compile(
    rf"\b(?:we|i)\s+(?:have\s+|['’]ve\s+|had\s+to\s+)?{_OFF}\s+(?:the|our|my)\s+(?P<name>[\w'’-]+(?:\s+[\w'’-]+){{0,3}}?)"
    + _AT_A_PAUSE, re.IGNORECASE)
# ... or said not to happen, by its name: "So Tulum isn't going to happen anymore", "the Lisbon trip fell through", "no
# Highland Show for us this year"
_NOT_HAPPENING_AFTER_NAME = re.compile(
    r"(?:^|[,.;:!?\n]\s*|\b(?:and|but|so|also|oh|well)\s+)(?P<name>(?:[\w'’-]+\s+){1,4}?)(?:trip\s+|plans?\s+)?"
    r"(?:(?:(?:is|are|was|were|'s)\s+(?:not|never)|(?:isn|aren|wasn|won)['’]?t)\s+(?:going\s+to\s+|gonna\s+)?"
    r"(?:happen(?:ing)?|go(?:ing)?\s+ahead)(?:\s+(?:anymore|any\s+more|after\s+all|now))?|"
    r"(?:fell|falls|has\s+fallen|have\s+fallen)\s+through)" + _AT_A_PAUSE, re.IGNORECASE)
# (a named event, not a meal or a drink: "no dinner for me, I'm fasting" ends no Friday dinner)
_NONE_FOR_US = re.compile(
    r"\bno\s+(?P<name>(?:[A-ZÀ-Ý][\w'’-]*(?:\s+[A-ZÀ-Ý][\w'’-]*){0,3})|(?i:(?:[\w'’-]+\s+){0,2}?(?:trip|show|holiday|"
    r"festival|concert|wedding|party|match|game|retreat|tour|cruise|camp|fair|gig|reunion)))\s+(?i:for\s+(?:us|me))\b"
    r"(?i:\s+this\s+(?:year|time|summer|spring|autumn|winter))?" + _AT_A_PAUSE)
# ... or said as a plan the user had, then a "but" that says it will not happen: "We had intended to travel to Furano
# in Hokkaido in August. However, my knee will not permit such a journey"; "I'd planned to visit mum in May but I
# can't now". Not a dream come true ("We'd always wanted to go to Japan but never had the money, so this trip is a
# dream") nor a plan kept in a smaller way ("I had planned to run it in under 4 hours, though my knee is sore")
GIVEN_UP_AFTER = re.compile(
    r"[^!?\n]{0,200}?\b(?:but|however|though|unfortunately|sadly)\b[^!?\n]{0,100}?(?:\b(?:not|cannot|unable|no\s+longer|"
    r"cancel\w*|called\s+off|fell\s+through|impossible|off)\b|n['’]t\b)", re.IGNORECASE)
HAD_INTENDED = re.compile(
    r"\b(?:i|we)\s*(?:had|['’]d)\s+(?:originally\s+|really\s+)?(?:intended|planned|hoped|meant|been\s+planning|"
    r"been\s+hoping)\s+to\s+(?P<name>[\w'’-]+(?:\s+[\w'’-]+){0,5})", re.IGNORECASE)
_ONE_DAY = re.compile(r"^\W*(?:today|tonight|tomorrow|this\s+(?:week|weekend|morning|evening|afternoon)|"
                      r"on\s+\w+day)\b", re.IGNORECASE)
# said as what may happen, not what did: "If the Lisbon trip is cancelled, can I get my money back?"
_MAY_HAPPEN = re.compile(r"(?:^|[.!?\n]\s*)(?:[\w'’]+\s+){0,2}?(?:if|in case|what if|worst case|suppose|unless)\b"
                         r"[^.!?\n]*$", re.IGNORECASE)
_NOT_THE_USERS = re.compile(r"\b(?:\w+['’]s|his|her|their|your)\s+(?:[\w'-]+\s+){0,3}$", re.IGNORECASE)
_NO_PLAN_WORDS = frozenset(terms("it that this everything all the our my we i and too also now"))
# what asks after a statement, in the clause the question mark ends: "the party is cancelled, are you sure?", "so the
# BBQ is cancelled, or did I misread the email?", "the trip is off, since when?"; not a later clause of its own ("So
# Tulum isn't going to happen anymore, ..., so May is just wide open now, which feels spacious?")
_TAG_QUESTION = re.compile(r"^\s*(?:or|right|really|are|is|am|was|were|do|does|did|have|has|can|could|will|would|"
                           r"since\s+when|why|how|what|isn['’]?t|aren['’]?t|no|yes|yeah|huh|eh)\b", re.IGNORECASE)


def _asked(after: str) -> bool:
    """The sentence after a statement ends in a question mark that asks about it: at once, or after a clause that asks
    it again (_TAG_QUESTION)."""
    end = re.search(r"[.!?\n]|$", after)
    if end is None or end.group(0) != "?":
        return False
    clauses = re.split(r"[,;]", after[:end.start()])
    return len(clauses) == 1 or bool(_TAG_QUESTION.match(clauses[-1]))


def called_off_plans(text: str) -> list[str]:
    """The words naming each plan the text says is off (the names, for matching the user's stored plans)."""
    out = []
    for pattern in (_OFF_AFTER_NAME, _OFF_BEFORE_NAME, _NOT_HAPPENING_AFTER_NAME, _NONE_FOR_US, HAD_INTENDED):
        for m in pattern.finditer(text):
            name = m.group("name").strip()
            if pattern is HAD_INTENDED and not GIVEN_UP_AFTER.match(text, m.end()):
                continue
            if _asked(text[m.end():]):
                continue
            if (_ONE_DAY.match(text[m.end():]) or _NOT_THE_USERS.search(text[max(0, m.start("name") - 30):
                                                                               m.start("name")] + name + " ")
                    or _MAY_HAPPEN.search(text[:m.end("name")])
                    or not set(terms(name)) - _NO_PLAN_WORDS):
                continue
            out.append(name)
    return out
