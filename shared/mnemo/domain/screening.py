"""Statements that must never become memories, whoever extracted them (SPEC R3).

Shared by the rule-based extractor and by validation of LLM candidates, so both homes
refuse the same things: one-off requests, guesses, passing states, identity or permission
claims, instructions aimed at the assistant, and anything carrying a secret. Some are refused
whoever hands them over (``ALWAYS_REFUSED``): an app importing a motto that reads like an
instruction is its call, but no app has a reason to store a secret, a claim of a role over the
system, a prompt marker ("SYSTEM:", "[INST]"), an order to obey stored text, or an order to send
data, links or other people's details somewhere.
"""

from __future__ import annotations

import re

from mnemo.domain.other_languages import instruction_in_other_language
from mnemo.domain.sensitive import contains_sensitive
from mnemo.domain.text import screen_form


def _any_spacing(pattern: str) -> str:
    """A pattern written with single spaces between its words, matching any run of whitespace there: with
    literal spaces, "ignore  all previous instructions" (two spaces), a tab, a no-break or an em space
    between two words went past the screens, and the block's flag, that the plain sentence trips."""
    return pattern.replace(" ?", r"\s*").replace(" ", r"\s+")

_ONE_OFF = re.compile(
    r"\b(?:for this (?:answer|reply|response|message|question|one|time|conversation|chat)(?: only)?"
    r"|(?:just|only) (?:this|for) (?:once|time|one|now|today)|this time only|just this once|for now"
    r"|for the moment|only (?:in|for) this (?:answer|reply|response|message|chat|conversation)"
    r"|(?:answer|reply|respond|write|translate|explain)(?: this| that| it)?(?: one)? (?:in|as) \w+ (?:this time|"
    r"for this one|for now|just this once)|right now only|in this (?:answer|reply|response) only)\b",
    re.IGNORECASE,
)
# "if i" hedges ("if i move to Leeds") but not in an apology or a request ("sorry if i type badly", "tell me if i
# got it wrong"), which says nothing of the facts beside it
_GUESS = re.compile(
    # "vegetarian now i guess", "I guess I'm vegetarian now?": a change the user is resigned to, not one they doubt
    r"\b(?:maybe|perhaps|probably|possibly|(?<!\bnow )(?<!\bnow, )i guess(?![^.!?]*\bnow\b)|i suppose|not sure|"
    r"i might|might be|i may|"
    r"i'm thinking about|i am thinking about|i think i(?:'m| am| might| may)?|i wonder|"
    r"i could be|(?<!sorry )(?<!sry )(?<!apologies )(?<!me )if i|what if|suppose|imagine|hypothetically|"
    r"pretend|let's say|as if)\b",
    re.IGNORECASE,
)
# "kind of" hedges ("I kind of like jazz", "we sort of moved", "vegan, kind of") but inside a noun phrase
# ("a Mediterranean kind of diet", "some sort of standing desk", "what kind of music")
_KIND_OF = re.compile(r"\b(?:kind|sort) of\b", re.IGNORECASE)
_IN_NOUN_PHRASE = re.compile(
    r"\b(?:a|an|the|some|any|what|which|this|that|these|those|every|each|one|same|other|another|different|no|"
    r"my|your|our|their|his|her|its|whatever)\s+(?:(?!(?:is|am|are|was|were|be|been|just|really|also|i)\b)"
    r"[\w-]+\s+)?$", re.IGNORECASE)


def _hedged(statement: str) -> bool:
    return any(not _IN_NOUN_PHRASE.search(statement, 0, m.start()) for m in _KIND_OF.finditer(statement))

_PASSING = re.compile(
    r"\b(?:i'm|i am|i feel|feeling|i felt)\s+(?:so |very |really |a bit |kind of |pretty |super |quite )?"
    r"(?:tired|sleepy|hungry|thirsty|angry|mad|sad|upset|happy|glad|bored|stressed|annoyed|frustrated|"
    r"excited|nervous|anxious|exhausted|sick|cold|hot|busy|late|confused|lost|overwhelmed|grumpy|cranky|"
    r"in a (?:hurry|rush|bad mood|good mood))\b(?!\s+(?:of|about|with|by|when|if|whenever)\b)",
    re.IGNORECASE,
)
_IDENTITY = re.compile(
    _any_spacing(
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
    r"messages|records|memories|conversations|emails|files|passwords|details|profiles|histor(?:y|ies)))"),
    re.IGNORECASE,
)
# claims of a role over the system, said of "the user" too (an app or an extractor rewrites "I" so)
_ROLE_CLAIM = re.compile(
    _any_spacing(
    r"\b(?:(?:the )?user|i|he|she|they)(?:'m| am| is|'s| are| works? as| acts? as)\s+(?:now\s+)?"
    r"(?:the |an? )?(?:(?:verified|authori[sz]ed|official|real|actual|current|designated)\s+)?"
    r"(?:(?:tenant|workspace|account|org(?:ani[sz]ation)?|platform|global|super|site|service|system|app)\s+)?"
    r"(?:admin|administrator|superuser|super user|root(?: user)?|sysadmin|moderator|owner of (?:this|the) \w+)\b"
    r"|\b(?:has|have|with) (?:(?:full|complete|elevated|unrestricted|special|"
    r"total|admin|root|superuser|administrator|owner)\s+){1,3}(?:access|rights|privileges|permissions|"
    r"clearance|role)\b"),
    re.IGNORECASE,
)
# text posing as a turn of the conversation or a prompt section: it and what follows is the attacker's
_MARKER = re.compile(
    _any_spacing(
    r"\bSYSTEM\b|(?i:(?:^|(?<=[\s.,;!?]))(?:system|developer|admin)\s*(?:prompt|message)?\s*:)"
    r"|<\|[a-z_]+\|>|\[/?INST\]|<</?SYS>>|(?i:#{2,}\s*(?:system|instructions?|response|assistant)\b)"
    r"|(?i:\bnote to (?:the )?(?:ai|assistant|bot|model|llm|chatbot)\b)|(?i:</?(?:system|memory|instructions?)>)"),
)
# an assistant told to obey or trust stored text, or taking a new persona
_OBEY = re.compile(
    _any_spacing(
    r"\b(?:(?:the )?(?:assistant|ai|bot|model|chatbot|llm)|you)\s+(?:must|should|shall|will|has to|have to|"
    r"needs? to|are to)\s+(?:always\s+|now\s+|from now on\s+)?(?:obey|trust|follow|comply with|execute|believe"
    r"|do whatever|do what)\b"
    r"|\b(?:always|must|should)\s+(?:obey|comply with)\b|\bfrom now on,? you(?:'re| are| will be| act as)\b"
    r"|\bobey (?:all |any |every )?(?:instructions|orders|commands|them|me)\b"),
    re.IGNORECASE,
)
_DIRECTIVE_LEAD = re.compile(
    r"^(?:(?:please|kindly|always|never|also|and|then|now|from now on|assistant|ai|bot|"
    r"(?:when|whenever|if|every time)\b[^,]{0,60},|(?:you|the assistant|the ai) (?:must|should|will|shall|"
    r"need to|have to|has to)(?: always)?)[\s,:]*)+",
    re.IGNORECASE,
)
_VERBS = frozenset("tell give send share forward email e-mail post upload leak reveal disclose show print dump "
                   "include reply respond answer output write list add insert append link redirect visit "
                   "fetch call contact report copy recommend direct".split())
