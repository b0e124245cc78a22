"""Summaries of one topic of episodic memories: a few distinct, true facts (the Summariser port, R9).

The offline summariser writes no free prose. It reads each episode for what it can check (the
date, a quantity with its unit, a named place, a companion, and what is left once those are taken
out: what the user did), then states one kind of claim per fact, so no two facts of a topic say the
same thing:

- habit: what the user does, how many times, how often (per week or per month, from the dates);
- span: the first and the latest date, and the longest break when there is one;
- quantity: the range and the typical (median) value of the quantity most episodes state;
- company: where and with whom, when episodes say so;
- trend: the direction the quantity has moved in, when the dates explain enough of it.

Every fact carries the ids of the episodes it was drawn from. ``unsupported_claims`` reads the same
kinds of claims out of any text (an LLM's included) and says which ones its sources do not bear out.
"""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from itertools import pairwise

import numpy as np
import numpy.typing as npt

from mnemo.domain.models import Memory

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
_UNITS = {"km": "km", "kilometres": "km", "kilometers": "km", "kilometre": "km", "kilometer": "km",
          "mi": "miles", "mile": "miles", "miles": "miles", "m": "m", "metres": "m", "meters": "m",
          "min": "minutes", "mins": "minutes", "minute": "minutes", "minutes": "minutes",
          "h": "hours", "hr": "hours", "hrs": "hours", "hour": "hours", "hours": "hours",
          "lap": "laps", "laps": "laps", "page": "pages", "pages": "pages", "kg": "kg", "steps": "steps",
          "reps": "reps", "eur": "EUR", "euro": "EUR", "euros": "EUR", "usd": "USD", "dollars": "USD",
          "gbp": "GBP", "pounds": "GBP"}
_CURRENCY = {"€": "EUR", "$": "USD", "£": "GBP"}
_SYMBOL = {v: k for k, v in _CURRENCY.items()}
# how each unit's trend reads: more of a distance or a time is "longer", more money is "more"
_LONGER = {"km", "miles", "m", "minutes", "hours"}
_NUMBER = r"(\d+(?:[.,]\d+)?)"
_QUANTITY = re.compile(r"(?:([€$£]) ?" + _NUMBER + r"|" + _NUMBER + r" ?(" + "|".join(
    sorted(_UNITS, key=len, reverse=True)) + r")\b)", re.IGNORECASE)
_PLACE = re.compile(r"\b(along|in|at|around|near|through|by|on) (the )?([A-Z][\w'’-]+(?: [A-Z][\w'’-]+)*)")
_COMMON_PLACE = re.compile(r"\b(along|in|at|around|by|on) the (river|park|gym|pool|beach|lake|track|seafront|"
                           r"canal|woods|forest|hills|trail|promenade)\b", re.IGNORECASE)
_COMPANION = re.compile(r"\bwith (?:my )?([A-Z][\w'’-]+(?: (?:and|&) [A-Z][\w'’-]+)?|(?:sister|brother|partner|"
                        r"wife|husband|friend|friends|dad|mum|mom|mother|father|son|daughter|kids|colleagues?))\b")
_WHEN = re.compile(r"\b(?:on day \d+|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?|"
                   r"(?:this|yesterday|last) (?:morning|afternoon|evening|night)|yesterday|today|tonight|"
                   r"on \d{4}-\d{2}-\d{2}|on \d{1,2} (?:" + "|".join(MONTHS) + r")(?: \d{4})?|"
                   r"in the (?:morning|afternoon|evening)|before (?:work|bed)|after work)\b",
                   re.IGNORECASE)
_SUBJECT = re.compile(r"^(?:user|i|we)\b\s*", re.IGNORECASE)
_DANGLING = {"for", "of", "and", "did", "at", "in", "with", "to", "on", "a", "an", "the", "each", "way", "by",
             "got", "through", "doing", "paid", "spent", "costing", "for a"}
_PAYING = {"spent", "paid", "costing", "cost"}
_UP_WORDS = {True: "longer", False: "shorter"}
_MORE_WORDS = {True: "more", False: "less"}
_COUNT_WORDS = {True: "more", False: "fewer"}


@dataclass(frozen=True)
class SummaryFact:
    """One summary statement, the claim it makes (its slot within the topic) and its sources."""

    text: str
    kind: str  # habit | span | quantity | company | trend (an LLM's facts: llm-<n>)
    sources: tuple[str, ...]  # memory ids of the episodes it was drawn from
    author: str = "rule-based-summariser"  # who wrote it (an LLM summariser's fallback writes as the rules)


