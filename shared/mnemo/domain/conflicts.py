"""Write-time conflict resolution (SPEC R6): same, contradicts, independent or ambiguous."""

from __future__ import annotations

import re
from calendar import monthrange
from dataclasses import dataclass
from datetime import date
from enum import StrEnum

from mnemo.domain.agenda import PLAN_SLOT, plan_day
from mnemo.domain.extraction.dates import without_dates
from mnemo.domain.extraction.slots import ANSWER_SLOTS, SLOTS, only_lifts, retracts, slot_identity
from mnemo.domain.models import SOURCE_PRECEDENCE, SOURCE_TIER, Category, Memory, Scope, SourceKind
from mnemo.domain.text import normalise_content, terms


class Relation(StrEnum):
    SAME = "same"  # restated: keep one, refresh last_confirmed_at
    CONTRADICTS = "contradicts"  # the newer, more authoritative fact supersedes the other
    INDEPENDENT = "independent"  # store both
    AMBIGUOUS = "ambiguous"  # store both, flag, newer one more confident


@dataclass(frozen=True)
class Existing:
    """An existing fact with its cosine similarity to the new one."""

    memory: Memory
    cosine: float


@dataclass(frozen=True)
class Resolution:
    relation: Relation
    other: Memory | None = None
    new_wins: bool = True  # for CONTRADICTS: False when the stored fact outranks the new one


def same_partition(a: Memory, b: Memory) -> bool:
    """Facts only compete inside one scope: a task- or project-scoped fact never overrides a profile fact."""
    if a.scope != b.scope:
        return False
    if a.scope is Scope.PROJECT:
        return a.project_id == b.project_id
    if a.scope is Scope.SESSION:
        return a.session_id == b.session_id
    return True


def outranks(new: Memory, old: Memory) -> bool:
    """The user's word beats inference and summaries; between the user's statements the later
    event wins, and at the same moment an explicit correction beats a plain statement."""
    new_tier, old_tier = SOURCE_TIER[new.provenance.source], SOURCE_TIER[old.provenance.source]
    if new_tier != old_tier:
        return new_tier > old_tier
    if new.created_at != old.created_at:
        return new.created_at > old.created_at
    return SOURCE_PRECEDENCE[new.provenance.source] >= SOURCE_PRECEDENCE[old.provenance.source]


# words every instruction is made of: sharing them says nothing about sharing a topic
_INSTRUCTION_WORDS = frozenset(terms(
    "how to answer the user their them they you your please always never stop use using anymore any more no "
    "longer need needs don't do not again now from on instead change changed actually every all answers answer "
    "replies reply responses response it them in with and or a an of to for be can"))
# a standing instruction that says it changes an earlier one ("you don't need to ... anymore", "again")
_CHANGES = re.compile(r"\b(?:now|anymore|any more|no longer|instead|again|don'?t need|do not need|no need|stop|"
                      r"chang(?:e|ed|es|ing)|switch(?:ed|ing)?|actually|no more)\b", re.IGNORECASE)


def replaces_instruction(new: Memory, old: Existing, replace_at: float, change_at: float) -> bool:
    """Answer instructions are many ("add sources", "metric units"), but two about the same thing are one
    rule whichever answer slot each was filed under, and the later one stands: "answer with code first"
    is gone once "explanation first, then code" is said; "add the Japanese translation" once "you don't
    need the translation anymore" is."""
    slots = (new.subject.partition(":")[0], old.memory.subject.partition(":")[0])
    if not all(slot in ANSWER_SLOTS for slot in slots):
        return False
    if old.cosine >= replace_at:
        return True
    # close, saying it changes something, and about the same thing: "stop using emojis" does not replace
    # "stop using exclamation marks" (0.75 apart), though both say "stop"
    shared = (set(terms(new.content)) & set(terms(old.memory.content))) - _INSTRUCTION_WORDS
    if shared and says_the_rule_changed(new):
        # the user says outright that the rule changes ("changed my mind on format: short explanation first, then
        # the code"): every rule about the same thing goes ("code only." and "no explanations.", 0.65 and 0.61 apart)
        return True
    return old.cosine >= change_at and says_a_change(new) and bool(shared)


