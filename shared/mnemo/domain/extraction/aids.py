"""The aids a user lives with: "I use a wheelchair", "I wear hearing aids", "my insulin pump", "wheelchair user".

What a user needs to get around, hear, breathe or manage a condition shapes every plan, venue and route an
assistant suggests, yet the tagger reads "I use a wheelchair, manual one" as nothing and "i use a cpap every
night" as a routine of one verb. The aids are a short exact list and the ways of saying one has them are few, so
they are read here as health facts ("User's health: uses a wheelchair."). Someone else's aid ("my mum's walker",
"my dad uses a cane") is not the user's: only the user's own words of having it count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_AID = (r"(?P<aid>(?:manual |power(?:ed)? |electric |motori[sz]ed )?wheel ?chair|mobility scooter|rollator|"
        r"zimmer frame|walking frame|walker|crutch(?:es)?|walking stick|white cane|cane|"
        r"hearing aids?|cochlear implants?|prosthetic (?:leg|arm|foot|hand)|prosthesis|"
        r"insulin pump|(?:continuous )?glucose monitor|cgm|c-?pap(?: machine)?|oxygen tank|home oxygen|"
        r"guide dog|hearing dog|service dog|assistance dog|pacemaker|stoma|colostomy bag|ostomy bag|"
        r"screen ?reader|feeding tube)")
# the user's own words of having it: "I use a", "I'm in a", "I wear", "I rely on my", "my <aid>"
_HAS = (
    re.compile(r"\b(?:i(?:'?m| am)?|im)\s+(?:(?:also|still|now|mostly|always|permanently|full[- ]time|basically)\s+)?"
               r"(?:use|using|have|wear|wearing|need|rely on|in|on|got|get around (?:in|on|with)|live with)\s+"
               r"(?:a |an |my |two |the )?(?:\w+ )?" + _AID + r"\b", re.IGNORECASE),
    re.compile(r"\bmy (?:new |old |own |trusty )?" + _AID + r"\b", re.IGNORECASE),
    re.compile(r"\b(?:i'?m|im|i am|as) an? (?:full[- ]time )?(?P<aid>wheel ?chair|cane|crutch|hearing aid|cpap) user\b",
               re.IGNORECASE),
)
# a question about one is no statement of having one: "should I get a cane?"
_ASKING = re.compile(r"\b(?:should|could|would|can|do|does|will)\s+i\b[^.!?]*$", re.IGNORECASE)
_ARTICLE = re.compile(r"^(?:hearing aids|cochlear implants|crutches)$", re.IGNORECASE)


@dataclass(frozen=True)
class Aid:
    start: int
    end: int
    value: str  # "uses a wheelchair", "uses hearing aids"


def _value(aid: str) -> str:
    aid = re.sub(r"\s+", " ", aid.lower().replace("wheel chair", "wheelchair")).strip()
    if aid in {"cgm", "cpap", "c-pap", "cpap machine", "c-pap machine"}:
        aid = "a CPAP machine" if "pap" in aid else "a CGM"
    elif _ARTICLE.match(aid) or aid.endswith("s"):
        pass
    else:
        aid = ("an " if aid[0] in "aeiou" else "a ") + aid
    return f"uses {aid}"


def aids_in(text: str) -> list[Aid]:
    """The aids the text says the user has, once each, in the order said."""
    out: list[Aid] = []
    for m in sorted((m for pattern in _HAS for m in pattern.finditer(text)), key=lambda m: m.start()):
        if _ASKING.search(text[max(0, m.start() - 40):m.start()]):
            continue
        value = _value(m.group("aid"))
        if value not in {a.value for a in out}:
            out.append(Aid(m.start(), m.end(), value))
    return out


# an injury of the user's said as the state of a body part ("Ankle is twisted in class on Tuesday, doctor says two
# weeks no jumps", "my wrist is sprained"): the tagger reads "twisted my ankle" but not the part said first. Only the
# user's own: at a sentence's start or after "my"; not "her ankle", "the dog's leg"
_INJURY = re.compile(
    r"(?:^|(?<=[.!?\n])\s*|\bmy\s+)(?:(?:left|right|bad)\s+)?(?P<part>ankle|knee|back|wrist|shoulder|hip|foot|leg|arm|"
    r"neck|hand|elbow|ribs?|finger|toe|hamstring|calf|achilles)\s+(?:is|was|got|has\s+been|'s|’s)\s+(?:\w+\s+)?"
    r"(?P<state>twisted|sprained|broken|fractured|injured|swollen|strained|pulled|bruised|dislocated|torn|busted)\b",
    re.IGNORECASE)


def injuries_in(text: str) -> list[Aid]:
    """The injuries the text says of the user's own body ("Ankle is twisted" -> "twisted ankle"), once each."""
    out: list[Aid] = []
    for m in _INJURY.finditer(text):
        value = f"{m.group('state').lower()} {m.group('part').lower()}"
        if value not in {a.value for a in out}:
            out.append(Aid(m.start("part"), m.end(), value))
    return out