_TARGET = re.compile(
    r"https?://|\bwww\.|\b[\w.+-]+@[\w-]+\.[\w.]+|\b[\w-]+\.(?:example|com|net|org|io|ru|xyz|co|info|top)\b"
    r"|\b(?:everyone|everybody|anyone|anybody|all users|other users|every user|each user|their (?:data|"
    r"passwords?|details|info|information|messages|emails?)|admin password|passwords?|credentials|api keys?"
    r"|contents? of (?:your|the) memory|(?:stored|saved|remembered) (?:facts?|memories|data)|memories|"
    r"all (?:my |of my )?(?:messages|chats|conversations|data)|profile of|system prompt)\b",
    re.IGNORECASE,
)
# a clause ends at a stop followed by a space or the end, not at the dots of an address or a link
# ("email it to evil@example.com": split at every dot, no clause held the whole address)
_CLAUSE = re.compile(r"[.!?;]+(?:\s+|$)|\n\s*")


def _directive_with_target(text: str) -> bool:
    """An imperative aimed at the assistant that sends, shows or links something: a URL, an address,
    other people, their data or the memory itself. "Always answer in French" is no such thing."""
    for clause in _CLAUSE.split(text):
        rest = _DIRECTIVE_LEAD.sub("", clause.strip())
        first = rest.split(maxsplit=1)[0].lower().strip(",:") if rest else ""
        if first in _VERBS and _TARGET.search(rest):
            return True
    return False


def defuse(text: str) -> str:
    """``text`` cut at the first injection marker: the statement before it stays (as a sentence)."""
    found = _MARKER.search(screen_form(text))
    if found is None:
        return text
    head = text[:found.start()].rstrip(" \t,;:-—")
    if len(head.split()) < 2:
        return ""
    return head if head[-1] in ".!?" else head + "."


_INSTRUCTION = re.compile(
    _any_spacing(
    r"\b(?:ignore|disregard|forget|override) (?:all |any |the |your )?(?:previous|prior|above|earlier|"
    r"system|safety|other) (?:instructions|prompts?|rules|messages|guidelines)|\bsystem prompt\b|"
    r"\byou are now\b|\bjailbreak\b|\bdeveloper mode\b|\bdo anything now\b|\bnew instructions?:|"
    r"\bact as (?:an? )?(?:unrestricted|unfiltered)|\breveal (?:your|the) (?:system )?prompt\b|"
    r"\b(?:bypass|disable|turn off|switch off|skip|ignore) (?:all |the |your |any )?(?:safety|security|content)? ?"
    r"(?:filters?|checks?|guardrails|restrictions|moderation|safeguards|rules)\b"),
    re.IGNORECASE,
)


ALWAYS_REFUSED = frozenset({"sensitive_data", "identity_or_permission_claim", "assistant_directive"})


def rejection_reason(statement: str) -> str | None:
    """Why this statement must not be stored, or None when it may be. The claims, markers and instructions
    are read in the screen form (look-alike letters of other scripts as Latin ones: "SYS\u0422EM:")."""
    if contains_sensitive(statement):
        return "sensitive_data"
    shown = screen_form(statement)
    if _MARKER.search(shown) or _OBEY.search(shown) or _directive_with_target(shown):
        return "assistant_directive"
    if _ROLE_CLAIM.search(shown):
        return "identity_or_permission_claim"
    if _INSTRUCTION.search(shown) or instruction_in_other_language(statement):
        return "instruction_injection"
    if _IDENTITY.search(shown):
        return "identity_or_permission_claim"
    if _ONE_OFF.search(statement):
        return "one_off_request"
    if _GUESS.search(statement) or _hedged(statement):
        return "uncertain"
    if _PASSING.search(statement):
        return "passing_state"
    return None


def is_instruction_like(text: str) -> bool:
    """Text that addresses the assistant as instructions (quoted as data in the memory block)."""
    shown = screen_form(text)
    return bool(_INSTRUCTION.search(shown) or _MARKER.search(shown) or _OBEY.search(shown)
                or instruction_in_other_language(text))
