"""The screen step: which found values may become facts, judged on the clause they sit in.

The shared screening (domain/screening.py: secrets, injections, identity claims, one-off requests,
guesses, passing states) applies to every extractor; this adds what only a span finder needs:
questions, wishes and other people's facts ("my coworker is allergic to shellfish")."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from mnemo.domain.extraction.dates import CALENDAR_NAMES, WEEKDAY_NAME, anchor
from mnemo.domain.extraction.languages import is_a_language, names_a_spoken_language
from mnemo.domain.extraction.medicines import said_as_own
from mnemo.domain.extraction.reschedules import GIVEN_UP_AFTER, HAD_INTENDED
from mnemo.domain.extraction.segment import is_question
from mnemo.domain.extraction.slots import ANSWER_SLOTS
from mnemo.domain.screening import rejection_reason
from mnemo.domain.sensitive import MARKER

_MARKED = re.compile(re.escape(MARKER) + r"[^\]]*\]")
_WISH = re.compile(
    r"\b(?:i wish|i'd love to|i would love to|id love to|one day|someday|some day|i could have|could i have|"
    r"i should get|pretend|imagine|i dream of|dreaming of|if only|would be nice|what if|in another life|"
    # what the user would do if ("if we won the lottery I'd go to New Zealand", "if we ever moved out of London I'd
    # want somewhere by the sea", "if i still lived in Holland i would be freezing")
    r"if (?:i|we)\b(?!['’]?m (?:honest|being honest|not mistaken|right)\b)[^.!?;]{0,80}?"
    r"\b(?:i['’]?d|we['’]?d|i would|we would|i['’]?ll|we['’]?ll)|"
    # the same in the languages users switch to: "si algún día me toca la lotería", "estoy pensando en trabajar en
    # Irlanda", "me gustaría vivir en", "ojalá", "wenn ich im Lotto gewinne"
    r"(?<!por )si algún día|(?<!por )si algun dia|si me toca|pensando en|me gustaría|me gustaria|ojalá|ojala|quisiera|"
    r"wenn ich (?:im lotto|reich)|j'aimerais|si un jour)\b",
    re.IGNORECASE)
_PEOPLE = (r"(?:co-?workers?|colleagues?|boss|manager|friends?|bff|best friend|brother|bro|sister|sis|mom|mum|mother|"
           r"dad|father|parents?|husband|wife|partner|bf|gf|boyfriend|girlfriend|fianc[eé]e?|son|daughter|kids?|"
           r"child|children|baby|aunt|uncle|cousin|niece|nephew|grandma|grandpa|grandmother|grandfather|"
           r"grand(?:son|daughter|kid|child)s?|grandchildren|"
           r"roommate|flatmate|housemate|neighbou?r|coach|teacher|doctor|gp|therapist|landlord|team(?:mate)?|"
           r"clients?|customers?|patients?|pupils?|host family|lad|students?|classmates?|in-laws?|mother-in-law|"
           r"father-in-law|ex|cat|dog|"
           r"co-?founders?|founders?|business partner|"
           # the same people in the languages users switch to ("mi madre es celíaca")
           r"madre|padre|hermanos?|hermanas?|hij[oa]s?|novi[oa]|marido|esposa|espos[oa]|abuel[oa]s?|amig[oa]s?|"
           r"m[eè]re|p[eè]re|fr[eè]re|s(?:oe|œ)ur|fils|fille|mari|femme|copain|copine|"
           r"mutter|vater|bruder|schwester|sohn|tochter|mann|frau|freund(?:in)?|"
           r"m[ãa]e|pai|irm[ãa]o?|filh[oa]|namorad[oa]|"
           r"fratello|sorella|figli[oa]|moglie|ragazz[oa]|nonn[ao]|"
           # South Asian and Filipino English: "my bhai tariq got type 2 diabetes", "ate joy is a nurse"
           r"bhai|bhaiya|behen|didi|abba|ammi|ammu|amma|appa|nani|nana|dadi|chacha|chachi|mausi|kuya|ate|lola|lolo|"
           r"tita|tito)")
# the person an event happened to, said right before it ("my dad passed away in march", "our daughter Jess
# graduated"): the event is theirs in the user's life, not the user's own doing. They open the clause (at its start,
# after a stop or a joining word), so they are its subject, never the object of the user's doing ("I drove my mum to
# Scotland"); "me and my boyfriend" is the user too
_WHOSE_EVENT = re.compile(r"(?:^|[.,;:!?()]\s*|\b(?i:and|but|so|because|when|while|then|now|also|update:?)\s+)"
                          rf"(?i:my|our)\s+((?i:{_PEOPLE})(?:\s+[A-Z][\w'-]+)?)\s+$")
_THE_USER_WITH = re.compile(r"\b(?:me|i|we)\s+(?:and|n|&|an['’]?)\s+(?:my|our)\s+(?:[\w'-]+\s+){1,2}$",
                            re.IGNORECASE)


def whose_event(value: str, clause: str) -> str | None:
    """The relative or other person the clause says an event happened to, as "dad" or "daughter Jess": the
    subject of the event's clause, right before it; None where the user is in it ("me and my dad went fishing")."""
    at = clause.find(value)
    before = clause[:at] if at > 0 else ""
    m = _WHOSE_EVENT.search(before)
    return m.group(1) if m and not _THE_USER_WITH.search(before) else None


