"""The retrieval gate (SPEC R5): does this query need personal memory at all?"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class GateDecision(StrEnum):
    RETRIEVE = "retrieve"
    PROFILE_ONLY = "profile_only"
    OVERVIEW = "overview"  # "what do you remember about me?": the most important memories, any topic
    SKIP = "skip"


@dataclass(frozen=True)
class Gate:
    decision: GateDecision
    reason: str


GENERAL_KNOWLEDGE = "general-knowledge question"

_GREETING = re.compile(
    r"^\s*(?:hi|hello|hey|hiya|howdy|yo|good (?:morning|afternoon|evening|day)|greetings|hola|bonjour|"
    r"ciao|hallo|ol[aá]|what'?s up|sup|morning|evening)\b[\s,!.?]*(?:there|again|mnemo|assistant|bot)?[\s!.?]*$",
    re.IGNORECASE,
)
# "im", "ive": typed without the apostrophe
PERSONAL = re.compile(
    r"\b(?:i|i'm|i've|i'd|i'll|im|ive|me|my|mine|myself|we|we're|our|ours|us)\b", re.IGNORECASE,
)
_PAST = re.compile(
    r"\b(?:remember|recall|remind|last time|previously|before|earlier|again|as usual|usual|you know|"
    r"you said|we (?:talked|discussed|spoke)|told you|mentioned|yesterday|last (?:week|month|year)|"
    r"same as|like always)\b", re.IGNORECASE,
)
_PERSONALISABLE = re.compile(
    r"\b(?:recommend|suggest|advice|advise|plan|ideas?|should|help|what to|where to|gift|recipe|dinner|"
    r"lunch|breakfast|restaurant|trip|travel|weekend|book|movie|watch|read|cook|eat|buy|schedule|"
    r"write|draft|code|example|explain to|tutor|teach|workout|exercise|routine|for you|personali[sz]e)\b",
    re.IGNORECASE,
)
_GENERAL = re.compile(
    r"^\s*(?:what|who|whom|when|where|which|why|how|is|are|was|were|does|do|did|can|could|define|explain|"
    r"describe|calculate|compute|convert|translate|list|name|tell me about)\b", re.IGNORECASE,
)
# "how many weeks left", "how long until the exam": the date counted to is the user's, unnamed
_COUNTDOWN = re.compile(
    r"\bhow (?:many|much|long)\b.*\b(?:left|remaining|to go|until|till|til|before)\b|\b(?:deadline|due date)\b",
    re.IGNORECASE)
_YOU_ONLY = re.compile(r"^\s*(?:who|what) are you\b|\byour (?:name|model|version)\b", re.IGNORECASE)


_OVERVIEW = re.compile(
    r"\bwhat (?:do|did|else do) you (?:remember|know|recall|have (?:stored|saved|on file)) (?:about|of|on) me\b|"
    r"\bwhat(?:'s| is| have you) (?:stored|saved|remembered|kept) about me\b|\bwhat do you know about me\b|"
    r"\b(?:show|list|tell) me (?:what|everything) you (?:remember|know|have stored|have saved)\b|"
    r"\bwho am i\?|\bwhat are my memories\b", re.IGNORECASE)


def decide(query: str) -> Gate:
    """Cheap, regex-only decision (well under a millisecond)."""
    text = query.strip()
    if not text:
        return Gate(GateDecision.SKIP, "empty query")
    if _OVERVIEW.search(text):
        return Gate(GateDecision.OVERVIEW, "the user asks what is remembered")
    if _GREETING.match(text):
        return Gate(GateDecision.PROFILE_ONLY, "greeting: profile only")
    if _PAST.search(text):
        return Gate(GateDecision.RETRIEVE, "refers to the past")
    if PERSONAL.search(text):
        return Gate(GateDecision.RETRIEVE, "personal reference")
    if _COUNTDOWN.search(text):
        return Gate(GateDecision.RETRIEVE, "counts down to a date the user may have")
    if _YOU_ONLY.search(text):
        return Gate(GateDecision.SKIP, "about the assistant")
    if _PERSONALISABLE.search(text):
        return Gate(GateDecision.RETRIEVE, "request that preferences can shape")
    if _GENERAL.match(text):
        return Gate(GateDecision.SKIP, GENERAL_KNOWLEDGE)
    return Gate(GateDecision.RETRIEVE, "default: may be personal")


_OPEN_ENDED = re.compile(
    r"\b(?:plan|planning|recommend\w*|suggest\w*|ideas?|gift|present|trip|travel|vacation|holiday|weekend|"
    r"saturday|sunday|day off|evening|tonight|free time|spare time|bored|relax|fun|"
    r"what (?:should|could|can) i do|what i (?:should|could|can) do|what to do|something (?:fun|to do)|hobby|hobbies|"
    r"surprise me|pick (?:something|one) for me)\b", re.IGNORECASE)


def is_open_ended(query: str) -> bool:
    """A request about the user's own time or taste, where their hobbies and likes matter even when no
    preference shares its words ("plan my weekend", "gift ideas for me")."""
    return bool(_OPEN_ENDED.search(query)) and bool(PERSONAL.search(query))
