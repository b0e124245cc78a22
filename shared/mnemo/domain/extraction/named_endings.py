"""A stored fact ended by naming it after a word of stopping: "doctor say back better, stop the meloxicam", "left the
choir last month, too much drama", "finished the chemo last friday!!", "no more crossfit for me after the knee".

The tagger reads many endings ("I stopped taking the meloxicam"), but a short order or report it misses, or reads as
a new fact ("finished the meloxicam": a hobby), or ends a key of its own that names nothing stored ("crossfit for them
after the knee"). What makes these exact is the user's stored fact: the words after a way of stopping name a value
the user has, of a slot that can stop (a medicine or treatment, a hobby, a routine, a tool, a course, a diet, a thing
owned or a pet). Each way of stopping ends only the slots it can: a thing is sold, not finished; a course is finished,
not sold; a choir or a club is left, a gym left at six is not. Not said as what may happen ("thinking of quitting the
choir", "should I stop the statin?"), nor of someone else ("my husband quit the band").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from mnemo.domain.extraction.pipeline import NOT_YET, USER_BEFORE, only_if, paused
from mnemo.domain.extraction.segment import DENIED_OR_WISHED, clause_around, is_question
from mnemo.domain.text import terms

# the slots a fact can be ended in by naming it
ENDED_BY_NAME = frozenset({"health", "hobby", "habit", "uses", "learning", "diet", "owns", "pet"})
_DOES = frozenset({"health", "hobby", "habit", "uses", "learning", "diet"})
_HAS = frozenset({"owns", "pet"})

# words between a way of stopping and what is stopped: "stopped taking the", "gave up on my", "came off all those"
_FILLER = (r"(?:(?:taking|take|using|use|doing|do|playing|play|going\s+to|going|go\s+to|attending|eating|drinking|"
           r"on|with|of|the|my|our|that|those|these|this|all|them|it|whole|whole\s+thing\s+with)\s+)*")
_WAYS: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (re.compile(r"\b(?:stop(?:ped|s|ping)?|quit(?:s|ting)?|gave\s+up|give\s+up|giving\s+up|given\s+up|no\s+more|"
                r"no\s+longer|done\s+with|dropped|ditched|cut\s+out|"
                r"(?:came|come|coming|got|get|getting|weaned|taken|took\s+me|taking\s+me|put\s+me|been)\s+off(?:\s+of)?|"
                r"(?:(?:i['’]?m|im|i\s+am|now)\s+|^|(?<=[,.;:!]\s))off)\s+", re.IGNORECASE), _DOES),
    # a course or a treatment is finished (a medicine's course too); a run or a book is, and ends nothing (_COURSES)
    (re.compile(r"\b(?:finish(?:ed)?|completed|done)\s+(?:with\s+)?", re.IGNORECASE),
     frozenset({"health", "learning", "habit"})),
    # a group is left; a gym or an office left at six is not (_GROUPS)
    (re.compile(r"\b(?:left|leaving|quit)\s+", re.IGNORECASE), frozenset({"hobby", "habit"})),
    (re.compile(r"\b(?:sold|selling|gave\s+away|given\s+away|got\s+rid\s+of|rehomed|re-homed|gave\s+back|"
                r"returned)\s+", re.IGNORECASE), _HAS),
)
# "not on insulin anymore", "don't play tennis any more": the thing between the negation and its end
_NOT_ANYMORE = re.compile(
    r"\b(?:not|(?:do|does|did|am|is|are|was)n['’]?t|no\s+longer)\s+(?:really\s+)?"
    r"(?:on|taking|take|using|use|doing|do|playing|play|going\s+to|go\s+to|into|in|at|with|eating|eat)\s+"
    r"(?P<what>(?:[\w'’-]+\s+){0,3}?[\w'’-]+)\s+(?:anymore|any\s+more|any\s+longer)\b", re.IGNORECASE)
# what stopped said first, learner English's order: "english class on Thursday I stop. too tired after work"
_NAME_THEN_STOP = re.compile(
    r"(?:^|(?<=[,.;:!?\n]))\s*(?P<what>[\w'’-]+(?:\s+[\w'’-]+){0,4}?)\s+(?:i|we)\s+(?:stop|stopped|quit|finish|"
    r"finished|give\s+up|gave\s+up|drop|dropped)\b(?=\s*(?:[,.;:!?\n]|$|\s+(?:now|already|too)\b))", re.IGNORECASE)
# what stopped said with how long it lasted: "the vegan lasted 4 days jaja", "the keto thing only lasted a week"
_LASTED = re.compile(
    r"(?:^|(?<=[,.;:!?\n]))\s*(?:\w+\s+)?(?:the|my|that|our)\s+(?P<what>[\w'’-]+(?:\s+[\w'’-]+){0,2}?)"
    r"(?:\s+(?:thing|phase|plan|experiment|diet))?\s+(?:only\s+|just\s+|barely\s+)?lasted\s+"
    r"(?:about\s+|like\s+|maybe\s+)?(?:\d+|a|an|one|two|three|four|five|six|a\s+couple\s+of|a\s+few)\s+"
    r"(?:days?|weeks?|months?|hours?)\b", re.IGNORECASE)
# ... not on a condition, wished or asked: "if the choir gets worse I stop", "choir on Thursday should I stop?"
_NOT_SAID_FIRST = re.compile(r"\b(?:if|when|once|maybe|should|shall|can|could|would|will|must|might|may|do|did|why)\b",
                             re.IGNORECASE)
# where the name of what stopped ends
_NAME = re.compile(r"(?P<what>[\w'’-]+(?:\s+[\w'’-]+){0,3}?)(?=\s*[,.;:!?()\n]|\s*$|\s+(?:at|in|for|after|before|"
                   r"because|bc|cos|cause|since|as|and|but|so|when|now|last|this|yesterday|today|anymore|any|finally|"
                   r"completely|altogether|though|too|already|either|from|to|until|till)\b)", re.IGNORECASE)
_COURSES = frozenset(terms("chemo chemotherapy radiotherapy radiation physio physiotherapy rehab treatment treatments "
                           "course courses antibiotics therapy programme program degree classes class lessons "
                           "infusions injections tablets pills meds medication"))
_GROUPS = frozenset(terms("choir band club team league group church congregation class classes course society "
                          "orchestra committee crew squad troupe ensemble"))
# where a value lists several things (a comma more often adds a detail: "cycle to work every day, 25 minutes")
_LISTED = re.compile(r";|&|\s/\s|\band\b|\bplus\b", re.IGNORECASE)
# a part kept: "stopped using Notion for work stuff but still use it at home"
_STILL = re.compile(r"\bstill\b", re.IGNORECASE)
# a value's words that say how often or how much, not what: "chemo every three weeks" is ended by "chemo" alone
_NOT_WHAT = frozenset(terms(
    "every each week weeks weekly day days daily month months morning mornings evening evenings night nights "
    "time times once twice mg ml dose a an one two three four five six seven eight nine ten morning at on in "
    "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays "
    "saturdays sundays weekend weekends thing things stuff it lot bit new old"))


@dataclass(frozen=True)
class Stored:
    """A stored fact that can be ended by name: its id, its slot, its value and its subject's key (the value's own
    words, stemmed: "User uses a Spotify subscription." is keyed "spotify", and "stopped the subscription to the
    gym" names no value of it)."""
    memory_id: str
    slot: str
    value: str
    key: str = ""


