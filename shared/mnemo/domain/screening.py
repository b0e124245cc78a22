"""Statements that must never become memories, whoever extracted them (SPEC R3).

Shared by the rule-based extractor and by validation of LLM candidates, so both homes
refuse the same things: one-off requests, guesses, passing states, identity or permission
claims, instructions aimed at the assistant, and anything carrying a secret.
"""

from __future__ import annotations

import re

from mnemo.domain.sensitive import contains_sensitive

_ONE_OFF = re.compile(
    r"\b(?:for this (?:answer|reply|response|message|question|one|time|conversation|chat)(?: only)?"
    r"|(?:just|only) (?:this|for) (?:once|time|one|now|today)|this time only|just this once|for now"
    r"|for the moment|only (?:in|for) this (?:answer|reply|response|message|chat|conversation)"
    r"|(?:answer|reply|respond|write|translate|explain)(?: this| that| it)?(?: one)? (?:in|as) \w+ (?:this time|"
    r"for this one|for now|just this once)|right now only|in this (?:answer|reply|response) only)\b",
    re.IGNORECASE,
)
_GUESS = re.compile(
    r"\b(?:maybe|perhaps|probably|possibly|i guess|i suppose|not sure|i might|might be|i may|"
    r"i'm thinking about|i am thinking about|i think i(?:'m| am| might| may)?|i wonder|kind of|sort of|"
    r"i could be|if i|what if|suppose|imagine|hypothetically|pretend|let's say|as if)\b",
    re.IGNORECASE,
)
_PASSING = re.compile(
    r"\b(?:i'm|i am|i feel|feeling|i felt)\s+(?:so |very |really |a bit |kind of |pretty |super |quite )?"
    r"(?:tired|sleepy|hungry|thirsty|angry|mad|sad|upset|happy|glad|bored|stressed|annoyed|frustrated|"
    r"excited|nervous|anxious|exhausted|sick|cold|hot|busy|late|confused|lost|overwhelmed|grumpy|cranky|"
    r"in a (?:hurry|rush|bad mood|good mood))\b(?!\s+(?:of|about|with|by|when|if|whenever)\b)",
    re.IGNORECASE,
)
_IDENTITY = re.compile(
    r"\b(?:i(?:'m| am) (?:an? |the )?(?:admin|administrator|superuser|super user|root|owner of (?:this|the) "
    r"(?:system|account|service|app)|moderator|sysadmin|developer of (?:this|you)|your (?:developer|creator|"
    r"owner|admin)|system administrator|staff member|authorized|authorised|verified|allowed to|"
    r"(?:a |an )?(?:employee|engineer) (?:at|of) (?:openai|anthropic|aws|amazon)|security team)"
    r"|i have (?:admin|root|elevated|full|superuser|unrestricted|special) (?:access|rights|privileges|"
    r"permissions|clearance)|grant (?:me|my account)|give me (?:admin|root|full)|my (?:role|access level|"
    r"permission level|clearance) is|treat me as (?:an? )?(?:admin|root|owner|superuser|developer)|"
    r"i(?:'m| am) (?:permitted|cleared|entitled) to|i own this (?:system|service|account)|"
    r"elevate my (?:access|privileges|permissions)|unlock (?:admin|developer|god) mode|"
    r"(?:give|grant|allow) (?:me|my account|my user) (?:full |admin |root |unrestricted )?(?:access|permission|"
    r"permissions|rights|privileges)|access to (?:all|every|other|everyone'?s?|any) (?:\w+ )?(?:accounts?|users?|"
    r"data|records|memories|customers?|tenants?)|i(?:'m| am) the (?:ceo|owner|founder|admin|administrator|"
    r"operator|developer) of (?:this|your) (?:company|service|app|platform|system|account|assistant|bot)"
    # a rank claimed to get something: "I'm the CEO here so give me ..."
    r"|i(?:'m| am) (?:the |a |an )?(?:ceo|cto|cfo|boss|head|director|manager|owner|founder|admin|supervisor|"
    r"in charge|your boss|the boss)\b[^.!?]{0,40}?,? (?:so|and|therefore|which means|hence)\b[^.!?]{0,20}?"
    r"\b(?:give|grant|show|let|send|unlock|allow|need|want)\b"
    # other people's data asked for, whoever asks
    r"|(?:give|show|send|let me see|pull up|dump|export|list|read me) (?:me )?(?:all of )?"
    r"(?:everyone'?s?|everybody'?s?|"
    r"all (?:the )?(?:other )?(?:users?|customers?|clients?|employees?|people|members?)'?s?|other (?:users?|"
    r"people|customers?|members?)'?s?|every (?:user|customer|member)'?s?) (?:\w+ ){0,2}(?:data|logs?|chats?|"
    r"messages|records|memories|conversations|emails|files|passwords|details|profiles|histor(?:y|ies)))",
    re.IGNORECASE,
)
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override) (?:all |any |the |your )?(?:previous|prior|above|earlier|"
    r"system|safety|other) (?:instructions|prompts?|rules|messages|guidelines)|\bsystem prompt\b|"
    r"\byou are now\b|\bjailbreak\b|\bdeveloper mode\b|\bdo anything now\b|\bnew instructions?:|"
    r"\bact as (?:an? )?(?:unrestricted|unfiltered)|\breveal (?:your|the) (?:system )?prompt\b|"
    r"\b(?:bypass|disable|turn off|switch off|skip|ignore) (?:all |the |your |any )?(?:safety|security|content)? ?"
    r"(?:filters?|checks?|guardrails|restrictions|moderation|safeguards|rules)\b",
    re.IGNORECASE,
)


def rejection_reason(statement: str) -> str | None:
    """Why this statement must not be stored, or None when it may be."""
    if contains_sensitive(statement):
        return "sensitive_data"
    if _INSTRUCTION.search(statement):
        return "instruction_injection"
    if _IDENTITY.search(statement):
        return "identity_or_permission_claim"
    if _ONE_OFF.search(statement):
        return "one_off_request"
    if _GUESS.search(statement):
        return "uncertain"
    if _PASSING.search(statement):
        return "passing_state"
    return None


def is_instruction_like(text: str) -> bool:
    """Text that addresses the assistant as instructions (quoted as data in the memory block)."""
    return bool(_INSTRUCTION.search(text))
