"""What the user says they are fine with after all: "the new test says I am fine with lactose", "turns out I can
eat gluten again". A stored allergy or intolerance to it ends; nothing new is said of the user's diet.

The tagger, which learned allergies from messages that state them, reads such a clause as the allergy itself or as
a diet ("User's diet: gluten."). The name is the first words after the phrase, up to a word that is no part of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mnemo.domain.extraction.segment import clause_around, is_question, sentence_around

_NAME = r"(?P<name>[^\W\d_][\w'-]*(?:\s+[^\W\d_][\w'-]*)?)"
_TOLERATED = re.compile(
    r"\b(?:(?:i['’]?m|i am|im)\s+(?:(?:actually|totally|perfectly|completely|now|still|just)\s+)?"
    r"(?:fine|ok|okay|alright|all right)\s+with|"
    r"(?:i|we)\s+(?:can|could)\s+(?:actually\s+|still\s+)?(?:eat|have|drink|tolerate))\s+"
    r"(?:(?:the|eating|drinking|any)\s+)?" + _NAME, re.IGNORECASE)
# "I can eat gluten again", "... after all", "... now": what the user could not before; "I can eat spicy food" alone
# says nothing ended (the phrase of being fine with or not allergic to says it by itself)
_CAN_AFTER_ALL = re.compile(r"^\s*(?:again|after all|now|fine|no problem|without (?:a|any) problems?)\b",
                            re.IGNORECASE)
# "could" is the past as often as not: "I could eat shrimp fine when I was younger" ends nothing; only "again",
# "after all" or "now" make it news ("the allergist said I could have dairy again")
_COULD_AFTER_ALL = re.compile(r"^\s*(?:again|after all|now)\b", re.IGNORECASE)
# a form or an amount of the thing, said right after it: "eggs in cakes", "dairy in small amounts", "milk if it's
# heated", "eggs baked, but not scrambled": a tolerance of that form, the allergy or intolerance stands
_ONLY_A_FORM = re.compile(r"^\s*,?\s*(?:in(?!\s+the\s+end\b)|when|if|as long as|so long as|only|unless|cooked|baked|"
                          r"heated|but not|except|in moderation|a little|a bit|small amounts?)\b", re.IGNORECASE)
_NOT_A_NAME = frozenset({"it", "that", "this", "them", "after", "all", "again", "now", "so", "but", "and", "too",
                         "fine", "though", "for", "me", "with", "in", "at", "of", "a", "an", "the", "anything",
                         "everything", "whatever", "that's", "thats", "lol", "haha"})
_DENIED_BEFORE = re.compile(r"(?:n['’]t|\b(?:not|never|if|whether|wish|hope))\s*(?:\w+\s+){0,2}$", re.IGNORECASE)


@dataclass(frozen=True)
class Tolerated:
    name: str
    clause: str
    sentence: str


def tolerated(text: str) -> list[Tolerated]:
    """Each thing the user says they are fine with or can have again."""
    found = []
    for m in _TOLERATED.finditer(text):
        words = []
        for word in m.group("name").split():
            if word.lower() in _NOT_A_NAME:
                break
            words.append(word)
        if not words:
            continue
        after = text[m.start("name") + len(" ".join(words)):]
        if re.search(r"\bcan\b", m.group(0), re.IGNORECASE) and not _CAN_AFTER_ALL.match(after):
            continue
        if re.search(r"\bcould\b", m.group(0), re.IGNORECASE) and not _COULD_AFTER_ALL.match(after):
            continue
        # "lactose-free milk" is no lactose; "eggs in cakes" is one form of eggs
        if re.search(r"-free\b", " ".join(words), re.IGNORECASE) or _ONLY_A_FORM.match(after):
            continue
        sentence = sentence_around(text, m.start(), m.end())
        if is_question(sentence) or _DENIED_BEFORE.search(text[:m.start()]):
            continue
        found.append(Tolerated(" ".join(words), clause_around(text, m.start(), m.end()), sentence))
    return found
