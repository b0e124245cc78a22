"""Dates a query names, so search can favour what was said on that day or in that month.

Absolute dates are read ("on 8th December, 2023", "December 8, 2023", "2023-12-08",
"in August 2023"): they mean the same whoever asks and whenever. Given the moment of asking, a month
named without a year ("in June", "the second week of November") is the latest such month that has begun
(issue 15). Other relative dates ("last week") are not read: in a conversation's memories they mostly
name an event's time relative to when it was told, not to when the question is asked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december")
_MONTH = r"(" + "|".join(_MONTHS) + r"|" + "|".join(m[:3] for m in _MONTHS) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
_DAY_MONTH_YEAR = re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}(?:,\s*|\s+){_YEAR}\b", re.IGNORECASE)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\s+{_DAY}(?:,\s*|\s+){_YEAR}\b", re.IGNORECASE)
_ISO_DAY = re.compile(r"\b((?:19|20)\d\d)-(\d\d)-(\d\d)\b")
_MONTH_YEAR = re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE)
# a month's full name after "in", "during", "of", "since" or "early/mid/late" ("may" alone is a verb), not
# followed by a day or a year (those are read above)
_MONTH_ALONE = re.compile(r"\b(?:in|during|of|since|early|mid|late)[\s-]+(" + "|".join(_MONTHS)
                          + r")\b(?!,?\s*(?:\d|(?:19|20)\d\d))", re.IGNORECASE)


@dataclass(frozen=True)
class DateSpan:
    """[start, end) in UTC."""

    start: datetime
    end: datetime

    def contains(self, moment: datetime) -> bool:
        return self.start <= moment < self.end


def _month(name: str) -> int:
    return next(i for i, full in enumerate(_MONTHS, 1) if full.startswith(name.lower().rstrip(".")))


def _day(year: int, month: int, day: int, slack: timedelta) -> DateSpan | None:
    try:
        start = datetime(year, month, day, tzinfo=UTC)
    except ValueError:  # "31 February": not a date, so no span
        return None
    return DateSpan(start - slack, start + timedelta(days=1) + slack)


def _month_span(year: int, month: int, slack: timedelta) -> DateSpan:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
    return DateSpan(start - slack, end + slack)


def date_spans(text: str, slack_days: int = 1, now: datetime | None = None) -> list[DateSpan]:
    """The days and months ``text`` names, each widened by ``slack_days`` on both sides (the asker's
    day is not UTC's day). A month named only as part of a full date counts once, as that day. With
    ``now``, a month named without a year is the latest such month begun by then."""
    slack = timedelta(days=slack_days)
    spans: list[DateSpan] = []
    taken: list[tuple[int, int]] = []
    for pattern, order in ((_DAY_MONTH_YEAR, "dmy"), (_MONTH_DAY_YEAR, "mdy")):
        for m in pattern.finditer(text):
            day, month = (m.group(1), m.group(2)) if order == "dmy" else (m.group(2), m.group(1))
            span = _day(int(m.group(3)), _month(month), int(day), slack)
            taken.append(m.span())  # an impossible day names no month either
            if span is not None:
                spans.append(span)
    for m in _ISO_DAY.finditer(text):
        if 1 <= int(m.group(2)) <= 12:
            span = _day(int(m.group(1)), int(m.group(2)), int(m.group(3)), slack)
            if span is not None:
                spans.append(span)
    for m in _MONTH_YEAR.finditer(text):
        if any(start <= m.start() < end for start, end in taken):
            continue
        spans.append(_month_span(int(m.group(2)), _month(m.group(1)), slack))
    if now is not None:
        for m in _MONTH_ALONE.finditer(text):
            month = _month(m.group(1))
            spans.append(_month_span(now.year if month <= now.month else now.year - 1, month, slack))
    return spans