# "my coworker is allergic to X", "our neighbour just moved to Y", "my brother's a vegan"
_OTHER_PERSON = re.compile(
    rf"(?:^\W*|\b(?:and|but|while|whereas|though)\s+)(?:and |but |also |so |oh |btw |lol )*"
    # the "my" may be dropped where a clause opens with the person ("and husband Dan doing keto now")
    rf"(?:(?:my|our|his|her|their|a|the|mi|mis|ma|mon|mes|meine?|minha|meu|mia|mio)\s+(?:\w+\s+)?)?{_PEOPLE}"
    # their name ("Jake", "Dr. Reem", a lowercase "tariq"), then perhaps an aside between commas ("my colleague Dr.
    # Reem, on the other hand, is allergic to penicillin")
    rf"(?:'s)?\s+(?:(?:dr|mr|mrs|ms|prof)\.?\s+)?(?:\(?[A-Z]\w+\)?(?:\s+|(?=,))|(?-i:[a-z]\w+)\s+(?=(?-i:[a-z])))?"
    rf"(?:,\s*(?:[\w'-]+\s+){{0,4}}[\w'-]+,\s*)?"
    # a few words placing them: "my patient in bed 12 is", "my friend from work is", "my boss at the bank has",
    # "mi hermana en Madrid es", "minha irmã em Lisboa é", "ma sœur à Paris est"
    rf"(?:(?:in|at|from|on|en|em|na|no|à|au|aux|bei|aus)\s+(?:[\w-]+\s+){{1,3}}?"
    rf"(?=(?:is|are|was|were|has|had|es|está|son|tiene|é|está|tem|est|a|ist|hat|è|ha)\b))?"
    # "my wife Ananya and daughter Diya are going to Mysuru": several of them, still not the user
    rf"(?:(?:and|&)\s+(?:my\s+|our\s+)?(?:\w+\s+)?{_PEOPLE}(?:'s)?\s+(?:\(?[A-Z]\w+\)?\s+)?)*"
    rf"(?:is|are|was|were|has|had|just|also|really|loves?|likes?|hates?|"
    rf"lives?|works?|moved|eats?|can't|cannot|doesn't|does|don't|got|gets|wants?|says|said|started|doing|takes|took|"
    rf"'s|'re|keeps?|never|always|es|está|tiene|come|est|a|mange|ist|hat|isst|é|tem|come|è|ha|mangia|"
    # the bare verb of learner English: "Roommate Jake start keto diet"
    rf"start|starts|go|goes|went|become|became|stopped|quit)\b",
    re.IGNORECASE)
# the value, at most two more words ("AWS" "key"), then "is", ":" or "=" and the marker
_LABELS_A_SECRET = re.compile(r"^\s*(?:[\w'-]+\s+){0,2}(?:is|are|was|=|:|-)?\s*" + re.escape(MARKER), re.IGNORECASE)
# a job the user had ("I was a school secretary for 31 years", "ex merchant navy", "taught ... before
# retiring"): the job slot holds the current one, and no labelled message files a former job under it
_FORMER_JOB = re.compile(
    r"\b(?:i was an?\b|i used to (?:work|be)|used to work|ex[- ](?!(?:wife|husband|partner|bf|gf|boyfriend|"
    r"girlfriend)\b)|former(?:ly)?|before (?:i )?retir\w*|retired from|back when i (?:was|worked)|"
    r"(?:my|in my) (?:old|previous|last) job|i worked (?:as|at|in|for)\b(?!.*\bnow\b))", re.IGNORECASE)
# the job said after the former one as the one now: "ex teacher here, now I drive for Uber"
_NOW_INSTEAD = re.compile(r"\b(?:now|these days|currently|nowadays)\b", re.IGNORECASE)


# a job value that is retirement itself, in the languages users write in: the job now, whatever was before it
_RETIREMENT = re.compile(r"(?:retired|retiree|pensioner|in pensione|pensionat[oa]|jubilad[oa]|retrait[ée]e?|"
                         r"rentner(?:in)?|aposentad[oa]|na emeryturze|emeryt(?:ka)?)\b", re.IGNORECASE)
# a word that says the former job is over as of now: retirement, or "now" ("I WAS A NURSE FOR 40 YEARS NOW IM RETIRED")
_OVER_AS_OF_NOW = re.compile(_RETIREMENT.pattern + r"|\bnow\b", re.IGNORECASE)


_SOMEONE_NAMED_BEFORE = re.compile(rf"\b(?:my|our|his|her|their|a|the)\s+(?:\w+\s+)?{_PEOPLE}\b", re.IGNORECASE)


def _former_job(value: str, clause: str, ended: bool = False, sentence: str = "") -> bool:
    """The clause says the job is one the user had, unless it names the value after that as the one now, the value
    is retirement, or the job is said ended as of now (then it ends the job held: "just retired from Singapore
    Airlines"; "ex merchant navy" alone is a past, no news)."""
    former = _FORMER_JOB.search(clause)
    if former is None:
        return False
    if _RETIREMENT.match(value) or (ended and _OVER_AS_OF_NOW.search(sentence or clause)):
        # retirement, or over as of now, if the user's: "my old manager retired from PwC now" ends no job of theirs
        return _SOMEONE_NAMED_BEFORE.search(clause[:max(0, clause.find(value))]) is not None
    at = clause.find(value, former.end())
    return not (at >= 0 and _NOW_INSTEAD.search(clause, former.end(), at))


# slots where a relative is the value itself ("my sister" -> family), not someone else's fact
_ABOUT_THE_USER_ANYWAY = frozenset({"family", "relationship_status", "pet"})
# ... unless the relative is someone else's: "Kayla and her fiancé", "his wife", "my sister's husband"
_THEIR_RELATIVE = re.compile(
    r"(?:\b(?:her|his|their)|\b(?!(?:it|she|he|that|there|what|who|here|let|where|how|one)'s\b)\w+'s|\ws')"
    r"\s+(?:(?!my\b|our\b)\w+\s+)?$", re.IGNORECASE)
# a name the clause goes on to say something of in the third person is someone the user talks about ("and
# Linda got a new job", "Linda found a book on it"), not the user introducing themselves ("Ray here", "I'm Ray")
_THIRD_PERSON_AFTER_NAME = re.compile(
    r"^\s+(?:is|was|has|had|got|gets|found|finds|says|said|thinks|thought|wants|wanted|works|worked|lives|lived|"
    r"moved|started|loves|loved|likes|hates|does|did|doesn't|didn't|isn't|wasn't|can't|won't|will|just|also|"
    r"and (?:her|his)|'s (?:been|got|gonna|going))\b"
    # "Ava's 10th birthday party": a name owning something is someone else's ("Ray's here" is the user)
    r"|^['’]s\s+(?!(?:here|the name|me|speaking|talking|writing)\b)\w", re.IGNORECASE)
_OTHER_THAN_SELF_BEFORE_NAME = re.compile(
    r"(?:\b(?:left|leaving|joined|joining|quit|quitting|at|for|with|from|to|by|about|met|meet|meeting|visited|"
    # "my late wife, Margaret": a name right after a person word is that person's
    rf"visiting|told|tell|asked|ask|and|&)|\b{_PEOPLE}\b,?|"
    # texting: "me n kiana r drivin to nashville", "me + jo", "w/ sam"
    r"\bme\s+(?:n|an|\+)|(?<!\w)w/)\s+$", re.IGNORECASE)


