"""Tastes said in passing, in two turns of phrase the tagger reads as nothing inside a long message.

"I've gotten into Korean food for some reason", "been getting into bouldering": what the user took up is a
like. "we are vegetarian, no eggs either": after a diet or something avoided, "no X either" is one more thing
avoided. Both are exact and first-person: "my son got into robotics" is the son's.
"""

from __future__ import annotations

import re

from mnemo.domain.extraction.segment import clause_around, is_question, sentence_around

# what the taken-up thing ends before: a reason, a time, another clause
_ENDS = (r"(?=\s+(?:for|since|lately|recently|these days|this year|again|because|bc|cos|cause|and|but|so|now|at|"
         r"with|after|which|though|tbh|lol|haha)\b|\s*[,.;:!?()]|\s*$)")
_TAKEN_UP = re.compile(
    r"(?:^|[,.;!?]\s*|\b(?:and|but|so|also|now|obviously|honestly|recently|lately)\s+)"
    r"(?:i(?:['’]ve| have)?|ive|i['’]m|im|i am|been)\s+(?:(?:also|really|recently|lately|kind of|kinda)\s+)?"
    r"(?:gotten|got|getting|been getting|started getting)\s+(?:(?:really|properly|super|so|well|very|quite|"
    r"totally|big|back)\s+)?into\s+(?P<x>(?:[\w'’&-]+\s*?){1,5}?)" + _ENDS, re.IGNORECASE)
_DETERMINER = re.compile(r"^(?:the|a|an|some|this|that|my)\s+", re.IGNORECASE)
# words that say a taken-up thing is no thing: "got into it", "got into trouble", "got into a fight"
_NOTHING = frozenset({"it", "that", "this", "them", "trouble", "a fight", "an argument", "bed", "the car", "work",
                      "university", "uni", "college", "school", "the program", "the course", "debt", "a mess"})
_ADMITTED = re.compile(r"\b(?:university|college|uni|school|program(?:me)?|course|team|club|squad|habit|trouble|"
                       r"debt|fight|argument|accident|position|role|final|finals|semis?)\b", re.IGNORECASE)

# a diet or a thing avoided, said in the sentence before "no X either"
_AVOIDING = re.compile(r"\b(?:vegetarian|vegan|pescatarian|halal|kosher|keto|paleo|gluten[- ]free|dairy[- ]free|"
                       r"lactose|coeliac|celiac|allergic|(?:don['’]?t|do not|can['’]?t|cannot|never) eat|avoid|"
                       r"no (?:meat|pork|beef|fish|dairy|gluten|alcohol|sugar))\b", re.IGNORECASE)
_EITHER = re.compile(r"\b(?:no|not|nor)\s+(?P<x>[a-z][\w'-]*(?:\s+[a-z][\w'-]*)?)\s+either\b", re.IGNORECASE)


def taken_up(text: str) -> list[tuple[str, str, str | None, str, str]]:
    """("likes", what the user took up, None, its clause, its sentence) for each "I've gotten into X"."""
    found: list[tuple[str, str, str | None, str, str]] = []
    for m in _TAKEN_UP.finditer(text):
        thing = _DETERMINER.sub("", m.group("x").strip())
        sentence = sentence_around(text, m.start("x"), m.end("x"))
        if (not thing or thing.lower() in _NOTHING or _ADMITTED.search(thing) or is_question(sentence)
                or (" " not in thing and thing[0].isupper())):
            continue  # "got into Oxford", "got into the team": admitted, not a taste
        found.append(("likes", thing, None, clause_around(text, m.start("x"), m.end("x")), sentence))
    return found


# what a doctor (or a dietitian, a physio) told the user to cut down on: "My doctor has told me to reduce salt",
# "the GP said I need to cut back on sugar", "physio says no running for 8 weeks" (the user's own constraint: "me",
# "I")
# who advises the user on what to eat or do (diets.py reads the diets they advise with the same words)
CLINICIANS = (r"\b(?:doctor|doc|dr|gp|dietitian|dietician|nutritionist|physio|physiotherapist|cardiologist|consultant|"
              r"endo(?:crinologist)?|specialist|nurse|dentist|midwife)s?\b")
# their telling the user to do something: "has told me to", "said I should", "wants me to"
TOLD_THE_USER_TO = (r"\b(?:has\s+|have\s+)?(?:told|tells|said|says|advised|advises|wants|asked|recommended|"
                    r"recommends)\s+(?:me\s+)?(?:(?:that\s+)?i\s+(?:should|need to|have to|must|gotta)\s+|to\s+)?")
_ADVISED = re.compile(
    CLINICIANS + r"[^.;!?]{0,80}?" + TOLD_THE_USER_TO +
    r"(?:reduce|cut\s+(?:down|back)\s+on|cut\s+out|avoid|limit|lay\s+off|stay\s+off|stay\s+away\s+from|"
    r"go\s+easy\s+on|lower|no|no\s+more|stop(?:\s+eating|\s+drinking)?|quit)\s+"
    r"(?:(?:the|my|on|eating|drinking)\s+)?(?P<x>[a-z][\w'-]*(?:\s+(?!for\b|because\b|and\b|so\b|until\b|"
    r"while\b|since\b|till\b|or\b|but\b|now\b|at\b|in\b)[a-z][\w'-]*)?)", re.IGNORECASE)
# what a doctor forbade the user, as non-native English often says it: "the cardiologist has forbidden me the cheese
# in quantity", "doctor banned me from alcohol"
_FORBIDDEN = re.compile(
    CLINICIANS + r"[^.;!?]{0,40}?\b(?:has\s+|have\s+)?(?:forbidden|forbid|forbids|forbade|banned|bans|prohibited)\s+"
    r"me\s+(?:from\s+)?(?:(?:the|eating|drinking|any)\s+)?"
    r"(?P<x>[a-z][\w'-]*(?:\s+(?!for\b|because\b|and\b|so\b|until\b|in\b|at\b|now\b)[a-z][\w'-]*)?)",
    re.IGNORECASE)
_NOT_A_THING = frozenset({"it", "that", "this", "them", "more", "less", "much", "down", "back", "weight", "stress",
                          "worrying", "work", "working", "anything", "everything"})


def advised_to_avoid(text: str) -> list[tuple[str, str, str | None, str, str]]:
    """("avoids", X, None, its clause, its sentence) for each thing a doctor told the user to cut down on."""
    found: list[tuple[str, str, str | None, str, str]] = []
    for m in [*_ADVISED.finditer(text), *_FORBIDDEN.finditer(text)]:
        thing = m.group("x")
        sentence = sentence_around(text, m.start(), m.end())
        if thing.split()[0].lower() in _NOT_A_THING or is_question(sentence):
            continue
        found.append(("avoids", thing, None, clause_around(text, m.start("x"), m.end("x")), sentence))
    return found


def also_avoided(text: str) -> list[tuple[str, str, str | None, str, str]]:
    """("avoids", X, None, its clause, its sentence) for each "no X either" after a diet or a thing avoided."""
    found: list[tuple[str, str, str | None, str, str]] = []
    for m in _EITHER.finditer(text):
        sentence = sentence_around(text, m.start(), m.end())
        before = sentence[:max(0, sentence.find(m.group(0)))]
        if _AVOIDING.search(before) and not is_question(sentence):
            found.append(("avoids", m.group("x"), None, clause_around(text, m.start(), m.end()), sentence))
    return found
