"""A stored fact ended by naming it after a way of stopping: "doctor say back better, stop the meloxicam", "left the
choir last month, too much drama", "finished the chemo last friday!!", "no more crossfit for me after the knee".

The tagger reads many endings ("I stopped taking the meloxicam"), but a short order or report it misses, or reads as
a new fact ("finished the meloxicam": a hobby), or ends a key of its own that names nothing stored ("crossfit for them
after the knee"). What makes these exact is the user's stored fact: the words after a way of stopping name a value
the user has, of a slot that can stop (a medicine or treatment, a hobby, a routine, a tool, a course, a diet, a thing
owned or a pet). Each way of stopping ends only the slots it can: a thing is sold, not finished; a course is finished,
not sold; a choir or a club is left, a gym left at six is not.

What it must not end, each a way people talk every day: going to the thing ("off to the gym!", "left for choir at
7"); one session of it ("finished the chemo session", "left choir practice early tonight"); a thing that belongs to
it ("sold the bike rack", "returned the call from the vet" of "cat called Mochi"); a pause ("stopped smoking for
Lent", "no more crossfit for a couple of weeks"); a part ("no more coffee after 2pm", "not anymore with Jake, just
with my wife"); a stop taken back ("...and now I'm doing it every morning again"); a stop wished for, still to come,
asked or someone else's ("thinking of quitting the choir", "selling the bike next month", "should I stop the
statin?", "my husband quit the band"); and a name that fits two facts alike ("we rehomed the cat", two cats stored).
Every test reads a window around the words, never the whole message again, so a long message costs linear time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from mnemo.domain.extraction.dates import CALENDAR_NAMES, names_a_month
from mnemo.domain.extraction.pets import ANY_ANIMAL
from mnemo.domain.extraction.pipeline import NOT_YET, USER_BEFORE, only_if, paused
from mnemo.domain.extraction.segment import DENIED_OR_WISHED
from mnemo.domain.text import stem, terms

# the slots a fact can be ended in by naming it
ENDED_BY_NAME = frozenset({"health", "hobby", "habit", "uses", "learning", "diet", "owns", "pet"})
_DOES = frozenset({"health", "hobby", "habit", "uses", "learning", "diet"})
_HAS = frozenset({"owns", "pet"})
_COURSE_SLOTS = frozenset({"health", "learning", "habit"})
_GROUP_SLOTS = frozenset({"hobby", "habit"})

# words between a way of stopping and what is stopped: "stopped taking the", "gave up on my", "came off all those"
_FILLER = re.compile(r"(?:(?:taking|take|using|use|doing|do|playing|play|going\s+to|going|go\s+to|attending|eating|"
                     r"drinking|on|with|of|the|my|our|that|those|these|this|all|them|it|whole|whole\s+thing\s+with)"
                     r"\s+)*", re.IGNORECASE)
# "off" as going somewhere or being away: "off to the gym!", "off for the weekend", "off work today"
_OFF_AWAY = r"(?!\s+(?:to|for|out|home|work|duty|sick|now|today|tonight|early|again)\b)"
# a course or a treatment is finished (_COURSES); a group is left (_GROUPS)
_COURSES = frozenset(terms("chemo chemotherapy radiotherapy radiation physio physiotherapy rehab treatment treatments "
                           "course courses antibiotics therapy programme program degree classes class lessons "
                           "infusions injections tablets pills meds medication"))
_GROUPS = frozenset(terms("choir band club team league group church congregation class classes course society "
                          "orchestra committee crew squad troupe ensemble"))
# each way of stopping, the slots it can end, and the words its name must hold (None: any)
_WAYS: tuple[tuple[re.Pattern[str], frozenset[str], frozenset[str] | None], ...] = (
    # (not "quitting", "giving up", "coming off": said so, a stop is mostly still to come, "I'm quitting the choir
    # after Christmas")
    (re.compile(r"\b(?:stop(?:ped|s)?|quit(?:s)?|gave\s+up|give\s+up|given\s+up|no\s+more|"
                r"no\s+longer|done\s+w(?:ith|/)?|dropped|ditched|cut\s+out|"
                r"(?:came|come|got|get|weaned|taken|took\s+me|put\s+me|been)\s+off(?:\s+of)?|"
                rf"(?:(?:i['’]?m|im|i\s+am|now)\s+|^|(?<=[,.;:!]\s))off){_OFF_AWAY}\s+", re.IGNORECASE), _DOES, None),
    # in the progressive a stop is as often still to come: only with no time to come after it ("so I'm giving up the
    # Uber completely"; not "I'm quitting the choir after Christmas", _LATER)
    (re.compile(r"\b(?:quitting|giving\s+up|stopping|coming\s+off|getting\s+off)\s+", re.IGNORECASE), _DOES, None),
    # a course or a treatment is finished (a medicine's course too); a run or a book is, and ends nothing (_COURSES)
    (re.compile(r"\b(?:finish(?:ed)?|completed)\s+(?:with\s+)?", re.IGNORECASE), _COURSE_SLOTS, _COURSES),
    # a group is left; a gym or an office left at six is not (_GROUPS)
    (re.compile(r"\b(?:left|quit)\s+", re.IGNORECASE), _GROUP_SLOTS, _GROUPS),
    (re.compile(r"\b(?:sold|gave\s+away|given\s+away|got\s+rid\s+of|rehomed|re-homed|rehome|re-home|gave\s+back)\s+",
                re.IGNORECASE), _HAS, None),
)
# "not on insulin anymore", "don't play tennis any more": the thing between the negation and its end ("not at tennis
# anymore" is a place left, not a pastime)
_NOT_ANYMORE = re.compile(
    r"\b(?:not|(?:do|does|did|am|is|are|was)n['’]?t|no\s+longer)\s+(?:really\s+)?"
    r"(?:on|taking|take|using|use|doing|do|playing|play|going\s+to|go\s+to|into|eating|eat)\s+"
    r"(?P<what>(?:[\w'’-]+\s+){0,3}?[\w'’-]+)\s+(?:anymore|any\s+more|any\s+longer)\b", re.IGNORECASE)
# what stopped said first, learner English's order: "english class on Thursday I stop. too tired after work"
_NAME_THEN_STOP = re.compile(
    r"(?:^|(?<=[,.;:!?\n]))\s*(?P<what>[\w'’-]+(?:\s+[\w'’-]+){0,4}?)\s+i\s+(?:stop|stopped|quit|finish|finished|"
    r"give\s+up|gave\s+up|drop|dropped)\b(?=\s*(?:[,.;:!\n]|$|\s+(?:now|already|too)\b))", re.IGNORECASE)
# what stopped said with how long it lasted: "the vegan lasted 4 days jaja", "the keto thing only lasted a week"
_LASTED = re.compile(
    r"(?:^|(?<=[,.;:!?\n]))\s*(?:\w+\s+)?(?:the|my|that|our)\s+(?P<what>[\w'’-]+(?:\s+[\w'’-]+){0,2}?)"
    r"(?:\s+(?:thing|phase|plan|experiment|diet))?\s+(?:only\s+|just\s+|barely\s+)?lasted\s+"
    r"(?:about\s+|like\s+|maybe\s+)?(?:\d+|a|an|one|two|three|four|five|six|a\s+couple\s+of|a\s+few)\s+"
    r"(?:days?|weeks?|months?)\b", re.IGNORECASE)
# a pet gone, said by its name first: "Bess has gone to a shepherd over at Glendale", "Caramel est mort samedi", "our
# dog Max passed away last week", "our cat was put to sleep"; never another's pet ("my sister's dog Bess died": the
# name opens the clause, after "my" or "our" and a word of an animal (pets.ANY_ANIMAL) at most; "the dog died" of a
# film is no pet of the user's)
_PET_GONE = re.compile(
    r"(?:^|(?<=[,.;:!?\n])|\band\s+|\bso\s+)\s*(?:(?:our|my|notre|mon|ma|nuestro|nuestra)\s+"
    r"(?:(?:old|dear|sweet|poor|beloved|lovely|vieux|vieille)\s+)?(?:(?:" + ANY_ANIMAL + r")\s+)?)?"
    r"(?!(?:has|have|had|is|was|got)\b)(?P<what>[\w'’-]+)\s+(?:has\s+|have\s+|had\s+|is\s+|was\s+|got\s+)?"
    # ("passed" only as dying: "passed his obedience test", "passed out on the sofa" are not)
    r"(?:died|passed\s+away|passed\s+on(?!\s+(?:the|a|an|his|her|it|to)\b)|"
    # gone to live elsewhere for good, not to the vet or a friend's for the week
    r"(?:gone|went)\s+to\s+(?:live\s+(?:with|on|at|in)\b|a\s+new\s+(?:home|family|owner)|new\s+owners?|"
    r"another\s+(?:home|family)|a\s+(?:farm|shepherd|rescue|sanctuary|good\s+home)\b|"
    r"a\s+(?:family|friend)(?![\w'’]))(?![^.!?\n]{0,40}\b(?:for\s+(?:the|a|two|three|few|couple)|while|until|till|"
    r"during|'s\b))|been\s+rehomed(?!\s+(?:to|with|from)\s)|rehomed(?!\s+(?:to|with|from)\s)|"
    # put down as put to death, in the passive ("Max put down the ball" is no death)
    r"been\s+put\s+down|(?:had\s+to\s+be|was|got)\s+put\s+down|put\s+to\s+sleep|crossed\s+the\s+rainbow\s+bridge|"
    r"est\s+morte?|est\s+décédée?|murió|se\s+murió|ist\s+gestorben|morreu)\b", re.IGNORECASE)
# ... said first, but not as done by the user now: "if the choir gets worse I stop", "Next month tennis I stop",
# "After tennis I stop", "The coach said: tennis I stop"
_NOT_SAID_FIRST = re.compile(r"\b(?:if|when|once|maybe|should|shall|can|could|would|will|must|might|may|do|did|why|"
                             r"next|tomorrow|after|before|then|for|until|till|during)\b", re.IGNORECASE)
_REPORTED = re.compile(r"\b(?:said|says|say|told|tells|asked|asks)\b[\s:,\"'“”]*$|\b\w+\s*:\s*$", re.IGNORECASE)
# where the name of what stopped ends
_NAME = re.compile(r"(?P<what>[\w'’-]+(?:\s+[\w'’-]+){0,3}?)(?=\s*[,.;:!?()\n]|\s*$|\s+(?:at|in|for|after|before|"
                   r"because|bc|cos|cause|since|as|and|but|so|when|now|last|this|yesterday|today|tonight|anymore|any|"
                   r"finally|completely|altogether|though|too|already|either|from|to|until|till|early|late|while|"
                   r"during|again|please|pls|plz|thanks|thx|lol|lmao|haha\w*|jaja\w*|tbh|omg|ngl|fr)\b)",
                   re.IGNORECASE)
# what the name is said to be of, right after it: "stopped the subscription to the gym" is the gym's, not Spotify's
_OF_WHAT = re.compile(r"\s+(?:to|of|for)\s+(?:the|my|our)\s+(?P<what>[^\W\d_][\w'’-]*)",
                      re.IGNORECASE)
# a name that opens on a preposition is where the user went, not what they stopped ("left for choir at 7")
_PLACE_WORD = frozenset({"to", "for", "at", "from", "in", "on", "into", "out", "of", "by", "off", "with", "onto"})
# what follows "and" or a comma after a name, another name the same way ends ("quit keto and the crossfit")
_AND_NEXT = re.compile(r"(?:\s*,)?\s+(?:and|n|&)\s+(?:the\s+|my\s+)?", re.IGNORECASE)
# one sitting of it, not the whole: "finished the chemo session", "left choir practice early tonight", "completed
# physio session 8", "finished French class at 9"
_ONE_SITTING = frozenset(terms("session sessions practice rehearsal rehearsals module modules appointment visit shift "
                               "lesson round rounds dose doses last rest pack packet box bottle stuff "
                               "bits part"))
_AT_A_TIME = re.compile(r"\s*(?:at\s+\d|early|late|this\s+(?:morning|afternoon|evening)|"
                        r"(?:today|tonight|yesterday)\s+(?:at|early|late)|yesterday\s+(?:morning|afternoon|evening))\b",
                        re.IGNORECASE)
# where a value lists several things (a comma more often adds a detail: "cycle to work every day, 25 minutes")
_LISTED = re.compile(r";|&|\s/\s|\band\b|\bplus\b", re.IGNORECASE)
# a time still to come after a stop said in the progressive
# (or a month: dates.names_a_month)
_LATER = re.compile(r"\b(?:after|next|tomorrow|soon|when|once|from|by|before|in\s+(?:the\s+new\s+year|a\s+(?:week|"
                    r"month|few)|two|three)|new\s+year|christmas|easter|this\s+(?:summer|autumn|winter|spring|"
                    r"weekend)|end\s+of)\b", re.IGNORECASE)
# a part kept, a stop taken back or only for a while, after the name: "but still use it at home", "just with my wife",
# "and now I'm doing it every morning again", "lol jk", "for Lent", "for the summer", "while I'm fasting"
_NOT_WHOLLY = re.compile(r"\b(?:still|just\s+with|only\s+with|only\s+on|only\s+at|except|again|relapsed|"
                         r"went\s+back|back\s+on|back\s+to\s+it|jk|just\s+kidding|kidding)\b", re.IGNORECASE)
_FOR_A_TIME = re.compile(r"\s*(?:for\s+(?:(?:a|an|the|one|two|three|four|five|six|few|couple|\d+|at\s+least|about|"
                         r"another|next|rest\s+of\s+the|of|time\s+being)\s+)*(?:while|bit|moment|now|time|week|weeks|"
                         r"month|months|day|days|year|summer|winter|spring|autumn|season|lent|ramadan|january|dry\s+"
                         r"january|holidays?|pregnancy|exams?)\b|while\b|until\b|till\b|"
                         r"during\b|after\s+\d|before\s+\d|at\s+night\b|on\s+weekdays\b|on\s+weekends\b|in\s+the\s+"
                         r"(?:evening|morning)s?\b)", re.IGNORECASE)
# the adverbs and openers a message may start with before the user's verb ("finally sold the Corolla", "Just left
# choir", "ok so I quit")
_OPENERS = re.compile(r"^\W*(?:(?:just|finally|so|ok|okay|well|also|and|but|yeah|yes|ugh|sadly|honestly|officially|"
                      r"basically|anyway|update|btw)\b\W*)*", re.IGNORECASE)
_I_AM = re.compile(r"\b(?:i['’]?m|im|i\s+am|i['’]ve|i\s+have|we['’]re|we\s+are)\s*$", re.IGNORECASE)
# a value's words that say how often or how much, or that only join its words, not what it is: "chemo every three
# weeks" is ended by "chemo" alone, and "cat called Mochi" by no "call" ("returned the call from the vet")
_NOT_WHAT = frozenset(terms(
    "every each week weeks weekly day days daily month months morning mornings evening evenings night nights "
    "time times once twice mg ml dose a an one two three four five six seven eight nine ten morning at on in "
    "weekend weekends thing things stuff it lot bit new old called named call name year years work home "
    + " ".join(CALENDAR_NAMES) + " " + " ".join(f"{name}s" for name in CALENDAR_NAMES)))
# a name's last word that says what kind of thing, not which: "stop the meloxicam tablets", "quit the choir thing"
_KIND_WORDS = frozenset(terms("tablets tablet pills pill meds medication medicine thing habit routine diet "
                              "classes lessons course courses class programme"))
_WINDOW = 300  # how far before and after the words a test reads


@dataclass(frozen=True)
class Stored:
    """A stored fact that can be ended by name: its id, its slot, its value and its subject's key (the value's first
    words, stemmed: "User uses a Spotify subscription." is keyed "spotify", and "stopped the subscription to the
    gym" names no value of it)."""
    memory_id: str
    slot: str
    value: str
    key: str = ""