def says_the_rule_changed(rule: Memory) -> bool:
    """An answer rule the user says outright replaces theirs ("changed my mind on format: ...", "changing my
    preference: ...")."""
    return (rule.subject.partition(":")[0] in ANSWER_SLOTS
            and bool(_MIND_CHANGED.search(f"{rule.content} {rule.provenance.evidence or ''}")))


_MIND_CHANGED = re.compile(r"\b(?:chang(?:ed|ing|e)\s+(?:my|their|of)\s+(?:mind|preference|preferences)|"
                           r"new (?:preference|rule))\b", re.IGNORECASE)


def says_a_change(rule: Memory) -> bool:
    """The rule, or the user's words it was read from, say it changes something: "from now on: explain
    reasoning before code" is stored as "explain reasoning before code." (an instruction's opening is no part of
    it), and its "from now on" still replaces "code first, minimal prose"."""
    return bool(_CHANGES.search(rule.content) or _CHANGES.search(rule.provenance.evidence or ""))


def lifts_instruction(new: Memory, old: Memory) -> bool:
    """The new answer instruction only lifts the old one ("you don't need to add the Japanese translation
    anymore" after "add the Japanese translation"): it asks nothing new and shares a topic word with what
    the old one asked (a lift of "emojis" says nothing of "bullet points"). An old rule that asked two
    things and loses one ("answer in German and add the English word") goes whole: a known limit."""
    shared = (set(terms(new.content)) & set(terms(old.content))) - _INSTRUCTION_WORDS
    return old.subject.partition(":")[0] in ANSWER_SLOTS and only_lifts(new.subject, new.content) and bool(shared)


_ENDED_QUALIFIERS = frozenset(terms("old former previous ex"))


# the words every slot's statements are made of ("User's diet:", "no longer follows this diet:")
_STATEMENT_WORDS = frozenset(w for slot in SLOTS.values()
                             for w in terms(f"{slot.affirm} {slot.negate}".replace("{v}", " ")))


def retracts_another_value(new: Memory, old: Memory) -> bool:
    """``new`` retracts one value and ``old`` states another in the same single-valued slot: "User no longer
    follows this diet: keto." is no word on "User's diet: lower carb." (none of its value's words is in that
    fact), so neither retires the other."""
    own = set(terms(new.content)) - _STATEMENT_WORDS
    return (retracts(new.subject, new.polarity) and old.polarity and bool(own)
            and not own & set(terms(old.content)))


def _value_words(memory: Memory) -> set[str]:
    """The words of a fact's value: its key's, or where its slot has no key ("diet", "project_stack") its
    statement's without the slot's own words ("no longer follows this diet: gluten free" -> gluten, free)."""
    key = memory.subject.partition(":")[2]
    words = {w for w in key.split("_") if w} if key else set(terms(memory.content)) - _STATEMENT_WORDS
    # "no longer owns the old F-150" retires "owns 2015 F-150": old / former / previous say it ended, no more
    return words - _ENDED_QUALIFIERS


def names_its_value(retraction: Memory, old: Memory) -> bool:
    """A retraction said in passing ("I stopped the subscription to the gym") names the value of ``old``, not
    only a word of its statement: "User uses a Spotify subscription." holds "subscription", its value is Spotify.
    A workplace is named whole: a last day "at Disney World" ends no job "at Disney"."""
    words = _value_words(retraction)
    if retraction.subject == "job":
        return bool(words) and words <= _value_words(old)
    return bool(words & _value_words(old))


