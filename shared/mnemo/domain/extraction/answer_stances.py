"""Where a rule about answers stands, aspect by aspect, so that a later word on the same aspect ends it.

"keep answers short. no bullet points" and, a week later, "can do lists now": the two share no word a cosine or a
key can see, yet the second ends the first. A rule about answers takes a stance on a few aspects only, each with
few stances, named by closed sets of words: the layout (lists, tables, headings, or prose), the length (short or
long), the language, and the order of code and explanation. A user message that takes another stance on an aspect
a stored rule holds, or lifts the aspect ("forget what i said about formatting"), ends that rule, whether or not
the extractor read a rule from the message ("English mein hi likho", "the checklists are too much now").

Only stances said as standing directives about answers count (a clause with a word of answering or of layout,
not a question, not for this once): "a short trip", "the tables at the wedding" and "can you give me a list of
museums?" take none.
"""

from __future__ import annotations

import re

from mnemo.domain.extraction.languages import LANGUAGES

LAYOUT, LENGTH, LANGUAGE, ORDER = "layout", "length", "language", "order"
LIFTED = "lifted"  # the aspect is left to the assistant: any stance a rule held on it is gone

_STRUCTURED = re.compile(r"\b(?:bullet(?:ed)?(?:[- ]?points?)?|bullets|(?:numbered |check)?lists?|checklists?|"
                         r"tables?|tabular|headings?|headers|sub-?headings?|points? form)\b", re.IGNORECASE)
_PROSE = re.compile(r"\b(?:paragraphs?|prose|full sentences|(?:plain|normal|running|flowing|continuous) text|"
                    r"no formatting)\b", re.IGNORECASE)
_SHORT = re.compile(r"\b(?:short(?:er)?|brief(?:ly)?|concise(?:ly)?|succinct|to the point|tl;?dr|"
                    r"(?:under|max(?:imum)?|at most|no more than) \w+ (?:lines?|words|sentences)|"
                    r"(?:one|two|three|few|a few) (?:lines?|sentences)|keep it (?:small|tight))\b", re.IGNORECASE)
_LONG = re.compile(r"\b(?:long(?:er)?|detailed|(?:in |more |all the |full |with )details?|in[- ]depth|thorough(?:ly)?|"
                   r"elaborate|properly|full explanations?|step[- ]by[- ]step)\b", re.IGNORECASE)
_CODE_FIRST = re.compile(r"\b(?:code (?:first|before|then|>|only)|code\s*>\s*\w+|(?:just|only) (?:the )?code)\b",
                         re.IGNORECASE)
_EXPLANATION_FIRST = re.compile(r"\b(?:explanation|reasoning|prose|context|explain\w*)\b[^.,;]{0,20}?"
                                r"\b(?:first|before (?:the )?code)\b", re.IGNORECASE)
# a language the answers are to be in: after a word of answering or "in" ("answer them simple English",
# "reply in Portuguese"), or before a word of Hindi or Urdu that says so ("Hindi mein jawab do")
_ANSWERING = (r"(?:answer|answers|reply|replies|respond|responses?|write|writing|explain|talk|speak|text|jawab|"
              r"likho|likhna|bolo|baat)")
_LANGUAGE_NAMES = "|".join(sorted(LANGUAGES, key=len, reverse=True))
_IN_LANGUAGE = re.compile(
    r"(?:\b" + _ANSWERING + r"\b[^.,;!?]{0,25}?|\bin\s+)(?:(?:simple|plain|easy|basic|proper|formal)\s+)?"
    r"(?P<a>" + _LANGUAGE_NAMES + r")\b|\b(?P<b>" + _LANGUAGE_NAMES + r")\s+(?:mein|me|mai|mei)\b", re.IGNORECASE)
# the same names said in the language itself, for the few a user is likely to write so
_OWN_NAMES = {"français": "french", "francais": "french", "anglais": "english", "inglés": "english",
              "ingles": "english", "inglês": "english", "englisch": "english", "español": "spanish",
              "espanol": "spanish", "deutsch": "german", "italiano": "italian", "português": "portuguese"}
_IN_OWN_NAME = re.compile(r"\b(?:en|in|auf|em)\s+(?P<a>" + "|".join(_OWN_NAMES) + r")\b", re.IGNORECASE)

# the aspect a rule left to the assistant: "forget what i said about formatting", "format doesn't matter"
_LIFTS_LAYOUT = re.compile(r"\b(?:forget|ignore|scrap|drop|disregard|never ?mind)\b[^.!?]{0,40}?"
                           r"\b(?:format(?:ting)?|layout)\b|\b(?:format(?:ting)?|layout)\b[^.!?]{0,15}?"
                           r"\b(?:whatever|doesn'?t matter|does not matter|up to you|is fine|any way)\b", re.IGNORECASE)
# a word of a stance said not to hold: "no bullet points", "stop using headings", "you do not need to keep your
# sentences short anymore", "not too long"
_NEGATED_BEFORE = re.compile(r"\b(?:no|not|don'?t|do not|never|stop|without|no need (?:for|to)|needn'?t|"
                             r"(?:don'?t|do not) need to|no more|less)\b(?:\s+[\w'-]+){0,4}\s*$", re.IGNORECASE)
_NEGATED_AFTER = re.compile(r"^\s*(?:(?:is|are|r)\s+)?(?:no need|not needed|not necessary|unnecessary|"
                            r"too much|no more|not (?:helpful|working|needed))\b", re.IGNORECASE)
