"""The people in the user's care: facts about the user's dependants that shape what the user does for them.

"leo has a tree nut allergy so packed lunches are a minefield", "my granddaughter Sofia, she is allergic to
eggs", "my daughter Jess just decided she's vegetarian": the screen keeps these out of the user's own slots
(the user is not allergic), but a parent packing a lunchbox or a grandfather cooking Sunday lunch needs them.
A dependant is a child or grandchild the user names with a word of kinship ("my son", "our youngest", "my
granddaughter Sofia") or by a name the user's family facts hold ("leo", known from "mum of 3 (leo 9, ...)");
an adult relative who lives with the user ("Rohit's mother lives with us and she doesn't eat onion or garlic")
eats at the user's table, so their food and health facts are kept too (GUEST_SLOTS), and so do the user's spouse or
partner unless the user says otherwise; other adults (a visiting sister, a friend) keep the screen's answer. A
sentence that opens on "she" or "he" goes on with the person the one before was about ("my son Leo is 6. He is
allergic to peanuts").

Who a stretch of a message is about is found by rule (exact: the nearest person named before it, "she" and
"he" carrying that person on); what the stretch says is read by the learned tagger itself, over the stretch
said in the first person ("leo has a tree nut allergy" -> "I have a tree nut allergy"), so that the slot
(allergy, diet, health, school, routine) is the one the user's own words would get. The fact is filed under
``family_care``, keyed by the person and the slot (docs/slots.md): "User's son Leo is allergic to tree nut."
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from mnemo.domain.extraction.dates import CALENDAR_NAMES
from mnemo.domain.extraction.segment import sentence_around
from mnemo.domain.extraction.slots import value_key
from mnemo.domain.for_others import names_in

# children and grandchildren: the people a user cooks, packs and plans for
_DEPENDANT_KIN = (r"(?:step-?)?sons?|(?:step-?)?daughters?|kids?|kiddos?|child|children|bab(?:y|ies)|toddlers?|"
                  r"little ones?|youngest|eldest|oldest|middle one|twins|boys|girls|grand(?:son|daughter|kid|child)s?|"
                  r"grandchildren|granddaughters|hij[oa]s?|niet[oa]s?|fils|fille|sohn|tochter|filh[oa]s?|figli[oa]")
# everyone else a clause may be about: a stretch about one of them is theirs, not a dependant's
_OTHER_KIN = (r"co-?workers?|colleagues?|boss|manager|friends?|bff|best friend|brothers?|bro|sisters?|sis|mom|mum|"
              r"mother|dad|father|parents?|husband|hubby|wife|partner|bf|gf|boyfriend|girlfriend|fianc[eé]e?|aunt|"
              r"uncle|cousin|niece|nephew|grandma|grandpa|grandmother|grandfather|nan|roommate|flatmate|housemate|"
              r"neighbou?r|teacher|doctor|landlord|in-laws?|mother-in-law|father-in-law|sister-in-law|missus|spouse|"
              r"brother-in-law|ex|dog|cat|puppy|kitten")
_DEPENDANT = re.compile(rf"^(?:{_DEPENDANT_KIN})$", re.IGNORECASE)
_KIN = re.compile(
    rf"\b(?:(?:my|our|the|mi|mis)\s+)?(?:(?:little|baby|youngest|eldest|oldest|two|three|\d)\s+)?"
    rf"(?P<kin>{_DEPENDANT_KIN}|{_OTHER_KIN})\b"
    # the person's name after the word ("my son Leo", "my granddaughter, Sofia"), capitalised
    r"(?:,?\s+(?-i:(?P<name>(?!I\b|Im\b)[A-Z][a-zà-ÿ]+))\b)?", re.IGNORECASE)
_NAME_CASE = re.compile(r"^[A-Z][a-zà-ÿ]+$")
# the user speaking of themselves: where a stretch about someone else ends
_SELF = re.compile(r"\b(?:i|i'm|im|i've|ive|i'd|i'll|me|my|mine|myself|we|we're|we've|us|our)\b", re.IGNORECASE)
# "she" and "he" carry the person on; "they" is too often nobody in particular
_CARRY = re.compile(r"\b(?:she|he)(?:'s|’s|'d|'ll|s)?\b", re.IGNORECASE)
# a sentence that opens on "she" or "he" goes on with the person the one before was about ("my son Leo is 6. He is
# allergic to peanuts")
_CARRIED_ON = re.compile(r"[.!?]+\s+(?:and\s+|but\s+|also\s+|oh\s+and\s+)?(?:she|he)(?:'s|’s|s)?\b", re.IGNORECASE)
_STRETCH_END = re.compile(r"[.!?;\n]|\b(?:but|anyway|btw|also)\b", re.IGNORECASE)
# the slots a dependant's fact may fill: what the user must allow for (food, health) and what the user
# arranges for them (school or nursery, a routine or a plan there)
CARE_SLOTS = frozenset({"allergy", "diet", "health", "avoids", "education", "habit", "plan"})
# a dependant's studies, routine or plan the user arranges: at school, nursery, a club, a party. Elsewhere it is
# their own life ("my daughter is studying medicine in Kazan", "my son Richard lives in Toronto and telephones
# every Sunday", "my daughter is going to Mysuru for a week"), which the dev conversations showed in the user's
# own blocks
ARRANGED_SLOTS = frozenset({"habit", "plan", "education"})
_ARRANGED = re.compile(r"\b(?:school|nursery|daycare|day care|preschool|pre-school|kindergarten|kinder|reception|"
                       r"childminder|creche|crèche|nanny|club|practice|lessons?|class(?:es)?|party|birthday|"
                       r"appointment|check-?up|dentist|doctor|therapy|tutor\w*|exams?|swimming|football|ballet|"
                       r"camp|playgroup|school run)\b", re.IGNORECASE)


def arranged(value: str) -> bool:
    """A routine or plan of a dependant's that the user arranges (see ARRANGED_SLOTS)."""
    return _ARRANGED.search(value) is not None