@dataclass(frozen=True)
class NamedEnding:
    memory_id: str
    words: frozenset[str]  # the value's words the message named
    said: frozenset[str]  # every word of the ending as said, ``words`` among them ("left Low Tide Choir")
    way: frozenset[str] = frozenset()  # the words of the way of stopping ("left")


def _sentence_before(text: str, start: int) -> str:
    """The sentence's words before ``start``, at most _WINDOW characters of them, its openers left out."""
    window = text[max(0, start - _WINDOW):start]
    breaks = [m.end() for m in re.finditer(r"[.!?\n]+\s*", window)]
    opening = breaks[-1] if breaks else 0
    if not breaks and start > _WINDOW:
        return window  # a sentence longer than the window: no opening to read as the start
    return _OPENERS.sub("", window[opening:])


def _after(text: str, end: int) -> str:
    """The rest of the sentence after ``end``, at most _WINDOW characters."""
    rest = text[end:end + _WINDOW]
    stop = re.search(r"[.!?\n]", rest)
    return rest[:stop.start() + 1] if stop else rest


def _said_so(text: str, start: int, end: int, name_end: int, name: str, by_me: bool) -> bool:
    """The stopping between ``start`` and ``end`` (its name ending at ``name_end``) is said as done, by the user,
    for good and wholly: as the tagger's own endings said in passing are (pipeline.ended_in_passing), with the pauses,
    parts and stops taken back of this module's docstring."""
    before, after = _sentence_before(text, start), _after(text, name_end)
    clause = before + text[start:name_end] + after
    return not (DENIED_OR_WISHED.search(before) or NOT_YET.search(before) or _REPORTED.search(before)
                or not (by_me or USER_BEFORE.search(before) or _I_AM.search(before))
                or "?" in after or only_if(before, after) or paused(name, clause)
                or _FOR_A_TIME.match(after) or _NOT_WHOLLY.search(after) or _AT_A_TIME.match(after))