def _names_a_secret(value: str, clause: str) -> bool:
    """The value is what a redacted secret is ("my AWS key is [REDACTED...]", "pin: [REDACTED...]"): the
    label of a secret says nothing durable about the user and points at what was taken out."""
    at = clause.lower().find(value.lower())
    return at >= 0 and bool(_LABELS_A_SECRET.match(clause[at + len(value):]))


# a clause about "she" or "he" ("she passed away in 2023", "and he's a chef now"); "they" is often nobody in
# particular ("they moved me to nights")
# (after a comma too: "with my brother gary, he lives out in regina" is where the brother lives)
_SHE_OR_HE = re.compile(r"(?:^\W*|[,;]\s*|\b(?:and|but|so|while|though|because|since)\s+)(?:she|he)(?:'s|'d|\b)",
                        re.IGNORECASE)


# another person's thing named right before the value ("Isla's first birthday is 12 May", "my son's school is
# in Leeds"): the value is theirs
_THEIRS_BEFORE = re.compile(
    rf"(?:\b(?!(?:It|She|He|That|There|What|Who|Here|Let|Where|How|One)'s)[A-Z][a-zà-ÿ]+|\b{_PEOPLE})['’]s\s+"
    r"(?:[\w-]+\s+){1,3}(?:is|are|was|were|will be|:)\s*$")
# a relative's or another person's thing right before the value, with no verb between ("my mum's hip
# operation"); a capitalised owner is as often a place or a shop ("St Wilfrid's community choir")
_THEIRS_RIGHT_BEFORE = re.compile(rf"\b{_PEOPLE}['’]s\s+(?:[\w-]+\s+)?$", re.IGNORECASE)
# ... but where the user goes, works or helps out, it is the user's too: "I go to my sister's yoga class every
# Tuesday", "i help out at my uncle's garage", "I work for my dad's firm" (not "I'm worried about my mum's hip")
_THEIRS_THE_USER_GOES_TO = re.compile(
    rf"\b(?:i|i'm|im|we|we're)\b[^,.;!?]*\b(?:at|to|for|in)\s+(?:my|our)\s+{_PEOPLE}['’]s\s+(?:[\w-]+\s+)?$",
    re.IGNORECASE)
# (in slots of what the user does: a relative's allergy, health or diet the user cooks or shops "for" stays theirs,
# "I cook for my son's nut allergy")
_WHERE_THE_USER_GOES = frozenset({"habit", "hobby", "job", "education", "learning"})
# ... though not their care the user goes along to: "I go to my dad's dialysis sessions", "I drive to my mum's
# chemo appointments" (a clinic or a hospital may be where the user works)
_THEIR_CARE = re.compile(r"\b(?:chemo\w*|dialysis|radiotherapy|physio\w*|therapy|rehab|treatments?|appointments?|"
                         r"surgery|operations?|scans?|check-?ups?)\b", re.IGNORECASE)
# a named person as the subject of the clause, said as "Tom's moved", "Tom moved", "and Aisha is": what follows
# is theirs (words that open a sentence with a capital are no names, nor are the user texting without an
# apostrophe, "Im also vegan", or a day or a month, "Tuesday was my first day as a nurse")
_NAMED_SUBJECT = re.compile(
    r"(?:^\W*|\b(?:and|but|while|whereas|though|so|because|since)\s+)"
    r"(?!(?:I|Im|Ive|Id|Ill|It|She|He|That|There|What|Who|Here|Let|Where|How|One|This|These|Those|We|You|They|My|"
    r"Our|The|A|An|Just|Also|So|Then|Now|Finally|Still|Well|Oh|Ok|Okay|Yes|No|Hi|Hey|Anyway|Actually|Today|"
    r"Yesterday|Tomorrow|Last|Next|Everyone|Everybody|Nobody|Someone|Somebody|Work|Life|Things|Everything|Nothing|"
    r"Something|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days?|January|February|March|April|May|June|July|August|"
    r"September|October|November|December)\b)"
    r"[A-Z][a-zà-ÿ]+(?:['’]s\s+(?:been|got|gone|moved|started|just|also|now|finally|decided|left)|"
    r"\s+(?:is|was|has|had|got|gets|moved|lives|lived|works|worked|started|just|also|and (?:her|his)|"
    r"went|decided|left|quit|became|loves|likes|hates|eats|wants))\b")
# ... except in slots whose value another's thing may be the user's too: "my daughter's piano recital is next
# friday" is on the user's calendar (so the training data labels it), "Acme's launch date is March 3" is the
# user's project's
_OWNED_BY_OTHERS_TOO = frozenset({"plan", "event", "current_project", "project_stack", "project_deadline",
                                  "project_detail"})


# the user saying the same of themselves right after: "and so am I", "me too", "same here"
# ("I'm too scared to visit" says how much, not "me too")
_ME_TOO_AFTER = re.compile(r"^\W*(?:(?:and|&)\s+)?(?:so\s+(?:am|do|have|was)\s+i|as\s+am\s+i|me\s+too|"
                           r"(?:i\s+am|i['’]?m)\s+(?:one\s+)?too(?!\s+(?!(?:now|lol|haha|tbh|actually|btw|though|tho|"
                           r"and|but|so|since)\b)[a-z])|same\s+(?:here|for\s+me)|"
                           # "y yo también", "eu também", "moi aussi", "ich auch"
                           r"(?:y\s+)?yo\s+tambi[ée]n|(?:e\s+)?eu\s+tamb[ée]m|moi\s+aussi|ich\s+auch)\b", re.IGNORECASE)


# the user named right before "and my wife": "me and my wife are vegan", "i and my brother are both coeliac"
_ME_AND_BEFORE = re.compile(r"(?:^|[^\w'’])(?:me|i|myself)\s*$", re.IGNORECASE)


# someone doing to the user what makes the value the user's: "He has put me on a statin, atorvastatin" (the
# doctor of the sentence before), "she switched me to Fiasp"
_ONTO_THE_USER = re.compile(r"\b(?:put|puts|putting|started|starts|starting|switched|switches|moved|changed|gave|"
                            r"given|gives|prescribed|prescribes)\s+me\b", re.IGNORECASE)