# single-valued per person: a new diet or school replaces the old one
_ONE_PER_PERSON = frozenset({"diet", "education"})
@dataclass(frozen=True)
class Person:
    name: str  # as the user writes it ("Leo"), or "" when only the kinship word is said
    kin: str  # "son", "granddaughter", "" when only the name is known
    # an adult relative who lives with the user: only their food and health count (GUEST_SLOTS)
    guest: bool = False
    # someone close to the user who is neither in their care nor at their table: only their life counts (LIFE_SLOTS)
    close: bool = False

    @property
    def label(self) -> str:
        """How a fact names them: "son Leo", "granddaughter", "family member Ivy"."""
        name = self.name[:1].upper() + self.name[1:] if self.name else ""
        # a guest's kin may name its owner: "Rohit's mother"
        kin = self.kin if self.guest and re.match(r"[A-Z][\w-]*['’]s ", self.kin) else self.kin.lower()
        return " ".join(p for p in (kin or "family member", name) if p)

    @property
    def key(self) -> str:
        return (self.name or self.kin).lower()


# who is in the user's care, as the user's stored family facts say (set by the service that reads the turns)
_KNOWN: ContextVar[tuple[Person, ...]] = ContextVar("mnemo_known_household", default=())


@contextmanager
def household_of(people: Iterable[Person]) -> Iterator[None]:
    """Within this block the extractor knows these people as the user's family (from earlier sessions)."""
    token = _KNOWN.set(tuple(people))
    try:
        yield
    finally:
        _KNOWN.reset(token)


def known_household() -> tuple[Person, ...]:
    return _KNOWN.get()


def relatives_not_partners() -> frozenset[str]:
    """The names (lower case) the user's known family gives relatives who are not the user's partner."""
    return frozenset(p.name.lower() for p in known_household() if p.name and p.kin and not _PARTNER.match(p.kin))


# the words a value may open with in capitals that name nobody ("The missus", "My two boys")
_NO_NAME = frozenset({"the", "my", "our", "their", "his", "her", "a", "an", "two", "three", "new", "little", "baby",
                      "older", "younger", "eldest", "youngest", "oldest", "late", "ex", "step"})


def people_in(family_value: str) -> list[Person]:
    """The people a family fact's value names: "daughter Jess" -> Jess (daughter); "leo" -> leo; "two kids" and
    "mum of 3" name nobody. A name the user wrote in lower case is a name here only alone ("leo")."""
    words = family_value.strip(" .").split()
    kin = next((w for w in words if _DEPENDANT.match(w) or re.fullmatch(_OTHER_KIN, w, re.IGNORECASE)), "")
    names = [w for w in words if _NAME_CASE.match(w) and w.lower() not in _NO_NAME
             and not re.fullmatch(_DEPENDANT_KIN + "|" + _OTHER_KIN, w, re.IGNORECASE)]
    if not names and len(words) == 1 and not kin and words[0].isalpha() and len(words[0]) > 1:
        names = [words[0]]
    return [Person(n, kin) for n in names]


def family_value(content: str) -> str:
    """The value of a stored family fact ("User's family: daughter Jess." -> "daughter Jess")."""
    return content.partition(":")[2].strip(" .") if content.startswith("User's family:") else ""


def partner_value(content: str) -> str:
    """The partner a stored relationship fact names ("User's relationship: husband Vito." -> "husband Vito"; "User's
    relationship: married." names nobody): a later "Vito he fall on the ice, broke the hip" is the husband's."""
    value = content.partition(":")[2].strip(" .") if content.startswith("User's relationship:") else ""
    words = value.split()
    return value if any(_PARTNER.match(w) for w in words) else ""


