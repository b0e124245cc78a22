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
# "reply in Portuguese"), or before a word of Hindi or Urdu that says so ("Hindi mein jawab do"); the words of the
# user's own speaking or writing are no answer's ("we always speak Portuguese at home")
_ANSWERING = r"(?:answer|answers|reply|replies|respond|responses?|explain|jawab|likho|likhna|bolo)"
_LANGUAGE_NAMES = "|".join(sorted(LANGUAGES, key=len, reverse=True))
_IN_LANGUAGE = re.compile(
    r"(?:\b" + _ANSWERING + r"\b[^.,;!?]{0,25}?|\bin\s+)(?:(?:simple|plain|easy|basic|proper|formal)\s+)?"
    r"(?P<a>" + _LANGUAGE_NAMES + r")\b|\b(?P<b>" + _LANGUAGE_NAMES + r")\s+(?:mein|me|mai|mei)\b", re.IGNORECASE)
# the same names said in the language itself, for the few a user is likely to write so
_OWN_NAMES = {"français": "french", "francais": "french", "anglais": "english", "inglés": "english",
              "ingles": "english", "inglês": "english", "englisch": "english", "español": "spanish",
              "espanol": "spanish", "deutsch": "german", "italiano": "italian", "português": "portuguese"}
_IN_OWN_NAME = re.compile(r"\b(?:en|in|auf|em)\s+(?P<a>" + "|".join(_OWN_NAMES) + r")\b", re.IGNORECASE)
# a language named as not the one, or as the user's own ("not in German", "Don't reply in Hindi", "even if I write in
# Spanish")
_NOT_THIS_LANGUAGE = re.compile(r"(?:\b(?:not|never|no|instead\s+of|rather\s+than|except)\b(?:\s+[\w'-]+){0,2}|"
                                r"\b(?:don'?t|do\s+not)\s+(?:\w+\s+){0,2}|"
                                r"\b(?:if|when|whenever|though)\s+(?:i|we)\b[^.,;!?]{0,20})\s*$", re.IGNORECASE)

# the aspect a rule left to the assistant: "forget what i said about formatting", "format doesn't matter" (not "this
# format is fine, thanks", which praises the one the rule asked for, nor "ignore the weird formatting" of a paste)
_LIFTS_LAYOUT = re.compile(r"\b(?:forget|ignore|scrap|drop|disregard|never ?mind)\s+(?:what\s+i\s+"
                           r"(?:said|asked|told\s+you)\s+about|my\s+(?:earlier\s+|old\s+)?)\s*(?:the\s+)?"
                           r"(?:format(?:ting)?|layout)\b|"
                           r"\b(?:any|whatever)\s+format(?:ting)?\s+(?:is\s+)?(?:fine|ok|okay)\b|"
                           r"\bformat(?:ting)?\s+(?:doesn'?t|does\s+not)\s+matter\b", re.IGNORECASE)
# a word of a stance said not to hold: "no bullet points", "stop using headings", "you do not need to keep your
# sentences short anymore", "avoid long answers", "I can't read long answers on my phone"; a stance complained of is
# its opposite ("too long", "too many bullet points"). "don't worry" and "no worries" negate nothing.
_NEGATED_BEFORE = re.compile(r"\b(?:no|not|don'?t|do not|never|stop|without|no need (?:for|to)|needn'?t|getting|"
                             r"(?:don'?t|do not) need to|no more|less|fewer|avoid|skip|hate|can'?t|cannot|"
                             r"too(?:\s+many|\s+much)?)\b(?:\s+[\w'-]+){0,3}\s*$", re.IGNORECASE)
_NO_WORRIES = re.compile(r"\b(?:no\s+worries|don'?t\s+worry|do\s+not\s+worry|never\s*mind|no\s+problem)\b",
                         re.IGNORECASE)
_NEGATED_AFTER = re.compile(r"^\s*(?:(?:is|are|r)\s+)?(?:no need|not needed|not necessary|unnecessary|"
                            r"too much|no more|not (?:helpful|working|needed))\b", re.IGNORECASE)
# a length that is no stance, but the case a rule is for: "for anything long, use checklists"
_FOR_A_CASE = re.compile(r"\b(?:for (?:anything|everything|something|things|ones|questions|topics|stuff)|"
                         r"(?:if|when|whenever) (?:it'?s|its|they'?re|the answer is))\s+(?:\w+\s+)?$", re.IGNORECASE)
_OPPOSITE = {"structured": "prose", "prose": "structured", "short": "long", "long": "short"}