def _about_someone_else(value: str, clause: str, slot: str = "") -> bool:
    """The value sits where the clause talks of someone else: "I'm a nurse and my mum is vegan" (vegan is
    the mum's, nurse the user's); "I'm vegan and my mum is too" (the user's)."""
    at = clause.lower().find(value.lower())
    if at >= 0 and _ME_TOO_AFTER.match(clause[at + len(value):]):
        return False  # "my friend from work is vegan and so am I": the user's as well
    if at < 0:  # the value is not in it as written: the person decides (a doctor's doing to the user is the user's)
        person = _OTHER_PERSON.search(clause)
        return person is not None and not (_CLINICIAN.search(person.group(0))
                                           and _THE_USER.search(clause[person.start():]))
    # the user speaking of themselves again between the person and the value takes it back ("my doctor
    # told me I'm type 2 diabetic", "my mum is vegan and I'm a nurse")
    for m in _OTHER_PERSON.finditer(clause):
        if _ME_AND_BEFORE.search(clause[:m.start()]) and m.group(0)[:1] in "a&":
            continue  # "me and my wife are vegan": the user is one of them
        if (at >= m.start() and not _USER_AGAIN.search(clause[m.end():at])
                and not _names_the_value(value, clause[m.start():at])
                and not (_CLINICIAN.search(m.group(0)) and (_THE_USER.search(clause[m.end():at])
                                                             or (slot == "health"
                                                                 and (_PRESCRIBED.search(clause[m.start():at])
                                                                      or _DIAGNOSED.search(clause[m.start():at]))
                                                                 and not _ANOTHER.search(clause[m.start():at]))))):
            return True
    for m in _SHE_OR_HE.finditer(clause):
        if (at >= m.end() and not _USER_AGAIN.search(clause[m.end():at])
                and not _ONTO_THE_USER.search(clause[m.end():at])):
            return True
    if slot not in _OWNED_BY_OTHERS_TOO and _named_subjects_value(at, clause):
        return True
    return slot not in _OWNED_BY_OTHERS_TOO and (_THEIRS_BEFORE.search(clause[:at]) is not None
                                                 or (_THEIRS_RIGHT_BEFORE.search(clause[:at]) is not None
                                                     and (slot not in _WHERE_THE_USER_GOES
                                                          or _THEIRS_THE_USER_GOES_TO.search(clause[:at]) is None
                                                          or _THEIR_CARE.search(value) is not None)))


# a clause that opens on its verb: its subject is before it, over an aside ("My colleague Dr. Reem, on the other
# hand, is allergic to penicillin")
_OPENS_ON_A_VERB = re.compile(r"^\W*(?:is|are|was|were|has|had)\b", re.IGNORECASE)


def _subject_before_the_clause(value: str, clause: str, sentence: str, slot: str) -> bool:
    """The clause opens on its verb and the sentence names someone else as its subject before it."""
    if not sentence or not _OPENS_ON_A_VERB.match(clause):
        return False
    at = sentence.find(clause)
    return at > 0 and _about_someone_else(value, sentence[:at + len(clause)], slot)


# the user (or the user among others) as what a capitalised subject acts on: "Covid has left me with asthma",
# "Django is great, we use it with Python" (a thing or a place opens a clause as often as a person does)
_USER_AS_OBJECT = re.compile(r"\b(?:me|my|myself|we|we're|we've|us)\b", re.IGNORECASE)


def _named_subjects_value(at: int, clause: str) -> bool:
    """The value at ``at`` follows a capitalised subject ("Tom's moved out ... in Leeds") with no word of the
    user between, neither as subject ("so I live in Leeds") nor otherwise ("Covid has left me with asthma")."""
    # the subject reaches no further than its own stretch of the clause: "Uni has been mad, started a job as a
    # barista" is the user's job (a comma after a capitalised word is as often a new thought as an aside)
    return any(at >= m.end() and "," not in clause[m.end():at] and not _USER_AGAIN.search(clause[m.end():at])
               and not _USER_AS_OBJECT.search(clause[m.end():at]) for m in _NAMED_SUBJECT.finditer(clause))


def _someone_elses_relative(value: str, clause: str, slot: str) -> bool:
    """The relative is another person's ("her fiancé", "my sister's husband"); a pet in "my son's hamster" is
    the household's, so only her / his / their take a pet away."""
    at = clause.lower().find(value.lower())
    before = clause[:at] if at >= 0 else ""
    m = _THEIR_RELATIVE.search(before)
    return m is not None and (slot != "pet" or "'" not in m.group(0))


def _spoken_of(value: str, clause: str) -> bool:
    """A name followed by what that person did or is ("Linda got a new job"), or after a word that makes it
    someone or something else ("left Kudi", "joined Tessera", "me and Linda"): not the user's own name."""
    at = clause.lower().find(value.lower())
    return at >= 0 and bool(_THIRD_PERSON_AFTER_NAME.match(clause[at + len(value):])
                            or _OTHER_THAN_SELF_BEFORE_NAME.search(clause[:at]))


# a doctor's words and doings about the user are the user's facts: "the GP has put me on ramipril", "my doctor
# has found that my thyroid is underactive"
_CLINICIAN = re.compile(r"\b(?:doctor|gp|doc|nurse|physio|specialist|consultant|surgeon|dentist|midwife|"
                        r"\w+ologist|psychiatrist|therapist)\b", re.IGNORECASE)
# a diet kept for a few days only: "estoy vegana this week jaja", "keto for a week to see", "vegetarian today"
_A_DIET_FOR_NOW = re.compile(r"\b(?:(?:just\s+)?this\s+(?:week|weekend)|for\s+(?:a|one|two|three|a\s+couple\s+of|"
                             rf"a\s+few)\s+(?:days?|weeks?)|(?:until|till)\s+(?:{WEEKDAY_NAME}|the\s+weekend))\b",
                             re.IGNORECASE)
# ... not one begun then: "I'm starting a low FODMAP diet this week"
_BEGUN = re.compile(r"\b(?:start\w*|begin\w*|began|begun|from|went|gone|turned|switched|became|become|since)\b",
                    re.IGNORECASE)