@dataclass(frozen=True)
class Stretch:
    """A part of a message about one person close to the user, said again in the first person for the tagger."""

    person: Person
    start: int  # where it starts in the message (the person's mention)
    end: int
    first_person: str
    # the words after the mention say what the person is or does ("is a carpenter", "started piano"), not where
    # or with what they are ("baby on hip", "mum in Kharkiv"): only then are their life's slots read
    states: bool = True


# an adult at the user's table: one who lives with the user ("Rohit's mother lives with us", "my mum moved in with
# us", "my brother is staying with us"). Not a visitor: "my sister Dana is coming to help w the party, she's
# gluten free" named a diet the dev conversations' later dinners must not hold (a visit's facts outlive it)
_AT_THE_TABLE = re.compile(
    r"\b(?:li(?:ves?|ving)\s+with\s+(?:us|me)|moved\s+in\s+with\s+(?:us|me)|(?:is|are|'s|’s)\s+staying\s+with\s+"
    r"(?:us|me)|(?:lives?|living)\s+(?:here|at\s+(?:ours|mine|our\s+place|my\s+place)))\b", re.IGNORECASE)
# what a guest's fact may be: what the user must allow for at the table ("she is coeliac", "he doesn't eat pork")
GUEST_SLOTS = frozenset({"allergy", "diet", "avoids", "health"})
# what the user's close ones' lives hold that a request about them needs ("gift idea for my husband": he is a
# carpenter; "what can I bring my mother in hospital": her bronchitis; "a letter for Giulia before she goes": she
# studies medicine in Bologna), filed under ``family_life`` and given only to requests that name the person
# (domain/for_others.py). A dependant's or a guest's fact in these slots that their care does not take is theirs too
LIFE_SLOTS = frozenset({"job", "education", "home_location", "hobby", "health", "allergy", "diet", "event"})
# what happens to a close one that a request about them needs ("what can I bring Vito in hospital": he broke his hip;
# "a card for my mum": her stroke); their day ("Misha start new school today") passes and would crowd their lasting
# facts out of a block. A death or a birth in the family is the user's own event ("my mum passed in April", "my
# granddaughter Aroha arrived this morning"), for every request, and is read as one
_LIFE_EVENT = re.compile(
    r"\b(?:broke|broken|fractur\w*|surgery|operat\w*|stroke|heart attack|hospital\w*|diagnos\w*|cancer|tumou?r|"
    r"fell|fall(?:en)?|injur\w*|accident|pregnan\w*|"
    r"retir\w*|graduat\w*|married|engaged|divorc\w*|laid off|fired|redundan\w*|promot\w*|chemo\w*|dementia|"
    r"alzheimer\w*|covid|pneumonia|infection|transplant|rehab\w*|miscarr\w*)\b", re.IGNORECASE)


def a_life_event(value: str) -> bool:
    """What happened to a close one is one their requests need (see _LIFE_EVENT)."""
    return _LIFE_EVENT.search(value) is not None


# the ones who share the user's home unless the user says otherwise: a spouse or partner ("my partner Sam is coeliac
# so our kitchen is a minefield"); a girlfriend or boyfriend as often lives elsewhere, and a flatmate is one only by
# the words that say so (tried by default: the dev extraction set's labels keep "my flatmate is coeliac" out, and no
# dev conversation gained). Retrieval gives their facts only to a request that speaks of them or of the user with
# others (domain/for_others.py): "what should I have for lunch" is the user's own
_SHARES_THE_HOME = re.compile(r"^(?:husband|hubby|wife|partner|missus|spouse)$", re.IGNORECASE)
# the user's close ones: family and partners, not a flatmate (a flatmate's job or studies is no fact of the user's life)
# (not "mama" or "papa": "mama Kandy wala inne" is Sinhala's "I")
_PARTNER_WORDS = r"husband|hubby|wife|partner|bf|gf|boyfriend|girlfriend|fianc[eé]e?|missus|spouse"
_CLOSE_KIN_WORDS = (r"brothers?|bro|sisters?|sis|mom|mum|mother|mamá|maman|dad|father|papá|parents?|aunt|uncle|"
                    r"cousin|niece|nephew|grandma|grandpa|grandmother|grandfather|nan|gran|granny|in-laws?|"
                    rf"mother-in-law|father-in-law|sister-in-law|brother-in-law|{_PARTNER_WORDS}")
