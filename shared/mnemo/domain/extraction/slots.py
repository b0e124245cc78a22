"""The slot vocabulary of docs/slots.md as data: one fact, one slot.

Each slot names its category, whether it holds one current value or many (keyed by value),
and how a value becomes a third-person fact. The learned tagger predicts slot names from this
table, the LLM extractors are given it as their schema, and the write path supersedes by the
subject built here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mnemo.domain.models import Category, Importance
from mnemo.domain.text import terms

_B, _C, _P, _PR, _PJ, _E = (Category.BIOGRAPHICAL, Category.CONSTRAINT, Category.PREFERENCE,
                            Category.PROCEDURAL, Category.PROJECT_FACT, Category.EPISODIC)


@dataclass(frozen=True)
class Slot:
    name: str
    category: Category
    multi: bool
    affirm: str  # the fact, with {v} for the value
    negate: str  # the fact when it is negated or no longer holds
    importance: Importance = Importance.MEDIUM
    description: str = ""


SLOTS: dict[str, Slot] = {s.name: s for s in (
    Slot("name", _B, False, "User's name is {v}.", "User's name is not {v}.", Importance.HIGH,
         "the user's own name"),
    Slot("preferred_name", _B, False, "User wants to be called {v}.", "User does not want to be called {v}.",
         Importance.HIGH, "what the user wants to be called"),
    Slot("age", _B, False, "User is {v} years old.", "User is not {v} years old.", Importance.MEDIUM,
         "age in years"),
    Slot("birthday", _B, False, "User's birthday is {v}.", "User's birthday is not {v}.", Importance.MEDIUM,
         "date of birth or birthday"),
    Slot("home_location", _B, False, "User lives in {v}.", "User no longer lives in {v}.", Importance.HIGH,
         "where the user lives now; never a trip, a visit or a stay"),
    Slot("hometown", _B, False, "User is originally from {v}.", "User is not from {v}.", Importance.MEDIUM,
         "where the user is from or grew up"),
    Slot("nationality", _B, False, "User's nationality: {v}.", "User's nationality is not {v}.",
         Importance.MEDIUM, "citizenship or nationality"),
    Slot("job", _B, False, "User's job: {v}.", "User no longer works as/at {v}.", Importance.HIGH,
         "the current job: title and/or employer, as one fact"),
    Slot("education", _B, False, "User's studies: {v}.", "User no longer studies {v}.", Importance.MEDIUM,
         "current or highest studies"),
    Slot("relationship_status", _B, False, "User's relationship: {v}.", "User's relationship is no longer: {v}.",
         Importance.MEDIUM, "married, engaged, partner, single, widowed, divorced"),
    Slot("family", _B, True, "User's family: {v}.", "User's family no longer includes: {v}.", Importance.MEDIUM,
         "children, parents, siblings in the user's life"),
    Slot("family_care", _B, True, "User's {v}.", "User's {v} no longer holds.", Importance.HIGH,
         "facts of the user's children or grandchildren that shape what the user does for them (allergies, diet, "
         "health, school or nursery, routines, plans), filed under the person"),
    Slot("family_life", _B, True, "User's {v}.", "{v} (no longer holds)", Importance.MEDIUM,
         "facts of the life of someone close to the user (their job, studies, home, pastime, health, diet), filed "
         "under the person and given only to requests that name them"),
    Slot("pet", _B, True, "User has a pet: {v}.", "User no longer has the pet: {v}.", Importance.MEDIUM,
         "the user's pets"),
    Slot("languages_spoken", _B, True, "User speaks {v}.", "User does not speak {v}.", Importance.MEDIUM,
         "languages the user speaks"),
    Slot("owns", _B, True, "User owns {v}.", "User no longer owns {v}.", Importance.LOW,
         "durable possessions: vehicles, devices, a house"),
    Slot("learning", _B, True, "User is learning {v}.", "User is no longer learning {v}.", Importance.MEDIUM,
         "what the user is learning or training for"),
    Slot("diet", _C, False, "User's diet: {v}.", "User no longer follows this diet: {v}.",
         Importance.CRITICAL, "a diet the user follows"),
    Slot("allergy", _C, True, "User is allergic to {v}.", "User is not allergic to {v}.", Importance.CRITICAL,
         "allergies and intolerances"),
    Slot("avoids", _C, True, "User avoids {v}.", "User no longer avoids {v}.", Importance.HIGH,
         "what the user never eats, drinks or does"),
    Slot("health", _C, True, "User's health: {v}.", "User's health no longer: {v}.", Importance.HIGH,
         "health conditions, disabilities, pregnancy, limits"),
    Slot("likes", _P, True, "User likes {v}.", "User does not like {v}.", Importance.MEDIUM,
         "things the user likes or loves"),
    Slot("dislikes", _P, True, "User dislikes {v}.", "User no longer dislikes {v}.", Importance.MEDIUM,
         "things the user dislikes or hates"),
    Slot("favorite", _P, True, "User's favourite: {v}.", "User's favourite is no longer {v}.", Importance.MEDIUM,
         "all-time favourites"),
    Slot("hobby", _P, True, "User's hobby: {v}.", "User no longer does {v}.", Importance.MEDIUM,
         "activities the user does for fun"),
    Slot("prefers", _P, True, "User prefers {v}.", "User does not prefer {v}.", Importance.MEDIUM,
         "preferences between options"),
    Slot("uses", _P, True, "User uses {v}.", "User no longer uses {v}.", Importance.LOW,
         "tools, products and platforms the user uses"),
    Slot("answer_format", _PR, False, "How to answer the user: {v}.", "No longer: {v}.",
         Importance.HIGH, "how answers should be laid out"),
    Slot("answer_language", _PR, False, "How to answer the user: {v}.", "No longer: {v}.",
         Importance.HIGH, "the language answers should be in"),
    Slot("answer_length", _PR, False, "How to answer the user: {v}.", "No longer: {v}.",
         Importance.HIGH, "how long answers should be"),
    Slot("answer_tone", _PR, False, "How to answer the user: {v}.", "No longer: {v}.",
         Importance.HIGH, "tone and register"),
    Slot("instruction", _PR, True, "How to answer the user: {v}.", "No longer: {v}.", Importance.HIGH,
         "other standing instructions about how to answer"),
    Slot("habit", _PR, True, "User's routine: {v}.", "User no longer: {v}.", Importance.MEDIUM,
         "routines and schedules"),
    Slot("current_project", _PJ, False, "User is working on {v}.", "User is no longer working on {v}.",
         Importance.HIGH, "what the user is building or working on now"),
    Slot("project_stack", _PJ, False, "User's project uses {v}.", "User's project no longer uses {v}.",
         Importance.HIGH, "the current project's languages, frameworks, tools"),
    Slot("project_deadline", _PJ, False, "User's project deadline: {v}.", "User's project deadline is not {v}.",
         Importance.HIGH, "the current project's deadline or launch date"),
    Slot("project_detail", _PJ, True, "User's project: {v}.", "User's project no longer: {v}.", Importance.MEDIUM,
         "other facts of the current project"),
    Slot("event", _E, True, "User {v}.", "User did not {v}.", Importance.MEDIUM,
         "something that happened to the user, with its date"),
    Slot("plan", _E, True, "User plans: {v}.", "User no longer plans: {v}.", Importance.MEDIUM,
         "something the user will do, with its date"),
)}

# slots no model is asked to fill: a dependant's or a close one's fact names who it is about, which the learned
# extractor finds
# by rule around what its tagger reads (domain/extraction/household.py) and a copied value cannot say
FOUND_AROUND_THE_TAGGER = frozenset({"family_care", "family_life"})
# a negated fact that retired a value: listed and kept, never injected (it would only name the old value)
RETRACTION_TAG = "retraction"
# what an ending said of a name in passing ("stopped the futsal") may retire: pastimes, routines, likes, tools,
# diets, medicines; never a job, a home or a project, whose changes the tagger reads with their new value, nor a
# thing owned, which is stopped without ending ("so I stopped the car at the lights")
RETIRED_IN_PASSING = frozenset({"hobby", "habit", "likes", "uses", "learning", "health", "diet",
                                "project_stack", "favorite"})
# ... save what a retraction of these slots retires: the user fine with a thing after all (tolerated.py) ends an
# allergy, an intolerance or a diet kept for it, never a liking ("the allergist says i'm fine with cats" leaves
# "User likes cats."); and an allergy ends only so, never where a medicine was stopped ("the doctor stopped the
# amoxicillin" they gave by mistake leaves the allergy to it)
RETIRED_IN_PASSING_BY = {"allergy": frozenset({"allergy", "health", "diet"}),
                         # a last day at a place said with no word of work ends the job that names the place only
                         # ("yesterday was my last day at walmart"; "my last day at Disney World" ends no job)
                         "job": frozenset({"job"})}
# the slots of standing instructions about answers; their value is the user's own clause, which carries its
# own negation ("could you not use bullet lists"), so a negated one is an instruction, not a retraction
ANSWER_SLOTS = frozenset({"answer_format", "answer_language", "answer_length", "answer_tone", "instruction",
                          "answer_style"})


def retracts(subject: str, polarity: bool) -> bool:
    """A negated fact only says a value no longer holds ("no longer vegan"): kept and listed, never injected."""
    return not polarity and subject.partition(":")[0] not in ANSWER_SLOTS


# an answer instruction that only lifts an earlier one: "you don't need to add the translation anymore"
_LIFTS = re.compile(r"\b(?:(?:don'?t|do not|doesn'?t|does not|no longer|not) (?:needs? to|have to)|"
                    # "you don't need the translation anymore": a need said to be over, not "I don't need long
                    # answers", which asks for short ones
                    r"(?:don'?t|do not|doesn'?t|does not) need\b(?=[^,;.]*\b(?:anymore|any more|any longer)\b)|"
                    r"no need (?:to|for)|needn'?t|(?:can|may) (?:stop|drop|skip|forget)|"
                    r"(?:is|are) (?:not|no longer) (?:necessary|needed))\b", re.IGNORECASE)


def only_lifts(subject: str, content: str) -> bool:
    """An answer instruction that says an earlier one no longer holds and asks nothing new: once it has
    replaced that one, injecting it would only name what the user dropped."""
    lifted = _LIFTS.search(content) if subject.partition(":")[0] in ANSWER_SLOTS else None
    # "..., only correct them", "... and get straight to the code": what follows asks for something in its
    # place; a courtesy or an emoticon at the end ("anymore, thanks!", "anymore :)") asks nothing
    rest = _COURTESY.sub("", content[lifted.end():]) if lifted is not None else ""
    return lifted is not None and not _ASKS_MORE.search(rest)


_COURTESY = re.compile(r"(?:[,;]?\s*(?:thanks?(?: you)?|thx|ty|cheers|please|pls)\b|\s*[:;]-?[)D(P]+)?[\s.!]*$",
                       re.IGNORECASE)
_ASKS_MORE = re.compile(r"[,;:]\s*\w+\s+\w+|\b(?:and|but|only|just|instead|rather|though)\b", re.IGNORECASE)


# an answer rule that drops an earlier one by naming it: "no more tables", "stop the emojis", "no longer X"
_DROPS = re.compile(r"^(?:no more|no longer|stop(?: using| adding| with)?|quit)\s+(?P<what>.+)$", re.IGNORECASE)
# where the lift of a rule ends and what holds in its place begins: the first pause after the lift
_PAUSE = re.compile(r"\s*(?:[,;:]|\s-\s|\.\s)\s*")
LIFT_REST_MIN_WORDS = 3


def lift_and_rest(instruction: str) -> tuple[str, str] | None:
    """An answer rule said as a lift of an earlier one and, after a pause, what holds instead: "you don't need
    the British spelling anymore, we write American English now" -> ("you don't need the British spelling
    anymore", "we write American English now"); "no more tables please, bullet points read better on a phone"
    -> ("no need for tables", "bullet points read better on a phone"). Kept whole, the rule replacing the old one
    named the value the user dropped in every block; apart, the lift retires it and is never injected
    (only_lifts), and the rest is the rule. None when the rule does not open with a lift or nothing follows it."""
    text = instruction.strip()
    pause = _PAUSE.search(text)
    if pause is None:
        return None
    head, rest = text[:pause.start()].strip(), text[pause.end():].strip(" .!")
    if len(terms(rest)) < LIFT_REST_MIN_WORDS:
        return None
    lifted = _LIFTS.search(head)
    if lifted is not None:
        # the lift opens the rule and asks nothing beside it ("please answer in German and you don't need ...",
        # "you don't need to add Chinese, just English" ask more: left whole)
        said = _COURTESY.sub("", head[lifted.end():])
        return (head, rest) if not _ASKS_MORE.search(said) else None
    dropped = _DROPS.match(_COURTESY.sub("", head))
    if dropped is None or _ASKS_MORE.search(dropped.group("what")):
        return None
    # said as a lift, so that once it has retired the rule it names it is never injected (only_lifts)
    return f"no need for {dropped.group('what').strip()}", rest


# slots that describe the current project: a new project retires them
PROJECT_SLOTS = ("project_stack", "project_deadline", "project_detail")
# a like and a dislike of one thing are one fact with two polarities
_SAME_FACT = {"dislikes": "likes"}

_ONE_STYLE = frozenset({"answer_format", "answer_length"})
ACTIVITY_VERBS = frozenset(terms("eating drinking going playing watching listening doing making cooking reading "
                                 "having getting trying visiting eat drink go play watch listen do make cook read"))
_KEY_STOP = frozenset("a an the my our your some any of to for with and or in on at".split())


def value_key(value: str, limit: int = 3) -> str:
    """The key of a multi-valued slot's value: its first content words, stemmed ("Peanuts" -> "peanut");
    an activity's verb is no key ("eating curry" and "eating dumplings" are two likes)."""
    words = [w for w in terms(value) if w not in _KEY_STOP and w not in ACTIVITY_VERBS][:limit]
    return "_".join(words) or re.sub(r"\W+", "_", value.lower()).strip("_")[:24] or "value"