@dataclass(frozen=True)
class Reading:
    """What one episode says that can be checked."""

    memory_id: str
    day: date
    quantity: tuple[float, str] | None
    place: tuple[str, str] | None  # (preposition, name)
    companion: str | None
    action: str  # what the user did, with the quantity, place, companion and time taken out
    clean: bool  # the action reads whole (no verb left without its object)


def _float(text: str) -> float:
    return float(text.replace(",", "."))


def quantities(text: str) -> list[tuple[float, str]]:
    """Every number with a unit in ``text``, hours turned into minutes."""
    found = []
    for symbol, amount, number, unit in _QUANTITY.findall(text):
        value, name = (_float(amount), _CURRENCY[symbol]) if symbol else (_float(number), _UNITS[unit.lower()])
        if name == "hours":
            value, name = value * 60, "minutes"
        found.append((value, name))
    return found


def read(memory: Memory) -> Reading:
    text = memory.content.strip().rstrip(".!")
    found = quantities(text)
    place_match = _PLACE.search(text) or _COMMON_PLACE.search(text)
    place = None
    if place_match and place_match.groups()[-1].lower() not in _NOT_NAMES:
        groups = place_match.groups()
        place = (groups[0].lower(), ("the " + groups[-1].lower()) if len(groups) == 2 else
                 ((groups[1] or "") + groups[2]))
    companion_match = _COMPANION.search(text)
    companion = companion_match.group(1) if companion_match else None
    action = _SUBJECT.sub("", text)
    clean = not (set(action.lower().split()) & _PAYING)
    action = re.sub(_QUANTITY.pattern + r"(?: of\b)?", " ", action, flags=re.IGNORECASE)
    for pattern in (_WHEN, _COMPANION, _PLACE, _COMMON_PLACE):
        action = pattern.sub(" ", action)
    action = re.sub(r"\s*[,:;()]\s*", " ", action)
    words = action.split()
    while words and words[-1].lower() in _DANGLING:
        words.pop()
    if len(words) >= 2 and words[-2].lower() in {"and"} | _DANGLING and words[-1].lower() in {"did", "paid"}:
        words = words[:-2]
    action = " ".join(words)
    action = action[:1].lower() + action[1:]
    return Reading(memory.memory_id, memory.created_at.date(), found[0] if found else None, place, companion,
                   action, clean and bool(action))


def spoken(day: date) -> str:
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}"


def _number(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".") if value != round(value) else str(round(value))


def _amount(value: float, unit: str) -> str:
    return f"{_SYMBOL[unit]}{_number(value)}" if unit in _SYMBOL else f"{_number(value)} {unit}"


def _span_of(low: float, high: float, unit: str) -> str:
    """'5 to 12 km', '€40 to €85'."""
    return f"{_amount(low, unit)} to {_amount(high, unit)}" if unit in _SYMBOL else \
        f"{_number(low)} to {_amount(high, unit)}"


def _rate(count: int, days: list[date]) -> tuple[float, str]:
    span = max(7, (days[-1] - days[0]).days + 1)
    weekly = count / (span / 7)
    return (weekly, "week") if weekly >= 1 else (weekly * 30.44 / 7, "month")


@dataclass(frozen=True)
class Trend:
    rising: bool
    since: date  # where the two halves of the history split best
    before: float
    after: float