_CLOSE_KIN = re.compile(rf"^(?:{_CLOSE_KIN_WORDS})$", re.IGNORECASE)
# adults the user may cook for: the close ones and those they share a flat with; not friends, colleagues, exes, pets
# or people at work
_GUEST_KIN = re.compile(rf"^(?:{_CLOSE_KIN_WORDS}|flatmate|roommate|housemate)$", re.IGNORECASE)
_PARTNER = re.compile(rf"^(?:{_PARTNER_WORDS})$", re.IGNORECASE)


# how far a sentence is read either side of a person's mention (a run-on of thousands of characters is no sentence)
SENTENCE_REACH = 200


def _sentence_of(text: str, start: int) -> str:
    """The sentence around a position (segment.sentence_around), read within ``SENTENCE_REACH`` characters either
    side of it."""
    low = max(0, start - SENTENCE_REACH)
    return sentence_around(text[low:start + SENTENCE_REACH], start - low, start - low)


# a stay that ends, a home shared no more: no place at the table ("my brother is staying with us this week", "my dad
# doesn't live with us anymore")
_NOT_AT_THE_TABLE = re.compile(
    r"\b(?:this\s+(?:week|weekend)|for\s+(?:a|the|two|three|few|\d+)\s+(?:few\s+)?(?:days?|nights?|weeks?|weekend)|"
    r"over\s+(?:christmas|easter|the\s+holidays)|tonight|moved\s+out|"
    r"(?:used\s+to|doesn['’]?t|does\s+not|no\s+longer|didn['’]?t|never)\s+(?:live|lived|stay)|"
    r"with\s+(?:us|me)\s+any\s?more)\b", re.IGNORECASE)


def _guest(person: Person, sentence: str, whose: str) -> Person | None:
    """The person as a guest at the user's table, or None. Someone else's relative is one only by that someone's
    name ("Rohit's mother lives with us"): "his wife Priya" is no wife of the user's, and a fact must not say so."""
    if (not person.kin or not _GUEST_KIN.match(person.kin)
            or not (_AT_THE_TABLE.search(sentence) or (_SHARES_THE_HOME.match(person.kin) and not whose.strip()))
            or _NOT_AT_THE_TABLE.search(sentence)):
        return None
    owner = whose.strip()
    if owner and not re.fullmatch(r"[A-Z][\w-]*['’]s", owner):
        return None
    return Person(person.name, f"{owner} {person.kin}" if owner else person.kin, guest=True)


def _close(person: Person, household: dict[str, Person]) -> Person | None:
    """The person as one of the user's close ones (their kin, or the kin their name is known by), or None."""
    known = household.get(person.name.lower()) if person.name else None
    kin = person.kin or (known.kin if known else "")
    if not kin or not (_CLOSE_KIN.match(kin) or _DEPENDANT.match(kin)):
        return None
    return Person(person.name, kin, close=True)


def _dependant(person: Person, household: dict[str, Person]) -> Person | None:
    """The person as a dependant (with what the household knows of them), or None for anyone else."""
    known = household.get(person.name.lower()) if person.name else None
    kin = person.kin or (known.kin if known else "")
    if kin and not _DEPENDANT.match(kin):
        return None
    if not kin and known is None:
        return None  # a name nobody said is family: a friend, a colleague, a place
    return Person(person.name or (known.name if known else ""), kin)


def _mentions(text: str, household: dict[str, Person]) -> list[tuple[int, int, Person]]:
    """Every person named in the text (kinship words with their names, and the household's names), in order."""
    found: list[tuple[int, int, Person]] = [(m.start(), m.end(), Person(m.group("name") or "", m.group("kin")))
                                            for m in _KIN.finditer(text)]
    if household:
        names = "|".join(re.escape(n) for n in sorted(household, key=len, reverse=True))
        for m in re.finditer(rf"\b(?:{names})\b", text, re.IGNORECASE):
            if not any(s <= m.start() < e for s, e, _p in found):
                found.append((m.start(), m.end(), Person(m.group(0), "")))
    return sorted(found, key=lambda f: f[0])


# the kinship word is someone else's: "my neighbour's kid", "her son", "their twins"
_SOMEONE_ELSES = re.compile(r"(?:\b\w+['’]s|\w+s'|\b(?:her|his|their|your))\s+$", re.IGNORECASE)
# an age said of a child is no health need ("baby Theo is 7 weeks")
AN_AGE = re.compile(r"^\W*\d+\s*(?:days?|weeks?|wks?|months?|mos?|years?|yrs?|y/o)(?:\s+old)?\W*$", re.IGNORECASE)
_PLURAL = re.compile(r"^(?:kids?|kiddos|children|babies|toddlers|little ones|twins|boys|girls|grand\w*s|"
                     r"grandchildren|sons|daughters)$", re.IGNORECASE)