# slots of what the user does or takes, where a value is often told again in other words: "stopped cycling to the
# commissary kitchen" ("no longer: cycling") ends "routine: cycle to work every day even with the rain", far apart
# as vectors; not tastes ("no longer likes coffee" leaves "likes coffee cake"). Only the whole value: "stopped walking
# to the station at night" must leave "walk to work every day"
ENDED_WHOLE_IN_SLOT = frozenset({"habit", "hobby", "health", "uses", "learning"})


def ends_in_its_slot(retraction: Memory, old: Memory) -> bool:
    """A keyed retraction ends a live fact of its own slot (``ENDED_WHOLE_IN_SLOT``) whose key holds every word of
    its value, however far apart the two are as vectors."""
    return not retraction.polarity and old.polarity and key_ends_in_its_slot(retraction.subject, old.subject)


def key_ends_in_its_slot(retraction_subject: str, old_subject: str) -> bool:
    """A retraction's subject whose slot is the old one's (``ENDED_WHOLE_IN_SLOT``) and whose key words are all in
    the old one's key: "hobby:cycl" ends "habit:cycl_work_every"."""
    slot, _, key = retraction_subject.partition(":")
    old_slot, _, old_key = old_subject.partition(":")
    # a pastime is one slot here: which of hobby and routine a user's words fall under is the tagger's guess, and
    # "I stopped cycling" (hobby) ends "routine: cycle to work every day" (habit) all the same
    same_slot = slot == old_slot or {slot, old_slot} <= PASTIMES
    words = {w for w in key.split("_") if w}
    return (slot in ENDED_WHOLE_IN_SLOT and same_slot and bool(words)
            and words <= {w for w in old_key.split("_") if w})


def ends_the_job(retraction: Memory, job: Memory) -> bool:
    """A pastime's retraction that names the user's workplace ends the job: "quit the juice bar, manager was sooo
    rude" (read as "no longer does juice bar") ends "User's job: a juice bar in town."."""
    if (retraction.polarity or not job.polarity or job.subject != "job"
            or retraction.subject.partition(":")[0] not in PASTIMES):
        return False
    # a place, not an activity: "quit running" must not end "I run a small bakery", nor "gave up swimming" a
    # swimming coach's job
    said = _said_value(retraction).split()
    if not said or any(w.lower().endswith("ing") for w in said) or (len(said) < 2 and not said[0][:1].isupper()):
        return False
    words = _value_words(retraction)
    return bool(words) and words <= set(terms(job.content)) - _STATEMENT_WORDS


# slots of what the user does for its own sake: a retraction of one may name the workplace (``ends_the_job``)
PASTIMES = frozenset({"hobby", "habit"})


def _said_value(memory: Memory) -> str:
    """The value as the statement says it, by its slot's own form ("User no longer does juice bar." -> "juice bar")."""
    slot = SLOTS.get(memory.subject.partition(":")[0])
    text = memory.content.strip()
    if slot is not None:
        before, _, after = (slot.affirm if memory.polarity else slot.negate).partition("{v}")
        if text.startswith(before) and text.endswith(after):
            return text[len(before):len(text) - len(after)]
    return text.partition(":")[2].strip(" .")


def retires_value(new: Memory, old: Existing, at_least: float) -> bool:
    """A negated fact ("no longer does volleyball") retires a fact about the same value in another slot
    ("User's hobby: volleyball"), when the two are close and every word of the negated value is in the old
    fact. A negated constraint also retires a fact whose value is at least half of its own ("not gluten free any
    more" retires "avoids gluten", "not lactose intolerant" retires "allergic to lactose"), a tool left one whose
    value is any part of its own (leaving "Zoho Books" retires "uses Zoho"); elsewhere the longer value is often
    another thing ("no longer likes coffee cake" leaves "likes coffee")."""
    if new.polarity or not old.memory.polarity or old.cosine < at_least:
        return False
    if old.memory.subject == "job" and new.subject.partition(":")[0] in PASTIMES:
        return ends_the_job(new, old.memory)  # "gave up swimming myself" leaves the swimming coach's job
    words, theirs = _value_words(new), _value_words(old.memory)
    return bool(words) and (words <= set(terms(old.memory.content))
                            or (bool(theirs) and theirs <= words
                                and (_both_tools(new, old.memory)
                                     or (new.category is Category.CONSTRAINT and 2 * len(theirs) >= len(words)))))


