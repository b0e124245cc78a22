"""A diet the user says they follow by name, where the tagger marked none or only a stray word of it.

"I'm doing a Mediterranean kind of diet now", "starting a low FODMAP diet this week": the head noun says what
it is, so the words before it are the diet ("Mediterranean", "low FODMAP"), said after a verb of following one
(doing, on, following, starting, switched to ...). The tagger, which learned diets from their names ("keto",
"vegan"), marked nothing or a stray "low" of such phrases. Words that say only how a diet is kept ("strict",
"healthy") name none.
"""

from __future__ import annotations

import re

from mnemo.domain.extraction.segment import clause_around, is_question, sentence_around
from mnemo.domain.extraction.tastes import CLINICIANS, TOLD_THE_USER_TO

_FOLLOWING = re.compile(
    r"\b(?:doing|do|on|following|follow|started|starting|start|trying|try|switched to|switching to|gone|going|went|"
    r"eating|keeping|sticking to|stick to|moved to|changed to|adopted)\s+(?:(?:a|an|the|this|that|my)\s+)?"
    r"(?P<kind>(?:(?!diet\b)[\w'-]+\s+){1,3}?)(?:(?:kind|sort|type|style) of\s+)?diet\b", re.IGNORECASE)
# how a diet is kept, not which one; a determiner or a pronoun the pattern took as a word of the kind
_NO_KIND = frozenset({"strict", "healthy", "healthier", "balanced", "new", "proper", "special", "good", "bad",
                      "crash", "normal", "better", "real", "whole", "own", "same", "different", "this", "that",
                      "my", "a", "an", "the", "kind", "sort", "type", "style", "of", "weird", "fad", "serious"})
# words no diet's name holds: "going to start a diet" names none
_NO_NAME = frozenset({"to", "a", "an", "the", "on", "in", "for", "with", "at", "start", "starting", "go", "going",
                      "be", "get", "got", "i", "im", "i'm", "me", "it", "is", "was", "and", "or", "but", "so"})
_NOT_DONE = re.compile(
    r"(?:n['’]t|\b(?:never|not|no|wanna|gonna|might|may|would|should|could|want to|wants to|going to|plan(?:ning)? to|"
    r"considering|(?:think|thinking|thought) (?:of|about)|if|whether|tried))(?:\s+\w+){0,2}\s*$", re.IGNORECASE)


# the diets by their English names: those that keep meat out, which a user names as what they are ("I'm vegan"),
# and those they follow
MEATLESS = r"eggetarian|pescatarian|pescetarian|flexitarian|vegetarian|vegan"
DIET_NAMES = (MEATLESS + r"|keto|low[- ]carbs?|paleo|gluten[- ]free|dairy[- ]free|sugar[- ]free|whole30|carnivore|"
              r"fodmap|atkins|mediterranean")
# a diet's own name said of the user in the words of any language they write in: "main eggetarian hu" (Hinglish),
# "je suis végétarienne", "soy vegana"; the tagger learned the English names after "I'm"
_NAMED_DIET = re.compile(
    # ("chu" and "j'suis" as Quebec French says "je suis")
    r"\b(?:i['’]?m|im|i am|main|mai|soy|sono|je suis|j['’]suis|jsuis|chu|ich bin|eu sou|we['’]?re|we are)\s+"
    r"(?:(?:a|an|strictly|strict|fully|mostly|pretty much|basically|now|still|also|totally)\s+)*"
    r"(?P<diet>" + MEATLESS + r"|v[ée]g[ée]tarien(?:ne)?|v[ée]gane?|"
    r"vegetarier(?:in)?|veganer(?:in)?|vegetarian[ao]s?|vegan[ao]s?|vegetariano|pescetarian[ao]|jain|sattvic|"
    # the short and the Hindi words for vegetarian, where no noun follows them ("chu végé depuis deux semaines", "I
    # am shakahari now", "hum pure veg hain"; not "I'm veggie burger obsessed")
    r"(?:v[ée]g[ée]|veggie|shakahari|shaakahari|sakahari|pure\s+veg)(?=\s*(?:[.,;:!?)\n]|$|(?:now|too|since|depuis|"
    r"desde|for|and|but|so|btw|lol|haha|from|hain|hai|hoon|hu|ho|already|anyway|these\s+days)\b)))(?![\w-])",
    re.IGNORECASE)


# a diet a doctor (or a dietitian) told the user to follow: "my doctor said I should do low carb for a while",
# "the dietitian wants me on a low FODMAP diet" (the tagger reads the doctor, or the condition, and not the diet)
_ADVISED_DIET = re.compile(
    CLINICIANS + r"[^.;!?]{0,60}?(?:" + TOLD_THE_USER_TO + r"|\b(?:put|puts)\s+me\s+)"
    r"(?:do|go|try|follow|start|be\s+on|eat|on)\s+(?:an?\s+|the\s+)?(?:strict\s+)?"
    r"(?P<diet>low[- ]?(?:carbs?|fodmap|salt|sodium|fat|sugar|gi)|" + DIET_NAMES + r")\b", re.IGNORECASE)


def diets_followed(text: str) -> list[tuple[str, str, str | None, str, str]]:
    """("diet", the diet's name, None, the clause that says so, its sentence) for each diet the user follows."""
    found: list[tuple[str, str, str | None, str, str]] = []
    for m in _NAMED_DIET.finditer(text):
        sentence = sentence_around(text, m.start(), m.end())
        if not (is_question(sentence) or _NOT_DONE.search(text[:m.start()])):
            found.append(("diet", m.group("diet"), None, clause_around(text, m.start(), m.end()), sentence))
    for m in _FOLLOWING.finditer(text):
        words = [w for w in m.group("kind").split() if w.lower() not in ("kind", "sort", "type", "style", "of")]
        if not words or all(w.lower() in _NO_KIND for w in words) or any(w.lower() in _NO_NAME for w in words):
            continue  # "going to start a diet": no diet named
        sentence = sentence_around(text, m.start(), m.end())
        if is_question(sentence) or _NOT_DONE.search(text[:m.start()]):
            continue
        # the clause, not the phrase, is what is screened: "my wife is on a keto diet" is hers
        found.append(("diet", " ".join(words), None, clause_around(text, m.start(), m.end()), sentence))
    for m in _ADVISED_DIET.finditer(text):
        sentence = sentence_around(text, m.start(), m.end())
        if not is_question(sentence):
            found.append(("diet", m.group("diet"), None, clause_around(text, m.start("diet"), m.end("diet")),
                          sentence))
    return found