# the words after a person's mention that say where or with what they are, not what they are or do
_NOT_A_STATEMENT = re.compile(r"\W*(?:on|in|at|with|from|for|to|of|and|or|the|a|an|by|near|this|that|\d+|"
                              # the user's own verb after an aside ("I, like my mum, am vegan")
                              r"am|i|i['’]m|me)\b", re.IGNORECASE)
# a close one said together with the user: what follows is of both ("me and my husband are retired teachers", "I
# live with my girlfriend in Kraków", "kami ni hubby nasa Davao na", "my partner and I both work at Ikea")
_WITH_THE_USER_BEFORE = re.compile(r"(?:\bwith|\b(?:me|i|mi|myself|kami|ako)\s+(?:and|&|n|ni|y|et|und|e))\s+"
                                   r"(?:(?:my|our|mi|mis|the)\s+)?$", re.IGNORECASE)
_WITH_THE_USER_AFTER = re.compile(r"\s*(?:and|&|n)\s+(?:i|me|myself)\b", re.IGNORECASE)


# the user the same: "my sister is vegan and so am I"
_ME_TOO = re.compile(r"\b(?:and\s+)?(?:so\s+(?:am|do|have)\s+i|me\s+too|as\s+am\s+i|i\s+am\s+too|same\s+here)\b",
                     re.IGNORECASE)


def _with_the_user(text: str, start: int, end: int) -> bool:
    """The mention at text[start:end] is said together with the user ("me and my husband", "with my girlfriend")."""
    return (_WITH_THE_USER_BEFORE.search(text, max(0, start - 20), start) is not None
            or _WITH_THE_USER_AFTER.match(text, end) is not None)


# a kinship word said of anyone at all: "a partner at a firm of solicitors", "a mother of two" (the user)
_ANY_ONE = re.compile(r"\b(?:a|an|another|one|any|every)\s+$", re.IGNORECASE)
# a partner no longer: "my ex-wife", "my former partner", "my late husband", "my previous partner"
_FORMER = re.compile(r"\b(?:ex|former|late|old|previous)[- ]?\s*$", re.IGNORECASE)


def stretches(text: str, household: dict[str, Person]) -> list[Stretch]:
    """The parts of ``text`` about a dependant: from their mention to the next person, the user speaking of
    themselves again, or the end of the sentence; "she" and "he" go on with the same person."""
    out = []
    mentions = _mentions(text, household)
    for i, (start, end, person) in enumerate(mentions):
        whose = _SOMEONE_ELSES.search(text, max(0, start - 40), start)
        who = None if whose else _dependant(person, household)
        # a kinship word said of anyone ("a partner at a firm", "a mother of two") is no adult of the user's; "I have a
        # son who is allergic to peanuts" is the user's son
        former = (_FORMER.search(text, max(0, start - 12), start) is not None
                  or _ANY_ONE.search(text, max(0, start - 12), start) is not None)
        if who is None and not former:
            # a partner named without the word for them ("Marcia say she a go vegetarian") as the household knows them
            known = household.get(person.name.lower()) if person.name and not person.kin else None
            who = _guest(Person(person.name, known.kin) if known and known.kin else person, _sentence_of(text, start),
                         whose.group(0) if whose else "")
        if who is None and not former and not whose and not _with_the_user(text, start, end):
            who = _close(person, household)
        if who is None:
            continue
        limit = mentions[i + 1][0] if i + 1 < len(mentions) else len(text)
        # a guest's stretch goes on past the words that make them one ("lives with us and she doesn't eat onion")
        table = _AT_THE_TABLE.search(text, end, limit) if who.guest else None
        stop = _stretch_end(text, table.end() if table and not text[end:table.start()].strip() else end, limit)
        carried = _CARRIED_ON.match(text, stop) if stop < limit else None
        if carried:
            stop = _stretch_end(text, carried.end(), limit)
        said = _first_person(text[end:stop])
        # a close one's thing is not what they are: "my dad's birthday ... halal" says nothing of the dad, nor "my
        # parents' house into a flatshare in Madrid" of the parents
        if said is not None and who.close and (said.startswith("My ") or (
                text[end:end + 1] in ("'", "’") and not said.startswith("I'm"))):
            continue
        if said is not None and len(said.split()) >= 2:
            out.append(Stretch(who, start, stop, said, _NOT_A_STATEMENT.match(text, end, stop) is None
                               and not _with_the_user(text, start, end)
                               and not _ME_TOO.search(text, end, min(len(text), stop + 30))))
    return out


def _stretch_end(text: str, at: int, limit: int) -> int:
    """Where a stretch from ``at`` ends: the user speaking of themselves, the sentence's end, or ``limit``."""
    stop = limit
    for pattern in (_SELF, _STRETCH_END):
        m = pattern.search(text, at, stop)
        if m:
            stop = m.start()
    return stop


