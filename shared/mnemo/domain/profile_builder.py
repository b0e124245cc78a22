"""Keeps the always-injected profile (SPEC R2) in step with the user's active facts."""

from __future__ import annotations

import json
import re
from datetime import datetime

from mnemo.domain.extraction.slots import RETRACTION_TAG
from mnemo.domain.models import IMPORTANCE_WEIGHT, Category, Memory, Profile, Status


def _value(memory: Memory) -> str:
    """The value of a slot fact: 'User lives in Lisbon.' -> 'Lisbon' where the shape is known."""
    content = memory.content.rstrip(".")
    for pattern in (r"name is (.+)$", r"be called (.+)$",
                    r"(?:moved|relocated)(?: from .+?)? (?:back )?to (?:the )?(.+)$",
                    r"(?:lives|living|based|located) (?:out of |in|at|near)\s*(?:the )?(.+)$",
                    r"works(?: remotely)? as (?:an? )?(.+)$", r"^User is an? (.+)$"):
        m = re.search(pattern, content)
        if m:
            value = re.split(r",?\s+not\s+|\s+(?:since|because|but)\s+", m.group(1))[0]
            return re.sub(r"\s+(?:last|this|next) \w+$|\s+now$", "", value).strip()
    return content


def build_profile(facts: list[Memory], custom: dict[str, str], now: datetime, max_bytes: int) -> Profile:
    """Derive the profile from the active user-scoped facts; trims the least important to fit."""
    live = [m for m in facts if m.status is Status.ACTIVE and m.scope.value == "user" and m.is_live(now)
            and RETRACTION_TAG not in m.tags]
    by_subject = {m.subject: m for m in sorted(live, key=lambda m: m.updated_at)}
    name = by_subject.get("preferred_name") or by_subject.get("name")
    location = by_subject.get("home_location") or by_subject.get("location")
    job = by_subject.get("job")
    ranked = sorted(live, key=lambda m: (-IMPORTANCE_WEIGHT[m.importance], -m.confidence, m.memory_id))
    constraints = [m.content for m in ranked if m.category is Category.CONSTRAINT]
    preferences = [m.content for m in ranked if m.category is Category.PREFERENCE and m.subject != "preferred_name"]
    instructions = [m.content for m in ranked if m.category is Category.PROCEDURAL]
    profile = Profile(
        name=_value(name) if name else None,
        location=_value(location) if location else None,
        occupation=_value(job) if job else None,
        constraints=constraints,
        preferences=preferences,
        instructions=instructions,
        custom=dict(custom),
        updated_at=now,
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