# someone else the clinician acts on: "the GP stopped the warfarin and put him on apixaban"
_ANOTHER = re.compile(r"\b(?:him|her|them|his|their|himself|herself|themselves)\b", re.IGNORECASE)
# a dose alone: "two puffs", "10mg", "1 tablet"
_ONLY_A_DOSE = re.compile(r"(?:\d+(?:\.\d+)?|one|two|three|four|five|half|a|an)\s*(?:puffs?|mg|mcg|ml|units?|"
                          r"tablets?|pills?|drops?|capsules?|doses?|sprays?|iu)", re.IGNORECASE)
# a clinician's doing to a medicine is the user's treatment, "me" said or not: "Doctor sahib stopped the Ventolin, now
# only Symbicort", "the GP put up the sertraline to 100"
_PRESCRIBED = re.compile(r"\b(?:stopped|stops|started|starts|put|puts|prescribed|prescribes|gave|gives|give|switched|"
                         r"changed|added|adds|increased|raised|lowered|reduced|upped|doubled|halved|swapped|took|"
                         r"moved|cut)\b", re.IGNORECASE)
# ... and what a clinician finds is the user's condition: "Knee is bad. Doctor says arthrosis.", "the ophthalmologist
# has found a cataract"
_DIAGNOSED = re.compile(r"\b(?:says?|said|thinks?|thought|found|finds|diagnosed|confirmed|confirms|suspects?|"
                        r"reckons?)\b", re.IGNORECASE)
_THE_USER = re.compile(r"\b(?:me|my|myself)\b", re.IGNORECASE)
_USER_AGAIN = re.compile(r"\b(?:i|i'm|im|i am|i've|ive|i was|i'd)\b", re.IGNORECASE)
_OPENER_ONLY = re.compile(r"^\W*(?:(?:and|but|while|whereas|though|also|so|oh|btw|lol)\s+)*$", re.IGNORECASE)
_STARTS_WITH_PERSON = re.compile(rf"{_PEOPLE}\b", re.IGNORECASE)


def _names_the_value(value: str, before: str) -> bool:
    """A person word that opens the clause with no "my" is the value itself, a title or a thing ("Friends
    is my favourite show", "Doctor Who is my comfort watch"), not someone the clause talks of."""
    return bool(_OPENER_ONLY.match(before) and _STARTS_WITH_PERSON.match(value))


_PLACE_SLOTS = frozenset({"home_location", "hometown"})
# someone the user speaks of, then where they are from: "a fella from Nebraska", "this guy from work in Leeds"
_SOMEONE_FROM = re.compile(
    r"(?<!\bi['’]m )(?<!\bim )(?<!\bam )(?<!\bas )(?<!\bbe )"
    r"\b(?:a|an|the|some|this|that|these|those|two|three)\s+(?:[\w'-]+\s+)?(?:fella|fellow|guy|guys|man|men|woman|"
    r"women|lady|ladies|bloke|chap|dude|girl|boy|lad|lass|couple|family|buyer|seller|customer|client|someone|"
    r"somebody|person|people|folks?|tourists?|student|nurse|doctor|dentist|gp|farmer|driver|kid|kids|friend|"
    r"friends|buyers|sellers|customers|clients|students|visitors|guests|suppliers|orders?)\s+(?:from|out of|in)\s+"
    r"(?:[\w'-]+\s+){0,2}$|"
    # "doctor in Singapore give me new inhaler": a doctor with no determiner, then where they are
    r"^\W*(?:the\s+)?(?:doctor|dentist|gp|nurse|pharmacist|vet)\s+(?:in|at|from)\s+(?:[\w'-]+\s+){0,2}$", re.IGNORECASE)
# a place the clause puts something near, and no word that the user lives there ("I live near Leeds" does)
_NEAR = re.compile(r"\b(?:near|nearby|around|close to|close by)\s+(?:the\s+)?$", re.IGNORECASE)
_LIVING = re.compile(r"\b(?:live|lives|living|livin|based|moved|move|settled|home|house|flat|apartment|stay|staying|"
                     r"reside|residing|resident)\b", re.IGNORECASE)


def _only_near(value: str, clause: str) -> bool:
    at = clause.find(value)
    return at >= 0 and bool(_NEAR.search(clause[:at])) and not _LIVING.search(clause)


# a place said of where the user works, right after the workplace or the people they work for: "a physio at a
# clinic in Ponsonby", "home visits for ACC clients around the Bay", "our office in Shoreditch"
_WORKPLACE_IN = re.compile(
    r"\b(?:clinic|office|hospital|surgery|practice|shop|store|school|college|restaurant|caf[eé]|bar|pub|salon|"
    # where a child goes to school: "he goes to Gymnasium in Kreuzberg" is no home
    r"gymnasium|grundschule|kita|nursery|kindergarten|daycare|"
    r"company|firm|factory|plant|warehouse|site|depot|branch|studio|lab|agency|bank|hotel|kitchen|spa|gym|ward|unit|"
    r"department|rounds|route|clients?|customers?|patients?|pupils?)\s+(?:(?:in|at|near|around|on|across|all over)\s+"
    # ("Office is Burnaby, Metrotown": the office's town, then its part)
    r"(?:the\s+)?|(?:is|is\s+in|['’]s\s+in)\s+(?:[\w'-]+,\s+)?)$|"
    # working somewhere: "Piotr is working with me now in TK Electric", "I work part-time in Deloitte"
    r"\b(?:work|works|working|worked|employed|job)\s+(?:(?!home\b|remote|here\b|out\s+here\b)[\w'-]+\s+){0,4}?"
    r"(?:in|at)\s+(?:the\s+)?$",
    re.IGNORECASE)


# the user saying they live there all the same: "I live in a flat above a shop in Hackney"
_I_LIVE = re.compile(r"\b(?:i|we)(?:['’]ve|['’]m|['’]re| am| are| have)?\s+(?:just\s+|now\s+)?"
                     r"(?:live|living|lived|based|moved|rent|renting|stay|staying)\b", re.IGNORECASE)


def _at_work_in(value: str, clause: str) -> bool:
    at = clause.find(value)
    return at > 0 and bool(_WORKPLACE_IN.search(clause[:at])) and not _I_LIVE.search(clause[:at])