_AFTER_SUBJECT = {"is": "am", "'s": "'m", "’s": "'m", "has": "have", "does": "do", "doesn't": "don't",
                  "isn't": "am not", "hasn't": "haven't", "was": "was", "wasn't": "wasn't"}
# after "Ivy's": a state or a doing is "I'm" ("ivy's starting nursery"); anything else is hers ("maisie's party")
_IS_AFTER = re.compile(r"^\s*(?:\w+ing|been|got|gonna|going|just|now|also|still|always|never|not|allergic|"
                       r"intolerant|vegetarian|vegan|pescatarian|coeliac|celiac|diabetic|autistic|a|an|very|so|"
                       r"really|only|off|on|in|at|back|finally)\b", re.IGNORECASE)
_VERB_S = re.compile(r"^(\s*)(\w+?)(e?s)\b")


def _first_person(rest: str) -> str | None:
    """What follows a person's mention, said by them: "has a tree nut allergy so" -> "I have a tree nut allergy
    so"; ", she is allergic to eggs" -> "I am allergic to eggs"; "'s starting nursery" -> "I'm starting nursery"."""
    rest = re.sub(r"^\s*,?\s*(?:(?:who|she|he)\b|,)", " ", rest, count=1, flags=re.IGNORECASE)
    possessive = re.match(r"^['’]s\b", rest.lstrip()) is not None
    body = rest.lstrip()[2:] if possessive else rest
    if possessive and not _IS_AFTER.match(body):
        said = "My" + body
    else:
        first = re.match(r"^\s*(\S+)", body)
        if first and first.group(1).lower() in _AFTER_SUBJECT:
            said = "I " + _AFTER_SUBJECT[first.group(1).lower()] + body[first.end():]
        elif possessive:
            said = "I'm" + body
        else:
            verb = _VERB_S.match(body)
            said = "I" + (body[:verb.start(3)] + body[verb.end(3):] if verb and len(verb.group(2)) > 2
                          and not verb.group(2).endswith("s") else body)
    said = _CARRY.sub(lambda m: "I'm" if m.group(0).lower().endswith("s") else "I", said)
    said = re.sub(r"\bI is\b", "I am", said)
    said = re.sub(r"\bI has\b", "I have", said)
    said = re.sub(r"\bI (?:doesn['’]?t|doesnt)\b", "I don't", said)
    said = re.sub(r"\bI (?:isn['’]?t|isnt)\b", "I am not", said)
    said = re.sub(r"\b(?:her|his)\b", "my", said, flags=re.IGNORECASE)
    return re.sub(r"\s+", " ", said).strip(" ,") or None


def slots_of(stretch: Stretch) -> tuple[frozenset[str], frozenset[str]]:
    """The slots a stretch about a person is read for: those of their care (``family_care``), then those of
    their life that their care does not take (``family_life``), where the stretch says what they are or do."""
    person = stretch.person
    care = frozenset() if person.close else GUEST_SLOTS if person.guest else CARE_SLOTS
    return care, (LIFE_SLOTS - care if stretch.states else frozenset())


# one value a person in their life: a new job or home replaces the old one
_ONE_IN_LIFE = frozenset({"job", "education", "home_location", "diet"})


def subject(person: Person, slot: str, value: str, life: bool = False) -> str:
    """family_care:<person>_<slot> (``life``: family_life:...), and the value's key where the person may have
    many (allergies)."""
    key = re.sub(r"\W+", "_", person.key).strip("_") or "someone"
    one = _ONE_IN_LIFE if life else _ONE_PER_PERSON
    return f"{'family_life' if life else 'family_care'}:{key}_{slot}" + ("" if slot in one else f"_{value_key(value)}")


def content(person: Person, statement: str) -> str:
    """The user's statement of the value, said of the person: "User is allergic to eggs." -> "User's
    granddaughter Sofia is allergic to eggs."; "User's diet: vegetarian." -> "User's daughter Jess's diet: ..."."""
    # someone else's relative at the user's table is named by whose they are: "Rohit's mother avoids onion."
    whose = "" if re.match(r"[A-Z][\w-]*['’]s ", person.kin) else "User's "
    if statement.startswith("User's "):
        owner = person.label + ("'" if person.label.endswith("s") else "'s")
        return f"{whose}{owner} " + statement[len("User's "):]
    said = statement.removeprefix("User ")
    if _PLURAL.match(person.kin) and not person.name:
        said = re.sub(r"^is\b", "are", said)
    return f"{whose}{person.label} " + said


# the kin a partner is named by: their life's facts hold while they are the user's partner
# a relationship value that names no partner at all
_NO_PARTNER = re.compile(r"\b(?:single|divorced|separated|widow(?:ed|er)?|split|broke(?:n)? up|not seeing|alone)\b",
                         re.IGNORECASE)
