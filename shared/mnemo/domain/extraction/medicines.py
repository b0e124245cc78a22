"""Medicines the user takes (docs/slots.md files them under ``health``): how a message names one, and which
medicine a change of medicine ends.

The tagger learned conditions ("type 2 diabetic") far better than the drugs for them: it reads "doc put me on
lisinopril 10mg" as nothing, "Now im on Jardiance" as something avoided and "now I take Eliquis" as a routine.
A medicine is said in a few fixed ways: someone puts, starts, switches or prescribes the user onto it ("has
started me on thyroxine 50 mcg", "switched me off the warfarin and onto apixaban"), the user takes, is on or began
it ("begun taking levothyroxine", "been on prednisolone"), a list of medicines names it ("my new pills are called
Entresto"), or its dose changes ("increased my thyroxine dose to 75 mcg"). The same words put people on hold, on
nights or on a waiting list and have them take the bus, so the name itself must say medicine (an INN stem such as
"-pril", "-sartan", "-statin"; a dose or a form after it), or the message must speak of a doctor or of medicines.
medicines_in reads the medicines a text says are taken; ended_medicines the ones a switch or an ending leaves
behind.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from mnemo.domain.extraction.dates import CALENDAR_NAMES
from mnemo.domain.extraction.segment import DENIED_OR_WISHED

# the message speaks of medicine: who prescribes, what is taken, how much
MEDICAL_TALK = re.compile(
    r"\b(?:doctors?|doc|docter|doktor|dr|gp|physician|nurse|cardiologist|endo\w*|psychiatrist|specialist|"
    r"consultant|rheumatologist|neurologist|dermatologist|pharmac\w*|chemist|meds?|medications?|diagnosed|"
    r"medicines?|medicin|pills?|tablets?|capsules?|dose|doses|dosage|prescri\w*|mg|mcg|milligrams?|"
    r"micrograms?|inhaler|blood pressure|bp|cholesterol|diabet\w*|thyroid|heart|clots?|"
    r"blood thinners?|anticoagulants?)\b",
    re.IGNORECASE)
# stems of international non-proprietary names (WHO) common in what users take: a word that ends so is a
# medicine's name ("lisinopril", "amlodipine", "rosuvastatin", "apixaban", "empagliflozin", "semaglutide")
_INN_STEM = re.compile(
    r"(?:pril|prilat|sartan|olol|alol|dipine|vastatin|formin|gliflozin|gliptin|glutide|glinide|gliclazide|"
    r"glipizide|xaban|gatran|parin|farin|prazole|tidine|oxetine|opram|alopram|traline|triptyline|ipramine|"
    r"azepam|azolam|cillin|mycin|cycline|floxacin|oxacin|olone|isone|sone|thyroxine|thyronine|mazole|"
    r"umab|ximab|zumab|tinib|ciclovir|cyclovir|setron|triptan|dronate|lukast|(?<!choles)terol|sonide|semide|thiazide|"
    r"afil|profen|coxib|gabalin|gabapentin|piprazole|apine|idone|lamotrigine|valproate|etiracetam|"
    r"trigine|amide|osin|asteride|tamsulosin|statin|aspirin|insulin|warfarin|metformin|lithium|"
    r"paracetamol|acetaminophen|ibuprofen|naproxen|codeine|tramadol|morphine|methotrexate|allopurinol|"
    r"colchicine|digoxin|furosemide|spironolactone|levothyroxine|thyroxine|prednisone|prednisolone|"
    # the antihistamines, painkillers, antidepressants and sleeping pills bought or prescribed most ("cetirizine",
    # "loratadine", "fexofenadine", "diphenhydramine", "diclofenac", "venlafaxine", "zopiclone", "mesalazine")
    r"tirizine|atadine|fenadine|hydramine|phenamine|fenac|faxine|iclone|melatonin|salazine)$",
    re.IGNORECASE)
_UNIT = r"(?:mg|mcg|µg|ug|g|milligrams?|micrograms?|units?|iu|ml)"
# a dose: "5mg", "75 mcg", "8 units"
_DOSE_UNIT = r"\d+(?:[.,]\d+)*\s*" + _UNIT + r"\b"
_A_DOSE = re.compile(r"\s*" + _DOSE_UNIT, re.IGNORECASE)


def without_dose(value: str) -> str:
    """The drug without its dose: "thyroxine 75 mcg" -> "thyroxine", so a new dose is the same fact, changed."""
    value = _A_DOSE.sub("", value).strip() or value
    bare = _BARE_DOSE_AFTER.match(value)
    # "metformin 500": a number after a medicine's name is its dose ("type 2" keeps its number)
    return bare.group(1) if bare and has_medicine_stem(bare.group(1).split()[-1]) else value


_BARE_DOSE_AFTER = re.compile(r"^(.*?[^\W\d_][\w'-]*)\s+\d+(?:[.,]\d+)*$")


# a dose or a form right after the name: "amlodipine 5mg", "metformin 500", "ramipril tablets"
_TAKEN_DOSE = r"\d+(?:[.,]\d+)*\s*(?:" + _UNIT + r"|puffs?|x)?\b"
_FORM = r"(?:pills?|tablets?|tabs|capsules?|injections?|jabs?|shots?|inhaler|patch(?:es)?|spray|drops|syrup)\b"
_BARE_NUMBER = re.compile(r"^\s*\d+(?:[.,]\d+)*$")
_AFTER = re.compile(r"^\s*(?:" + _TAKEN_DOSE + r"|" + _FORM + r")", re.IGNORECASE)
# the words right before a medicine's name: someone putting the user on it, being on it, taking it, its prescription
_PUT_ON = (r"(?:put|puts|putting|started|starts|starting|start|got|gets|getting|switched|switching|moved|"
           r"moving|changed|changing|swapped|transferred|has|have|had|keeps?|kept|want|wants|tried|trying|placed)\s+"
           r"(?:me|him|her|us)\s+(?:back\s+|now\s+|over\s+|straight\s+)?(?:on|onto|on to|to)")
_ON = (r"(?:i'?m|im|i am|am|been|being|was|now|still|stay(?:ing)?|going|went|go|got|get|gotten|started|starting|"
       r"start|begun|began|begin|remain|remaining|be|are|we're|put)\s+(?:back\s+|now\s+|also\s+)?on(?:to)?|onto")
_TAKE = (r"(?:take|takes|taking|takin|took|tak|inject|injecting|started|start|starting|begun|began|begin|"
         r"beginning|commenced|restarted|continue|continuing)(?:\s+(?:taking|on|with|using))?")
_TAKEN_PRESCRIBED = r"(?:prescribed|prescribe|prescribes|prescribing)(?:\s+(?:me|him|her))?"
_GAVE = r"(?:gave|given|give|giving|gives|added|adding)(?:\s+(?:me|him|her))?"
_NEW_MEDS = (r"(?:new|my|the|current)\s+(?:meds?|medicines?|medications?|medicin|pills?|tablets?|prescription)"
             r"\s*(?:is called|are called|is|are|:|=|-)\s*(?:now\s+)?")
# a switch names what it leads to: "from bisoprolol to nebivolol", "swapped naproxen for celecoxib", "replaced the
# lansoprazole with famotidine"
_SWITCH_TO = (r"(?:from\s+(?:the\s+|my\s+)?[\w'-]+(?:\s+\d[\d.,]*\s*(?:mg|mcg|units)?)?\s+(?:to|onto)|"
              r"(?:swap\w*|swopped|trad\w*)\s+(?:the\s+|my\s+)?[\w'-]+\s+for|"
              r"replac\w*\s+(?:the\s+|my\s+)?[\w'-]+\s+with|"
              # "switched me off the warfarin and onto apixaban": the second half, after an "off"
              r"off\s+(?:the\s+|my\s+)?[\w'-]+(?:\s+\d[\d.,]*\s*(?:mg|mcg|units)?)?\s+(?:and|then)\s+"
              r"(?:put\s+(?:me\s+)?)?on(?:to| to)?)")
# a kind of medicine said before the medicine's name
_KIND_OF_MEDICINE = (r"(?:statin|blood\s+thinner|beta[- ]?blocker|ace\s+inhibitor|antidepressant|antibiotic|steroid|"
                     r"anticoagulant|diuretic|water\s+pill|painkiller|inhaler|antihistamine|ssri|injection|jab|"
                     r"medicine|medication|pill|tablet)")
_FRAME = re.compile(
    r"\b(?P<frame>" + _PUT_ON + r"|" + _ON + r"|" + _TAKE + r"|" + _TAKEN_PRESCRIBED + r"|" + _GAVE + r"|" + _NEW_MEDS
    + r"|" + _SWITCH_TO + r")\s+(?:the\s+|my\s+|some\s+|a\s+course\s+of\s+|a\s+low\s+dose\s+of\s+)?"
    # the kind of medicine first, then its name: "put me on a statin, atorvastatin", "an inhaler called Symbicort"
    r"(?:(?:a|an)\s+(?:new\s+)?" + _KIND_OF_MEDICINE + r"\s*(?:,|called|named|:)\s*)?"
    # the dose may come first: "I take 5mg of amlodipine"
    r"(?:(?P<dose_first>\d+(?:[.,]\d+)*\s*" + _UNIT + r")\s+(?:of\s+)?)?"
    r"(?P<name>[^\W\d_][\w'-]*(?:\s+[^\W\d_][\w'-]*)?)", re.IGNORECASE)
# frames that say medicine wherever the message speaks of a doctor or of medicines: someone putting the user on
# something, a prescription, a list of medicines, starting on something
_STRONG = re.compile(r"^(?:" + _PUT_ON + r"|" + _TAKEN_PRESCRIBED + r"|" + _NEW_MEDS + r"|" + _SWITCH_TO
                     + r"|(?:started|starting|start|begun|began|begin)\s+on)\s*$", re.IGNORECASE)
# frames after which a name written as a brand is ("now I take Eliquis") is a medicine where medicines are spoken of
_BRAND_FRAME = re.compile(r"^(?:take|takes|taking|takin|took|tak|inject|injecting)\s*$", re.IGNORECASE)
_ON_FRAME = re.compile(r"^(?:" + _ON + r")\s*$", re.IGNORECASE)
_SWITCH_FRAME = re.compile(r"^(?:" + _SWITCH_TO + r")\s*$", re.IGNORECASE)
# a medicine the clause says the user stopped, or does not take: "stopped taking X", "not on X", "don't take X"
_NOT_TAKEN_BEFORE = re.compile(r"(?:\b(?:stop\w*|quit\w*|not|no longer|never|off|cant|cannot|dont|doesnt|didnt|wont|"
                               r"shouldnt|mustnt|avoid\w*|allergic to)|n['’]t)\s*$", re.IGNORECASE)
# words that follow a dose without naming what it is of ("take 5mg twice a day", "on 40mg daily")
_NOT_AFTER_A_DOSE = frozenset({"a", "an", "and", "at", "but", "daily", "day", "each", "every", "in", "it", "more",
                               "now", "of", "once", "or", "per", "that", "the", "them", "then", "this", "three",
                               "twice", "two", "weekly", "with", "x"})
# a second word that is part of a medicine's name ("insulin glargine", "vitamin D", "salbutamol inhaler")
_FIRST_OF_TWO = frozenset({"insulin", "vitamin", "iron", "fish", "folic", "blood", "beta", "water", "hormone",
                           "nicotine", "st"})
_SECOND_OF_TWO = re.compile(r"^(?:" + _FORM + r"|blockers?|thinners?|supplements?|xr|er|sr|xl|cr|la|d|d3|b12|b6|c)$",
                            re.IGNORECASE)
# words after a verb of taking that are never a medicine
_NOT_A_MEDICINE = frozenset("""
a an the it them this that these those me my him her us you your our their one some any all something anything
nothing everything off out up down in on at to for of with from by about over into onto back again now still
also just only really too very more less much many lot lots bit time times day days week weeks month months
year years morning mornings night nights evening evenings daily twice once every each care break rest bed
holiday holidays leave list waiting wait hold call phone speaker rota shift shifts team project job case course
diet walk walks bus train car taxi tube plane flight stairs lift photo photos picture pictures class classes
lesson lessons test tests exam exams look notes note advice chance risk step steps action decision place
track board road way trip swimming running yoga gym meds medicine medicines medication medications pill pills
tablet tablets dose doses prescription treatment sick ill better worse fine ok okay well good bad
low high less lower higher same new old other another both either nights days weekends weight pounds kilos
stone early exercises stretches leaflet referral scan appointment results antibiotics waitlist physio therapy
duty duties mute notice probation spot line plan different stronger
january february march april may june july august september october november december monday tuesday wednesday
thursday friday saturday sunday
""".split())
# a medicine's name has at least this many letters ("D" of "vitamin D" only as the second word)
_MIN_LETTERS = 3


@dataclass(frozen=True)
class Mention:
    """A medicine named in a text: its name (with its dose where one follows) and where it stands."""

    name: str
    start: int
    end: int


def has_medicine_stem(word: str) -> bool:
    """The word ends as an international non-proprietary name does ("ramipril", "candesartan")."""
    return len(word) > _MIN_LETTERS + 2 and bool(_INN_STEM.search(word))


def _name_in(match: re.Match[str]) -> tuple[str, int]:
    """The medicine's name of a frame's match: its first word, with the second where the two are one name."""
    words = match.group("name").split()
    first = words[0]
    if len(words) > 1 and (first.lower() in _FIRST_OF_TWO or _SECOND_OF_TWO.match(words[1])):
        return f"{first} {words[1]}", match.start("name")
    return first, match.start("name")


def medicines_in(text: str, medical: bool | None = None) -> list[Mention]:
    """Every medicine the text says is taken, prescribed, started or dosed anew, in order: the name after a verb
    of taking where the name says medicine (a medicine's stem, a dose or a form after it), or, where the text
    speaks of a doctor or of medicines, after a verb that says so plainly ("put me on", "prescribed", "my new
    pills are") or as a name written as a brand is (a capital inside the sentence: "now I take Eliquis");
    and a medicine whose dose changed ("raised my levothyroxine to 100 mcg"), with its new dose. ``medical``:
    the text is known to speak of medicine (a stored health fact's words), whatever words it holds."""
    talk = bool(MEDICAL_TALK.search(text)) if medical is None else medical
    out: list[Mention] = []
    at = 0
    while (m := _FRAME.search(text, at)) is not None:
        name, start = _name_in(m)
        head = name.split()[0]
        # a frame may start inside words refused ("took me off the warfarin and on apixaban": "took" + "me")
        at = start
        if (head.lower() in _NOT_A_MEDICINE or len(head) < _MIN_LETTERS
                or _NOT_TAKEN_BEFORE.search(text[:m.start()])):
            continue
        end = start + len(name)
        after = _AFTER.match(text[end:])
        # a bare number after a name is a dose only where medicines are spoken of ("Python 3.12", "July 10")
        dose = after if after is not None and (talk or not _BARE_NUMBER.match(after.group(0).strip())) else None
        frame = m.group("frame")
        brand = head[:1].isupper() and not _sentence_start(text, start) and (
            bool(_BRAND_FRAME.match(frame))
            or (bool(_ON_FRAME.match(frame)) and bool(re.search(r"\bnow\b", text[max(0, m.start() - 12):end + 12],
                                                               re.IGNORECASE))))
        # a dose said first names a medicine only before a word that can be a name, and not in a switch, whose dose
        # is the old one's or the new one's ("from 50mg to 100mg but I said no")
        first = m.group("dose_first")
        if first and (_SWITCH_FRAME.match(frame) or head.lower() in _NOT_AFTER_A_DOSE):
            continue
        if not (has_medicine_stem(head) or dose is not None or first
                or (talk and (bool(_STRONG.match(frame)) or brand))):
            continue
        if dose is not None and re.match(r"^\s*\d", dose.group(0)):
            end += len(dose.group(0).rstrip())
        # "5mg of amlodipine" is kept as a medicine is, its name first: "amlodipine 5mg"
        out.append(Mention(text[start:end].strip() + (f" {first}" if first else ""), start, end))
        at = end
    for m in _TAKEN_DOSE_CHANGED.finditer(text):
        group = "name" if m.group("name") else "name2"
        head = m.group(group)
        if head.lower() in _NOT_A_MEDICINE or not (talk or has_medicine_stem(head)):
            continue
        if DENIED_OR_WISHED.search(text[:m.start()]):
            continue  # "my doctor wants to increase my sertraline to 100mg but I said no": not the dose now
        if not any(o.start < m.end("dose") and o.end > m.start(group) for o in out):
            out.append(Mention(f"{head} {m.group('dose').strip()}", m.start(group), m.end("dose")))
    # the user's own, said with "my" or "I take" and no verb of taking before the name
    out += [o for o in own_medicines(text) if not any(m.start < o.end and m.end > o.start for m in out)]
    return sorted(out, key=lambda mention: mention.start)


# a medicine said as the user's own, in whatever sentence (a question, most often: "can i take ibuprofen with my
# sertraline?", "does grapefruit interfere with the atorvastatin I take every night?", "whether green tea interacts
# with warfarin, which I have been taking since my heart operation"): "my" before its name, or "I take" after it
# (not a thing a medicine's name may also name: "my lithium battery")
_NOT_THE_MEDICINE = r"(?!\s+(?:ion|battery|batteries|polymer|cells?|levels?|test|tests)\b)"
_MY_MEDICINE = re.compile(r"\bmy\s+(?:daily\s+|usual\s+|regular\s+|current\s+|morning\s+|evening\s+|night\s+)?"
                          r"(?P<name>[^\W\d_][\w'-]*)" + _NOT_THE_MEDICINE, re.IGNORECASE)
# (the name starts a word: read from inside a long token it would be read at each of its letters)
_MEDICINE_I_TAKE = re.compile(
    r"(?<![\w'-])(?P<name>[^\W\d_][\w'-]*)(?:\s+\d+(?:[.,]\d+)*\s*" + _UNIT + r")?,?\s+(?:that\s+|which\s+)?i\s*"
    r"(?:(?:'ve|have|'m|am)\s+)?(?:been\s+)?(?:take|taking|on|using)\b", re.IGNORECASE)
# a medicine of the user's that is over or gone: "I finished my amoxicillin", "ran out of my inhaler", "lost my
# ibuprofen", "used to take my sertraline"
_OVER_OR_GONE = re.compile(r"\b(?:finish\w*|ran\s+out\s+of|run\s+out\s+of|out\s+of|lost|misplaced|forgot|"
                           r"used\s+to\s+take|gave\s+up|give\s+up|dropped|stopp\w*|quit\w*|came\s+off|done\s+with|"
                           r"weaned\s+off)\b[^.,;!?]{0,15}$", re.IGNORECASE)


# a medicine said alone as the one taken now, a sentence of its own: "Doctor changed it. Paracetamol now.", "losartan
# now instead"
_NOW_ALONE = re.compile(r"(?:^|(?<=[.!?;\n]))[ \t]*(?P<name>[^\W\d_][\w'-]*)[ \t]+now\b(?:[ \t]+instead)?[ \t]*"
                        r"(?:[.!;\n]|$)", re.IGNORECASE)
# ... after a change of the user's medicine just said ("Doctor changed it."), and no one else's ("Grandma's in hospital.
# Morphine now.", "The dog's hips got worse. Gabapentin now.")
_A_CHANGE_SAID = re.compile(r"\b(?:doctor|doc|gp|nurse|pharmacist|chemist|consultant|changed|switched|swapped|stopped|"
                            r"replaced|moved)\b", re.IGNORECASE)
_SOMEONE_ELSE_SAID = re.compile(r"['’]s\b|\b(?:he|she|they|his|her|their|grandma|grandpa|nan|mum|mom|dad|son|daughter|"
                                r"wife|husband|dog|cat|baby|kid|kids)\b", re.IGNORECASE)


def _a_change_of_theirs(before: str) -> bool:
    return bool(_A_CHANGE_SAID.search(before)) and not _SOMEONE_ELSE_SAID.search(before)


def own_medicines(text: str) -> list[Mention]:
    """The medicines the text says are the user's own by "my" before the name or "(which) I take" after it, where the
    name is one (a medicine's stem: "my sertraline", not "my Pixel"); in order."""
    out = [Mention(m.group("name"), m.start("name"), m.end("name"))
           for pattern in (_MY_MEDICINE, _MEDICINE_I_TAKE, _NOW_ALONE) for m in pattern.finditer(text)
           if has_medicine_stem(m.group("name")) and not _NOT_TAKEN_BEFORE.search(text[:m.start()])
           and not _OVER_OR_GONE.search(text[max(0, m.start() - 40):m.start()])
           and (pattern is not _NOW_ALONE or _a_change_of_theirs(text[max(0, m.start() - 100):m.start()]))]
    return sorted(set(out), key=lambda mention: mention.start)


def said_as_own(value: str, clause: str) -> bool:
    """The clause says the medicine ``value`` names is the user's own (own_medicines), though it may ask a
    question around it."""
    words = value.split()
    return bool(words) and any(m.name.lower() == words[0].lower() for m in own_medicines(clause))


# a new dose: "raised my levothyroxine to 100 mcg", "increased my thyroxine dose to 75 mcg", "my sertraline went
# up to 100mg", "the ramipril dose is now 10 mg", "increased my levothyroxine from 50 to 75 micrograms"
_TAKEN_DOSE_CHANGED = re.compile(
    r"(?:\b(?:increas|rais|lower|reduc|upp|chang|doubl|halv|adjust|bump|put|cut|drop)\w*\s+(?:up\s+|down\s+)?"
    r"(?:my|the)\s+(?P<name>[^\W\d_][\w-]*)|\b(?:my|the)\s+(?P<name2>[^\W\d_][\w-]*))"
    r"(?:\s+(?:dose|dosage))?\s+(?:(?:went|goes|going|was|is|got|has gone|has been)\s+)?"
    r"(?:(?:up|down|increased|raised|lowered|reduced|now|changed)\s+)?"
    # the dose left, said on the way: "from 50 micrograms to 75 micrograms", "from 5 to 10mg"
    r"(?:from\s+\d+(?:[.,]\d+)*(?:\s*" + _UNIT + r")?\s+)?(?:to|at)\s+(?P<dose>" + _DOSE_UNIT
    # or a bare number said with when it is taken: "changed my metformin to 1000 in the morning"
    + r"|\d{1,4}(?:[.,]\d+)?(?=\s+(?:in the morning|in the evening|at night|at bedtime|twice|once|three times|"
    r"a day|daily|per day|every (?:morning|evening|day|night))))", re.IGNORECASE)


def _sentence_start(text: str, at: int) -> bool:
    return bool(re.search(r"(?:^|[.!?]\s+)\W*$", text[:at]))


def stored_medicine(value: str, evidence: str) -> str | None:
    """The medicine a stored health fact names (its value and the words it was learned from), or None for a
    condition ("high blood pressure"): a medicine's stem, or a name its words say was taken."""
    name = without_dose(value)
    # a word said around the name kept in the value ("pon amlodipine fi") is no part of it
    kind = [w for w in name.split() if medicine_kind(w)]
    if len(kind) == 1 and len(name.split()) <= 3:
        return kind[0]
    if not name or len(name.split()) > 2:
        return None
    if has_medicine_stem(name.split()[0]):
        return name
    first = name.split()[0].lower()
    return name if any(m.name.split()[0].lower() == first for m in medicines_in(evidence, medical=True)) else None


# a message that says the new medicine takes an earlier one's place without naming that one: "now on X
# instead", "the old pills made me dizzy", "changed my medicine", "X in place of the old one"
_REPLACES_UNNAMED = re.compile(
    r"\b(?:instead|insted|instaed|in stead|in place of (?:the|my) (?:old|other|previous)|"
    r"(?:the|my) (?:old|previous|last|other|former) (?:one|ones|pills?|tablets?|meds?|medicines?|medications?|"
    r"drug|stuff|prescription|blood thinner|inhaler)|"
    r"(?:changed?|change|switched|swapped|replaced|changing|switching) (?:my|the|me) (?:meds?|medicines?|"
    r"medications?|medicin|pills?|tablets?|prescription|blood thinner|inhaler|drugs?)|"
    r"(?:changed?|switched|swapped|replaced) (?:them|it)\b|got switched|been switched|"
    # "doctor give me other one now, amlodipine", "she put me on a different one"
    r"(?:gave|give|gives|given|put|prescribed|changed|switched)(?: me)?(?: on| to)? (?:an?\s+)?(?:other|another|"
    r"different|new) (?:one|pills?|tablets?|medicines?|meds?|medications?|drugs?|inhaler|injections?|pen|patch|"
    r"prescription)\b|"
    r"(?:switch|chang|mov|swapp|transferr)\w* (?:me|him|her) (?:over |straight )?(?:to|onto|on to))",
    re.IGNORECASE)


def replaces_unnamed(text: str) -> bool:
    """The text says a medicine replaces an earlier one it does not name."""
    return bool(_REPLACES_UNNAMED.search(text))


def named_after_replacing(name: str, text: str) -> bool:
    """The text names ``name`` after words saying a medicine replaces an earlier one: "doctor give me new
    inhaler, Symbicort" (a brand the frames of taking do not find)."""
    said = _REPLACES_UNNAMED.search(text)
    return said is not None and bool(name) and text.lower().find(name.lower(), said.end()) >= 0


def named_before_replacing(text: str, mentions: Sequence[Mention]) -> set[str]:
    """The medicines (first words, lower case) the text names before the words of a replacement, where it names
    another after them: "The ramipril make me cough all night, doctor give me other one now, amlodipine" ended
    ramipril."""
    said = _REPLACES_UNNAMED.search(text)
    if said is None:
        return set()
    def named(start: int, end: int) -> set[str]:
        stems = {w.lower() for w in re.findall(r"[^\W\d_][\w-]*", text[start:end]) if has_medicine_stem(w)}
        return stems | {m.name.split()[0].lower() for m in mentions if m.start >= start and m.end <= end}

    before, after = named(0, said.start()), named(said.end(), len(text))
    if not before:
        # the replacement said first, then why, then the new one "now": "doctor change my drug, him say metformin
        # dey worry my stomach. now na gliclazide i dey take"
        now = next(reversed(list(re.finditer(r"\bnow\b", text[said.end():], re.IGNORECASE))), None)
        if now is not None:
            cut = said.end() + now.start()
            old, new = named(said.end(), cut), named(cut, len(text))
            return old - new if new else set()
    return before - after if after else set()


# what a switch names as ended, where it is a medicine: "from X to Y", "Y instead of X", "Y rather than X",
# "no more X", "not more X", "replaced X with Y", "swapped X for Y"
_OLD_NAMED = re.compile(
    r"\b(?:(?:switch\w*|chang\w*|mov\w*|swap\w*|transferr\w*|went|go|going|put)\s+(?:me\s+|him\s+|her\s+)?"
    r"(?:over\s+|back\s+)?from|instead of|insted of|in place of|rather than|no more|not more|no longer on|"
    r"replac\w*|swap\w*|swopped|stopped|stop|came off|come off|off)"
    r"\s+(?:the\s+|my\s+|taking\s+)?(?P<name>[^\W\d_][\w'-]*)", re.IGNORECASE)


# an ending said as such ("stopped the melatonin", "came off the sertraline"), not a switch's "from" ("moved from
# glasgow to paisley")
# (past: "stop suggesting VS Code" is an order; with "the", "my" or "taking": "stopped the melatonin", not "stopped
# eating meat")
_STOPPED = re.compile(r"^(?:stopped|came off)\s+(?:the|my|taking)\s+(?![\w'-]+ing\b)", re.IGNORECASE)


# a medicine named, then said to be ended: "Ramipril stopped. Cough.", "the warfarin is finished now"
_NAME_THEN_ENDED = re.compile(r"\b(?P<name>[^\W\d_][\w'-]*)\s+"
                              # "the metformin the doctor stopped because of stomach problems"
                              r"(?:(?:the\s+|my\s+)?(?:doctor|doc|gp|dr|consultant|specialist|she|he|they)\s+)?"
                              r"(?:(?:is|was|has been|have been|got|been|has|have|had)\s+)?"
                              r"(?:stopped|discontinued|finished|dropped)\b"
                              r"(?!\s+(?:me|my|by|taking|eating|doing|the|a)\b)", re.IGNORECASE)
# an ending of "it" after a medicine named in the same sentence: "metformin wasnt enough so ive stopped it"
_ENDED_IT = re.compile(r"\b(?:stopped|quit|came off|come off|dropped|discontinued)\s+(?:it|them)\b", re.IGNORECASE)


def _named_then_ended(text: str, talk: bool) -> list[Mention]:
    """A medicine ended with its name first (see _NAME_THEN_ENDED), or as "it" after it in its sentence."""
    out = []
    for m in _NAME_THEN_ENDED.finditer(text):
        name = m.group("name")
        if name.lower() not in _NOT_A_MEDICINE and (has_medicine_stem(name) or (talk and name[:1].isupper())):
            out.append(Mention(name, m.start("name"), m.end("name")))
    for m in _ENDED_IT.finditer(text):
        start = max(text.rfind(".", 0, m.start()), text.rfind("!", 0, m.start()), text.rfind("?", 0, m.start())) + 1
        named = [w for w in re.finditer(r"[^\W\d_][\w-]*", text[start:m.start()]) if has_medicine_stem(w.group(0))]
        if named:
            out.append(Mention(named[-1].group(0), start + named[-1].start(), start + named[-1].end()))
    return out


def ended_after_naming(value: str, sentence: str) -> bool:
    """The sentence names the medicine ``value`` begins with and then says it ended ("Ramipril stopped.",
    "metformin wasnt enough so ive stopped it"): the polarity head reads it as still taken."""
    words = value.split()
    first = words[0].lower() if words else ""
    talk = bool(MEDICAL_TALK.search(sentence))
    return bool(first) and any(m.name.lower() == first for m in _named_then_ended(sentence, talk))


def ended_medicines(text: str, any_name: bool = False) -> list[Mention]:
    """Medicines a message names as the ones a switch or an ending left behind: a name whose stem says medicine,
    or any name where the message speaks of a doctor or of medicines, or (``any_name``: for retractions written
    only where a stored medicine bears the name) any name at all ("i stopped the melatonin, made me groggy")."""
    talk = bool(MEDICAL_TALK.search(text))
    out = []
    for m in _OLD_NAMED.finditer(text):
        name = m.group("name")
        if name.lower() in _NOT_A_MEDICINE or len(name) < _MIN_LETTERS:
            continue
        after = _AFTER.match(text[m.end():])
        dosed = after is not None and not _BARE_NUMBER.match(after.group(0).strip())
        stopped = any_name and _STOPPED.match(m.group(0)) is not None
        if has_medicine_stem(name) or (talk and (name[:1].isupper() or dosed)) or stopped:
            out.append(Mention(name, m.start("name"), m.end("name")))
    out.extend(m for m in _named_then_ended(text, talk) if all(m.start != o.start for o in out))
    return sorted(out, key=lambda m: m.start)


# the kinds of medicine one takes one of at a time, by the stem of the name (WHO INN stems): a new one of a kind said as
# the one taken now takes the old one's place (ramipril -> candesartan for the cough, atorvastatin -> rosuvastatin).
# An ACE inhibitor and an angiotensin receptor blocker are one kind (one replaces the other: "the ramipril cough");
# other blood pressure medicines are kinds of their own, as they are as often taken together
_KINDS = (
    ("ACE inhibitor or ARB", re.compile(r"(?:pril|prilat|sartan)$", re.IGNORECASE)),
    ("calcium channel blocker", re.compile(r"dipine$", re.IGNORECASE)),
    ("beta blocker", re.compile(r"(?:olol|alol)$", re.IGNORECASE)),
    ("cholesterol", re.compile(r"(?<!ny)statin$", re.IGNORECASE)),
    ("blood thinner", re.compile(r"(?:xaban|gatran|farin)$", re.IGNORECASE)),
    ("stomach acid", re.compile(r"(?:prazole|tidine)$", re.IGNORECASE)),
    ("antidepressant", re.compile(r"(?:oxetine|opram|alopram|traline|triptyline|ipramine|faxine|mirtazapine)$",
                                  re.IGNORECASE)),
    # levothyroxine and its brands ("Thyronorm 50" -> "Eltroxin 50", as a pharmacy swaps them)
    ("thyroid hormone", re.compile(r"^(?:\w*thyrox\w*|eltroxin|thyronorm|synthroid|euthyrox|eutirox|levoxyl|tirosint|"
                                   r"unithroid|letrox|thyrax|oroxine)$", re.IGNORECASE)),
)
# kinds of which two are at times taken together (an SSRI with mirtazapine at night): a new one ends the old one only
# said as the one taken now; of the others one is taken at a time (two blood thinners or two statins never), so a new
# one said as the user's ends the stored one of its kind ("THESE APIXABAN TABLETS ARE WEE THINGS" after warfarin)
_TAKEN_TOGETHER = frozenset({"antidepressant"})
_ONCE_BEFORE = re.compile(r"\b(?:took|had|tried|once|borrowed|extra)\b", re.IGNORECASE)
# "April" ends as an ACE inhibitor's name does
_MONTH_NAMES = CALENDAR_NAMES | {"apr"}
# the new one said as taken now, next to its name: "now on X", "X now", "since Monday I take X", "switched to X"; not
# beside the old one ("also", "added", "both", "as well")
_NOW_BEFORE = re.compile(r"\b(?:now|nowadays|these\s+days|since\s+(?:\w+day|last\s+\w+|yesterday|the\s+\w+|\d+\w*|"
                         r"jan\w*|feb\w*|mar\w*|apr\w*|may|jun\w*|jul\w*|aug\w*|sep\w*|oct\w*|nov\w*|dec\w*|this\s+\w+)|"
                         r"from\s+now\s+on|from\s+today|switched|instead)(?:\W+\w+){0,4}?\W+$", re.IGNORECASE)
_NOW_AFTER = re.compile(r"^(?:\s+\d+(?:[.,]\d+)?\s*(?:mg|mcg|g|units?))?\s+(?:now|nowadays|these\s+days|instead)\b",
                        re.IGNORECASE)
_BESIDE = re.compile(r"\b(?:also|too|as well|added|adding|add|both|plus|on top|in addition|extra|another)\b",
                     re.IGNORECASE)


def medicine_kind(name: str) -> str | None:
    """The kind of medicine a name says by its stem ("candesartan" -> "blood pressure"), or None."""
    # any word of it: a value may keep a word said around the name ("di losartan", "pon amlodipine fi")
    words = [w.strip(".,;:!?()") for w in name.split()]
    return next((kind for word in words if word.lower() not in _MONTH_NAMES for kind, stem in _KINDS
                 if stem.search(word)), None)


def taken_now_alone(name: str, sentence: str) -> bool:
    """The sentence says the medicine ``name`` is taken now, and not beside another ("Since Monday I take candesartan
    8 mg in the morning"; not "doctor added a new pill Jardiance ... metformin and Jardiance both")."""
    at = sentence.lower().find(name.lower())
    if medicine_kind(name) is None or at < 0 or _BESIDE.search(sentence):
        return False
    return bool(_NOW_BEFORE.search(sentence[:at]) or _NOW_AFTER.match(sentence[at + len(name):]))


def replaces_its_kind(name: str, sentence: str) -> bool:
    """The sentence says the medicine ``name`` as the user's one of its kind: taken now (taken_now_alone), or of a kind
    taken one at a time and not said beside another."""
    kind, at = medicine_kind(name), sentence.lower().find(name.lower())
    if kind is None or _BESIDE.search(sentence) or at < 0:
        return False
    if taken_now_alone(name, sentence):
        return True
    # a dose once ("Heartburn again so I took omeprazole") is not the one taken now
    return kind not in _TAKEN_TOGETHER and not _ONCE_BEFORE.search(sentence[:at])


def same_kind(new_name: str, stored: Sequence[tuple[str, str, str]]) -> list[str]:
    """The stored medicines ((memory id, medicine, what was said of it)) of the new one's kind, itself left out."""
    kind = medicine_kind(new_name)
    said = {w.lower() for w in new_name.split() if medicine_kind(w)}
    same = [i for i, name, _said in stored
            if kind is not None and medicine_kind(name) == kind and not said & {w.lower() for w in name.split()}]
    # the one of its kind: with two stored, which one the new one replaces is a guess
    return same if len(same) == 1 else []


_CONDITION_FOR = re.compile(r"\bfor (?:my|the|his|her)\s+(?P<what>[\w' -]{3,40}?)(?=[,.;!?]|\s+(?:and|but|so|"
                            r"because|since|last|this|next|now|which|as)\b|$)", re.IGNORECASE)


def condition_named(text: str) -> str | None:
    """What a medicine is said to be for ("for my blood pressure" -> "blood pressure")."""
    m = _CONDITION_FOR.search(text)
    return m.group("what").strip() if m else None


def _condition_words(name: str, said: str) -> set[str]:
    """The words of what a stored medicine was said to be for, right after its name ("ramipril for my blood
    pressure" -> blood, pressure); none where nothing was."""
    at = said.lower().find(name.lower().split()[0])
    condition = condition_named(said[at:]) if at >= 0 else None
    return set(re.findall(r"[a-z]{3,}", condition.lower())) if condition else set()


def which_replaced(new_name: str, message: str, stored: Sequence[tuple[str, str, str]]) -> list[str]:
    """Which of the user's stored medicines a new one replaces where the message names none of them:
    ``stored`` holds (memory id, medicine, what was said of it) for each live medicine, the new one left out.
    The message says what the new one is for ("for my blood pressure"): the medicines said of that; it says
    nothing of that (or of it none of them is said to be for): the one medicine the user takes, if it is one alone
    and not said to be for something else. Otherwise none: an ending is decided
    only on evidence, and a medicine the user still takes, retired, is a fact lost."""
    others = [(i, name, said) for i, name, said in stored if name.lower().split()[0] != new_name.lower().split()[0]]
    if not others:
        return []
    condition = condition_named(message)
    if condition:
        words = set(re.findall(r"[a-z]{3,}", condition.lower()))
        named = [i for i, name, said in others if words & _condition_words(name, said)]
        if named:
            return named
        # the one medicine, said to be for something else ("metformin for my diabetes"), is not the one
        # replaced by a medicine for the blood pressure
        if len(others) == 1 and _condition_words(others[0][1], others[0][2]):
            return []
    return [others[0][0]] if len(others) == 1 else []