# what makes a clause of a message a standing directive about answers: it names the assistant's answers as such
# ("answers as bullet points pls", "Hindi mein jawab do", "forget what i said about formatting", "keep it short pls");
# or it speaks of answering or of layout and says the rule holds from now on or no longer ("can do lists now",
# "Kindly stop the bullet points", "explain properly now"); or it says a layout will do ("normal paragraph ok",
# "bullet point best"). Never a request of this once ("write me a short bio", "now give me a list of 10 restaurants",
# "help me write a reply in Spanish to my landlord", "format this as a table"), an answer already given ("your last
# answer was too long", "thanks for the detailed answer!", "sorry for the late reply"), or the user's own things ("the
# guest list is fine", "my shopping list only has 5 things").
_ANSWERS = re.compile(r"\b(?:answers|replies|responses|(?:answer|reply|respond|explain)\s+(?:me|us|in|with|using|"
                      r"only|always|briefly|shortly|properly|simply|simple|short|shorter|longer|like)|jawab|likho|likhna|"
                      r"format(?:ting)?|layout|keep\s+(?:it|them|things|answers|replies))\b", re.IGNORECASE)
# what says a rule lasts, whatever request it is said with ("make it a table instead" is this answer's)
_LASTING_WORDS = (r"from now on|from now|from here on|always|anymore|any more|no more|no longer|going forward|"
                  r"in future|ab se|every time")
_LASTING = re.compile(r"\b(?:" + _LASTING_WORDS + r")\b", re.IGNORECASE)
# ... and, said with a word of answering or of layout, what says a rule holds now or no longer ("can do lists now",
# "Kindly stop the bullet points", "still short"); "now" opening a request is no rule ("now give me a list")
_STANDING = re.compile(r"\b(?:" + _LASTING_WORDS + r"|stop|stopped|again|instead|still)\b|(?<=\w)\s+now\b",
                       re.IGNORECASE)
_ANSWERING_OR_LAYOUT = re.compile(r"\b(?:" + _ANSWERING + r"|sentences|lines?)\b", re.IGNORECASE)
# a layout said to do, as a rule: the words of an answer's layout alone ("normal paragraph ok", "bullet point best"),
# not a list or a table of the user's own ("the guest list is fine")
_RULE_LAYOUT = re.compile(r"\b(?:bullet(?:ed)?(?:[- ]?points?)?|bullets|paragraphs?|headings?|numbered lists?|"
                          r"checklists?|prose|plain text|normal text)\b", re.IGNORECASE)
_WILL_DO = re.compile(r"^\s*(?:(?:is|are)\s+)?(?:ok|okay|fine|better|best|only|pls|please|plz)\b", re.IGNORECASE)
# an answer already given, thanked for, complained of or apologised for; a reply the user is drafting to someone
_GIVEN = re.compile(r"\b(?:(?:your|the|that|this)\s+(?:last\s+|previous\s+|first\s+)?(?:answer|reply|response|"
                    r"explanation)s?\s+(?:was|were|is)|thanks?\s+(?:you\s+)?for|thx\s+for|sorry\s+for|"
                    r"to\s+answer\s+your|short\s+answer\s*:|long\s+story|"
                    # answers given elsewhere or before: "The replies on reddit were detailed"
                    r"(?:the|their|those)\s+(?:\w+\s+)?(?:answers|replies|responses)\s+(?:on|from|at)|"
                    r"(?:answers|replies|responses)\s+(?:were|was)|long\s+day)\b", re.IGNORECASE)
_DRAFTING = re.compile(r"\b(?:write|draft|compose|send|translate|text|email|help\s+me\s+(?:write|with))\s+"
                       r"(?:me\s+)?(?:a|an|this|that|the|my|him|her|them)\b|\b(?:reply|respond|answer)\s+to\s+"
                       r"(?:this|that|the|my|his|her|their|him|her|them)\b|\ba\s+(?:reply|response)\b", re.IGNORECASE)
# a request about this one answer: "format this as a table", "make it a table instead", "now give me a list"
_THIS_ONE = re.compile(r"\b(?:format|make|turn|put|give|show|list|send)\s+(?:me\s+)?(?:this|it|that|these|those|them|"
                       r"a|an|the)\b|^\W*now\s+\w+", re.IGNORECASE)


# the user's own list or table, not an answer's layout ("my to-do list is better now"); and, before a layout said to
# do, any owner of it ("the guest list is fine")
_THEIRS = re.compile(r"\b(?:my|our|his|her|their)\s+(?:[\w'-]+\s+)?$", re.IGNORECASE)
_OWNED = re.compile(r"\b(?:the|my|our|your|this|that)\s+(?:\w+\s+)?$", re.IGNORECASE)


def _a_standing_directive(clause: str) -> bool:
    if _GIVEN.search(clause) or _DRAFTING.search(clause):
        return False
    if _THIS_ONE.search(clause) and not _LASTING.search(clause):
        return False
    if _ANSWERS.search(clause):
        return True
    layout = [m for pattern in (_STRUCTURED, _PROSE) for m in pattern.finditer(clause)
              if not _THEIRS.search(clause[max(0, m.start() - 30):m.start()])]
    if _STANDING.search(clause) and (layout or _ANSWERING_OR_LAYOUT.search(clause)):
        return True
    return any(_WILL_DO.match(clause[m.end():]) for m in _RULE_LAYOUT.finditer(clause)
               if not _OWNED.search(clause[max(0, m.start() - 30):m.start()]))