# a partner's name, after the word for them or for being with them ("girlfriend Inês", "dating Sam"): "Married" or
# "In a relationship" names no one
_NEW_PARTNER = re.compile(rf"\b(?:{_PARTNER_WORDS}|dating|seeing|with)\s+(?-i:([A-Z][\w'’-]+))", re.IGNORECASE)


def partner_left(relationship: str, ended: bool, life_fact: str) -> bool:
    """Whether a close one's fact (family_life) is of a partner the user's new relationship value leaves behind:
    an ended relationship or one with no partner ("single now") leaves every partner; one that names a partner
    ("dating Inês") leaves a partner named otherwise ("User's girlfriend Larissa's diet: vegetarian.")."""
    named = names_in(life_fact)
    partners = {n for n in named if _PARTNER.match(n)}
    if not partners:
        return False
    if ended or _NO_PARTNER.search(relationship):
        return True
    new = {n.lower() for n in _NEW_PARTNER.findall(relationship)}
    old = named - partners
    return bool(new and old and not new & old)


# a relative's name said right after them ("our son is called Leo", "my new granddaughter, she's called Ivy") or
# opening the next sentence ("our son last month! His name is Joon"): the relative named last before it
_NAMED_RIGHT_AFTER = re.compile(
    r"(?:(?:\s*,\s*|\s+)(?:(?:is|was|who(?:'s|’s|\s+is))\s+(?:called|named)|named)|"
    r"(?:\s+[\w'-]+){0,3}?\s*,\s*(?:he|she)(?:'s|’s|\s+is)\s+(?:called|named))\s+(?-i:(?P<name>[A-Z][a-zà-ÿ'-]+))",
    re.IGNORECASE)
_NAMED_NEXT = re.compile(r"[^.!?\n]{0,60}?[.!?]+\s+(?:(?:his|her|their)\s+name(?:'s|’s|\s+is)|"
                         r"(?:he|she)(?:'s|’s|\s+is)\s+called)\s+(?-i:(?P<name>[A-Z][a-zà-ÿ'-]+))", re.IGNORECASE)
_RELATIVE = re.compile(rf"\b(?:my|our)\s+(?:(?:new|little|baby|newborn|youngest|eldest|oldest|first|second)\s+)*"
                       rf"(?P<kin>{_DEPENDANT_KIN}|{_CLOSE_KIN_WORDS})\b", re.IGNORECASE)
_TITLE = frozenset({"dr", "mr", "mrs", "ms", "prof", "doctor"})


def relatives_named(text: str) -> list[tuple[int, int, str]]:
    """(start, end, "son Joon") for each relative of the user's whose name the text says after them."""
    out = []
    mentions = list(_RELATIVE.finditer(text))
    for i, m in enumerate(mentions):
        named = _NAMED_RIGHT_AFTER.match(text, m.end()) or _NAMED_NEXT.match(text, m.end())
        if named is None or named.group("name").lower() in _TITLE:
            continue
        if i + 1 < len(mentions) and mentions[i + 1].start() < named.start("name"):
            continue  # another relative is named between: the name is theirs
        out.append((m.start(), named.end(), f"{m.group('kin').lower()} {named.group('name')}"))
    return out


def partner_named(kin: str, text: str) -> str | None:
    """The name the text gives the user's partner right after the word for them ("my husband Vito broke his hip"
    -> "Vito"), or None: a relationship read as the word alone ("User's relationship: husband.") takes it."""
    if not _PARTNER.match(kin):
        return None
    said = rf"\b(?:my|our|with)\s+{re.escape(kin)},?\s+(?-i:(?P<name>(?!I\b|Im\b)[A-Z][a-zà-ÿ'-]+))\b"
    for m in re.finditer(said, text, re.IGNORECASE):
        if m.group("name").lower() not in _NOT_A_PARTNERS_NAME:
            return m.group("name")
    return None


# capitalised words after the word for a partner that name no one ("with my girlfriend Saturday night")
_NOT_A_PARTNERS_NAME = _NO_NAME | CALENDAR_NAMES | frozenset({
    "today", "tonight", "tomorrow", "yesterday", "and", "but", "so", "is", "was", "who", "lol", "haha"})


# the user and a partner parting, said of "we" or of the partner by name ("Pavel and me, we broke up", "we split up
# last month", "my husband and I are separating"); not of others ("my sister broke up with her bf") nor wished or asked
# what may follow a parting: the clause's end, a time, "for good" (not "split up the chores", "broke up the trip into
# two legs", "separated the kids")
_PARTING_ENDS = (r"(?=\s*(?:[.,!?;:)]|$|\s+(?:last|in|this|after|a\s+few|a\s+while|two|three|for\s+good|now|"
                 r"recently|ago|yesterday|months|weeks|years|but|and|so|because)\b))")