def _raw_words(value: str) -> frozenset[str]:
    """Every word of a value, stemmed, single letters too ("vitamin D")."""
    return frozenset(stem(w.lower()) for w in re.findall(r"[^\W_]+", value))


def _names_in(value: str) -> frozenset[str]:
    """The words of the names a value holds: its capitalised words past the first."""
    return frozenset(terms(" ".join(w for w in value.split()[1:] if w[:1].isupper())))


def _what_words(value: str) -> frozenset[str]:
    return frozenset(terms(value)) - _NOT_WHAT


def _named(name: str, stored: Sequence[Stored], slots: frozenset[str], allowed: frozenset[str] | None,
           said: frozenset[str], of_what: str = "") -> list[NamedEnding]:
    """The stored facts of ``slots`` whose value ``name`` names by its head word; where the way of stopping needs it,
    only if the name has an ``allowed`` word (a medicine needs none: "finished the meloxicam"); ``of_what``, a thing
    the name is said to be of, must be the value's too. A name that fits two facts of one slot alike ("the cat", two
    cats stored) names neither."""
    words = name.split()
    if not words or words[0].lower() in _PLACE_WORD:
        return []
    named = frozenset(terms(name))
    if named & _ONE_SITTING:
        return []
    head = stem(re.sub(r"['’]s$", "", words[-1].lower()))
    out: list[tuple[Stored, NamedEnding]] = []
    for fact in stored:
        if fact.slot not in slots or (allowed is not None and fact.slot != "health" and not named & allowed):
            continue
        raw, key, proper = _raw_words(fact.value), frozenset(fact.key.split("_")) - {""}, _names_in(fact.value)
        # a keyed fact is named by its key, or by a name in it said whole ("left Low Tide Choir" names "play bass in
        # a band called Low Tide Choir", keyed "play_bass_band"; "left the choir" does not)
        if key:
            shared = named & (key - _NOT_WHAT)
            if proper - _NOT_WHAT and proper - _NOT_WHAT <= named:
                shared |= proper - _NOT_WHAT
        else:
            shared = named & _what_words(fact.value)
        # the name is the thing itself, not one of its things ("sold the bike rack", "returned the dog toys"), and
        # not more particular than it, another thing of its kind ("quit hot yoga" leaves "yoga")
        if (head not in raw | key | _KIND_WORDS or (of_what and stem(of_what.lower()) not in raw)
                or named - raw - key - _KIND_WORDS - _NOT_WHAT - proper):
            continue
        # one of several things a fact names ends only that one: "stopped bouldering" leaves "building mechanical
        # keyboards and bouldering" to the tagger's reading, not ended whole
        parts = [_what_words(part) for part in _LISTED.split(fact.value)]
        if shared and not [part for part in parts if part and not part & shared]:
            out.append((fact, NamedEnding(fact.memory_id, shared, said | named, said)))
    # the facts it names best: "left Low Tide Choir" names the band called so, not "go to choir on Thursdays"
    most = max((len(e.words) for _f, e in out), default=0)
    best = [(f, e) for f, e in out if len(e.words) == most]
    return [e for f, e in best if sum(1 for g, _e in best if g.slot == f.slot) == 1]


