"""What is coming up for the user: a question about their own near future and the plans that answer it.

"What's coming up", "what should I prepare this month", "my priorities for the next six weeks": such a
question shares few words with "User plans: driving test (for 2026-04-22)", so similarity alone leaves the
plan out. A plan carries its own date (the extractor anchors it to the message time and writes it as
"(for 2026-04-22)" or "(for 2026-05)"), so the live ones still ahead can be offered soonest first, whatever
their wording.
"""

from __future__ import annotations

import re
from calendar import monthrange
from datetime import date, datetime

from mnemo.domain.gate import PERSONAL
from mnemo.domain.models import Memory

_AGENDA = re.compile(
    r"\b(?:coming up|upcoming|ahead|prepare|prep|get ready|priorit\w*|to ?do|sort out|schedule|deadlines?|"
    r"due|plans?|planned|agenda|calendar|"
    r"this (?:week|weekend|month|summer|spring|autumn|fall|winter|year)|"
    r"next (?:few |couple of |two |three |four |six |\d+ )?(?:days?|weeks?|months?))\b", re.IGNORECASE)
_TARGET = re.compile(r"\(for (\d{4})-(\d{2})(?:-(\d{2}))?\)")
PLAN_SLOT = "plan"


def is_agenda(query: str) -> bool:
    """A question about the user's own coming days, weeks or months."""
    return bool(_AGENDA.search(query)) and bool(PERSONAL.search(query))


def target_day(memory: Memory) -> date | None:
    """The last day a plan is for: its date, or the end of its month."""
    m = _TARGET.search(memory.content)
    if not m:
        return None
    year, month = int(m.group(1)), int(m.group(2))
    try:  # monthrange and date both refuse a month or day that does not exist
        return date(year, month, int(m.group(3)) if m.group(3) else monthrange(year, month)[1])
    except ValueError:
        return None


def plan_day(memory: Memory) -> date | None:
    """The day a plan is for; None for any other memory, or a plan without an anchored date."""
    return target_day(memory) if memory.subject.partition(":")[0] == PLAN_SLOT else None


def upcoming(memories: list[Memory], now: datetime, limit: int) -> list[Memory]:
    """Stated (not retracted) plans whose day is today or later, soonest first."""
    today = now.date()
    ahead = [(day, m) for m in memories if m.polarity and (day := plan_day(m)) is not None and day >= today]
    return [m for _day, m in sorted(ahead, key=lambda pair: pair[0])][:limit]


def is_past_plan(memory: Memory, now: datetime) -> bool:
    """A plan whose day is behind us ("dentist tomorrow", said last week)."""
    day = plan_day(memory)
    return day is not None and day < now.date()