# where a journey starts: "we fly to Kraków from Luton", "flying out of Manchester on the 3rd", "just got back from
# Lisbon" (an airport, a station, a trip's place); not a base ("a ferry captain out of Bergen", "I drive a truck out
# of Dallas": "out of" is a journey's only with flying), not a way the user goes every day ("I take the train from
# Brighton every day", "I commute from Brighton"), not "we moved here from Leeds" (_I_LIVE keeps that)
_JOURNEY_FROM = re.compile(
    r"(?:\b(?:fly|flying|flew|flight|flights)\b[^,.;:!?]{0,60}?\b(?:from|out\s+of)|"
    r"\b(?:depart|departs|departing|leave|leaves|leaving|drive|driving|drove|sail|sailing|back|train|coach|ferry|"
    r"trip)\b[^,.;:!?]{0,60}?\bfrom)\s+(?:the\s+)?$", re.IGNORECASE)
_EVERY_DAY = re.compile(r"\b(?:every|each|daily|commut\w*|usually|mostly|always|a\s+lot|often|since\s+i\s+live)\b",
                        re.IGNORECASE)


def _journey_from(value: str, clause: str) -> bool:
    at = clause.find(value)
    return (at > 0 and bool(_JOURNEY_FROM.search(clause[:at])) and not _I_LIVE.search(clause[:at])
            and not _EVERY_DAY.search(clause))


# someone named opens the clause, marrying, and it says nothing of the user: "Maria is getting married in June" ("Tom
# is my fiancé", "Tom and I are getting married" are the user's; "Oliver has moved in, finally living together" too)
_NAMED_OPENER = re.compile(r"^\W*(?P<name>[A-Z][\w'’-]+)\s+(?:is|was|['’]s|got|has|will|just)\b")
_MARRYING = re.compile(r"\b(?:married|marry|marrying|engaged|wedding)\b", re.IGNORECASE)
_USER_IN_IT = re.compile(r"\b(?:i|i['’]m|im|me|my|mine|we|we['’]re|us|our)\b", re.IGNORECASE)


def _someone_named_marries(value: str, clause: str) -> bool:
    named = _NAMED_OPENER.match(clause)
    return (named is not None and value.startswith(named.group("name")) and bool(_MARRYING.search(clause))
            and not _USER_IN_IT.search(clause))


# a job word right after "my" names a person of the user's ("ma lecturer sez", "my manager"), not their job
_MINE_BEFORE = re.compile(r"\b(?:my|ma|mi|our|his|her|their)\s+$", re.IGNORECASE)
_A_PERSON_AT_WORK = re.compile(rf"(?:lecturer|professor|prof|tutor|supervisor|instructor|mentor|trainer|{_PEOPLE})\b",
                               re.IGNORECASE)


def _someone_of_mine(value: str, clause: str) -> bool:
    """"ma lecturer sez ...": a person ("our bakery", "my own practice" are the user's work)."""
    at = clause.find(value)
    return at > 0 and bool(_MINE_BEFORE.search(clause[:at])) and bool(_A_PERSON_AT_WORK.match(value))


# an internship is work, not studies: read as the user's studies, it ended their degree (an apprenticeship or a
# placement year is a course of study as often as not)
_AN_INTERNSHIP = re.compile(r"\b(?:internships?|interns?)\b", re.IGNORECASE)
_A_COURSE = re.compile(r"\b(?:degree|course|bsc|msc|ba|ma|phd|mba|programme|program|year\s+of)\b", re.IGNORECASE)


# being in hospital is no job: "now he is in Mackenzie hospital" ("I'm in sales" is one, and "a nurse in the
# hospital" names the job before the place)
_IN_HOSPITAL = re.compile(r"^in\s+(?:the\s+)?(?:[\w'-]+\s+){0,3}(?:hospital|icu|rehab|intensive care)\b",
                          re.IGNORECASE)
_BEING = re.compile(r"\b(?:am|i['’]?m|is|he['’]s|she['’]s|are|was|were|been|still|now)\s+$", re.IGNORECASE)


def _in_hospital(value: str, clause: str) -> bool:
    at = clause.find(value)
    return bool(_IN_HOSPITAL.match(value)) and at > 0 and bool(_BEING.search(clause[:at]))


# the user's own birthday is said as theirs ("my birthday is 3 May", "I was born on the 4th", "I turn 40 on Friday");
# a birthday said of anyone else ("Zosia birthday is 3rd of February", "Pia's bday March 3") or a day that is no
# birthday at all ("Aoife's confirmation is the 9th of May") is not the user's
_BIRTH_WORD = re.compile(r"\b(?:birthday|bday|b-day|b'day|born|turn(?:s|ing|ed)?|birth\s?date|cumplea[ñn]os|cumple|"
                         r"geburtstag|"
                         r"anniversaire|compleanno|anivers[aá]rio|urodziny|date of birth|dob|d\.o\.b|leap year|"
                         r"n[ée]e? le|nacid[oa]|geboren)\b", re.IGNORECASE)
# someone before "birthday": a capitalised name with a possessive or right before the word, one of the people the screen
# knows by the word for them (_PEOPLE), or a pronoun
_SOMEONE_ELSES_BIRTHDAY = re.compile(
    r"(?:\b(?-i:[A-Z][\w'-]+)(?=['’]s?\s|\s+(?:birthday|bday|b-day|b'day))"
    rf"|\b(?:{_PEOPLE}|mam|nan|his|her|their|he|she))(?:['’]s?)?\s+"
    r"(?:(?:\d+(?:st|nd|rd|th)|first|second|third|\w+['’]s)\s+)?"
    r"(?:birthday|bday|b-day|b'day)\b|\b(?:he|she|they)(?:['’]s|\s+is|\s+will\s+be|\s+turns?)\b",
    re.IGNORECASE)


# words before "birthday" that name nobody else: the user's own, fillers, and the words of a birthday itself
_NOT_SOMEONE_ELSE = frozenset({
    "i", "my", "me", "our", "happy", "next", "this", "the", "its", "it's", "it", "today", "tomorrow", "mein", "meine",
    "mi", "mon", "ma", "mio", "mia", "meu", "minha", "mijn", "moje", "moj", "ok", "okay", "also", "big", "btw", "just",
    "so", "and", "surprise", "last", "first", "upcoming", "birthday", "bday", "b-day", "b'day", "oh", "well", "yes",
    "yeah", "anyway", "plus", "p.s", "ps"})