def subject_for(slot: Slot, value: str) -> str:
    """The memory's subject: the slot for single values, ``slot:key`` for multi-valued ones. Layout and
    length are one current answer style: "short bullet points" replaces "long detailed paragraphs"."""
    if slot.name in _ONE_STYLE:
        return "answer_style"
    return f"{slot.name}:{value_key(value)}" if slot.multi else slot.name


def slot_identity(subject: str) -> str:
    """Subjects that name one fact whatever its polarity: "dislikes:x" and "likes:x" are the same slot."""
    name, sep, key = subject.partition(":")
    return _SAME_FACT.get(name, name) + sep + key


# the phrase rules' subjects where the slot vocabulary names them otherwise
_RULE_SUBJECTS = {"location": "home_location", "employer": "job", "birth": "birthday", "speaks": "languages_spoken",
                  "pet": "pet", "mobility": "health", "cannot": "health", "intolerance": "allergy",
                  "style": "instruction", "style_avoid": "instruction", "stack": "project_stack",
                  "deadline": "project_deadline", "project": "current_project"}


def vocabulary_subject(rule_subject: str) -> str:
    """A phrase rule's subject in the slot vocabulary ("location" -> "home_location"), so a fact an app
    remembered and a fact learned from chat supersede each other."""
    name, sep, key = rule_subject.partition(":")
    if name == "style" and key.startswith("response_language"):
        return "answer_language"
    if name == "style" and key.startswith("response_style"):
        return "answer_style"
    mapped = _RULE_SUBJECTS.get(name, name)
    slot = SLOTS.get(mapped)
    if slot is not None and not slot.multi:
        return "answer_style" if mapped in _ONE_STYLE else mapped
    return mapped + sep + key