def _names_after(text: str, at: int) -> list[re.Match[str]]:
    """The name at ``at`` and those joined to it ("keto and the crossfit"), up to three."""
    out: list[re.Match[str]] = []
    while len(out) < 3:
        name = _NAME.match(text, at)
        if name is None:
            break
        out.append(name)
        joined = _AND_NEXT.match(text, name.end())
        if joined is None:
            break
        at = joined.end()
    return out


def says_a_stop(text: str) -> bool:
    """The text has a way of stopping at all (so the user's stored facts are worth reading for it)."""
    return any(pattern.search(text) for pattern, _slots, _allowed in _WAYS) or any(
        pattern.search(text) for pattern in (_NAME_THEN_STOP, _LASTED, _NOT_ANYMORE, _PET_GONE))


def ended_by_name(text: str, stored: Sequence[Stored]) -> list[NamedEnding]:
    """The stored facts ``text`` says the user stopped, named after a way of stopping; at most one ending a fact."""
    found: dict[str, NamedEnding] = {}

    def keep(endings: list[NamedEnding]) -> None:
        for ending in endings:
            found.setdefault(ending.memory_id, ending)

    for pattern, slots, allowed in _WAYS:
        for m in pattern.finditer(text):
            filler = _FILLER.match(text, m.end())
            names = _names_after(text, filler.end() if filler else m.end())
            if not names or not _said_so(text, m.start(), m.end(), names[-1].end(), names[0].group("what"),
                                         " me " in m.group(0).lower()):
                continue
            later = _after(text, names[-1].end())
            if m.group(0).lower().rstrip().endswith(("ing", "ing up", "ing off")) and (
                    _LATER.search(later) or names_a_month(later)):
                continue
            for name in names:
                # (where a doing goes is no owner: "stopped cycling to the commissary kitchen")
                of = None if name.group("what").lower().endswith("ing") else _OF_WHAT.match(text, name.end())
                keep(_named(name.group("what"), stored, slots, allowed, frozenset(terms(m.group(0))),
                            of.group("what") if of else ""))
    for m in _NAME_THEN_STOP.finditer(text):
        what = m.group("what")
        if (not _NOT_SAID_FIRST.search(what) and not _REPORTED.search(text[max(0, m.start() - 40):m.start()])
                and _said_so(text, m.start("what") + len(what), m.end(), m.end(), what, True)):
            keep(_named(what, stored, _DOES, None, frozenset(terms(m.group(0)))))
    for m in _LASTED.finditer(text):
        # the user's own ("my husband's keto lasted 4 days" is his), said as done ("if the keto lasted 2 weeks")
        if (not _after(text, m.end()).lstrip().startswith("?") and not re.search(r"['’]s\b", m.group("what"))
                and not _NOT_SAID_FIRST.search(text[m.start():m.start("what")])
                and _said_so(text, m.start("what"), m.end(), m.end(), m.group("what"), True)):
            keep(_named(m.group("what"), stored, _DOES, None, frozenset(terms(m.group(0)))))
    for m in _PET_GONE.finditer(text):
        # a pet of the user's, named as it is stored: said so, it is theirs ("by me")
        if _said_so(text, m.start("what"), m.end(), m.end(), m.group("what"), True):
            keep(_named(m.group("what"), stored, frozenset({"pet"}), None, frozenset(terms(m.group(0)))))
    for m in _NOT_ANYMORE.finditer(text):
        if _said_so(text, m.start(), m.start("what"), m.end(), m.group("what"), False):
            keep(_named(m.group("what"), stored, _DOES | _HAS, None, frozenset(terms(m.group(0)))))
    return list(found.values())


def restates(value: str, ending: NamedEnding) -> bool:
    """A value read from the ending message that says nothing but the ended thing and the ending's own words
    ("finished the meloxicam" read as "User's hobby: meloxicam."), or the ending itself with more words ("User's
    hobby: left Low Tide Choir after the Germany tour creative."); not a new thing of its kind ("sold my old Corolla
    and bought a 2022 Corolla hybrid": "2022 Corolla hybrid" is news)."""
    said = frozenset(terms(value)) - _NOT_WHAT
    return bool(said) and (said <= ending.said or (ending.words <= said and bool(ending.way & said)))