# the slots of the tools the user works with: a tool is often named by its maker alone ("Zoho" for Zoho Books)
_TOOL_SLOTS = frozenset({"uses", "project_stack"})


def _both_tools(new: Memory, old: Memory) -> bool:
    """Both facts are of tools: "shifted accounts from Zoho Books to Tally Prime" leaves "Zoho Books", which
    ends "User's project uses Zoho.", and "migrated the shop from Square Online Store" ends "User uses Square."
    (a product is named by its maker and more words, any number of them)."""
    return new.subject.partition(":")[0] in _TOOL_SLOTS and old.subject.partition(":")[0] in _TOOL_SLOTS


# words that say a plan's day changed ("the wedding got moved to June", "now I go back on July 10 not July 3")
# ("now" or "not" alone say too little: "now the dentist on Friday" may be a second appointment)
_RESCHEDULED = re.compile(r"\b(?:changed?|moved|postponed|delayed|pushed (?:back|forward)|rescheduled|"
                          r"brought forward|bumped|shifted)\b", re.IGNORECASE)
# the day a plan is for, as the extractor writes it after the plan ("(for 2026-07-03)")
_TARGET_NOTE = re.compile(r"\(for [^)]*\)")


def plan_value(content: str) -> str:
    """A plan's value without its label and the day noted after it ("User plans: opening in October (for
    2026-10)." -> "opening in October")."""
    return _TARGET_NOTE.sub(" ", content).partition(":")[2].strip(" .")


def _doing(plan: Memory) -> set[str]:
    """What a plan is, without its day: "User plans: go back to Busan on July 3 (for 2026-07-03)" -> go back busan."""
    return set(terms(without_dates(plan_value(plan.content)))) - _STATEMENT_WORDS


def reschedules(new: Memory, old: Memory) -> bool:
    """``new`` is ``old`` with another day, said as a change: a plan is one of many (trips, exams, visits),
    but "now I go back on July 10 not July 3" moves "go back to Busan on July 3"; it adds no second trip
    home. Both must name the same doing (one's words hold all of the other's: a trip to Rome does not move
    a trip to Paris), for different days, and the new one's clause must say it changed."""
    new_day, old_day = plan_day(new), plan_day(old)
    if not (new.polarity and old.polarity and new_day and old_day) or new_day == old_day:
        return False
    doing, was = _doing(new), _doing(old)
    evidence = new.provenance.evidence or new.content
    if not (doing and was):
        return False
    if (doing <= was or was <= doing) and _RESCHEDULED.search(evidence):
        return True
    # said again in other words, with the change said after it ("Isla's party will be on Saturday 16 May now"
    # moves "small party at home 12 May"): one doing word in common is enough when neither names someone or
    # somewhere the other does not ("my Paris trip got moved to June" leaves "trip to Rome in May" be)
    return (bool(doing & was) and bool(_RESCHEDULED.search(evidence) or _changed_now(evidence))
            and not (_names(new) - _names(old) and _names(old) - _names(new)))


def calls_off(new: Memory, old: Memory, cosine: float, at_least: float | None) -> bool:
    """``new`` calls off the plan ``old``: "I will not do the race this year" (a plan negated) retires "Paris
    marathon 12 April", the user's plan it refers back to in other words. The two must be as close as a
    retraction (``at_least``, MNEMO_RETRACTION_SIMILARITY), the plan's day inside the period the new one names
    when it names one ("this year" holds 12 April; "this week" does not hold next month's trip), and neither may
    name someone or somewhere the other does not ("not going to Rome after all" leaves the Paris trip be). The
    closest such plan only: the caller tries the most similar first."""
    if (at_least is None or new.polarity or not old.polarity or cosine < at_least
            or new.subject.partition(":")[0] != PLAN_SLOT or old.subject.partition(":")[0] != PLAN_SLOT):
        return False
    period, day = _period(new), plan_day(old)
    if period is not None and (day is None or not period[0] <= day <= period[1]):
        return False
    return not (_names(new) - _names(old) and _names(old) - _names(new))