_ONCE = re.compile(r"\b(?:this time|just this once|this once|for this (?:one|answer|question|reply)|today only)\b",
                   re.IGNORECASE)
_ASKS_OF_THE_ASSISTANT = re.compile(r"^\s*(?:(?:could|can|would|will) you|pls|please)\b", re.IGNORECASE)
_CLAUSES = re.compile(r"(?<=[.!?;\n])\s+|\s+(?:but|though|however)\s+|,\s+(?=(?:just|so|and)\b)", re.IGNORECASE)
_CASE_WINDOW = 60  # how far before a length word a case it is said of may start ("for anything long")


def _stance_of(pattern: re.Pattern[str], stance: str, text: str, found: list[tuple[int, str]]) -> None:
    for m in pattern.finditer(text):
        before = text[max(0, m.start() - _CASE_WINDOW):m.start()]
        if stance in ("short", "long") and _FOR_A_CASE.search(before):
            continue
        near = _NO_WORRIES.sub(" ", text[max(0, m.start() - 40):m.start()])
        negated = bool(_NEGATED_BEFORE.search(near) or _NEGATED_AFTER.match(text[m.end():m.end() + 30]))
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
    languages = [(m.start(), (m["a"] or m["b"]).lower()) for m in _IN_LANGUAGE.finditer(rule)
                 if not _NOT_THIS_LANGUAGE.search(rule[max(0, m.start() - 40):m.start("a") if m["a"] else m.start()])]
    languages += [(m.start(), _OWN_NAMES[m["a"].lower()]) for m in _IN_OWN_NAME.finditer(rule)
                  if not _NOT_THIS_LANGUAGE.search(rule[max(0, m.start() - 40):m.start()])]
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


# a language the answers are to be in, asked for in the words of the language the user writes in: "réponds-moi en
# français stp", "nijibu kwa Swahili tu", "mujhe Hindi mein jawab do", "antworte mir bitte auf Deutsch"; the tagger,
# trained on English, reads some of these as one-off requests and some not at all, though a language asked for is
# one for the answers to come
# (the forms that ask the assistant, not those that tell what someone does: "réponds-moi", not "mon fils me parle en
# anglais"; English is the tagger's own)
_ASKING_VERB = (r"(?:r[ée]ponds-moi|r[ée]pondez-moi|r[ée]ponds|r[ée]pondez|[ée]cris-moi|[ée]crivez-moi|parle-moi|"
                r"parlez-moi|resp[óo]ndeme|cont[ée]stame|escr[íi]beme|h[áa]blame|responda|me\s+responde|antworte|"
                r"antworten\s+sie|rispondimi|rispondi|scrivimi|parlami|nijibu|niandikie|niandikia)")
_LANGUAGE_ASKED = re.compile(
    r"\b" + _ASKING_VERB + r"(?:\s+(?:mir|me|moi|nos|please|pls|plz|bitte|stp|svp|por\s+favor|tafadhali|always|only|"
    r"toujours|siempre|sempre|immer))*\s+(?:in|en|em|auf|kwa|na|in\s+lingua)\s+"
    r"(?:(?:simple|plain|easy|einfachem)\s+)?(?P<a>" + _LANGUAGE_NAMES + "|" + "|".join(_OWN_NAMES) + r")\b"
    # ("Hindi mein jawab mat do" says not to)
    r"|\b(?P<b>" + _LANGUAGE_NAMES + r")\s+(?:mein|me|mai|mei)\s+(?:hi\s+)?(?:jawab|likho|likhna|bolo|batao)\b"
    r"(?!\s+(?:mat|na|nahi|nahin|mt)\b)", re.IGNORECASE)


def languages_asked(text: str) -> list[tuple[int, int, str]]:
    """(start, end, language) for each language the text asks the answers to be in, in any of the languages users write
    in; none in a question that is no request, a rule for this once, or a language named as not the one."""
    out = []
    for clause_match in re.finditer(r"[^.!?\n]+[.!?]?", text):
        clause = clause_match.group(0)
        if _ONCE.search(clause) or _DRAFTING.search(clause) or (
                clause.rstrip().endswith("?") and not _ASKS_OF_THE_ASSISTANT.search(clause)):
            continue
        for m in _LANGUAGE_ASKED.finditer(clause):
            name = (m.group("a") or m.group("b")).lower()
            if _NOT_THIS_LANGUAGE.search(clause[max(0, m.start() - 40):m.start()]):
                continue
            language = _OWN_NAMES.get(name, name)
            start = clause_match.start() + m.start()
            out.append((start, clause_match.start() + m.end(), language[:1].upper() + language[1:]))
    return out
