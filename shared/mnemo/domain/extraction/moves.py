"""A move the user planned, come due: "moving to toronto in april", said in February, is their home by May.

The plan is stored as what it is, a plan with its date ("User plans: moving to toronto in april (for
2026-04)."). Nothing said later need repeat it: a user who wrote "first week done, it's freezing here" from
Toronto never says "I live in Toronto now", and the home stayed the city they left. Once the plan's date has
come, its destination is where the user lives, unless they have named a home since.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

# "User plans: moving to toronto in april (for 2026-04)." -> "toronto", "2026-04"
_MOVE = re.compile(
    r"^User plans: (?:(?:we(?:'re| are)|i(?:'m| am)) )?(?:moving|relocating|relocate|move|emigrating|emigrate)"
    r"(?: back| over| out| house| home)?"
    # the day said between ("moving at the 12th of April, to a flat in Bath")
    r"(?:\s+(?:(?:at|on|in|by)\s+)?(?:the\s+)?[^,()]{1,30},)?"
    # the new home's kind said first ("to a flat in Bath", "into a little house in Ames")
    r"(?: to| into)(?: (?:a|an|the|our|my)(?: new| little| small| bigger| smaller)? (?:flat|house|place|apartment|"
    r"home|room|bungalow|cottage|condo|studio) (?:in|near|outside|on the edge of))? (?P<place>[^\d()]+?)"
    r"(?:\s+(?:in|on|at|by|next|this|for|after|before|around|with|from|once|when|end|early|late|mid|the)\b[^()]*)?"
    r"\s*\(for (?P<when>\d{4}-\d{2}(?:-\d{2})?)\)\.?$", re.IGNORECASE)
_MAX_PLACE_WORDS = 4
# words that say the destination is no place of the user's own ("moving to a bigger flat", "moving to nights")
_NOT_A_PLACE = re.compile(r"^(?:a|an|the|my|our|his|her|their|bigger|smaller|another|nights?|days?|shifts?|"
                          r"part|full|remote)\b", re.IGNORECASE)


def planned_move(plan: str) -> tuple[str, datetime] | None:
    """The place a plan says the user moves to and the day the move starts ("User plans: moving to toronto in april
    (for 2026-04)." -> "toronto", 2026-04-01), or None for a plan that is no dated move to a place."""
    m = _MOVE.match(plan.strip())
    if m is None:
        return None
    place = m.group("place").strip(" ,.")
    if not place or len(place.split()) > _MAX_PLACE_WORDS or _NOT_A_PLACE.match(place):
        return None
    parts = [int(p) for p in m.group("when").split("-")]
    return place, datetime(parts[0], parts[1], parts[2] if len(parts) > 2 else 1, tzinfo=UTC)


def due_move(plan: str, now: datetime) -> str | None:
    """The place a stored plan says the user moves to, once the plan's date has come; None otherwise."""
    move = planned_move(plan)
    return move[0] if move is not None and now >= move[1] else None


# a home the user owns or rents, by its town: "User owns a little house in ames." -> "ames"
_A_HOME_OWNED = re.compile(
    r"^User owns (?:a|an|our|my|the)\s+(?:(?:little|small|new|tiny|lovely|nice|big|first|old)\s+)*"
    r"(?:house|flat|place|apartment|home|condo|bungalow|cottage|townhouse)\s+(?:in|on the edge of|just outside|outside|"
    r"near)\s+(?P<place>[^\d().,;]+?)\.?$", re.IGNORECASE)
# the user saying they have moved in, with no place ("Moved in. House is fine", "we're in the new place now")
_MOVED_IN_NOW = re.compile(
    r"(?:^|[.!?]\s*|\b(?:we|i|we've|i've|we have|i have|just|finally|all)\s+)(?:moved in|have moved in|settled in)\b"
    r"(?!\s+\d|\s+(?:with|to|at|on|in|the|a|an|her|his|their|there|jan\w*|feb\w*|mar\w*|apr\w*|may|jun\w*|jul\w*|"
    r"aug\w*|sep\w*|oct\w*|nov\w*|dec\w*)\b)|"
    r"\b(?:we(?:['’]re| are)|i(?:['’]m| am))\s+(?:now\s+|finally\s+)?in\s+the\s+new\s+(?:place|house|flat|home|"
    r"apartment)\b", re.IGNORECASE)


def home_owned(content: str) -> str | None:
    """The town of a home a stored fact says the user owns ("User owns a little house in ames.")."""
    m = _A_HOME_OWNED.match(content.strip())
    place = m.group("place").strip() if m else ""
    return place if place and len(place.split()) <= _MAX_PLACE_WORDS else None


def says_moved_in(text: str) -> bool:
    """The user says they have moved in, or are in the new place now."""
    return _MOVED_IN_NOW.search(text) is not None