def slot_of(subject: str) -> Slot | None:
    return SLOTS.get(subject.partition(":")[0])


# words that name a slot's topic, not a value ("User's project: project.")
NO_VALUE = frozenset(terms("project projects thing things stuff app one it something job work food"
                           # Hinglish verbs and particles the tagger takes for values ("vscode uninstall kar diya":
                           # "User uses kar.")
                           " kar kr karna karta karti hai hain hu hoon raha rahi rahe diya diye"))

# words that only say when: a plan, an event or a routine whose whole value is made of them ("next",
# "the fourteenth", "every sunday", "2pm") has lost what is planned or done
_TIME_WORDS = frozenset(terms(
    "january february march april may june july august september october november december jan feb mar apr "
    "jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday mon tue tues wed "
    "thu thur thurs fri sat sun today tomorrow tonight yesterday morning mornings afternoon afternoons evening "
    "evenings night nights noon midnight day days week weeks weekend weekends wknd wknds month months year years "
    "next last this every each daily weekly monthly yearly always usually often sometimes am pm summer winter "
    "spring autumn fall first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth twentieth thirtieth end start beginning mid soon later time times"))
_CLOCK = re.compile(r"^\d+(?:[:.]\d+)?(?:am|pm|st|nd|rd|th|h|hr|hrs|x)?$")
# verbs that say something will be done and not what: "User plans: getting.", "User plans: going."
_DOING_ONLY = frozenset(terms("go going get getting gonna come coming try trying start starting plan planning"))
TIME_ONLY_SLOTS = frozenset({"plan", "event", "habit"})


def only_when(value: str) -> bool:
    """True when a value says nothing but a time ("next", "3rd", "every sunday", "2pm")."""
    words = terms(value)
    return bool(words) and all(w in _TIME_WORDS or w in NO_VALUE or w in _DOING_ONLY or _CLOCK.match(w)
                               for w in words)


_DATE_MARK = re.compile(r"\d|\b(?:q[1-4]|h[12]|eod|eow|eom|asap|christmas|xmas|easter|new year|halloween|"
                        r"thanksgiving|season|holidays?|semester|term|quarter|deadline)\b", re.IGNORECASE)


def says_when(value: str) -> bool:
    """A deadline names a time ("end of May", "the 12th", "Q3", "in two weeks"); 92 of the 94 labelled
    deadlines do, and a value that does not ("column", "NRDC") is a word the tagger misread."""
    return bool(_DATE_MARK.search(value)) or any(w in _TIME_WORDS for w in terms(value))