def trend(points: Sequence[tuple[date, float]], min_t: float = 2.5, min_change: float = 0.15) -> Trend | None:
    """A trend when time explains the values (t-statistic of the correlation) and moves them enough."""
    if len(points) < 8:
        return None
    ordered = sorted(points)
    x = np.asarray([d.toordinal() for d, _ in ordered], dtype=np.float64)
    y = np.asarray([v for _, v in ordered], dtype=np.float64)
    if np.std(x) == 0 or np.std(y) == 0:
        return None
    r = float(np.corrcoef(x, y)[0, 1])
    t = abs(r) * math.sqrt((len(y) - 2) / max(1e-9, 1 - r * r))
    slope = r * np.std(y) / np.std(x)
    change = abs(slope * (x[-1] - x[0])) / max(1e-9, float(np.mean(y)))
    if t < min_t or change < min_change:
        return None
    # the month from which the values differ most from those before it (both sides at least a quarter)
    best, split = -1.0, len(y) // 2
    for k in range(len(y) // 4, len(y) - len(y) // 4):
        gap = abs(float(np.mean(y[k:]) - np.mean(y[:k])))
        if gap > best:
            best, split = gap, k
    since = ordered[split][0]
    return Trend(rising=r > 0, since=date(since.year, since.month, 1),
                 before=float(np.median(y[:split])), after=float(np.median(y[split:])))


def _trend_word(unit: str, rising: bool) -> str:
    if unit in _LONGER:
        return _UP_WORDS[rising]
    if unit in _SYMBOL:
        return _MORE_WORDS[rising]
    return _COUNT_WORDS[rising]


class RuleBasedSummariser:
    """The offline summariser: 2 to 5 facts, each a different kind of claim, from one topic."""

    name = "rule-based-summariser"

    def __init__(self, min_place_share: float = 0.2, min_companion_share: float = 0.15,
                 min_break_days: int = 14) -> None:
        self.min_place_share = min_place_share
        self.min_companion_share = min_companion_share
        self.min_break_days = min_break_days

    def summarise(self, memories: list[Memory], vectors: npt.NDArray[np.float32]) -> list[SummaryFact]:
        readings = [read(m) for m in memories]
        ids = tuple(r.memory_id for r in readings)
        days = sorted(r.day for r in readings)
        action = self._action(readings, vectors)
        facts: list[SummaryFact] = []
        rate, per = _rate(len(readings), days)
        facts.append(SummaryFact(f"User {action} {len(readings)} times, about {_number(round(rate, 1))} "
                                 f"times a {per}.", "habit", ids))
        facts.append(SummaryFact(self._span(action, days), "span", ids))
        unit_counts = Counter(r.quantity[1] for r in readings if r.quantity)
        unit = unit_counts.most_common(1)[0][0] if unit_counts else None
        measured = [r for r in readings if r.quantity and r.quantity[1] == unit]
        if unit and len(measured) * 2 >= len(readings):
            values = [r.quantity[0] for r in measured if r.quantity]
            low, high, typical = min(values), max(values), statistics.median(values)
            facts.append(SummaryFact(
                f"Each time User {action}, it was {_span_of(low, high, unit)}, "
                f"typically {_amount(typical, unit)}.", "quantity", tuple(r.memory_id for r in measured)))
            found = trend([(r.day, r.quantity[0]) for r in measured if r.quantity])
            if found:
                month = f"{MONTHS[found.since.month - 1]} {found.since.year}"
                facts.append(SummaryFact(
                    f"Since {month}, each time User {action} it has been {_trend_word(unit, found.rising)}: "
                    f"about {_amount(found.before, unit)} before, about {_amount(found.after, unit)} since.",
                    "trend", tuple(r.memory_id for r in measured)))
        company = self._company(action, readings)
        if company:
            facts.insert(3 if len(facts) > 3 else len(facts), company)
        return facts

    @staticmethod
    def _action(readings: list[Reading], vectors: npt.NDArray[np.float32]) -> str:
        """The most common way the episodes say what was done; ties go to the most central episode."""
        counts = Counter(r.action for r in readings if r.clean)
        if not counts:
            counts = Counter(r.action for r in readings if r.action)
        if not counts:
            return "logged an event"
        centrality = vectors @ vectors.mean(axis=0) if len(vectors) == len(readings) else np.zeros(len(readings))
        best_centre = {r.action: float(c) for r, c in sorted(zip(readings, centrality, strict=True),
                                                              key=lambda rc: float(rc[1]))}
        return max(counts, key=lambda a: (counts[a], best_centre.get(a, 0.0)))

    def _span(self, action: str, days: list[date]) -> str:
        text = f"User first {action} on {spoken(days[0])}; the latest was on {spoken(days[-1])}"
        gaps = [(b - a).days for a, b in pairwise(days)]
        if gaps:
            longest = max(gaps)
            typical = statistics.median(gaps)
            if longest >= max(self.min_break_days, 4 * typical):
                k = gaps.index(longest)
                text += (f", with a break of {longest} days between {spoken(days[k])} and "
                         f"{spoken(days[k + 1])}")
        return text + "."

    def _company(self, action: str, readings: list[Reading]) -> SummaryFact | None:
        n = len(readings)
        places = Counter(r.place[1] for r in readings if r.place)
        prep = {name: Counter(r.place[0] for r in readings if r.place and r.place[1] == name).most_common(1)[0][0]
                for name in places}
        where = [f"{prep[p]} {p}" for p, c in places.most_common(3) if c >= self.min_place_share * n]
        people = Counter(r.companion for r in readings if r.companion)
        who = [(p, c) for p, c in people.most_common(3) if c >= self.min_companion_share * n]
        if not where and not who:
            return None
        parts = []
        if where:
            parts.append("mostly " + " or ".join(where))
        if who:
            parts.append(" and ".join(f"with {p} {c} times" for p, c in who))
        sources = tuple(r.memory_id for r in readings
                        if (r.place and f"{prep[r.place[1]]} {r.place[1]}" in where)
                        or (r.companion and r.companion in dict(who)))
        return SummaryFact(f"User {action} " + ", ".join(parts) + ".", "company", sources)


# -- checking a summary against its sources (an LLM's facts, and the offline ones in tests) --------

_DATE_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DATE_DMY = re.compile(r"\b(\d{1,2}) (" + "|".join(MONTHS) + r") (\d{4})\b", re.IGNORECASE)
_DATE_MDY = re.compile(r"\b(" + "|".join(MONTHS) + r") (\d{1,2}),? (\d{4})\b", re.IGNORECASE)
_COUNT = re.compile(r"\b(\d+) times\b(?! (?:a|per|each) (?:week|month))", re.IGNORECASE)
_RATE = re.compile(_NUMBER + r" (?:times )?(?:a|per|each) (week|month)", re.IGNORECASE)
_NAME = re.compile(r"(?<=[a-z,:;] )(?:the )?([A-Z][\w'’-]+(?: [A-Z][\w'’-]+)*)")
_RISING = {"longer", "more", "further", "increased", "grown", "risen", "higher", "bigger"}
_FALLING = {"shorter", "fewer", "less", "decreased", "dropped", "fallen", "lower", "smaller"}
_NOT_NAMES = {"user", *(m.lower() for m in MONTHS), "monday", "tuesday", "wednesday", "thursday", "friday",
              "saturday", "sunday"}


def dates_in(text: str) -> list[date]:
    month = {m.lower(): i + 1 for i, m in enumerate(MONTHS)}
    found = []
    try:
        found += [date(int(y), int(m), int(d)) for y, m, d in _DATE_ISO.findall(text)]
        found += [date(int(y), month[m.lower()], int(d)) for d, m, y in _DATE_DMY.findall(text)]
        found += [date(int(y), month[m.lower()], int(d)) for m, d, y in _DATE_MDY.findall(text)]
    except ValueError:
        found.append(date.min)  # an impossible date is a claim no source supports
    return found


def unsupported_claims(text: str, sources: Sequence[Memory]) -> list[str]:
    """The checkable claims of ``text`` that ``sources`` do not bear out; empty when all hold.

    Dates must be source dates, counts the number of sources (or of those naming what the text
    names), rates within 30% of the sources', quantities within the sources' range, names (places,
    people) in the sources' words, and a trend in the direction the sources' values move.
    """
    if not sources:
        return ["no sources"]
    problems: list[str] = []
    own_days = {m.created_at.date() for m in sources}
    for day in dates_in(text):
        if not any(abs((day - d).days) <= 1 for d in own_days):
            problems.append("date")
    plain = _DATE_ISO.sub(" ", _DATE_DMY.sub(" ", _DATE_MDY.sub(" ", text)))
    words = " ".join(m.content.lower() for m in sources)
    names = [n for n in _NAME.findall(plain) if n.lower() not in _NOT_NAMES]
    problems += ["name" for n in names if n.lower() not in words]
    allowed = {len(sources)} | {sum(1 for m in sources if n.lower() in m.content.lower()) for n in names}
    problems += ["count" for c in _COUNT.findall(plain) if int(c) not in allowed]
    days = sorted(own_days)
    for value, per in _RATE.findall(plain):
        true, unit = _rate(len(sources), days)
        true = true if unit == per.lower() else (true * 7 / 30.44 if unit == "month" else true * 30.44 / 7)
        if abs(_float(value) - true) > max(0.3 * true, 0.3):
            problems.append("rate")
    values: dict[str, list[float]] = {}
    points: dict[str, list[tuple[date, float]]] = {}
    for m in sources:
        for value, unit in quantities(m.content):
            values.setdefault(unit, []).append(value)
            points.setdefault(unit, []).append((m.created_at.date(), value))
    for value, unit in quantities(plain):
        own = values.get(unit)
        if not own or not min(own) * 0.95 - 0.5 <= value <= max(own) * 1.05 + 0.5:
            problems.append("quantity")
    said = set(re.findall(r"[a-z]+", plain.lower()))
    if said & (_RISING | _FALLING):
        directions = {t.rising for t in (trend(p, min_t=2.0, min_change=0.1) for p in points.values()) if t}
        if (said & _RISING and True not in directions) or (said & _FALLING and False not in directions):
            problems.append("trend")
    return problems

