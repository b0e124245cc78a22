"""The always-injected profile (SPEC R2) as a derived view of the user's live facts.

The profile holds nothing of its own: every value is the value of a profile slot (docs/slots.md)
held by an active, unexpired, user-scoped memory, so building it again from the memories always
gives the same profile. A memory that fills no profile slot never shows in it, whatever its
category; a stay, a trip or a visit is never the home location.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from datetime import datetime

from mnemo.domain.extraction.slots import RETRACTION_TAG
from mnemo.domain.models import IMPORTANCE_WEIGHT, Category, Memory, Profile, Scope, Status

# Identity slots, most specific first. Today's rule-based extractor writes "location" and
# "job"/"employer"; the slot vocabulary names them "home_location" and "job": both are read.
NAME_SLOTS = ("preferred_name", "name")
LOCATION_SLOTS = frozenset({"home_location", "location"})
JOB_SLOTS = frozenset({"job"})
EMPLOYER_SLOTS = frozenset({"employer"})
# Slots whose facts are listed; which list a fact goes to follows its category (a user may
# recategorise a memory), a fact in any other slot ("note:...", "habit:...", "event:...") never does.
LISTED_SLOTS = frozenset({
    # constraints
    "diet", "allergy", "avoids", "health", "intolerance", "mobility", "cannot", "only",
    # preferences
    "likes", "dislikes", "favorite", "hobby", "prefers", "uses", "chronotype",
    # how to answer
    "answer_style", "answer_format", "answer_language", "answer_length", "answer_tone", "instruction", "style",
    "style_avoid",
    # list entries a user set through PATCH profile (subject "profile:<text>")
    "profile",
})
LISTS = {Category.CONSTRAINT: "constraints", Category.PREFERENCE: "preferences", Category.PROCEDURAL: "instructions"}

_PERSON = r"^(?:the )?(?:user|i)(?:'m| am| is| has been| have been)?\s+"
_NAME = [re.compile(p, re.I) for p in (
    r"\bname(?:'s| is|:)\s+(?P<v>.+)$",
    r"\b(?:be called|go(?:es)? by|call (?:me|them|the user))\s+(?P<v>.+)$",
    r"^(?:i'm|i am)\s+(?P<v>(?-i:[A-Z][\w'-]*(?: [A-Z][\w'-]*){0,2}))\W*$",
)]
# residence only: where the user lives, not where they are this week
_RESIDENCE = [re.compile(p, re.I) for p in (
    r"\b(?:lives?|living|resides?|residing|based|located)\s+(?:now\s+|currently\s+)?"
    r"(?:in|at|near|outside(?: of)?|out of)\s+(?:the\s+)?(?P<v>.+)$",
    r"\b(?:moved|relocated)(?: from .+?)?\s+(?:back\s+)?to\s+(?:the\s+)?(?P<v>.+)$",
    r"\b(?:home|house|apartment|flat|place) is in\s+(?P<v>.+)$",
    r"^(?:the user's |my )?home(?: for me)? is\s+(?P<v>.+)$",
)]
_TEMPORARY = re.compile(
    r"\b(?:stay(?:s|ing|ed)?|visit(?:s|ing|ed)?|trip|travel(?:s|ing|ling|led|ed)?|holiday|vacation|"
    r"hotel|hostel|airbnb|conference|temporar(?:y|ily)|for now|for (?:a|the|two|three|few|some|\d+) "
    r"(?:days?|nights?|weeks?|months?)|this (?:week|weekend|month)|until|till)\b", re.I)
_JOB = [re.compile(p, re.I) for p in (
    r"\bworks?(?:\s+\w+ly|\s+from home|\s+part[- ]time|\s+full[- ]time)?\s+as\s+(?:an?\s+)?(?P<v>.+)$",
    r"\b(?:job|profession|occupation|role|position|title)(?: is|:)\s+(?:an?\s+)?(?P<v>.+)$",
    _PERSON + r"(?:now\s+|currently\s+)?an?\s+(?P<v>.+)$",
    _PERSON + r"(?P<v>.+)$",
)]
_EMPLOYER = [re.compile(p, re.I) for p in (
    r"\b(?:works?|working|employed|started|joined|job)(?:\s+\w+ly|\s+full[- ]time|\s+part[- ]time)?"
    r"\s+(?:at|for|with|in)\s+(?P<v>.+)$",
)]
# a fact that says the value no longer holds (the extractor also marks most with polarity False)
_NOT_NOW = re.compile(r"\b(?:no longer|not|never|don't|do not|doesn't|does not)\s+(?:\w+\s+)?"
                      r"(?:live|lives|living|reside|resides|based|work|works|working|employed)\b|\bany ?more\b", re.I)
_LEFT_JOB = re.compile(r"\b(?:quit|left|lost|was fired|got fired|was laid off)\b", re.I)
# "for" cuts how long ("nurse for 10 years"), not whom the work is for ("drive for Bring" kept its "drive" alone)
_TAIL = re.compile(r",?\s+(?:not|since|because|but|from|with|and i|so|"
                   r"for(?=\s+(?:a|an|the (?:past|last)|about|over|almost|nearly|around|\d+|one|two|three|four|"
                   r"five|six|seven|eight|nine|ten|many|several|years|months|"
                   r"weeks|ages|now|good|fun|free)\b))\s+.*$|\s+(?:last|this|next)\s+\w+$|"
                   r"\s+(?:now|these days|nowadays|for good|at the moment|currently)$", re.I)


def slot_of(subject: str) -> str:
    """The slot a memory fills: its subject up to the key of a multi-valued slot."""
    return subject.partition(":")[0]


def _clean(value: str) -> str:
    value = value.strip().rstrip(".!;").strip()
    value = _TAIL.sub("", value).strip().rstrip(",.").strip()
    return value.strip("\"'")


def _first(patterns: list[re.Pattern[str]], content: str) -> str | None:
    text = content.strip().rstrip(".!")
    for pattern in patterns:
        m = pattern.search(text)
        if m and (value := _clean(m.group("v"))):
            return value
    return None


def name_value(memory: Memory) -> str | None:
    return _first(_NAME, memory.content) if memory.polarity else None


def location_value(memory: Memory) -> str | None:
    """Where the user lives, or None: a negated fact, a stay, a trip or a visit is no residence."""
    if not memory.polarity or _TEMPORARY.search(memory.content) or _NOT_NOW.search(memory.content):
        return None
    return _first(_RESIDENCE, memory.content)


def _current_job(memory: Memory) -> bool:
    return memory.polarity and not _NOT_NOW.search(memory.content) and not _LEFT_JOB.search(memory.content)


def job_value(memory: Memory) -> str | None:
    return _first(_JOB, memory.content) if _current_job(memory) else None


def employer_value(memory: Memory) -> str | None:
    return _first(_EMPLOYER, memory.content) if _current_job(memory) else None


def profile_facts(facts: Iterable[Memory], now: datetime) -> list[Memory]:
    """The memories a profile may be built from: active, unexpired, about the user everywhere."""
    return [m for m in facts if m.status is Status.ACTIVE and m.scope is Scope.USER and m.is_live(now)
            and RETRACTION_TAG not in m.tags]


def first_expiry(facts: Iterable[Memory], now: datetime) -> datetime | None:
    """When the first of the profile's memories expires: the profile built now is valid until then."""
    return min((m.expires_at for m in profile_facts(facts, now) if m.expires_at is not None), default=None)