_PERIOD = re.compile(r"\(for (\d{4})(?:-(\d{2}))?(?:-(\d{2}))?\)")


def _period(plan: Memory) -> tuple[date, date] | None:
    """The first and last day of the day, month or year a plan is for ("(for 2026)": the whole year)."""
    m = _PERIOD.search(plan.content)
    if not m:
        return None
    year = int(m.group(1))
    try:
        if m.group(3):
            day = date(year, int(m.group(2)), int(m.group(3)))
            return day, day
        if m.group(2):
            month = int(m.group(2))
            return date(year, month, 1), date(year, month, monthrange(year, month)[1])
        return date(year, 1, 1), date(year, 12, 31)
    except ValueError:
        return None


# "now" or "instead" closing what is said, not opening it ("now the dentist on Friday" may be a second appointment)
_CHANGED_NOW = re.compile(r"\b(?:now|instead)\b(?=\s*(?:[,.;:!?)]|$))", re.IGNORECASE)
_WORD_BEFORE = re.compile(r"\w\W")


def _changed_now(text: str) -> bool:
    # after a word, not at the start (a leading ``\w\W.*`` in the pattern itself read 4 KB in half a second)
    return any(_WORD_BEFORE.search(text, 0, m.start()) for m in _CHANGED_NOW.finditer(text))
_NAME = re.compile(r"\b[A-Z][a-zà-ÿ]+")
_NOT_NAMES = frozenset(terms("january february march april may june july august september october november "
                             "december monday tuesday wednesday thursday friday saturday sunday"))


def _names(plan: Memory) -> set[str]:
    """The capitalised words inside a plan's value (people, places), not a month or a day."""
    value = plan_value(plan.content)
    return {w.lower() for w in _NAME.findall(value) if not set(terms(w)) <= _NOT_NAMES}


def doubtful_change(new: Memory, old: Memory, margin: float | None) -> bool:
    """A value said without any word of change that is unlikely to be one: the extractor was far less sure
    of it than of the one it would replace ("I joined a climbing gym near Sendlinger Tor" is no new job over
    "engineer at BMW"), or the one it would replace was said earlier in the same conversation (see
    said_again_in_passing). A correction or an explicit statement ranks above both, so a real change still
    wins."""
    return (margin is not None and new.provenance.source is SourceKind.EXTRACTED
            and SOURCE_TIER[old.provenance.source] >= SOURCE_TIER[new.provenance.source]
            and (new.confidence + margin <= old.confidence or said_again_in_passing(new, old)))


def said_again_in_passing(new: Memory, old: Memory) -> bool:
    """``new`` is another value of the user's own single-valued slot ``old`` fills (who they are, where they
    live, their job, studies, diet: a biographical or constraint slot) read later in the same conversation,
    with no word of change: "I'm starting a part-time MSc in critical care nursing ... I've 6 years ICU
    experience, mostly cardiothoracic" does not make the user's studies cardiothoracic, nor "my name is Harold
    Whitcombe ... Whitcombe, as I said" their name Whitcombe. Within one sitting a second value of these is an
    aside, an example or a misreading far more often than a change the user did not say was one (a change
    said as one, "actually", "now", "switched", is a correction and stands). Not answer rules, refined as a
    conversation goes ("no long answers" -> "3 sentences max"), nor project facts, which follow what the
    conversation is about ("backend @ fernwerk. go, postgres" then "side proj: dotsync. rust cli")."""
    conversation = new.provenance.conversation_id
    return (conversation is not None and conversation == old.provenance.conversation_id
            and new.polarity and old.polarity and old.created_at <= new.created_at
            and new.category is old.category and new.category in _ONE_PERSON
            and new.subject.partition(":")[0] not in ANSWER_SLOTS)