@dataclass(frozen=True)
class NamedEnding:
    memory_id: str
    words: frozenset[str]  # the value's words the message named (a fact of this message restating them is wrong)


def _names_in(value: str) -> frozenset[str]:
    """The words of the names a value holds: its capitalised words past the first."""
    return frozenset(terms(" ".join(w for w in value.split()[1:] if w[:1].isupper())))


def _what_words(value: str) -> frozenset[str]:
    return frozenset(terms(value)) - _NOT_WHAT


def _said_so(text: str, way: re.Match[str], name: str) -> bool:
    """The stopping is said as done, by the user, for good: as the tagger's own endings said in passing are
    (pipeline.ended_in_passing): not denied, wished for or still to come ("thinking of quitting the choir", "once I
    quit the gym"), not someone else's ("my husband quit the band"), not asked ("should I stop the statin?"), not
    on a condition, not for a while ("no more crossfit for a couple of weeks"), not in part ("stopped using Notion for
    work stuff but still use it at home")."""
    before = text[:way.start()]
    clause = clause_around(text, way.start(), way.end() + len(name))
    rest_of_sentence = re.split(r"[.!?\n]", text[way.end():], maxsplit=1)[0]
    return not (DENIED_OR_WISHED.search(before) or _STILL.search(rest_of_sentence) or NOT_YET.search(before)
                or not (USER_BEFORE.search(before) or " me " in way.group(0).lower())
                or is_question(clause) or only_if(before, text[way.end():]) or paused(name, clause))