def _not_the_users_birthday(value: str, clause: str, message: str) -> bool:
    at = clause.find(value)
    before = clause[:at] if at >= 0 else clause
    if not _BIRTH_WORD.search(clause) and not _BIRTH_WORD.search(message):
        return True
    m = _SOMEONE_ELSES_BIRTHDAY.search(before)
    return m is not None and m.group(0).split()[0].strip("'’s").lower() not in _NOT_SOMEONE_ELSE


# a day said as when something began ("since Monday", "since last week", "since the 3rd"): what began is no plan
_SINCE_THEN = re.compile(rf"\bsince\s+(?:last\s+|the\s+)?(?:{'|'.join(sorted(CALENDAR_NAMES))}|week|month|year|"
                         r"yesterday|\d)", re.IGNORECASE)
_SINCE_WORDS = re.compile(r"\bsince(?:\s+[\w'-]+){1,3}", re.IGNORECASE)
_SOME_DAY = datetime(2026, 1, 1, tzinfo=UTC)


def _given_up(clause: str, message: str) -> bool:
    """The clause says a plan the user had (reschedules.HAD_INTENDED), and the message then says it will not happen
    (reschedules.GIVEN_UP_AFTER)."""
    had = HAD_INTENDED.search(clause)
    if had is None:
        return False
    at = message.find(clause)
    return bool(GIVEN_UP_AFTER.match(message, at + had.end()) if at >= 0 else GIVEN_UP_AFTER.match(clause, had.end()))


def _begun_not_to_come(clause: str) -> bool:
    """The only day the clause names is when something began ("since Monday"), and nothing says it is to come ("I
    learn Japanese now since 3 months, for the N4 exam in December" names December too)."""
    if not _SINCE_THEN.search(clause) or _TO_COME.search(clause):
        return False
    return anchor(_SINCE_WORDS.sub(" ", clause), _SOME_DAY) is None


_TO_COME = re.compile(r"\b(?:will|won['’]t|going to|gonna|next|tomorrow|until|till|from\s+\w+\s+on|'ll|plan\w*)\b",
                      re.IGNORECASE)

# a standing way of answering asked for as a favour ("Can you reply in Taglish from now on?"): a request, not a
# question (the check before it has found the words that make it stand)
_ASKED_AS_A_FAVOUR = re.compile(r"^\W*(?:(?:ok|okay|so|and|also|pls|please|hey|btw)\W+)*(?:can|could|would|will)\s+"
                                r"(?:you|u|ya)\b", re.IGNORECASE)


def screen(value: str, clause: str, slot: str, explicit: bool = False, sentence: str = "",
           message: str = "", ended: bool = False) -> str | None:
    """Why the value must not become a fact, or None. ``sentence`` and ``message`` hold the clause (an
    instruction's "always" may sit in the next clause: "Rust examples: no unwrap(). Always."); ``ended``: the value
    is said to hold no longer."""
    if MARKER in value or _names_a_secret(value, clause):
        return "sensitive_data"
    if (slot in ANSWER_SLOTS and not explicit
            and not standing_instruction(clause, sentence or clause, message or sentence or clause)):
        return "one_off_request"
    if (not explicit and is_question(clause) and not (slot in ANSWER_SLOTS and _ASKED_AS_A_FAVOUR.match(clause))
            and not (slot == "health" and said_as_own(value, clause))):
        return "question"  # but the user's own medicine asked about ("can i take ibuprofen with my sertraline?")
    if not explicit and _WISH.search(clause):
        return "hypothetical"
    if slot == "job" and _former_job(value, clause, ended, sentence):
        return "not_current"
    if slot == "job" and _in_hospital(value, clause):
        return "passing_state"
    if slot == "relationship_status" and _someone_named_marries(value, clause):
        return "about_someone_else"  # "Maria is getting married in June": the daughter's wedding, not the user's
    if slot == "job" and _someone_of_mine(value, clause):
        return "about_someone_else"  # "ma lecturer sez mi texting english is spoiling mi writing": a person
    if slot == "education" and _AN_INTERNSHIP.search(value) and not _A_COURSE.search(clause):
        return "not_studies"  # "got internship at MTN as IT intern": work, which ends no degree
    if slot == "plan" and _begun_not_to_come(clause):
        return "not_a_plan"  # "driving for Raben since Monday": begun, not to come
    if slot == "plan" and _given_up(clause, message or sentence or clause):
        return "not_a_plan"  # "We had intended to travel to Furano in August. However, my knee will not permit"
    if slot == "birthday" and not explicit and _not_the_users_birthday(value, clause, message or sentence or clause):
        return "about_someone_else"
    if slot not in _ABOUT_THE_USER_ANYWAY and (_about_someone_else(value, clause, slot)
                                               or _subject_before_the_clause(value, clause, sentence, slot)):
        return "about_someone_else"
    if slot in _ABOUT_THE_USER_ANYWAY and _someone_elses_relative(value, clause, slot):
        return "about_someone_else"
    if slot == "name" and _spoken_of(value, clause):
        return "about_someone_else"
    if slot == "diet" and not ended and _A_DIET_FOR_NOW.search(clause) and not _BEGUN.search(clause):
        return "passing_state"  # "estoy vegana this week jaja": a week's try, not the user's diet
    if slot == "health" and _ONLY_A_DOSE.fullmatch(value.strip()):
        return "not_a_condition"  # "two puffs morning and night": how much of the medicine, not which
    if slot == "languages_spoken" and not names_a_spoken_language(value):
        return "not_a_language"  # "et aussi, from now on, réponds-moi en français": "User speaks aussi."
    if slot in _PLACE_SLOTS and is_a_language(value):
        return "not_a_place"  # "english or tagalog mass": a language, not where the user lives
    if slot == "home_location" and _only_near(value, clause):
        return "not_home"  # "a church near yonge n eglinton": where the user looks, not where they live
    if slot == "home_location" and _at_work_in(value, clause):
        return "not_home"  # "a physio at a clinic in Ponsonby": where the user works
    if slot == "home_location" and _journey_from(value, clause):
        return "not_home"  # "we fly to Kraków from Luton": where a journey starts
    if slot in _PLACE_SLOTS and _SOMEONE_FROM.search(clause[:max(0, clause.find(value))]):
        return "about_someone_else"  # "Sold it to a fella from Nebraska": where someone else is from
    # a secret redacted beside the value is no reason to refuse the value ("card [REDACTED:card] and I'm vegan")
    reason = rejection_reason(_MARKED.sub(" ", clause))
    if reason == "uncertain" and explicit:
        return None
    return reason


