"""Exact phrasings of commands to the memory: "remember that ...", "forget ...", and short answers
to the assistant's own question ("where do you live?" -> "Leeds") turned into statements."""

from __future__ import annotations

import re

REMEMBER = re.compile(
    r"^(?:please |can you |could you |would you |pls )?(?:remember|note|keep in mind|don't forget|do not "
    r"forget|make a note|take note|save|store|memori[sz]e)(?: this| that| for me| for later)?(?:[:,]\s*|\s+that\s+"
    r"|\s+)(?P<x>.+)", re.IGNORECASE)
FORGET = re.compile(
    r"^(?:please |can you |could you |pls )?(?:forget|delete|erase|remove|stop remembering|don't remember|"
    r"do not remember|drop)(?: about| that| the fact that| everything about| what i said about| my| the "
    r"(?:memory|note|fact) (?:about|that|of))?\s+(?P<x>.+)", re.IGNORECASE)
ASKED = [
    (re.compile(r"\bwhat(?:'s| is) your name\b|\bwhat should i call you\b", re.I), "my name is {}"),
    (re.compile(r"\bwhere (?:do|are) you (?:live|living|based|located|from)\b", re.I), "I live in {}"),
    (re.compile(r"\bwhat do you do(?: for (?:a )?(?:living|work))?\??$|\bwhat(?:'s| is) your (?:job|"
                r"profession|occupation)\b", re.I), "I work as {}"),
    (re.compile(r"\bany (?:food )?allergies\b|\bare you allergic\b", re.I), "I'm allergic to {}"),
    (re.compile(r"\bdietary (?:restrictions|requirements|needs)\b", re.I), "I'm {}"),
]
AFFIRM = re.compile(r"^(?:yes|yep|yeah|correct|right|exactly|please do|sure|that's right)\b", re.I)
CONFIRM_Q = re.compile(r"\b(?:should|shall) i remember (?:that )?(?P<x>.+?)\?", re.I)


def answered_statement(asked: str, answer: str) -> str | None:
    """The statement a short answer makes in reply to the assistant's question, or None."""
    short = answer.strip().rstrip(".!")
    confirm = CONFIRM_Q.search(asked)
    if confirm and AFFIRM.match(short):
        statement = confirm.group("x")
        statement = re.sub(r"^you(?:'re| are)\b", "I'm", statement, flags=re.I)
        statement = re.sub(r"^your\b", "my", statement, flags=re.I)
        return re.sub(r"^you\b", "I", statement, flags=re.I)
    if len(short.split()) > 4 or short.endswith("?") or re.match(r"^(?:i|i'm|my|we)\b", short, re.I):
        return None
    for question, template in ASKED:
        if question.search(asked):
            return template.format(short)
    return None


# "No, that's not right, ...", "actually", "wait no": what follows corrects what was said or assumed
CORRECTION_OPENING = re.compile(
    # a bare "no" opens a correction only before a pause or a restatement: "no more emojis" is an instruction
    r"^\W*(?:(?:no+(?=\s*(?:[,.!:;-]|$|i\b|i'm\b|im\b|it'?s\b|that\b|wait\b|sorry\b|actually\b|my\b|we\b))|"
    r"nope|nah|wait|sorry|oops|actually|correction|that's not right|that is not right|that's wrong|"
    r"that's not correct|that's not true|not quite|wrong|i meant|i mean|to be clear|to clarify|scratch that|"
    r"my bad|let me correct that|i misspoke)\b[\s,:;!.-]*)+", re.IGNORECASE)


# "As a coeliac of long standing, might I ask ...", "speaking as a nurse, ...", "being a vegan, what ...": what the
# user is, said as the ground of a question or a request, which the question screen and the tagger pass over
_SAID_AS = re.compile(
    r"(?:^|(?<=[.!?\n])|,)\s*(?:speaking\s+|being\s+)?(?:as|being)\s+(?:a|an)\s+"
    r"(?P<x>[^\W\d_][\w'’-]*(?:\s+[\w'’-]+){0,5}?)\s*,", re.IGNORECASE)
# "as a result", "as a rule", "as a kid": no statement of what the user is now
_NOT_WHAT_I_AM = re.compile(
    r"^(?:result|matter|rule|whole|joke|favou?r|treat|gift|reminder|side note|kid|child|teen|teenager|boy|girl|"
    r"baby|youngster|first step|start|test|bonus|backup|last resort|team|family|group|thank you|precaution|"
    r"consequence|general rule|compromise|courtesy|heads up|quick note|one-off|temporary)\b", re.IGNORECASE)


def said_as_ground(text: str) -> list[str]:
    """"I am a X." for each "as a X," the user grounds a question or a request on ("As a coeliac, which cakes can
    I eat?" -> "I am a coeliac."), for the tagger to read as a statement."""
    return [f"I am a {m.group('x').strip()}." for m in _SAID_AS.finditer(text)
            if not _NOT_WHAT_I_AM.match(m.group("x").strip())]