def _latest_value(facts: list[Memory], slots: Iterable[str], read: Callable[[Memory], str | None]) -> str | None:
    """The value of the newest fact in these slots that holds one."""
    wanted = set(slots)
    for m in sorted(facts, key=lambda m: (m.updated_at, m.memory_id), reverse=True):
        if slot_of(m.subject) in wanted and (found := read(m)):
            return found
    return None


def build_profile(facts: Iterable[Memory], custom: dict[str, str], now: datetime, max_bytes: int) -> Profile:
    """Derive the profile from the live user-scoped facts; trims the least important to fit."""
    live = profile_facts(facts, now)
    name = None
    for slot in NAME_SLOTS:  # what the user wants to be called wins over their name
        name = _latest_value(live, [slot], name_value)
        if name:
            break
    job = _latest_value(live, JOB_SLOTS, job_value)
    employer = _latest_value(live, EMPLOYER_SLOTS, employer_value)
    occupation = f"{job} at {employer}" if job and employer and employer.lower() not in job.lower() \
        else job or employer
    ranked = sorted(live, key=lambda m: (-IMPORTANCE_WEIGHT[m.importance], -m.confidence, m.memory_id))
    lists: dict[str, list[str]] = {field: [] for field in LISTS.values()}
    for m in ranked:
        field = LISTS.get(m.category)
        if field and slot_of(m.subject) in LISTED_SLOTS and m.content not in lists[field]:
            lists[field].append(m.content)
    profile = Profile(
        name=name, location=_latest_value(live, LOCATION_SLOTS, location_value), occupation=occupation,
        constraints=lists["constraints"], preferences=lists["preferences"], instructions=lists["instructions"],
        custom=dict(custom), updated_at=now,
    )
    # constraints are the last thing to drop: they keep the user safe
    while len(json.dumps(profile.model_dump(mode="json"))) > max_bytes:
        if profile.preferences:
            profile.preferences.pop()
        elif profile.instructions:
            profile.instructions.pop()
        elif profile.constraints:
            profile.constraints.pop()
        else:
            break
    return profile