_PARTED = (r"(?:just\s+|finally\s+|officially\s+)?(?:broke(?:n)?\s+up|split(?:\s+up)?|separated|are\s+separating|"
           r"divorced|are\s+divorcing|got\s+divorced)" + _PARTING_ENDS)
# the lead of a parting: a partner named with the user ("Pavel and me,"), or "we" at a clause's start. One run of
# spaces and commas between the parts, so that a long run of them is read in one way only
_WE_PARTED = re.compile(
    r"(?:\b(?P<name>(?-i:[A-Z][\w'’-]+))\s+(?:and|&|n)\s+(?:me|i)\b|\b(?:my|our)\s+(?P<kin>" + _PARTNER_WORDS +
    r")(?:\s(?P<kname>(?-i:[A-Z][\w'’-]+)))?\s+(?:and|&|n)\s+(?:me|i)\b|(?:^|(?<=[.!?])|\b(?:so|and|but|well)\b))"
    r"[\s,]{0,4}(?:(?:we|we['’]ve|we\s+have|we['’]re|we\s+are|have|are)\s{1,3})?" + _PARTED, re.IGNORECASE)


def partings(text: str) -> list[tuple[int, int, str, bool]]:
    """(start, end, value, ended) for each parting of the user and a partner the text says: a divorce or a
    separation as what the relationship is now ("divorced", "separated"), a break-up as the partner no longer
    (named, or "partner")."""
    out = []
    for m in _WE_PARTED.finditer(text):
        said = m.group(0)
        if not re.search(r"\b(?:we|me|i)\b", said, re.IGNORECASE):
            continue  # "so broke up" says nobody
        status = re.search(r"divorc|separat", said, re.IGNORECASE)
        if status:
            out.append((m.start(), m.end(), "divorced" if status.group(0).lower() == "divorc" else "separated", False))
            continue
        name = m.group("name") or " ".join(p for p in (m.group("kin"), m.group("kname")) if p) or "partner"
        out.append((m.start(), m.end(), name, True))
    return out


def partner_parted(ended: str, stored: str) -> bool:
    """Whether a relationship said ended ("User's relationship is no longer: Pavel.", "... : partner.") ends the stored
    one ("User's relationship: boyfriend Pavel."), where the writer, matching whole values, would not."""
    value = ended.partition(":")[2].strip(" .").lower()
    held = stored.partition(":")[2].strip(" .").lower()
    if not value or not held or value == held or _NO_PARTNER.search(held):
        return False
    return value == "partner" or bool(set(value.split()) & set(held.split()) - {"their", "my", "the"})


def partner_named_none(content: str) -> bool:
    """A relationship fact that says the user has no partner ("User's relationship: single.", "... divorced.")."""
    return content.startswith("User's relationship:") and _NO_PARTNER.search(content.partition(":")[2]) is not None


# children named with their ages in a message about the user's children ("mam of 4 ... Aoife's 11, Darragh's 9 and the
# twins Fionn and Saoirse are 5"): a name, then "'s" or "is" and an age; not a month, a day or a pronoun ("May's 5th")
_CHILDREN_TALK = re.compile(r"\b(?:kids?|children|child|sons?|daughters?|boys|girls|twins|(?:mam|mum|mom|mother|dad|"
                            r"father)\s+(?:of|to)\s+\w+)\b", re.IGNORECASE)
_NAMED_AGE = re.compile(r"\b(?P<name>(?-i:[A-Z][a-zà-ÿ'-]{1,}))(?:['’]s|\s+is)\s+(?P<age>\d{1,2})\b"
                        r"(?!\s*(?:am|pm|h\b|%|kg|km|mins?|minutes|hours?|euros?|dollars?|quid|pounds|people|th|st|nd|rd|"
                        r"[:.,]\d))", re.IGNORECASE)
_NO_CHILD = CALENDAR_NAMES | frozenset({
    "it", "he", "she", "that", "what", "there", "here", "who", "this", "mine", "his", "hers", "today", "room", "level",
    "year", "grade", "page", "number", "gate", "platform", "bus", "route"})


def children_named(text: str) -> list[tuple[int, int, str]]:
    """(start, end, "Aoife 11") for each child a list in the text names with an age, where the text speaks of the
    user's children."""
    if not _CHILDREN_TALK.search(text):
        return []
    named = [(m.start(), m.end(), f"{m.group('name')} {m.group('age')}") for m in _NAMED_AGE.finditer(text)
             if m.group("name").lower() not in _NO_CHILD]
    # a list of them: one name and a number alone is as often a time or a thing ("Flight is 9 and the kids ...")
    return named if len(named) >= 2 else []