# a length that is no stance, but the case a rule is for: "for anything long, use checklists"
_FOR_A_CASE = re.compile(r"\b(?:for (?:anything|everything|something|things|ones|questions|topics|stuff)|"
                         r"(?:if|when|whenever) (?:it'?s|its|they'?re|the answer is))\s+(?:\w+\s+)?$", re.IGNORECASE)
_OPPOSITE = {"structured": "prose", "prose": "structured", "short": "long", "long": "short"}

# what makes a clause of a message a standing directive about answers: it names answers as such ("answers as bullet
# points pls", "Hindi mein jawab do", "forget what i said about formatting"); or it speaks of answering or of
# layout and says the rule holds from now on or no longer ("can do lists now", "Kindly stop the bullet points",
# "explain properly now"); or it says a layout will do ("normal paragraph ok", "bullet point best"). "write me a
# short bio" and "give me a checklist for the move" are requests of this once, and "I stopped long runs now" is
# about no answer.
_ANSWERS = re.compile(r"\b(?:answers?|replies|reply|responses?|respond|jawab|likho|likhna|format(?:ting)?|layout|"
                      r"keep (?:it|them|things))\b", re.IGNORECASE)
_STANDING = re.compile(r"\b(?:now|from now on|from here on|always|anymore|any more|no more|no longer|going forward|"
                       r"in future|ab se|stop|stopped|again|instead|still)\b", re.IGNORECASE)
_ANSWERING_OR_LAYOUT = re.compile(r"\b(?:" + _ANSWERING + r"|sentences|lines?)\b", re.IGNORECASE)
_WILL_DO = re.compile(r"^\s*(?:(?:is|are)\s+)?(?:ok|okay|fine|better|best|only|pls|please|plz)\b", re.IGNORECASE)


def _a_standing_directive(clause: str) -> bool:
    if _ANSWERS.search(clause):
        return True
    layout = [m for pattern in (_STRUCTURED, _PROSE) for m in pattern.finditer(clause)]
    if _STANDING.search(clause) and (layout or _ANSWERING_OR_LAYOUT.search(clause)):
        return True
    return any(_WILL_DO.match(clause[m.end():]) for m in layout)


_ONCE = re.compile(r"\b(?:this time|just this once|this once|for this (?:one|answer|question|reply)|today only)\b",
                   re.IGNORECASE)
_ASKS_OF_THE_ASSISTANT = re.compile(r"^\s*(?:(?:could|can|would|will) you|pls|please)\b", re.IGNORECASE)
_CLAUSES = re.compile(r"(?<=[.!?;\n])\s+|\s+(?:but|though|however)\s+", re.IGNORECASE)


def _stance_of(pattern: re.Pattern[str], stance: str, text: str, found: list[tuple[int, str]]) -> None:
    for m in pattern.finditer(text):
        if stance in ("short", "long") and _FOR_A_CASE.search(text[:m.start()]):
            continue
        negated = bool(_NEGATED_BEFORE.search(text[max(0, m.start() - 40):m.start()])
                       or _NEGATED_AFTER.match(text[m.end():m.end() + 30]))
        found.append((m.start(), _OPPOSITE[stance] if negated else stance))


def stances(rule: str) -> dict[str, str]:
    """The stance a rule about answers takes on each aspect it speaks of (its last word on each):
    "keep answers short; no bullet points" -> {"length": "short", "layout": "prose"}."""
    found: dict[str, str] = {}
    layout: list[tuple[int, str]] = []
    _stance_of(_STRUCTURED, "structured", rule, layout)
    _stance_of(_PROSE, "prose", rule, layout)
    if layout:
        found[LAYOUT] = max(layout)[1]
    if _LIFTS_LAYOUT.search(rule):
        found[LAYOUT] = LIFTED
    length: list[tuple[int, str]] = []
    _stance_of(_SHORT, "short", rule, length)
    _stance_of(_LONG, "long", rule, length)
    if length:
        found[LENGTH] = max(length)[1]
    languages = [(m.start(), (m["a"] or m["b"]).lower()) for m in _IN_LANGUAGE.finditer(rule)]
    languages += [(m.start(), _OWN_NAMES[m["a"].lower()]) for m in _IN_OWN_NAME.finditer(rule)]
    if languages:
        found[LANGUAGE] = max(languages)[1]
    order = [(m.start(), "code first") for m in _CODE_FIRST.finditer(rule)]
    order += [(m.start(), "explanation first") for m in _EXPLANATION_FIRST.finditer(rule)]
    if order:
        found[ORDER] = max(order)[1]
    return found


def said_stances(message: str) -> dict[str, str]:
    """The stances a user's message takes as standing directives about answers, clause by clause (the last word on
    each aspect): none from a question to the assistant that is no request of it, nor from a rule for this once."""
    found: dict[str, str] = {}
    for clause in _CLAUSES.split(message):
        if not clause.strip() or not _a_standing_directive(clause) or _ONCE.search(clause):
            continue
        if clause.rstrip().endswith("?") and not _ASKS_OF_THE_ASSISTANT.search(clause):
            continue
        found.update(stances(clause))
    return found


def overrides(new: dict[str, str], old: dict[str, str]) -> bool:
    """The new stances end a rule that holds the old ones: another stance, or a lift, on an aspect both speak of."""
    return any(aspect in old and (stance == LIFTED or stance != old[aspect]) for aspect, stance in new.items())