# who an answer instruction is for: the assistant ("you", "your replies") or its answers
_ADDRESSED = re.compile(
    r"\b(?:you|your|yours|yourself|u|ur|ya|y'all|answers?|answering|repl(?:y|ies|ying)|respon(?:d|ds|se|ses|ding)|"
    r"explain\w*|explanations?|messages?|talk(?:ing)? to me|speak(?:ing)? to me|write to me|with me|for me|"
    r"to me|call me|address me|please|pls|plz|por favor|bitte|s'il (?:te|vous) pla[iî]t|per favore|let's|let us|"
    r"i(?:'d| would)? prefer|i'd rather|i don't need|helps? (?:me )?a lot|how i (?:read|learn)|stop \w+ing|"
    r"scrap|drop the|i'm not negotiating)\b",
    re.IGNORECASE)
# a standing instruction says it stands: "from now on", "always", "every time", in the languages users switch to
_STANDING = re.compile(
    r"\b(?:from now on|from now|from here on|from today on|going forward|moving forward|in (?:the )?future|always|"
    r"allways|never|every ?time|each time|whenever|by default|anymore|any more|no more|again|permanently|"
    r"for (?:every|all|any)|in (?:every|all|any)thing|in general|new rule|siempre|immer|toujours|sempre|ab jetzt|"
    # a new way of answering ("switch format: no bullets", "changing the format")
    r"(?:switch(?:ed|ing)?|chang(?:e|ed|ing)) (?:the |your )?format|new format|"
    # a rule let go for the one that follows ("Forget five lines. Longer is fine when it's technical.")
    r"forget|"
    r"desde ahora|d[ée]sormais|house style|"
    # a rule the user keeps, or one for a kind of question ("I'm partially rescinding the paragraphs rule: for code
    # and technical questions give me terse bullets and code")
    r"(?:the|my|this|that|your)\s+(?:[\w-]+\s+){0,2}rule|for\s+(?:[\w-]+\s+){0,3}(?:questions|stuff|topics|answers)|"
    # "from now on" in the languages users switch to, and a way of answering taken up again ("go back to English")
    r"de agora em diante|a partir de agora|daqui (?:pra|para) frente|de ahora en adelante|a partir de ahora|"
    r"[àa] partir de maintenant|dor[ée]navant|von nun an|ab sofort|d'ora in poi|da ora in poi|mulai sekarang|"
    r"(?:go|switch|change|get|revert)\s+back\s+to|revenir\s+[àa]|volver\s+al?|voltar\s+(?:ao?|pro|para\s+o)|"
    r"(?:no|never)\b.{0,40}\bever|(?<![\w\s])\s*(?:[\w-]+\s+){1,3}only|"
    # "every answer", "all your replies", "any code": a quantifier counts only over answers, not over a task's
    # things ("summarize every chapter of this book")
    r"(?:every|each|all|any)\s+(?:(?:of\s+)?(?:your|my|the)\s+)?(?:\w+\s+)?(?:answers?|repl(?:y|ies)|"
    r"responses?|messages?|chats?|code|examples?|emails?|recipes?|explanations?|lists?|time))\b", re.IGNORECASE)
# words a request may open with before its verb ("please just use ...", "ok so keep ...")
_FILLERS = "please|pls|plz|kindly|abeg|just|and|also|oh|ok|okay|so|but|hey|actually|now|update"
# a clause that opens with a verb about how to answer ("use metric", "keep it short", "no emojis")
_STYLE_IMPERATIVE = re.compile(
    r"^\W*(?:(?:" + _FILLERS + r"|from now on|going forward|in future|in the future|always|never)\b[\s,:]*)*"
    r"(?:use|keep|be|answer|reply|respond|write|talk|speak|call|address|put|add|include|format|start|end|begin|"
    r"stop|avoid|skip|cite|show|give|list|explain|correct|mention|remind|ask|assume|default|stick|switch|drop|"
    r"tell|label|spell|round|convert|number|bold|limit|cap|no|not|don'?t|do not|never|less|more|only|go|"
    r"treat|quote|prefer|feel free|make)\b", re.IGNORECASE)
# a task, not a way of answering: "explain row level security", "summarize the guidelines", "write my cover letter"
_TASK = re.compile(
    r"^\W*(?:(?:" + _FILLERS + r"|can you|could you|would you)\b[\s,:]*)*"
    r"(?:explain|summari[sz]e|draft|translate|fix|help|find|plan|create|make|tell me|show me|give me (?:a|an|some|the)|"
    r"describe|compare|check|proofread|rewrite|generate)\b", re.IGNORECASE)
_ONE_THOUGHT_WORDS = 12
# a request about one piece of work: "just for this handout", "make the next answer a table", "my essay"
_THIS_ONCE = re.compile(
    r"\b(?:this (?:time|one|once|handout|email|essay|text|post|letter|answer|reply|message)|just for this|"
    r"the next (?:answer|reply|one)|the same thing|(?<!from )today(?! on)|tonight|for now|below|above|"
    r"my (?:essay|email|post|letter|cv|resume)|then go back)\b", re.IGNORECASE)


def standing_instruction(clause: str, sentence: str, message: str) -> bool:
    """An answer instruction is addressed to the assistant or its answers ("use metric", "your replies,
    please") or says it stands ("three sentences max, always"), and is not about one piece of work ("just
    for this handout", "explain row level security"). A clause that does neither ("payments table, 400M
    rows", a remark in another language) is no instruction, whatever the tagger read into it."""
    if _THIS_ONCE.search(sentence):
        return False
    # a short message is one thought ("Rust examples: no unwrap(). Always."); a long one, sentence by sentence
    standing = bool(_STANDING.search(message if len(message.split()) <= _ONE_THOUGHT_WORDS else sentence))
    if not standing and (_TASK.match(clause) or _TASK.match(sentence)):
        return False
    return bool(standing or _ADDRESSED.search(sentence) or _STYLE_IMPERATIVE.match(clause)
                or _STYLE_IMPERATIVE.match(sentence))