def _named(name: str, stored: Sequence[Stored], slots: frozenset[str], allowed: frozenset[str] | None) -> \
        list[NamedEnding]:
    """The stored facts of ``slots`` whose value ``name`` names; where the way of stopping needs it, only if the name
    has an ``allowed`` word (a medicine needs none: "finished the meloxicam")"""
    said = frozenset(terms(name))
    out = []
    for fact in stored:
        if fact.slot not in slots or (allowed is not None and fact.slot != "health" and not said & allowed):
            continue
        # a keyed fact is named by its key, or by a name in it said whole ("left Low Tide Choir" names "play bass in a
        # band called Low Tide Choir", keyed "play_bass_band"; "left the choir" does not)
        if fact.key:
            proper = _names_in(fact.value) - _NOT_WHAT
            shared = said & (frozenset(fact.key.split("_")) - _NOT_WHAT)
            if proper and proper <= said:
                shared |= proper
        else:
            shared = said & _what_words(fact.value)
        # one of several things a fact names ends only that one: "stopped bouldering" leaves "building mechanical
        # keyboards and bouldering" to the tagger's reading, not ended whole
        parts = [_what_words(part) for part in _LISTED.split(fact.value)]
        if shared and not [part for part in parts if part and not part & shared]:
            out.append(NamedEnding(fact.memory_id, shared))
    # the facts it names best: "left Low Tide Choir" names the band called so, not "go to choir on Thursdays"
    most = max((len(e.words) for e in out), default=0)
    return [e for e in out if len(e.words) == most]


def ended_by_name(text: str, stored: Sequence[Stored]) -> list[NamedEnding]:
    """The stored facts ``text`` says the user stopped, named after a way of stopping; at most one ending a fact."""
    found: dict[str, NamedEnding] = {}
    for pattern, slots in _WAYS:
        allowed = _COURSES if slots == frozenset({"health", "learning", "habit"}) else (
            _GROUPS if slots == frozenset({"hobby", "habit"}) else None)
        for m in pattern.finditer(text):
            rest = re.match(_FILLER, text[m.end():], re.IGNORECASE)
            at = m.end() + (rest.end() if rest else 0)
            name = _NAME.match(text, at)
            if name is None or not _said_so(text, m, name.group("what")):
                continue
            for ending in _named(name.group("what"), stored, slots, allowed):
                found.setdefault(ending.memory_id, ending)
    for m in _NAME_THEN_STOP.finditer(text):
        asked = text[m.end():].lstrip().startswith("?")
        if not _NOT_SAID_FIRST.search(m.group("what")) and not asked:
            for ending in _named(m.group("what"), stored, _DOES, None):
                found.setdefault(ending.memory_id, ending)
    for m in _LASTED.finditer(text):
        if not text[m.end():].lstrip().startswith("?"):
            for ending in _named(m.group("what"), stored, _DOES, None):
                found.setdefault(ending.memory_id, ending)
    for m in _NOT_ANYMORE.finditer(text):
        if _said_so(text, m, m.group("what")):
            for ending in _named(m.group("what"), stored, _DOES | _HAS, None):
                found.setdefault(ending.memory_id, ending)
    return list(found.values())
