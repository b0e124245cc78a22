"""A child just born: "Baby Nora arrived on July 12!", "baby leo arrived 3 weeks early", "we had the baby, a
little girl, Ada".

The tagger learned family from "our son Tomás" and "two kids"; a birth announced by the baby's name and a verb
of arriving it reads as an event that happened to the user ("User Baby Nora arrived"), and a parent asking for a
family outing later has no child named. The ways of announcing a birth are few: an exact rule. Only the user's
own: "my sister's baby Leo arrived" and "her baby boy was born" are someone else's.
"""

from __future__ import annotations

import re

_NAME = r"(?P<name>[^\W\d_][\w'-]*)"
_NAMED_ARRIVED = re.compile(
    r"(?<![\w'’])(?P<whose>(?:(?:my|our|his|her|their|[\w]+['’]s)\s+)?)(?P<kind>(?:new\s+)?baby(?:\s+(?:boy|girl))?|"
    r"(?:new|little)\s+(?:son|daughter|boy|girl))\s+" + _NAME +
    r"\s+(?:has\s+|finally\s+)?(?:arrived|is\s+here|was\s+born|came\s+(?:early|late|along))\b", re.IGNORECASE)
_HAD_THE_BABY = re.compile(
    r"\b(?:we|i)\s+(?:just\s+|finally\s+)?(?:had|welcomed)\s+(?:the|our|a)\s+(?:new\s+)?baby\b[!.,]*\s*"
    r"(?:(?:a|our)\s+)?(?:little\s+|baby\s+)?(?P<kind>boy|girl)\b[!.,]*\s*(?:(?:called|named)\s+)?"
    r"(?:" + _NAME + r"(?=\s*(?:[,.!?]|$|born\b)))?", re.IGNORECASE)
# "she's here!! Meera, born 6 september": the news, the name, "born"
_HERE_BORN = re.compile(r"\b(?:she|he)(?:['’]s|s| is)\s+(?:finally\s+)?here\b[!.]*\s*" + _NAME +
                        r"\s*,?\s+(?:was\s+)?born\b", re.IGNORECASE)
_OWN = frozenset({"", "my ", "our "})
# someone else's birth said before ("my cousin had her baby! the baby girl is here, Ava")
_SOMEONE_ELSES_BIRTH = re.compile(
    r"\b(?:(?:his|her|their|[\w]+['’]s)\s+(?:new\s+)?baby|had\s+(?:her|his|their)\s+baby)\b", re.IGNORECASE)
_NO_NAME = frozenset({"boy", "girl", "son", "daughter", "brother", "sister", "cousin", "monitor", "gate", "shower",
                      "bump", "carrier", "seat", "bottle", "formula", "stuff", "clothes", "food", "was", "is", "has",
                      "and", "but", "born", "arrived", "finally", "just", "came", "yesterday",
                      "today", "tonight", "overnight", "early", "late", "safely", "healthy"})


def births(text: str) -> list[tuple[int, int, str]]:
    """(start, end, "baby Nora") for each child the text says was just born to the user."""
    out: list[tuple[int, int, str]] = []
    if _SOMEONE_ELSES_BIRTH.search(text):
        return out
    for m in _NAMED_ARRIVED.finditer(text):
        if m.group("whose").lower() not in _OWN or m.group("name").lower() in _NO_NAME:
            continue
        kind = " ".join(w for w in m.group("kind").lower().split() if w != "new")
        out.append((m.start("kind"), m.end("name"), f"{kind} {_capital(m.group('name'))}"))
    for m in _HERE_BORN.finditer(text):
        if m.group("name").lower() not in _NO_NAME:
            out.append((m.start("name"), m.end("name"), f"baby {_capital(m.group('name'))}"))
    for m in _HAD_THE_BABY.finditer(text):
        name = m.group("name")
        value = f"baby {m.group('kind').lower()}" + (f" {_capital(name)}" if name and name.lower() not in _NO_NAME
                                                      else "")
        out.append((m.start(), m.end(), value))
    return out


def _capital(name: str) -> str:
    return name[0].upper() + name[1:]