# the categories of what the user is (not what they work on, nor how they want answers)
_ONE_PERSON = frozenset({Category.BIOGRAPHICAL, Category.CONSTRAINT})


_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


def new_dose(new: Memory, old: Memory) -> bool:
    """One medicine at another dose ("sertraline 100mg" after "sertraline 50mg", one subject), or a value with other
    numbers (below): a change, not the
    same fact said again, however close the two statements' vectors (they barely see numbers)."""
    numbers, old_numbers = set(_NUMBER.findall(new.content)), set(_NUMBER.findall(old.content))
    if new.subject.partition(":")[0] == old.subject.partition(":")[0] == "health":
        return numbers != old_numbers
    # any slot's value with other numbers than the one it would repeat: "deadline: 30 June" after "15 June", an
    # age, a distance run (one with no number may be the same fact said with more or less detail)
    return bool(numbers) and bool(old_numbers) and numbers != old_numbers


def classify(
    new: Memory, existing: list[Existing], *, conflict_similarity: float, duplicate_similarity: float,
    instruction_similarity: tuple[float, float] | None = None, retraction_similarity: float | None = None,
    doubt_margin: float | None = None,
) -> Resolution:
    """Decide how ``new`` relates to the most relevant existing fact.

    Order matters: an exact or near restatement is recognised first (anywhere), then a
    fact in the same slot, then a very similar fact in another slot.
    """
    candidates = [e for e in existing if same_partition(new, e.memory) and e.memory.memory_id != new.memory_id]
    new_norm = normalise_content(new.content)
    for e in candidates:
        same_slot = slot_identity(e.memory.subject) == slot_identity(new.subject)
        if (normalise_content(e.memory.content) == new_norm
                or (same_slot and e.memory.polarity == new.polarity and e.cosine >= duplicate_similarity
                    and not new_dose(new, e.memory))):
            return Resolution(Relation.SAME, e.memory)
    for e in sorted(candidates, key=lambda e: -e.cosine):
        if slot_identity(e.memory.subject) == slot_identity(new.subject):
            if retracts_another_value(new, e.memory) or retracts_another_value(e.memory, new):
                continue  # "no longer keto" says nothing of the "lower carb" said beside it
            # one active fact per slot: a different value or polarity is a contradiction
            return Resolution(Relation.CONTRADICTS, e.memory, new_wins=outranks(new, e.memory)
                              and not doubtful_change(new, e.memory, doubt_margin))
    if instruction_similarity is not None:
        for e in sorted(candidates, key=lambda e: -e.cosine):
            if replaces_instruction(new, e, *instruction_similarity):
                return Resolution(Relation.CONTRADICTS, e.memory, new_wins=outranks(new, e.memory))
    for e in sorted(candidates, key=lambda e: -e.cosine):
        if e.memory.created_at <= new.created_at and (reschedules(new, e.memory)
                                                      or calls_off(new, e.memory, e.cosine, retraction_similarity)):
            return Resolution(Relation.CONTRADICTS, e.memory, new_wins=outranks(new, e.memory))
    if retraction_similarity is not None:
        for e in sorted(candidates, key=lambda e: -e.cosine):
            if retires_value(new, e, retraction_similarity):
                return Resolution(Relation.CONTRADICTS, e.memory, new_wins=outranks(new, e.memory))
    for e in sorted(candidates, key=lambda e: -e.cosine):
        if e.cosine > conflict_similarity:
            # embeddings barely see "morning" vs "afternoon": across slots, only the same words are the same fact
            if (e.cosine >= duplicate_similarity and e.memory.polarity == new.polarity
                    and set(terms(e.memory.content)) == set(terms(new.content))):
                return Resolution(Relation.SAME, e.memory)
            return Resolution(Relation.AMBIGUOUS, e.memory)
    return Resolution(Relation.INDEPENDENT)
