"""The learned extractor: segment -> screen -> classify -> normalise -> resolve, behind the Extractor port."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta

from mnemo.domain.extraction.aids import aids_in, injuries_in
from mnemo.domain.extraction.answer_stances import languages_asked
from mnemo.domain.extraction.births import births
from mnemo.domain.extraction.candidates import Candidate, Extraction, ForgetRequest
from mnemo.domain.extraction.commands import (
    CORRECTION_OPENING,
    FORGET,
    REMEMBER,
    answered_statement,
    said_as_ground,
)
from mnemo.domain.extraction.dates import anchor, anchor_near, corrected_dates, whole_date
from mnemo.domain.extraction.diets import DIET_NAMES, diets_followed
from mnemo.domain.extraction.ending import read_statement
from mnemo.domain.extraction.family_dates import family_happenings, what_they_need
from mnemo.domain.extraction.fields import labelled_fields
from mnemo.domain.extraction.household import (
    AN_AGE,
    ARRANGED_SLOTS,
    Person,
    Stretch,
    a_life_event,
    arranged,
    children_named,
    family_value,
    known_household,
    partings,
    partner_named,
    partner_named_none,
    partner_value,
    people_in,
    relatives_named,
    relatives_not_partners,
    slots_of,
    stretches,
)
from mnemo.domain.extraction.household import content as care_content
from mnemo.domain.extraction.household import subject as care_subject
from mnemo.domain.extraction.judge import CandidateJudge
from mnemo.domain.extraction.languages import names_a_spoken_language
from mnemo.domain.extraction.medicines import (
    Mention,
    ended_after_naming,
    ended_medicines,
    medicine_kind,
    medicines_in,
    named_after_replacing,
    named_before_replacing,
    replaces_its_kind,
    replaces_unnamed,
    stored_medicine,
    without_dose,
)
from mnemo.domain.extraction.moves import planned_move
from mnemo.domain.extraction.names import names_self
from mnemo.domain.extraction.new_homes import back_home, living_in, new_homes
from mnemo.domain.extraction.new_jobs import began_as, bosses_at, last_days_at, left_jobs, new_jobs
from mnemo.domain.extraction.pets import names_an_animal, pet_value, pets_got
from mnemo.domain.extraction.readings import PieceReadings, current_reader
from mnemo.domain.extraction.routines import routines_said
from mnemo.domain.extraction.rules import guess_category, slot_key, topic_of
from mnemo.domain.extraction.screen import screen, whose_event
from mnemo.domain.extraction.segment import (
    DENIED_OR_WISHED,
    chunks,
    clause_around,
    is_question,
    sentence_around,
    sentences,
    unshouted,
)
from mnemo.domain.extraction.shifts import (
    DAY_OFF_KEY,
    SHIFT_KEY,
    days_off,
    is_day_off,
    is_shift,
    only_a_shift,
    only_hours,
    shifts_in,
)
from mnemo.domain.extraction.slots import (
    ACTIVITY_VERBS,
    ANSWER_SLOTS,
    NO_VALUE,
    SLOTS,
    TIME_ONLY_SLOTS,
    Slot,
    lift_and_rest,
    only_when,
    says_when,
    subject_for,
)
from mnemo.domain.extraction.standing_rules import standing_rules
from mnemo.domain.extraction.switches import switched_to
from mnemo.domain.extraction.tagger import BIO_PENALTY, SlotTagger, Span, TokenEncoder
from mnemo.domain.extraction.tastes import advised_to_avoid, also_avoided, taken_up
from mnemo.domain.extraction.tech import (
    names_a_language,
    tech_lists,
    technologies_named,
    tools_of_their_work,
    widened_stack,
)
from mnemo.domain.extraction.tolerated import tolerated
from mnemo.domain.grammar import is_past_verb, third_person
from mnemo.domain.models import Category, Message, Sensitivity, SourceKind
from mnemo.domain.screening import rejection_reason
from mnemo.domain.sensitive import MARKER, redact
from mnemo.domain.text import terms

EXTRACTOR_NAME = "learned"

_PERSONAL = frozenset({"health", "family", "relationship_status", "allergy", "birthday", "age"})
# words that say the value replaces an earlier one: the new fact is a correction
_CHANGE = re.compile(
    r"\b(?:now|anymore|any more|no longer|moved|relocated|left|quit|switched|swapped|changed|started|"
    # "new", but not of a place's name: "I'd go to New Zealand" is no change said
    r"new(?!\s+(?-i:[A-Z]))|"
    r"actually|wait|not anymore|these days|used to|from now on|instead)\b", re.IGNORECASE)
_PRONOUN = {"my": "their", "me": "them", "i": "they", "mine": "theirs", "myself": "themselves", "our": "their",
            "us": "them", "we": "they", "im": "they're", "i'm": "they're", "ours": "theirs"}
_PRONOUN_RE = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in sorted(_PRONOUN, key=len, reverse=True)) + r")\b",
                         re.IGNORECASE)  # the longest first: "I'm" is "they're", not "they'm"
_MARKED = re.compile(re.escape(MARKER) + r"[^\]]*\]")
# slots whose value runs on with the few words after it that say where, when or for what ("python for code
# examples"; "accepted a postdoc in Montréal": the event without its place loses what a later question asks)
_QUALIFIED = frozenset({"likes", "dislikes", "prefers", "hobby", "uses", "avoids", "habit", "learning", "event",
                        "plan"})
_QUALIFIER = re.compile(
    r"^\s+(?!for (?:some|whatever|no|any) reason\b)"  # "for some reason" says nothing of the preference
    r"((?:for|in|at|on|with|when|during|before|after|while|over|instead of)\s+(?:(?!and\b|but\b|so\b|because\b|"
    r"lol\b|btw\b|please\b|pls\b|though\b)[\w'-]+\s*){1,4})", re.IGNORECASE)
_INSTRUCTION_OPENING = re.compile(
    r"^(?:(?:from now(?: on)?|going forward|in future|in the future|moving forward|for all future (?:answers|replies)|"
    r"please|pls|plz|can you|could you|would you|i want you to|i'd like you to|i need you to|always|and|also|"
    r"oh|hey|ok|okay)\b[\s,:]*)+", re.IGNORECASE)
# the old rule let go before the new one, which it is no part of: "forget the Spanish thing, answer me in English
# again" is the rule "answer me in English again" (the Spanish one ends by its replacement, and a block that named
# it would name what no longer holds)
_RULE_LET_GO = re.compile(
    r"^(?:(?:actually|ok|okay|so|and|but|oh|hey|non|no)\b[\s,]*)*(?:forget|scrap|drop|ignore|never\s?mind|cancel|"
    r"nvm|skip)\s+(?:about\s+)?(?:the|that|my|this|all\s+the)\s+[^,;:.!?]{0,30}?(?:thing|rule|request|bit|part|"
    r"stuff|instruction|format|style|one)(?:\s*[,;:.!?]+\s*|\s+[-–—]\s+)(?=\w)",
    re.IGNORECASE)
# SPEC R3: budgets, compliance and architecture decisions wait for the user's confirmation
_HIGH_STAKES = re.compile(r"\b(?:budget|compliance|gdpr|hipaa|sox|pci|architecture|decided|decision|contract)\b",
                          re.IGNORECASE)
# the slots a sentence read apart from its message may add to (see LearnedExtractor._tag): the user's
# constraints, each a value of its own (allergy, avoids, health), whose absence from a block does harm
SENTENCE_SLOTS = frozenset(name for name, slot in SLOTS.items() if slot.category is Category.CONSTRAINT and slot.multi)
_FAVOURITE_KIND = re.compile(r"\bfav(?:ou?rite|e|s)?\s+(?P<kind>[a-z]+(?:\s+show)?)\b", re.IGNORECASE)


@dataclass(frozen=True)
class _Found:
    index: int  # which tagged text it came from
    span: Span
    value: str
    clause: str
    sentence: str
    message: Message
    explicit: bool


class LearnedExtractor:
    """Finds facts with a learned tagger over MiniLM token states (see tagger.py and docs/slots.md)."""

    name = EXTRACTOR_NAME

    def __init__(self, encoder: TokenEncoder, tagger: SlotTagger, min_confidence: float = 0.5,
                 outside_at_least: float = 0.5, verify_at_least: float = 0.3, later_value_doubt: float = 0.1,
                 bio_penalty: float = BIO_PENALTY, readings: PieceReadings | None = None,
                 judge: CandidateJudge | None = None, judge_keep_at_least: float = 0.0,
                 with_features: bool | None = None) -> None:
        """``readings``: where the spans of a user's pieces are kept while a service reads that user's text
        (readings.py); None keeps none. ``judge``: the second look at each message's candidates (judge.py),
        which stores only those at least ``judge_keep_at_least`` likely (0: no judging). ``with_features``: each
        candidate carries what the tagger saw of it (``Candidate.reading``); by default only where a judge reads it
        (its training asks for them without one)."""
        self._judge = judge
        self._with_features = judge is not None if with_features is None else with_features
        self._judge_keep_at_least = judge_keep_at_least
        self._encoder = encoder
        self._readings = readings
        self._tagger = tagger
        self._min_confidence = min_confidence
        self._outside_at_least = outside_at_least
        self._verify_at_least = verify_at_least
        self._later_value_doubt = later_value_doubt
        self._bio_penalty = bio_penalty
        self.version = tagger.version

    def extract(self, messages: Sequence[Message]) -> Extraction:
        result = Extraction()
        texts: list[tuple[Message, str, bool]] = []  # message, text to tag, explicit
        corrected: set[int] = set()  # which texts opened with "no, that's not right" and the like
        previous_assistant = ""
        for message in messages:
            if message.role != "user":
                previous_assistant = message.content
                continue
            text, kinds = redact(message.content)
            result.redacted_kinds.extend(kinds)
            text = unshouted(text)
            stripped = text.strip()
            forget = FORGET.match(stripped)
            if forget:
                # what to forget is its sentence; what the user says after it is read as any message is ("Forget five
                # lines. Longer is fine when it's technical.")
                what, rest = _forget_and_rest(forget.group("x"))
                result.forget.append(ForgetRequest(what, message.message_id))
                previous_assistant = ""
                if not rest:
                    continue
                text = stripped = rest
            # a day or time taken back in the same breath is read as the one meant ("tuesday, wait no, wednesday")
            text = at_spelled_out(corrected_dates(text))
            stripped = at_spelled_out(corrected_dates(stripped))
            remember = REMEMBER.match(stripped)
            opening = CORRECTION_OPENING.match(stripped)
            # a correction's opening words say nothing about the user and blur the tagger's view of the rest
            told = remember.group("x") if remember else stripped[opening.end():] if opening else text
            if opening and not remember:
                corrected.add(len(texts))
            texts.append((message, told, bool(remember)))
            answered = answered_statement(previous_assistant, text) if previous_assistant else None
            if answered:
                texts.append((message, answered, False))
            texts.extend((message, ground, False) for ground in said_as_ground(told))
            previous_assistant = ""
        found = self._tag(texts)
        household = self._household(texts, found)
        cared = {index: stretches(text, household) for index, (_m, text, _e) in enumerate(texts)}
        cared_found = self._tag_cared(texts, cared)
        for index, (message, text, explicit) in enumerate(texts):
            # a value said of a dependant is theirs, never the user's ("our youngest is lactose intolerant")
            mine, replacing = with_medicines([f for f in found if f.index == index], index, message, text, explicit)
            mine = [f for f in mine if not _theirs(f.span, f.value, cared[index])]
            read = [(f, self._with_what_it_replaced(f)) for f in mine]
            candidates = [c for _f, made in read for c in made]
            # a name whose tagged reading was screened out ("stopped the futsal, the doctor said maybe forever":
            # the hedge is about the knee) is still read as ended in passing, where only the ending is weighed
            kept = [f.value for f, made in read if any(c.should_store for c in made)]
            candidates.extend(self._cared_for(cared_found.get(index, []), candidates, text))
            candidates = [part for c in candidates for part in lifted_apart(c, message)]
            candidates.extend(self._said_in_passing(message, text, candidates))
            candidates = within_another(one_fact_once(last_value_wins(candidates, self._later_value_doubt)))
            candidates.extend(self._ended_in_passing(message, text, kept))
            candidates = self._with_terse_rules(candidates, message, text)
            candidates = self._with_tech_lists(candidates, message, text)
            candidates.extend(self._shifts(candidates, message, text))
            candidates.extend(_said_in_rule(SLOTS["habit"], days_off(text), candidates, message, text,
                                            lambda c, value: value.split(": ", 1)[1].lower() in c.content.lower()
                                            and " off" in c.content.lower()))
            candidates.extend(self._aids(candidates, message, text))
            candidates.extend(self._pets_got(candidates, message, text))
            candidates.extend(self._relatives_named(candidates, message, text))
            candidates.extend(_said_in_rule(SLOTS["family"], children_named(text), candidates, message, text,
                                            lambda c, value: value.split()[0].lower() in c.content.lower()))
            candidates = _with_partings(_with_partners_named(candidates, message, text), message, text)
            candidates = self._with_births(candidates, message, text)
            candidates = _sure_of_a_move(candidates, text)
            candidates = _not_moved_yet(candidates)
            candidates = self._with_new_job(candidates, message, text)
            candidates = self._left_jobs(candidates, message, text)
            candidates.extend(self._bosses_at(candidates, message, text))
            candidates.extend(self._routines_abroad(candidates, message, text))
            candidates.extend(self._new_home(candidates, message, text))
            candidates = self._with_standing_rules(candidates, message, text)
            candidates = _with_languages_asked(candidates, message, text)
            candidates = _one_style(candidates)
            candidates = _with_labelled_fields(candidates, message, text)
            # "just got off shift", "I work night shift": a shift (shifts.py), no health condition nor job
            candidates = [c for c in candidates if not (c.tags and c.tags[0] in ("health", "job")
                                                        and only_a_shift(c.content.split(":", 1)[-1].strip(" .")))]
            candidates.extend(self._medicines_ended(message, text, candidates))
            candidates = _replaced_in_passing(candidates, message, text)
            _no_relative_as_partner(candidates)
            candidates = self._with_tolerated(candidates, message, text)
            candidates.extend(self._family_dates(candidates, message, text))
            ended_here = any(c.tags and c.tags[0] == "health" and not c.polarity for c in candidates)
            for c in candidates:
                c.replaces_unnamed = c.should_store and c.polarity and (
                    c.subject in replacing or (bool(c.tags) and c.tags[0] == "health" and not ended_here
                                               and named_after_replacing(_stated_value(c.content), text)))
                c.replaces_same_kind = (c.should_store and c.polarity and bool(c.tags) and c.tags[0] == "health"
                                        and not ended_here and _taken_now(_stated_value(c.content), text))
            if self._judge is not None:
                candidates = self._judge.judge(candidates, text, self._judge_keep_at_least)
            if index in corrected:
                # the user corrects what the assistant assumed: their word, with the weight of a correction
                for c in candidates:
                    c.correction, c.source, c.confidence = True, SourceKind.USER_EXPLICIT, max(c.confidence, 0.95)
            # a retraction written only where it retires something is no answer to "remember that ..."
            if explicit and not any(c.should_store and not c.only_to_retire for c in candidates):
                candidates.append(_note(text, message))
            result.candidates.extend(candidates)
        return result

    def _household(self, texts: list[tuple[Message, str, bool]], found: list[_Found]) -> dict[str, Person]:
        """The user's family by name: as stored before (household.known_household), as this conversation's
        family facts say ("mum of 3 (leo 9, ...)" -> leo), as its messages name them ("my granddaughter Sofia")."""
        people: dict[str, Person] = {p.name.lower(): p for p in known_household() if p.name}
        for f in found:
            if f.span.slot in ("family", "relationship_status"):
                made = slot_candidate(SLOTS[f.span.slot], f.value, f.clause, False, f.message, 1.0).content
                value = family_value(made) or partner_value(made)
                people.update({p.name.lower(): p for p in people_in(value) if p.name.lower() not in people
                               or (p.kin and not people[p.name.lower()].kin)})
        for _message, text, _explicit in texts:
            for stretch in stretches(text, {}):
                if stretch.person.name and stretch.person.kin:
                    people[stretch.person.name.lower()] = stretch.person
            for _start, _end, child in children_named(text):
                people.setdefault(child.split()[0].lower(), Person(child.split()[0], ""))
        return people

    def _tag_cared(self, texts: list[tuple[Message, str, bool]],
                   cared: dict[int, list[Stretch]]) -> dict[int, list[tuple[Stretch, _Found]]]:
        """What each stretch about a dependant says, read by the tagger in the first person."""
        said = [(index, stretch) for index, found in cared.items() for stretch in found]
        out: dict[int, list[tuple[Stretch, _Found]]] = {}
        for (index, stretch), spans in zip(said, self._spans([s.first_person for _i, s in said]), strict=True):
            message = texts[index][0]
            slots = set().union(*slots_of(stretch))
            for span in _without_overlaps([s for s in spans if s.slot in slots]):
                text = stretch.first_person
                out.setdefault(index, []).append((stretch, _Found(
                    index, span, text[span.start:span.end], clause_around(text, span.start, span.end),
                    sentence_around(text, span.start, span.end), message, False)))
        return out

    def _cared_for(self, found: list[tuple[Stretch, _Found]], own: list[Candidate], text: str) -> list[Candidate]:
        """The dependants' facts (docs/slots.md, family_care), each filed under the person: "User's son Leo is
        allergic to tree nut." A value the user's own reading already holds (a plan for "maisie's party") is
        not said twice."""
        out = []
        for stretch, f in found:
            candidate = self._candidate(f)
            if candidate is None or not candidate.should_store:
                continue
            slot, value = SLOTS[f.span.slot], f.value
            life = slot.name not in slots_of(stretch)[0]
            if (not life and slot.name in ARRANGED_SLOTS and not arranged(candidate.content)) or AN_AGE.match(value):
                continue
            if slot.name == "event" and not a_life_event(value):
                continue
            if any(c.should_store and c.tags and c.tags[0] == slot.name
                   and set(terms(value)) <= set(terms(c.content)) for c in own):
                continue
            filed = LIFE_SLOT if life else CARE_SLOT
            candidate.subject = care_subject(stretch.person, slot.name, value, life)
            candidate.content = care_content(stretch.person, candidate.content)
            # what happened to them passes as the user's own events do ("my husband Vito broke his hip")
            candidate.category = Category.EPISODIC if slot.name == "event" else Category.BIOGRAPHICAL
            candidate.tags = [filed, slot.name]
            candidate.sensitivity, candidate.importance = Sensitivity.PERSONAL, SLOTS[filed].importance
            candidate.high_stakes, candidate.evidence = False, text[stretch.start:stretch.end].strip()
            out.append(candidate)
        return out

    def classify(self, statement: str, when: datetime) -> Candidate | None:
        """Category, slot and content of one statement an app hands over (remember, import)."""
        message = Message(role="user", content=statement, message_id="api", created_at=when)
        found = self._tag([(message, statement, True)])
        for f in found:
            candidate = self._candidate(f)
            if candidate is not None and candidate.should_store:
                return candidate
        return None

    def _ended_in_passing(self, message: Message, text: str, tagged: list[str]) -> list[Candidate]:
        """Retractions of names the user only refers back to ("I stopped the futsal"), to be written only where
        they retire a stored fact (Candidate.only_to_retire)."""
        out = []
        for slot_name, name, clause in ended_in_passing(text, tagged):
            candidate = slot_candidate(SLOTS[slot_name], name, clause, True, message, PASSING_CONFIDENCE)
            if screen(name, clause, slot_name, False, clause, message.content):
                continue
            candidate.only_to_retire = True
            out.append(candidate)
        return out

    def _said_in_passing(self, message: Message, text: str, found: list[Candidate]) -> list[Candidate]:
        """The tools the user says they switched to (switches.py) and the diets they follow by name (diets.py)
        where no fact found says them already, and the tools they left, written only where those retire a stored
        fact. A fact found that says the new one already is as sure as this reading would be: "rewrote the shipper
        in rust" read by the tagger at 0.78 was a doubtful change of the stack said before, and never kept."""
        kept = [c for c in found if c.should_store]
        marked = {t for c in kept for t in terms(c.content)}
        out = []
        for slot_name, new, old, said, sentence in [*switched_to(text), *diets_followed(text), *taken_up(text),
                                                    *also_avoided(text), *advised_to_avoid(text)]:
            slot = SLOTS[slot_name]
            if screen(new, said, slot_name, False, sentence, message.content):
                continue
            if slot_name == "diet":
                # a diet named is no value of another slot: "main eggetarian hu, no chicken" read as a pet
                for c in kept:
                    if (c.tags and c.tags[0] not in _FOOD_SLOTS
                            and set(terms(_stated_value(c.content))) == set(terms(new))):
                        c.should_store, c.rejection_reason = False, "a_diet"
                kept = [c for c in kept if c.should_store]
                marked = {t for c in kept for t in terms(c.content)}
            # where a fact found says the new one already ("migrated the shop from Square Online Store to
            # Shopify": the tagger marked Shopify), the one left is retired all the same
            if not set(terms(new)) <= marked:
                # the sentence is the evidence: what it says around the words ("... now instead") tells a change
                out.append(slot_candidate(slot, new, sentence, False, message, PASSING_CONFIDENCE))
            for c in kept:
                if c.polarity and c.tags and c.tags[0] == slot_name and set(terms(new)) <= set(terms(c.content)):
                    c.confidence = max(c.confidence, PASSING_CONFIDENCE)
            if old and not set(terms(old)) & marked:
                left = slot_candidate(slot, old, sentence, True, message, PASSING_CONFIDENCE)
                left.only_to_retire = True
                out.append(left)
        return out

    def _medicines_ended(self, message: Message, text: str, candidates: list[Candidate]) -> list[Candidate]:
        """Retractions of the medicines a switch or an ending names as left behind ("instead of simvastatin", "no
        more warfarin", "swapped the naproxen for ...") that no candidate retracts already, to be written only where
        they retire a stored fact."""
        retracted = {c.subject for c in candidates if c.should_store and not c.polarity}
        out = []
        # each is written only where it retires a stored medicine of that name: any name left behind may be one
        for mention in ended_medicines(text, any_name=True):
            clause = clause_around(text, mention.start, mention.end)
            candidate = slot_candidate(SLOTS["health"], mention.name, clause, True, message, PASSING_CONFIDENCE)
            if candidate.subject in retracted or screen(mention.name, clause, "health", False, clause, message.content):
                continue
            candidate.only_to_retire = True
            retracted.add(candidate.subject)
            out.append(candidate)
        return out

    def _family_dates(self, candidates: list[Candidate], message: Message, text: str) -> list[Candidate]:
        """A dated happening of someone close to the user (family_dates.py: "my daughter Njeri is getting married
        on August 15th"), said as theirs, where no plan found names it already: the screen's other reasons hold
        (a question, a wish, a secret), not that it is someone else's."""
        plans = [set(terms(c.content)) for c in candidates if c.should_store and c.tags and c.tags[0] == "plan"]
        out = []
        for said in family_happenings(text, message.created_at):
            sentence = sentence_around(text, said.start, said.end)
            if is_question(sentence) or any(set(terms(said.value)) <= plan for plan in plans):
                continue
            if screen(said.value, sentence, "plan", False, sentence, message.content) not in (None,
                                                                                             "about_someone_else"):
                continue
            # read in its own words: the words after it ("in Othaya she is a teacher there") are no part of it
            candidate = slot_candidate(SLOTS["plan"], said.value, said.value, False, message, PASSING_CONFIDENCE)
            day = _FOR_DAY.search(candidate.content)
            if day and any(day.group(0) in c.content for c in candidates
                           if c.should_store and c.tags and c.tags[0] == "plan"):
                continue  # a plan found for that day says it already ("in-laws visit next week")
            candidate.content = candidate.content.replace("User plans: ", "User's calendar: ", 1)
            needs = what_they_need(text, said.end)
            if needs:
                # "User's calendar: mother come to visit ... on 20 April (she is vegetarian) (for 2026-04-20)."; the
                # subject stays the visit's, so that the visit said again is the same fact
                candidate.content = candidate.content.replace(said.value, f"{said.value} ({needs})", 1)
            candidate.evidence = sentence
            out.append(candidate)
        return out

    def _with_tolerated(self, candidates: list[Candidate], message: Message, text: str) -> list[Candidate]:
        """What the user says they are fine with after all (tolerated.py) is no diet, allergy or thing avoided of
        theirs ("turns out im fine with gluten" had stored "User's diet: gluten."), and a stored allergy or
        intolerance to it ends (written only where it retires one)."""
        out = candidates
        for said in tolerated(text):
            if screen(said.name, said.clause, "allergy", False, said.sentence, message.content):
                continue
            named = set(terms(said.name))
            # a fact of this message whose value is that thing ("lactose"), not one that only shares a word with
            # it ("cow's milk" beside "I'm ok with oat milk")
            out = [c for c in out if not (c.polarity and c.tags and c.tags[0] in _FOOD_SLOTS
                                          and _value_is(c.content, named))]
            ended = slot_candidate(SLOTS["allergy"], said.name, said.clause, True, message, PASSING_CONFIDENCE)
            ended.only_to_retire = True
            out.append(ended)
        return out

    def _with_tech_lists(self, candidates: list[Candidate], message: Message, text: str) -> list[Candidate]:
        """A fragment that lists technologies ("go, postgres, k8s.", tech.py) as the stack where no stack found
        says it, in place of items the tagger read as something else ("User's job: k8s."); a stack the tagger
        found elsewhere in the message joins the list (the slot holds one value)."""
        out = candidates
        theirs = tools_of_their_work(text)
        for found in [*tech_lists(text), *theirs]:
            sentence = sentence_around(text, found.start, found.end)
            if is_question(sentence) or (found in theirs and _CONSIDERED.search(sentence)):
                continue  # "go, rust or zig for this?" asks; "would it be faster to redo my Django site in Go" weighs
            words = set(terms(found.text))
            out = [c for c in out if not (c.should_store and c.tags and c.tags[0] in _NOT_A_TECHNOLOGY
                                          and _names_only(c.content, words))]
            stacks = [c for c in out if c.should_store and c.polarity and c.tags and c.tags[0] == "project_stack"]
            if not names_a_language(found.text):
                continue  # "tokio + serde" adds to a stack the user has, which a new value would replace
            if any(set(terms(c.content)) & words for c in stacks) or screen(
                    found.text, sentence, "project_stack", False, sentence, message.content):
                continue
            value = ", ".join([found.text, *(_value_of(c) for c in stacks)])
            out = [c for c in out if c not in stacks]
            out.append(slot_candidate(SLOTS["project_stack"], value, sentence, False, message,
                                      max([PASSING_CONFIDENCE, *(c.confidence for c in stacks)])))
        return [_with_every_technology(c, message, text) for c in out]

    def _shifts(self, candidates: list[Candidate], message: Message, text: str) -> list[Candidate]:
        """The shift the user works ("workin nights", "I'm on days now, 7 to 7:30", shifts.py) as their one shift
        routine, and a shift left behind ("no more nights") as its retraction where no new shift is said."""
        said = [s for s in shifts_in(text) if not is_question(sentence_around(text, s.start, s.end))]
        worked = [s for s in said if s.worked]
        out = []
        for shift in worked[-1:] if worked else said:
            sentence = sentence_around(text, shift.start, shift.end)
            candidate = slot_candidate(SLOTS["habit"], shift.value, sentence, not shift.worked, message,
                                       PASSING_CONFIDENCE)
            routines = [c for c in candidates if c.should_store and c.tags and c.tags[0] == "habit" and (
                shift.value[6:].lower() in c.content.lower() or c.evidence in sentence)]
            # a routine that opens with the shift is the shift ("day shift 7a-7p"); one that only names it is a
            # routine of its own ("yoga most nights before my shift", "walk the dog most days at 6")
            opens = re.compile(rf"^(?:(?:back|now|still)\s+)?(?:works?\s+|working\s+|on\s+)?(?:the\s+)?"
                               rf"{re.escape(shift.value[6:].split(',')[0])}\b",
                               re.IGNORECASE)
            read = [(c, read_statement(c.content)) for c in routines if c.polarity]
            stated = [(c, c.content[start:end].strip()) for c, (start, end, form) in read if form]
            # the hours beside it are the shift's ("on days now, 7 till 5"), no routine of their own: read first, so
            # that a routine that is the shift takes them too
            for c, value in stated:
                if shift.worked and "," not in shift.value and only_hours(value):
                    candidate = slot_candidate(SLOTS["habit"], f"{shift.value}, {value}", sentence, False, message,
                                               PASSING_CONFIDENCE)
                    c.should_store, c.rejection_reason = False, "the_shifts_hours"
            for c, value in stated:
                if shift.worked and c.should_store and opens.match(value):
                    # the tagger's "day shift 7a-7p" is the shift, keyed as the one the user works (SHIFT_KEY)
                    c.content, c.subject = candidate.content, candidate.subject
            routines = [c for c in routines if c.should_store]
            if routines or any(c.should_store and c.tags and c.tags[0] == "job"
                               and shift.value[6:].split(",")[0].lower() in c.content.lower()
                               and not only_a_shift(c.content.split(":", 1)[-1].strip(" ."))
                               for c in candidates):
                # the tagger found it ("User's routine: 22 to 6, four nights in the week."), or the job says it
                # ("User's job: nights at the FedEx hub."): a second fact of it would crowd others out of a block
                continue
            candidate.only_to_retire = not shift.worked
            out.append(candidate)
        return out

    def _aids(self, candidates: list[Candidate], message: Message, text: str) -> list[Candidate]:
        """The aids the user says they live with ("I use a wheelchair", "my hearing aids", aids.py) as health facts,
        where no health fact found names them."""
        said = [(a.start, a.end, a.value) for a in [*aids_in(text), *injuries_in(text)]]
        return _said_in_rule(SLOTS["health"], said, candidates, message, text,
                             lambda c, value: value.split()[-1].lower() in c.content.lower())

    def _relatives_named(self, candidates: list[Candidate], message: Message, text: str) -> list[Candidate]:
        """A relative named after them ("our son last month! His name is Joon", household.relatives_named), where no
        family fact names them; a family fact of the kin alone ("User's family: son.") takes the name."""
        named = relatives_named(text)
        for _start, _end, value in named:
            kin = value.rsplit(" ", 1)[0]
            for c in candidates:
                if c.should_store and c.tags and c.tags[0] == "family" and c.polarity and (
                        family_value(c.content).lower() in (kin, f"their {kin}", f"new {kin}")):
                    made = slot_candidate(SLOTS["family"], value, c.evidence, False, message, c.confidence)
                    c.content, c.subject = made.content, made.subject
        return _said_in_rule(SLOTS["family"], named, candidates, message, text,
                             lambda c, value: value.split()[-1].lower() in c.content.lower())

    def _pets_got(self, candidates: list[Candidate], message: Message, text: str) -> list[Candidate]:
        """A pet the user says they just got ("GOT A KITTEN, shes called miso", pets.py), where no pet found
        names it; a pet found by its kind alone ("User has a pet: KITTEN.") takes the name the reading found."""
        got = pets_got(text)
        for _start, _end, value in got:
            kind, _, name = value.partition(" named ")
            for c in candidates:
                start, end, form = read_statement(c.content)
                found = set(terms(c.content[start:end])) if form else set()
                # only a pet found by its kind alone: "our old cat Luna" beside "got a new cat, he's called Pip" is
                # another cat, with a name of its own
                if (name and c.should_store and c.polarity and c.tags and c.tags[0] == "pet"
                        and found & set(terms(kind)) and found - set(terms(kind)) <= _A_PET_JUST_GOT):
                    named = slot_candidate(SLOTS["pet"], value, c.evidence or text, False, message, c.confidence)
                    c.content, c.subject = named.content, named.subject
        return _said_in_rule(SLOTS["pet"], got, candidates, message, text,
                             lambda c, value: bool(set(terms(c.content)) & set(terms(value))), stored_only=False)

    def _with_new_job(self, candidates: list[Candidate], message: Message, text: str) -> list[Candidate]:
        """A job the user says they began ("I started last week as deputy principal at Scoil Éanna", new_jobs.py)
        in place of any other job the tagger read in the message ("Twelve years as a plain teacher and now this"
        is the job before it), where no job found names it."""
        began = new_jobs(text)
        if not began:
            return candidates
        # a new workplace with the same work ("First salary in Comarch! Same position, QA engineer"): the work the
        # tagger read is the job at the new place
        start, end, job = began[-1]
        kept = [_stated_value(c.content) for c in candidates
                if c.should_store and c.polarity and c.tags and c.tags[0] == "job"]
        if kept and _SAME_WORK.search(text) and job[:1].isupper() and job.lower() not in kept[0].lower():
            began = [(start, end, f"{kept[0]} at {job}")]

        def names_it(c: Candidate, value: str) -> bool:
            return value.lower() in c.content.lower()

        added = _said_in_rule(SLOTS["job"], began[-1:], candidates, message, text, names_it)
        if not added:
            return candidates
        # the workplace read again as a routine or a pastime ("driving for Raben since Monday" -> "User's routine:
        # for Raben since Monday.") is the job's
        workplace = {w.lower() for w in re.findall(r"\b[A-ZÀ-Ý][\w&'’.-]*", began[-1][2])}

        def the_jobs(c: Candidate) -> bool:
            words = {w.lower() for w in re.findall(r"[\w&'’.-]+", _stated_value(c.content))}
            return bool(c.tags) and (c.tags[0] == "job"
                                     or (c.tags[0] in ("habit", "hobby") and bool(workplace & words)))

        return [c for c in candidates if not the_jobs(c)] + added

    def _left_jobs(self, candidates: list[Candidate], message: Message, text: str) -> list[Candidate]:
        """A workplace the user says they left ("I quit my job at Tesco yesterday", new_jobs.left_jobs) as the job
        ended there, where no ended job found names it: the tagger reads such news as an event, which ends nothing.
        A job the tagger read there as held ("I gave my notice at Lupa": "User's job: Lupa.") is left out."""
        left, last_days = left_jobs(text), last_days_at(text)
        if not left and not last_days:
            return candidates
        # the place as whole words: "work" of "my notice at work" is no part of "social worker at the council"
        places = [re.compile(rf"(?<!\w){re.escape(place)}(?!\w)", re.IGNORECASE) for _start, _end, place in left]
        ended = _said_in_rule(SLOTS["job"], left, candidates, message, text,
                              lambda c, place: not c.polarity and place.lower() in c.content.lower(),
                              stored_only=False, negated=True)
        for last_day in _said_in_rule(SLOTS["job"], last_days, candidates + ended, message, text,
                                      lambda c, place: not c.polarity and place.lower() in c.content.lower(),
                                      stored_only=False, negated=True):
            last_day.only_to_retire = True  # a last day with no word of work ends a job only where it is the user's
            ended.append(last_day)
        return [c for c in candidates if not (c.polarity and c.tags and c.tags[0] == "job"
                                              and any(p.search(c.content) for p in places))] + ended

    def _bosses_at(self, candidates: list[Candidate], message: Message, text: str) -> list[Candidate]:
        """The workplace the user names as their manager's ("my manager at chatime is sooo annoying", new_jobs.
        bosses_at) as their job, where no job found names it: said in passing, it is how a new job is often told."""
        return _said_in_rule(SLOTS["job"], bosses_at(text), candidates, message, text,
                             lambda c, place: place.lower() in c.content.lower(), stored_only=False)

    def _routines_abroad(self, candidates: list[Candidate], message: Message, text: str) -> list[Candidate]:
        """A routine said in another language than English ("corro 5k todos los domingos", routines.py) as a routine,
        where no routine found covers its words (a hobby read in it stays: "bouldering" beside "je fais du bouldering
        deux fois par semaine"); a question after it ("..., what shoes?") takes nothing from it."""
        out = []
        for start, end, value in routines_said(text):
            if is_question(clause_around(text, start, end)):
                continue
            if any(c.tags and c.tags[0] == "habit" and c.evidence and (c.evidence in value or value in c.evidence)
                   for c in candidates):
                continue
            if not screen(value, value, "habit", False, value, message.content):
                out.append(slot_candidate(SLOTS["habit"], value, value, False, message, PASSING_CONFIDENCE))
        return out

    def _with_births(self, candidates: list[Candidate], message: Message, text: str) -> list[Candidate]:
        """A child just born to the user ("Baby Nora arrived on July 12!", births.py) as family, where no family
        fact found names the child; and no birthday of the user's where the message announces a birth: its date is
        the child's ("she's here!! Meera, born 6 september" stored "User's birthday is 6 september.")."""
        born = births(text)
        if not born:
            return candidates
        added = _said_in_rule(SLOTS["family"], born, candidates, message, text,
                              lambda c, value: value.split()[-1].lower() in c.content.lower(), stored_only=False)
        return [c for c in candidates if not (c.tags and c.tags[0] == "birthday")] + added

    def _new_home(self, candidates: list[Candidate], message: Message, text: str) -> list[Candidate]:
        """The town of a new flat or house ("the new flat in Easton has a little yard", new_homes.py) as the home,
        where the message names no home; and where it does, the town the user says they live in now, said after
        another ("moved to France for my master's, and now I live in Croix-Rousse")."""
        homes = [c for c in candidates if c.should_store and c.tags and c.tags[0] == "home_location"]
        # back where the user lived before, for good: the home now, in place of a home the tagger read in the same
        # message, wherever the years away are said ("Home in Glasgow again after two years in Sydney!" read Sydney)
        back = [said for said in back_home(text)
                if not any(set(terms(said[2])) <= set(terms(c.content)) for c in homes if c.polarity)
                # a name the tagger read as a tool, a project or a pastime is none of the user's towns
                and not any(said[2].lower() in c.content.lower() for c in candidates
                            if c.tags and c.tags[0] not in ("home_location", "hometown"))]
        # where the user lives said in another language ("nasa Skokie na ako, ... ang mahal ng rent sa Albany Park",
        # "on a déménagé à Laval"): an exact reading, over the tagger's of words it was not trained on
        back = back or [said for said in living_in(text, other_languages_only=True)
                        if not any(set(terms(said[2])) <= set(terms(c.content)) for c in homes if c.polarity)]
        if homes:
            now = back or [said for said in new_homes(text) if _NOW_NEAR.search(text[max(0, said[0] - 25):said[1] + 6])
                           and not any(set(terms(said[2])) <= set(terms(c.content)) for c in homes)
                           and all(0 <= text.find(c.evidence) < said[0] for c in homes if c.evidence)]
            made = _said_in_rule(SLOTS["home_location"], now, [], message, text, lambda _c, _value: False)[:1]
            for c in homes if made else []:
                if c.polarity:  # a home left ("no longer lives in York") stays said
                    c.should_store, c.rejection_reason = False, "lives_elsewhere_now"
            return made
        return _said_in_rule(SLOTS["home_location"], back or new_homes(text), candidates, message, text,
                             lambda _c, _value: False)[:1]

    def _with_standing_rules(self, candidates: list[Candidate], message: Message, text: str) -> list[Candidate]:
        """The standing rules said as orders that last ("temps in celsius pls, every time", standing_rules.py), where
        no rule or preference found says them, in place of an answer rule the tagger read from the sentence's other
        words ("How to answer the user: they run mypy in strict mode.")."""
        out = candidates
        for said in standing_rules(text):
            sentence = text[said.start:said.end]
            words = set(terms(said.rule))
            ruled = [c for c in out if c.should_store and c.tags and c.tags[0] in _RULE_SLOTS
                     and (c.evidence in sentence or sentence in c.evidence)]
            if any(set(terms(c.content)) & words for c in ruled):
                continue  # the tagger read the rule, if in other words or another answer slot: its reading stands
            if screen(said.rule, said.rule, "instruction", False, sentence, message.content):
                continue
            out = [c for c in out if c not in ruled or c.tags[0] == "prefers"]
            if names_a_spoken_language(said.rule):
                # a language the rule says to answer in is no language the tagger read the user as speaking
                out = [c for c in out if not (c.tags and c.tags[0] == "languages_spoken" and c.evidence
                                              and c.evidence in sentence)]
            out.append(slot_candidate(SLOTS["instruction"], said.rule, said.rule, False, message, PASSING_CONFIDENCE))
        return out

    def _with_terse_rules(self, candidates: list[Candidate], message: Message, text: str) -> list[Candidate]:
        """A message of terse answer rules ("tests first. no chit-chat.") as one answer-format rule (see
        terse_rules), in place of what the tagger read into them as the user's own tastes ("User avoids chit-chat.")."""
        answers = [c.evidence for c in candidates if c.should_store and c.tags and c.tags[0] in ANSWER_SLOTS]
        rules = terse_rules(text, answers)
        if not rules or any(c.should_store and c.tags and c.tags[0] == "answer_format" for c in candidates):
            return candidates
        kept = [c for c in candidates if not (c.tags and c.tags[0] in _NEGATIVE_SLOTS
                                              and any(c.evidence in rule for rule in rules))]
        rule = ", ".join(rules)
        return [*kept, slot_candidate(SLOTS["answer_format"], rule, rule, False, message, PASSING_CONFIDENCE)]

    def _tag(self, texts: list[tuple[Message, str, bool]]) -> list[_Found]:
        pieces: list[tuple[int, int, str, bool]] = []  # which text, offset in it, piece, a sentence read alone
        for index, (_message, text, _explicit) in enumerate(texts):
            pieces.extend((index, offset, piece, False) for offset, piece in chunks(text))
            alone = sentences(text)
            if len(alone) > 1:
                pieces.extend((index, offset, piece, True) for offset, piece in alone)
        read: dict[int, list[Span]] = {index: [] for index in range(len(texts))}
        alone_read: dict[int, list[Span]] = {index: [] for index in range(len(texts))}
        for (index, offset, _piece, alone_), in_piece in zip(pieces, self._spans([p for _i, _o, p, _a in pieces]),
                                                             strict=True):
            (alone_read if alone_ else read)[index].extend(
                replace(s, start=s.start + offset, end=s.end + offset) for s in in_piece)
        found: list[_Found] = []
        for index, (message, text, explicit) in enumerate(texts):
            spans = _without_overlaps(read[index])
            # a sentence read alone adds the constraints its message's reading lost (in a long, chatty message
            # the tagger misses "im allergic to sesame" it finds said alone), over words that reading left
            # unmarked, and the diet that replaces one the whole reading found ended ("I am not vegan anymore, ...
            # So now vegetarian.": a change said in two sentences, the second lost); it decides nothing else: out
            # of context "it's Lyumjev." reads as a name, "soy Lupita" as a pet
            new_diet = (any(k.slot == "diet" and k.negated for k in spans)
                        and not any(k.slot == "diet" and not k.negated for k in spans))
            # a dated plan read in its own sentence outranks the pieces a less sure whole reading made of it
            # ("Flight" as a plan and "5" as a deadline of "Lisbon based. Flight LIS-GRU on 5 Dec. aisle always")
            for plan in alone_read[index]:
                inside = [k for k in spans if plan.start <= k.start and k.end <= plan.end]
                if (plan.slot == "plan" and not plan.negated and inside
                        and all(k.confidence < plan.confidence for k in inside)
                        and _dated(text, plan, message.created_at)):
                    spans = [k for k in spans if k not in inside]
            spans += _without_overlaps([
                s for s in alone_read[index]
                if (s.slot in SENTENCE_SLOTS or (new_diet and s.slot == "diet" and not s.negated)
                    or (s.slot == "plan" and not s.negated and _dated(text, s, message.created_at)))
                and all(s.end <= k.start or s.start >= k.end for k in spans)])
            # a place the user will be in is a stay, no home: read with the plan said beside it ("Richard and I
            # shall be in Florence from the 9th to the 16th of April")
            # (and so is a move still to come: "we're moving to Leeds", "done with London, moving back to Cork in
            # May")
            spans = [replace(s, slot="plan") if s.slot == "home_location" and (
                _A_STAY.search(text[:s.start]) or a_move_to_come(text[:s.start], text[s.end:])) else s
                for s in spans if not (s.slot == "home_location" and a_stay_now(text[:s.start], text[s.end:]))]
            for span in joined_fragments(text, sorted(spans, key=lambda s: s.start)):
                value = text[span.start:span.end]
                found.append(_Found(index, span, value, clause_around(text, span.start, span.end),
                                    sentence_around(text, span.start, span.end), message, explicit))
        return found

    def _spans(self, pieces: list[str]) -> list[tuple[Span, ...]]:
        """The tagger's spans in each piece (offsets in the piece). A piece the user's readings already hold
        (see readings.py) is not encoded again; the others are encoded, each in a run of its own as always."""
        readings = self._readings
        reader = current_reader() if readings is not None else None
        keys = [PieceReadings.key(reader, p) for p in pieces] if reader is not None else []
        out: list[tuple[Span, ...] | None] = ([readings.get(k) for k in keys] if readings is not None and keys
                                              else [None] * len(pieces))
        missing = [i for i, spans in enumerate(out) if spans is None]
        # a redaction marker reads as words to the model: blanked out (same length, so offsets hold)
        states = self._encoder.encode_tokens([_MARKED.sub(lambda m: " " * len(m.group(0)), pieces[i])
                                              for i in missing])
        for i, tokens in zip(missing, states, strict=True):
            spans = tuple(self._tagger.spans(pieces[i], tokens, self._min_confidence, self._outside_at_least,
                                             self._verify_at_least, self._bio_penalty, self._with_features))
            out[i] = spans
            if readings is not None and keys:
                readings.put(keys[i], spans)
        return [spans for spans in out if spans is not None]

    def _with_what_it_replaced(self, f: _Found) -> list[Candidate]:
        """The found value's fact, and when the clause says the user switched to it from another value
        ("migrating from Cypress to Playwright"), that the other no longer holds: the tagger seldom marks
        the value left behind, which then stayed beside the new one."""
        candidate = self._candidate(f)
        if candidate is None:
            return []
        slot = SLOTS[f.span.slot]  # a candidate was made, so its slot is known
        old = (switched_from(f.value, f.clause) if slot.name in CEASABLE_SLOTS and candidate.should_store
               and candidate.polarity else None)
        if old is None:
            return [candidate]
        return [candidate, slot_candidate(slot, old, f.clause, True, f.message, candidate.confidence)]

    def _candidate(self, f: _Found) -> Candidate | None:
        slot = SLOTS.get(f.span.slot)
        if slot is None or not set(terms(f.value)) - NO_VALUE - _ENDING_ONLY:
            # a stray function word ("from", "it"), a topic word ("project") or the verb of an ending alone
            # ("User's hobby: given." of "I have rather given up on the watercolours") is no value
            return None
        if slot.name in TIME_ONLY_SLOTS and only_when(f.value):
            return None  # "User plans: next" lost what is planned
        found = whole_date(f.value, f.clause) if slot.name in DATED_SLOTS else f.value
        if slot.name == "project_deadline" and (dated := dated_doing(found, f.sentence)) is not None:
            slot, found = SLOTS["plan"], dated  # "the Goethe B2 exam, it is on 12 March": the exam's day, no project's
        if slot.name == "project_deadline":
            found = deadline_date(found, f.clause, f.message.created_at)
            if not says_when(found):
                return None
        if slot.name == "diet" and _NO_RIGHT_BEFORE.search(_words_before(found, f.clause)):
            # "still no gluten obviously", "no dairy for me": a food kept out, not a diet ended
            slot = SLOTS["avoids"]
            f = replace(f, span=replace(f.span, negated=False))
        value, negated = found, f.span.negated and said_no_longer(slot.name, f.clause, found)
        negated = negated or (slot.name in CEASABLE_SLOTS and (ended_just_before(value, f.clause)
                                                              or ended_just_after(value, f.clause)))
        negated = negated or (slot.name == "health" and (stopped_taking(value, f.clause)
                                                         or ended_after_naming(value, f.sentence)))
        negated = negated or (slot.name in CEASABLE_SLOTS | {"health"} and left_in_a_switch(value, f.clause))
        # "I used to love horror films", "turns out I'm not lactose intolerant", "I was keto for two years but",
        # "my asthma is basically gone": the polarity head reads each as the user's fact now
        negated = negated or (slot.name in CEASABLE_SLOTS | NOT_NOW_SLOTS and not_now(value, f.clause))
        # what the user told before and changed since: never an allergy or a condition ("I told you I was allergic to
        # peanuts, but actually it's tree nuts too" adds one)
        negated = negated or (slot.name in CEASABLE_SLOTS and said_once_not_now(value, f.message.content))
        negated = negated or (slot.name in NOT_NOW_SLOTS and ended_just_after(value, f.clause))
        negated = negated or (slot.name == "plan" and (called_off(value, f.clause) or given_up(value, f.sentence)
                                                       or called_off_next(value, f.message.content)))
        # "Tuesday yoga is off for me now": a routine, a pastime or a course called off for good (not "my laptop is
        # off", a thing switched off, nor "yoga was cancelled today", one evening's)
        negated = negated or (slot.name in {"habit", "hobby", "learning"} and off_for_good(value, f.clause))
        negated = negated or (slot.name == "avoids" and eats_again(value, f.clause))
        # a value the user sets another against ("I use Waze instead of Google Maps"): only where the slot is keyed
        # by the value, so the "no" retires that value alone (a single value's "not" would retire the slot's
        # value whatever it is, a preference's its whole topic: "tea, not coffee" keys both as drinks)
        negated = negated or (slot.multi and slot.name in CEASABLE_SLOTS and slot.name != "prefers"
                              and not_this_one(value, f.clause))
        # a pet or a relative that died, a partner the user parted from: the polarity head reads "my cat died" as
        # the user having a cat
        negated = negated or gone_after(slot.name, value, f.clause)
        # the value a switch went to is the user's now, whatever word of ending the clause holds ("we moved over
        # from Lyon to Paris": Lyon ended, Paris not)
        negated = negated and not (slot.name in CEASABLE_SLOTS | {"health"} and switched_from(value, f.clause))
        # no word of ending ends an age ("divorced at 30, now 41" ended the marriage); one denied is dropped below
        negated = negated and slot.name != "age"
        if negated and slot.name in CEASABLE_SLOTS and (paused(value, f.clause) or nearly_ended(value, f.clause)):
            # "no more gaming until my exams are done", "I almost gave up running": a pause or a near miss, neither
            # the end of it nor news of it
            return None
        if ((slot.name == "instruction" or (negated and slot.name in ANSWER_SLOTS))
                and _instruction(f.clause) is None):
            # a word out of a long clause ("allotment") is no instruction, nor is "No longer: allotment"
            return None
        if slot.name in PASTIME_SLOTS and not negated:
            earned = for_a_living(value, f.clause) or works_for(value)
            if earned is not None:
                # "I do yacht deliveries for a living" is the user's job, not a hobby or a routine
                slot, value = SLOTS["job"], earned
        if negated and slot.name in {"job", "employer"} and _SOMETHING_SWITCHED.search(
                _words_before(value, f.clause)):
            return None  # "we switched the kids from Tesco to Aldi": a shop, no workplace left
        if slot.name == "home_location" and (_A_WORKPLACE_IN.search(_words_before(value, f.clause))
                                             or _A_WORKPLACE_NAMED.search(value)):
            return None  # "my office is in Leeds", "the Bristol branch": where the work is, no home
        if slot.name == "home_location" and not negated:
            value = with_city_before(value, f.clause)  # "I live in Berlin, in Kreuzberg": "Kreuzberg, Berlin"
        if slot.name == "hometown" and works_from(value, f.clause):
            slot = SLOTS["home_location"]  # "I work remote from Limassol": where they are, not where they are from
        if slot.name == "project_stack" and _OWN_TOOL_BEFORE.search(_words_before(value, f.clause)):
            slot = SLOTS["uses"]  # "editor is neovim": the user's own tool, not the project's one stack
        if slot.name == "project_stack":
            value = widened_stack(value, f.sentence)  # "postgres" of "go, postgres, k8s." is the list
        if slot.name in PHRASE_SLOTS:
            value = completed_phrase(value, f.clause)
        if slot.name == "job" and not negated:
            # "as" and "at" the span took in say nothing of which job ("now @ kessel" -> kessel)
            value = job_phrase(value, f.clause)
            value = _HOW_LONG_AS.sub("", value) or value
            # a list's items are lines: a job read across them keeps its own ("Brno, CZ\n- backend developer at ...")
            value = re.sub(r"^[-*•]\s*", "", value.split("\n")[-1].strip()) or value
            value = with_workplace_place(value, f.clause)
            if (studies := studies_named(value, f.clause)) is not None:
                slot, value = SLOTS["education"], studies  # "exchange student", "junior at westland high"
        if slot.name == "family" and _NOT_ONE_MYSELF.search(_words_before(value, f.clause)):
            return None  # "I'm not a mum yet": what the user is not, no relative of theirs
        if slot.name == "name" and not names_self(value, f.message.content):
            return None  # "my supervisor, Karin, agreed": a name the user gives someone else (names.py)
        if slot.name not in COUNTED_SLOTS and only_measures(value):
            return None  # "User's health: lbs 2." of a newborn's "7 lbs 2 oz": a weight, nothing the user has
        if slot.name == "age" and _A_MEASURE.search(value):
            return None  # "i'm 5'11 and vegan": a height, not "User is 5'11 years old."
        if slot.name == "age" and _AGE_DENIED.search(_words_before(value, f.clause)):
            return None  # "i'm not 30 yet lol", "I'm not 40, I'm 39!": no age of the user's
        if slot.name == "age" and not_the_age_now(value, f.clause):
            return None  # "came over when I was 19", "22 years on the buses": an age once, a span of years
        if (slot.name in _NEGATIVE_SLOTS and value.strip().lower() in _NO_AS_A_SAYING
                and re.search(r"\bno\s+$", _words_before(value, f.clause), re.IGNORECASE)):
            return None  # "no cap oat milk is superior": a saying, nothing the user keeps away from
        if slot.name == "dislikes" and _FOND_OF_BEFORE.search(_words_before(value, f.clause)):
            slot = SLOTS["likes"]  # "I have a weakness for brutalist buildings": a fondness, read as a dislike
        if slot.name == "pet" and not negated and not names_an_animal(value, f.message.content):
            return None  # "I've a wee boat", "a little panadería here in Oaxaca": no animal, no name
        if slot.name == "pet":
            kept = pet_value(value)
            if kept is None:
                return None  # "live w my mom n 2 cats": "User has a pet: mom."; "her name is Mimi": "her name"
            value = kept
        if slot.name == "health" and not negated and only_for_now(value, f.clause):
            return None  # "my back is destroyed today", "i have a migraine rn": how the user is today
        if slot.name == "allergy" and not speaks_of_an_allergy(f.message.content):
            return None  # "User is allergic to Mercury" from "Mercury is in retrograde"
        if not says_what_is_done(slot.name, value, negated, f.clause):
            return None  # "User plans: ogallala", "User's routine: blackbirds": a name with nothing done
        if slot.name in ("home_location", "hometown") and called_off(value, f.clause):
            slot, negated = SLOTS["plan"], True  # "Brighton is off for me": a plan called off, no home
        if slot.name == "plan" and not negated and already_happened(value, f.clause, f.message.created_at):
            slot = SLOTS["event"]  # "moved in Saturday", "the Austin house closed last week": done, no plan
        if slot.name == "event" and not negated and (began := began_as(value)) is not None:
            slot, value = SLOTS["job"], began  # "started last week as deputy principal at Scoil Éanna": the new job
        whose = None
        if slot.name == "event":
            happened = event_value(value, f.clause)
            if happened is None:
                return None  # "User Melbourne": a name the tagger read as an event, with nothing that happened
            value, negated = happened, False  # an event is what happened; "lost", "passed" and "moved" are no negation
            if (whose := whose_event(value, f.clause)) is not None:
                # "my dad passed away in march" is no "User passed away in march": kept as whose it is
                value = f"{whose} {value}"
        confidence = 1.0 if f.explicit else round(min(0.95, max(0.6, f.span.confidence)), 3)
        candidate = slot_candidate(slot, value, f.clause, negated, f.message, confidence, f.explicit)
        if whose is not None:
            candidate.content = candidate.content.replace("User ", "User's ", 1)  # "User's dad passed away ..."
        candidate.reading = f.span.features
        reason = screen(value, f.clause, slot.name, f.explicit, f.sentence, f.message.content, ended=negated)
        if reason:
            candidate.should_store = False
            candidate.rejection_reason = reason
        return candidate


# what is said of a pet just got beside its kind ("User has a pet: new kitten."): no name of another pet
_A_PET_JUST_GOT = frozenset(terms("new little baby tiny young rescue rescued"))


# a workplace said to be in a place, right before it ("my office is in Leeds", "the new team is based in
# Manchester"), or named by its place ("I'm in the Bristol branch")
_WORKPLACE = (r"(?:office|offices|team|company|firm|employer|work|job|workplace|hq|headquarters|branch|studio|lab|"
              r"site|department|depot|factory|warehouse|store|shop|plant|campus)")
_A_WORKPLACE_IN = re.compile(rf"\b{_WORKPLACE}\s+(?:is|are|was|'s)\s+(?:now\s+|still\s+|also\s+)?"
                             r"(?:based\s+|located\s+)?(?:in|at)\s+$", re.IGNORECASE)
_A_WORKPLACE_NAMED = re.compile(rf"\s{_WORKPLACE}$", re.IGNORECASE)


# something other than the user switched, right before the value: "switched the kids from", "moved our savings from"
# (the user's own move: "I switched from", "moved over from", "changed jobs from")
_SOMETHING_SWITCHED = re.compile(
    r"\b(?:switched|moved|changed|swapped|shifted)\s+(?:the|my|our|his|her|their)\s+(?!jobs?\b|roles?\b|careers?\b)"
    r"[\w'’-]+(?:\s+[\w'’-]+)?\s+from\s+(?:the\s+)?$", re.IGNORECASE)


# the user saying they are not one ("I'm not a mum yet", "i am not a grandad"), right before the relative's word
_NOT_ONE_MYSELF = re.compile(r"\b(?:i['’]?m|i am|im)\s+(?:still\s+)?not\s+(?:yet\s+)?(?:a|an)\s+$", re.IGNORECASE)
# "no" alone right before a value (not "no longer", "no more", which end what follows)
_NO_RIGHT_BEFORE = re.compile(r"(?:^|[^\w'’])(?:still\s+|strictly\s+|absolutely\s+)?no\s+$", re.IGNORECASE)
_ENDING_ONLY = frozenset(terms("given gave give giving quit quitting stopped stopping ditched dropped"))


# the user's own tool named right before the value ("editor is neovim", "my IDE: IntelliJ", "laptop is a ThinkPad")
_OWN_TOOL_BEFORE = re.compile(r"\b(?:editor|ide|os|laptop|terminal|shell|keyboard|browser)\s*(?:is|=|:|-)?\s*"
                              r"(?:(?:a|an|the)\s+)?$", re.IGNORECASE)


# a place the user will be in, right before it: "we'll be in Rome", "I shall be at Lake Como"
_A_STAY = re.compile(r"\b(?:will|shall|['’]ll|gonna|going to)\s+(?:only\s+|just\s+|also\s+)?be\s+(?:in|at)\s+$",
                     re.IGNORECASE)


# where the user is now, right before the place ("I'm in", "currently in"), and a stay said right after it: a trip,
# a holiday, a few days or weeks, or until a day ("I'm in Penang for work trip till Thursday", "im in berlin till
# sunday for a conference", "currently in Tokyo for two weeks visiting my cousin"): a stay, no home. Not years or
# months ("I'm in Berlin for 3 years now"), nor until something other than a day ("until I finish my PhD")
_HERE_NOW = re.compile(r"\b(?:i['’]?m|im|i am|we['’]?re|we are|currently|right now|at the moment)\s+"
                       r"(?:(?:just|only|still|currently|now|here|over|out|down|up|back)\s+)?(?:in|at)\s+$",
                       re.IGNORECASE)
_STAYING_AFTER = re.compile(
    r"^[^.!?;]{0,30}?\b(?:"
    r"(?:for|on)\s+(?:a\s+|an\s+|the\s+|my\s+|our\s+)?(?:short\s+|quick\s+|long\s+)?"
    r"(?:work\s+|business\s+|school\s+|family\s+|field\s+|uni\s+)?"
    r"(?:trip|holidays?|vacation|hols|conference|weekend|wedding|funeral|layover|stopover|business|tour|visit)|"
    r"for\s+(?:a\s+|the\s+)?(?:few|couple\s+of|\d+|one|two|three|four|five|six|ten)\s+(?:more\s+)?"
    r"(?:days?|nights?|weeks?)|"
    r"(?:till|until|til|through)\s+(?:next\s+|this\s+|the\s+)?(?:mon|tue|wed|thu|fri|sat|sun|tomorrow|tmrw|weekend|"
    r"\d{1,2}(?:st|nd|rd|th)?\b|end\s+of\s+(?:the\s+)?week)|"
    r"visiting|to\s+visit|this\s+week(?:end)?\s+only)", re.IGNORECASE)


def a_stay_now(before: str, after: str) -> bool:
    """The place is where the user is for a while, not where they live: "I'm in Penang for work trip till
    Thursday"."""
    return _HERE_NOW.search(before) is not None and _STAYING_AFTER.match(after) is not None


# a move still to come, right before the place: "I'm moving to", "we're moving back to"; or said bare, with when
# after the place ("moving to Leeds next month"; "Moving to Leeds was the best thing" is a move made)
_MOVING_TO = re.compile(r"(?:\b(?P<who>i['’]?m|im|i am|we['’]?re|we are)\s+(?:\w+\s+)?|(?:^|[,.;:!?(]\s*))"
                        r"moving\s+(?:back\s+|over\s+|out\s+|house\s+)?to\s+$", re.IGNORECASE)
_WHEN_AFTER = re.compile(r"^\W*(?:\w+\s+)?(?:in|on|next|this|soon|tomorrow|later|after|at the end)\b", re.IGNORECASE)


def a_move_to_come(before: str, after: str) -> bool:
    """The place between ``before`` and ``after`` is where the user is moving to, not yet their home."""
    moving = _MOVING_TO.search(before)
    return moving is not None and (moving.group("who") is not None or bool(_WHEN_AFTER.match(after)))


# a move that happened ("MOVED OUT OF HALLS!!", "we moved", "got a house in rusholme"), not one planned ("moving to
# Toronto in April" is a plan)
_MOVED_HOME = re.compile(
    r"(?:^|[.!?]\s*|\b(?:i|we|i['’]ve|we['’]ve|ive|weve|just|finally|have|has)\s+)"
    r"(?:(?:just|finally|actually|now|officially|recently|already)\s+)*"
    r"(?:moved|relocated)\b(?!\s+(?:the|my|our|it|them|him|her|me|us|everything)\b)|"
    r"\b(?:i|we|me\s+(?:n|and|&)\s+\w+)\s+(?:just\s+|finally\s+)?got\s+(?:a|our|my)\s+(?:own\s+)?"
    r"(?:house|flat|place|apartment|home)\b|\bmoving\s+day\b", re.IGNORECASE)
MOVE_CONFIDENCE = 0.9


# a sentence that changes the stack names the old beside the new ("we moved the API from Flask to FastAPI", "Postgres
# now, Mongo is gone", "rewriting it in Go"): the tagger's reading is the new one, and widening would bring the old back
_A_CHANGE_OF_STACK = re.compile(r"\b(?:now|moved|moving|migrat\w*|switch\w*|swapp?\w*|replac\w*|rewr\w*|port\w*|"
                                r"instead|anymore|no\s+longer|old|new|gone|out|dropp\w*|ditch\w*|from|to)\b",
                                re.IGNORECASE)


def _with_every_technology(c: Candidate, message: Message, text: str) -> Candidate:
    """A stack the tagger found as part of a sentence that names more technologies, as all of them ("our core platform
    is on Java 17 with Spring Boot microservices, deployed on AWS EKS, and Postgres" -> "AWS EKS, and Postgres" was
    the stack; tech.technologies_named); the stack itself where its sentence names none it lacks."""
    if not (c.should_store and c.polarity and c.tags and c.tags[0] == "project_stack"):
        return c
    value = _value_of(c)
    at = text.find(value)
    if at < 0:
        return c
    sentence = sentence_around(text, at, at + len(value))
    # the part of it the stack is in: "I am using the VS Code and GitHub, but my company want to change to GitLab"
    start = text.find(sentence)
    cuts = [0, *(m.end() for m in re.finditer(r";|\bbut\b", sentence)), len(sentence) + 1]
    part = next((sentence[a:b] for a, b in itertools.pairwise(cuts) if start + a <= at < start + b),
                sentence)
    named = technologies_named(part)
    if len(named) < 2 or all(n.lower() in value.lower() for n in named) or _A_CHANGE_OF_STACK.search(part):
        return c
    made = slot_candidate(SLOTS["project_stack"], ", ".join(named), c.evidence, False, message, c.confidence)
    c.content, c.subject = made.content, made.subject
    return c


def _with_partners_named(candidates: list[Candidate], message: Message, text: str) -> list[Candidate]:
    """A partner read by the word alone takes the name the text says after it ("my husband Vito broke his hip" ->
    "User's relationship: husband." -> "... husband Vito."; household.partner_named)."""
    for c in candidates:
        if c.tags != ["relationship_status"] or not c.polarity:
            continue
        kin = _stated_value(c.content).removeprefix("their ")
        name = partner_named(kin, text)
        if name:
            made = slot_candidate(SLOTS["relationship_status"], f"{kin} {name}", c.evidence, False, message,
                                  c.confidence)
            c.content, c.subject = made.content, made.subject
    return candidates


def _with_partings(candidates: list[Candidate], message: Message, text: str) -> list[Candidate]:
    """A parting of the user and a partner (household.partings: "Pavel and me, we broke up") as the relationship
    ended, in place of the partner the tagger read as the relationship now ("User's relationship: Pavel.")."""
    parted = partings(text)
    said = [c for c in candidates if c.tags and c.tags[0] == "relationship_status"]
    # a relationship said ended, or said as what it is now ("I'm single", "we're divorced"), needs no more
    if not parted or any(not c.polarity or partner_named_none(c.content) for c in said):
        return candidates
    kept = [c for c in candidates if c not in said]
    start, end, value, ended = parted[0]
    found = _said_in_rule(SLOTS["relationship_status"], [(start, end, value)], kept, message, text, lambda c, v: False,
                          negated=ended)
    return kept + found if found else candidates


def _taken_now(value: str, text: str) -> bool:
    """The medicine ``value`` names is said in its sentence as the user's one of its kind now
    (medicines.replaces_its_kind)."""
    name = next((w for w in value.split() if medicine_kind(w)), "")
    at = text.lower().find(name.lower()) if name else -1
    return at >= 0 and replaces_its_kind(name, sentence_around(text, at, at + len(name)))


def _one_style(candidates: list[Candidate]) -> list[Candidate]:
    """Layout and length are one current style (slots.subject_for): said in several pieces in one message, it is one
    rule of them all, not the first piece alone."""
    style = [c for c in candidates if c.should_store and c.polarity and c.subject == "answer_style"]
    if len(style) < 2:
        return candidates
    slot = SLOTS[style[0].tags[0]]
    style[0].content = slot.affirm.format(v="; ".join(_stated_value(c.content) for c in style))
    style[0].evidence = " ".join(dict.fromkeys(c.evidence for c in style))
    return [c for c in candidates if c is style[0] or not any(c is other for other in style)]


# a sentence's end: not the dot of an abbreviation or an initial ("Forget Dr. Smith, he retired.", "12 St. John's Rd.")
_SENTENCE_AFTER = re.compile(r"(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bSt)(?<!\bRd)(?<!\bNo)(?<!\bvs)(?<!\bMrs)(?<!\bProf)"
                             r"(?<!\be\.g)(?<!\bi\.e)(?<!\b[A-Z])[.!?]+\s+(?=\S)")
# a first sentence this short says too little to forget by ("Forget it. ..."): the whole message is what to forget
_FORGET_MIN_WORDS = 2


def _forget_and_rest(said: str) -> tuple[str, str]:
    """What a "forget ..." message asks to forget (its first sentence), and what it says after that."""
    end = _SENTENCE_AFTER.search(said)
    if end is None or (len(said[:end.start()].split()) < _FORGET_MIN_WORDS and not re.search(
            r"\d|lines?|words?|bullets?|paragraphs?|short|long|format|english|spanish", said[:end.start()],
            re.IGNORECASE)):
        return said.strip(" .!"), ""
    return said[:end.start()].strip(" .!"), said[end.end():].strip()


def _with_labelled_fields(candidates: list[Candidate], message: Message, text: str) -> list[Candidate]:
    """The facts the text gives as labelled fields (fields.py: "Employer: Bitpanda.", "City: Leeds"), each in the slot
    its label names: a fact found over the same words in another slot or with more words ("User uses Bitpanda.",
    "User's job: nurse City.") is that field misread, and is dropped."""
    fields = labelled_fields(text)
    if not fields:
        return candidates
    out = list(candidates)
    for field in fields:
        words = set(terms(field.value))
        if not words:
            continue
        sentence = sentence_around(text, field.start, field.end)
        if screen(field.value, sentence, field.slot, False, sentence, message.content):
            continue
        same = False
        for c in out:
            value = set(terms(_stated_value(c.content)))
            if not (c.should_store and c.polarity and c.tags and value & words):
                continue
            if c.tags[0] == field.slot and value == words:
                same = True
            else:
                c.should_store, c.rejection_reason = False, "a_labelled_field"
        if not same:
            out.append(slot_candidate(SLOTS[field.slot], field.value, sentence, False, message, PASSING_CONFIDENCE))
    return out


def _not_moved_yet(candidates: list[Candidate]) -> list[Candidate]:
    """A home the message names only as the place of a dated plan to move there is no home yet: the plan makes it the
    home when its day comes (moves.due_move). "we are moving the 12th of April, to a flat in Bath" had the tagger
    read both the plan and "User lives in Bath." """
    places = {move[0].lower() for c in candidates
              if c.should_store and c.polarity and c.tags and c.tags[0] == "plan"
              and (move := planned_move(c.content)) is not None}
    for c in candidates:
        if (places and c.should_store and c.polarity and c.tags and c.tags[0] == "home_location"
                and _stated_value(c.content).lower() in places):
            c.should_store, c.rejection_reason = False, "not_moved_yet"
    return candidates


def _sure_of_a_move(candidates: list[Candidate], text: str) -> list[Candidate]:
    """The home the user names in a message that says they moved, as sure as a move said outright: the tagger was
    0.66 sure of "me n jas got a house in rusholme" after "MOVED OUT OF HALLS!!", and the old home, said surely,
    outranked it (conflicts.doubtful_change: a doubtful reading is no change)."""
    if not _MOVED_HOME.search(text):
        return candidates
    for c in candidates:
        if c.should_store and c.polarity and c.tags and c.tags[0] == "home_location":
            c.confidence = max(c.confidence, MOVE_CONFIDENCE)
    return candidates


def _no_relative_as_partner(candidates: list[Candidate]) -> None:
    """A relationship read as a name the user's stored family gives to someone else ("Marisol made me watch a
    documentary", Marisol the granddaughter) is no partner of the user's."""
    relatives = relatives_not_partners()
    for c in candidates:
        if c.should_store and c.polarity and c.tags[:1] == ["relationship_status"]:
            named = _stated_value(c.content).split()
            if len(named) == 1 and named[0].lower() in relatives:
                c.should_store, c.rejection_reason = False, "about_someone_else"


def _replaced_in_passing(candidates: list[Candidate], message: Message, text: str) -> list[Candidate]:
    """A medicine the message names before the words of a replacement, another named after them, is ended, not
    taken ("The ramipril make me cough all night, doctor give me other one now, amlodipine")."""
    replaced = named_before_replacing(text, medicines_in(text))
    if not replaced:
        return candidates
    out = []
    for c in candidates:
        value = _stated_value(c.content)
        if (c.should_store and c.polarity and c.tags and c.tags[0] == "health" and value
                and value.split()[0].lower() in replaced):
            out.append(slot_candidate(SLOTS["health"], value, c.evidence or text, True, message, c.confidence))
        else:
            out.append(c)
    return out


def _said_in_rule(slot: Slot, said: Sequence[tuple[int, int, str]], candidates: list[Candidate], message: Message,
                  text: str, names_it: Callable[[Candidate, str], bool], stored_only: bool = True,
                  negated: bool = False) -> list[Candidate]:
    """Facts an exact reading found (start, end, value in the text) as candidates of the slot (``negated``: as
    ended), each where its sentence states rather than asks, the screen passes it, and no candidate of the slot
    already ``names_it``."""
    out = []
    for start, end, value in said:
        sentence = sentence_around(text, start, end)
        if is_question(sentence) or any((c.should_store or not stored_only) and c.tags and c.tags[0] == slot.name
                                        and names_it(c, value) for c in candidates):
            continue
        if not screen(value, sentence, slot.name, False, sentence, message.content):
            out.append(slot_candidate(slot, value, sentence, negated, message, PASSING_CONFIDENCE))
    return out


# "backend @ fernwerk", "now @ kessel": an "@" between words, as texting and terse notes write "at" (an address or
# a handle has no space on both sides of it); the tagger, trained on "at", reads "@" as a piece of the name
_AT_SIGN = re.compile(r"(?<=\w) @ (?=\w)")


def at_spelled_out(text: str) -> str:
    """The text with an "@" written for "at" spelled out ("backend @ fernwerk" -> "backend at fernwerk")."""
    return _AT_SIGN.sub(" at ", text)


# the slots a standing rule may already be read into
_RULE_SLOTS = ANSWER_SLOTS | {"instruction", "prefers"}
# slots a technology in a terse list is misread into ("User's job: k8s.", "User lives in postgres.")
_NOT_A_TECHNOLOGY = frozenset({"job", "name", "home_location", "hometown", "health", "avoids", "education"})


_STACK_SAID = re.compile(r"^User's project uses (.+?)\.?$")


def _value_of(stack: Candidate) -> str:
    """A stack fact's value ("User's project uses Rails." -> "Rails")."""
    said = _STACK_SAID.match(stack.content)
    return said.group(1) if said else stack.evidence


_SLOT_WORDS = frozenset(terms("User User's job lives in is originally from avoids health studies name no longer"))


def _names_only(content: str, names: set[str]) -> bool:
    """Whether a fact's content says nothing but some of these names in its slot's words ("User's job: k8s.")."""
    said = set(terms(content))
    return bool(said & names) and said <= names | _SLOT_WORDS


# slots a medicine said as taken may be misread into ("Now im on Jardiance" as avoided, "take losartan every
# morning" as a routine, "prescribed gabapentin" as an allergy); never an allergy where the clause speaks of one
# a stack only weighed: "would it be faster to redo my Django site in Go", "thinking of porting my app to Rust"
_CONSIDERED = re.compile(r"\b(?:would|could|should|might|if|thinking|considering|redo|rewrite|rewriting|port|porting|"
                         r"migrat\w*|switch\w*|move|moving|try|trying)\b", re.IGNORECASE)


def _with_languages_asked(candidates: list[Candidate], message: Message, text: str) -> list[Candidate]:
    """The language the user asks the answers to be in, in the words of the language they write in (answer_stances.
    languages_asked: "réponds-moi en français stp", "nijibu kwa Swahili tu"), as the answer language, where the tagger
    read none it kept from those words: what it read there as a one-off request or a language the user speaks goes."""
    asked = languages_asked(text)
    if not asked:
        return candidates
    out = list(candidates)
    for start, end, language in asked:
        said = text[start:end]
        # the tagger's own reading of it stands ("respóndeme en español por favor, siempre")
        if any(c.should_store and c.tags and c.tags[0] in ANSWER_SLOTS
               and (language.lower() in c.content.lower()
                    or (c.evidence and (c.evidence in said or said in c.evidence))) for c in out):
            continue
        if MARKER in said or screen(said, said, "answer_language", True, said, message.content):
            continue
        # what the tagger read there as a one-off request goes; what it read as a language the user speaks stays
        out = [c for c in out if not (not c.should_store and c.tags and c.tags[0] in ANSWER_SLOTS and c.evidence
                                      and (c.evidence in said or said in c.evidence))]
        out.append(slot_candidate(SLOTS["answer_language"], f"answer in {language}", said, False, message,
                                  PASSING_CONFIDENCE))
    return out


# the same work at a new place: "Same position, QA engineer", "same job, better pay", "still a nurse", "ICU pa rin"
_SAME_WORK = re.compile(r"\bsame\s+(?:position|job|role|title|work|post)\b|\bstill\s+(?:as\s+)?(?:a|an)\s+\w+|"
                        # the work said beside the new place: "My first salary from Amazon came in, I'm a warehouse
                        # associate"
                        r"\bi['’]?m\s+(?:a|an)\s+\w+|\bas\s+(?:a|an)\s+\w+", re.IGNORECASE)


# ("allergic to penicillin" names a medicine the user must not take)
_NEVER_A_MEDICINE = frozenset({"name", "preferred_name", "age", "birthday", "family", "relationship_status",
                               "pet", "languages_spoken", "nationality", "hometown", "home_location"})


def with_medicines(found: list[_Found], index: int, message: Message, text: str,
                   explicit: bool) -> tuple[list[_Found], set[str]]:
    """The found values with the medicines the text says the user takes (medicines.py) read as health facts: a
    value over a medicine's name becomes that medicine (whatever slot the tagger gave it), a medicine the tagger
    left unmarked is added, and a medicine the text names as left behind is negated. Also the subjects of new
    medicines said to replace one the text does not name (Candidate.replaces_unnamed)."""
    mentions = medicines_in(text)
    left = ended_medicines(text)
    ended = {m.name.split()[0].lower() for m in left}
    replacing: set[str] = set()
    out: list[_Found] = []
    used: set[Mention] = set()
    for f in found:
        mention = next((m for m in [*mentions, *left] if m.start < f.span.end and m.end > f.span.start), None)
        if (mention is None or f.span.slot in _NEVER_A_MEDICINE
                or (f.span.slot == "allergy" and _ALLERGY_TALK.search(f.clause))):
            out.append(f)
            continue
        used.add(mention)
        out.append(_medicine_found(f.index, mention, max(f.span.confidence, PASSING_CONFIDENCE), message, text,
                                   explicit, ended))
    for mention in mentions:
        if mention not in used and all(mention.end <= f.span.start or mention.start >= f.span.end for f in found):
            out.append(_medicine_found(index, mention, PASSING_CONFIDENCE, message, text, explicit, ended))
    if not ended and replaces_unnamed(text):
        health = SLOTS["health"]
        replacing = {subject_for(health, without_dose(_clean_value(m.name))) for m in mentions}
    return sorted(out, key=lambda f: f.span.start), replacing


def _medicine_found(index: int, mention: Mention, confidence: float, message: Message, text: str, explicit: bool,
                    ended: set[str]) -> _Found:
    negated = mention.name.split()[0].lower() in ended
    return _Found(index, Span(mention.start, mention.end, "health", confidence, negated), mention.name,
                  clause_around(text, mention.start, mention.end), sentence_around(text, mention.start, mention.end),
                  message, explicit)


CARE_SLOT = "family_care"
LIFE_SLOT = "family_life"
# what said of a dependant is never the user's too (a child's party or school run is on the user's calendar)
_THEIRS_ONLY = frozenset({"allergy", "diet", "health", "avoids"})


def _theirs(span: Span, value: str, cared: list[Stretch]) -> bool:
    """A value said in a stretch about someone close that is theirs, not the user's: what a dependant or a guest must
    be allowed at the table ("our youngest is lactose intolerant"), and what a close one's life holds where the
    stretch says what they are or do ("Husband Juha. He is carpenter"); not "I, like my mum, am vegan"."""
    for s in cared:
        care, life = slots_of(s)
        if (s.start <= span.start and span.end <= s.end and span.slot in (care & _THEIRS_ONLY) | life
                and (span.slot != "event" or a_life_event(value))):
            return True
    return False


def slot_candidate(slot: Slot, value: str, clause: str, negated: bool, message: Message, confidence: float,
                   explicit: bool = False) -> Candidate:
    """A slot value found in a clause of a message, as a fact: the one normalisation every extractor
    shares (the learned one here, the LLM ones through domain/extraction/llm.py)."""
    instruction = _instruction(clause) if slot.category is Category.PROCEDURAL and slot.name != "habit" else None
    value = _clean_value(instruction, whole_clause=True) if instruction else _clean_value(value)
    if negated and instruction is None:
        value = _CEASING.sub("", value) or value
    value = name_said_whole(value + _qualifier(clause, value) if slot.name in _QUALIFIED else value, clause)
    if slot.name in ANSWER_SLOTS and instruction is None and (scoped := _with_scope(value, clause)) != value:
        # a rule for a kind of question stands beside the one for the rest, not in its place (answer rules are one
        # a slot; instructions are many)
        slot, value = SLOTS["instruction"], scoped
    # a word of change in the value itself ("User's hobby: New Wave records") says no change; an instruction's
    # value is its whole clause, whose "now" does ("you can give detailed answers now")
    correction = bool(_CHANGE.search(clause.replace(value, " ") if value and instruction is None else clause))
    return Candidate(
        category=slot.category, subject=subject_for(slot, _key_source(slot, value, clause)),
        # an instruction in the user's own words carries its own "not" ("could you not use bullet lists")
        content=_content(slot, value, clause, negated and instruction is None, message.created_at),
        confidence=confidence,
        evidence=clause, message_id=message.message_id, occurred_at=message.created_at,
        polarity=not negated, importance=slot.importance,
        source=SourceKind.USER_EXPLICIT if explicit or correction else SourceKind.EXTRACTED,
        sensitivity=Sensitivity.PERSONAL if slot.name in _PERSONAL else Sensitivity.NORMAL,
        correction=correction, tags=[slot.name],
        # the budget itself waits for confirmation, not every fact said beside it
        high_stakes=slot.category is Category.PROJECT_FACT and bool(_HIGH_STAKES.search(value)),
    )


# the kind of question an answer rule is for, said before it: "for code and technical questions give me terse bullets"
_SCOPE = re.compile(r"\b(?P<scope>for\s+(?:[\w-]+\s+){0,4}(?:questions|stuff|topics|things|chats?|messages))\b"
                    r"[^,;:.!?]{0,30}$", re.IGNORECASE)


def _with_scope(value: str, clause: str) -> str:
    """An answer rule with the kind of question it is for, where the clause says it before the rule."""
    at = clause.find(value)
    scope = _SCOPE.search(clause[:at]) if at > 0 else None
    return f"{scope.group('scope')}: {value}" if scope else value


_DANGLING = re.compile(r"\b(?:a|an|the|to|in|on|of|for|into|at|with|from|my|our|his|her|their|some|about|"
                       r"and|or)$", re.IGNORECASE)
_REST_OF_PHRASE = re.compile(r"^\s*([^,.;:!?()]+)")
PHRASE_MAX_WORDS = 12


def lifted_apart(candidate: Candidate, message: Message) -> list[Candidate]:
    """An answer rule that lifts an earlier one and then says what holds instead, as two facts: the lift and
    the new rule (see lift_and_rest); any other candidate as it is."""
    slot = SLOTS.get(candidate.tags[0]) if candidate.tags else None
    if slot is None or slot.name not in ANSWER_SLOTS or not candidate.should_store:
        return [candidate]
    instruction = _instruction(candidate.evidence)
    split = lift_and_rest(instruction) if instruction is not None else None
    if split is None:
        return [candidate]
    lift, rest = split
    parts = [slot_candidate(slot, lift, lift, True, message, candidate.confidence),
             slot_candidate(slot, rest, rest, False, message, candidate.confidence)]
    for part in parts:
        # one statement, one weight: the new rule must not lose to its own lift (R6 ranks sources)
        part.source, part.correction = candidate.source, candidate.correction
    return parts


# the user saying what they do, right before the job's words: "Now I work", "I'm", "I am", "I've been"
_ADVERBS = r"(?:\s+(?:now|also|just|currently|still|finally|officially|actually))*"
_JOB_OPENER = re.compile(
    # "working at urban outfitters in the arndale now": a clause that opens on the work, its "I" left out
    r"(?:(?:^|(?<=[,.;!?]))\s*(?:now\s+|currently\s+)?(?:working|workin['’]?)\b(?!\s+(?:from|on|out|late|"
    r"hard|too|so|remotely)\b)|"
    r"\b(?:i(?:['’]m|m| am|['’]ve been|ve been| have been)\b" + _ADVERBS + "|"
    r"i\b" + _ADVERBS + r"(?:\s+(?:have|['’]ve))?\s+(?:work|working|joined|run|running|manage|managing|own|teach|"
    r"teaching)\b|"
    # "I started last week as deputy principal at Scoil Éanna": a new job said by when it began, lately ("as"
    # makes it the work, "I started running" is none; "I started as an intern and worked my way up" is a memory)
    r"i\b(?:['’]ve|\s+have)?(?:\s+(?:just|finally|officially))\s+(?:started|began)(?:\s+[\w']+){0,3}?\s+as\b|"
    r"i\b(?:['’]ve|\s+have)?\s+(?:started|began)\s+(?:(?:last|this)\s+\w+|yesterday|today|recently|(?:on\s+)?\w+day)"
    r"\s+as\b))"
    r"(?:\s+(?:now|also|just|currently|still|am|working|employed|a|an)\b)*\s*", re.IGNORECASE)
JOB_PHRASE_MAX_WORDS = 14


# slots a job said as what the user does is misread into ("I do yacht deliveries for a living" as a hobby)
PASTIME_SLOTS = frozenset({"hobby", "habit", "likes"})
# what the user does to earn: said right after the value, or closing it
_FOR_A_LIVING = re.compile(r"^\s*(?:for (?:a|my|our) living|to (?:earn|make) (?:a|my|our) living|"
                           r"to pay (?:the|my|our) (?:bills|rent))\b", re.IGNORECASE)
_CLOSES_WITH_A_LIVING = re.compile(r"\s+(?:for (?:a|my|our) living|to (?:earn|make) (?:a|my|our) living|"
                                   r"to pay (?:the|my|our) (?:bills|rent))\s*$", re.IGNORECASE)


def for_a_living(value: str, clause: str) -> str | None:
    """The value without its "for a living" when the user says they do it to earn ("i fix boats for a living",
    "drive a cab to pay the bills"): a job; None when the clause says no such thing of it."""
    closing = _CLOSES_WITH_A_LIVING.search(value)
    if closing is not None:
        return value[:closing.start()].strip() or None
    at = clause.find(value)
    return value if at >= 0 and _FOR_A_LIVING.match(clause[at + len(value):]) else None


# a trade's verb and an employer named after "for": "drive for Bring", "writes for The Guardian" (a capital, so
# "i cook for my kids" and "i drive for fun" stay what they were)
_WORKS_FOR = re.compile(r"^(?:drive|deliver|write|code|cook|clean|teach|design|fly|sell|build|develop|program|"
                        r"freelance|contract|consult|nurse|ride|courier|translate|edit|report|play)(?:s|ing)? "
                        r"for (?:the )?[A-Z0-9]\w")


_WORKS_FROM = re.compile(r"\b(?:i\s+|i['’]m\s+|im\s+)?(?:work|working|based)\s+(?:remote(?:ly)?\s+|from home\s+)?"
                         r"(?:out of|from)\s+(?:the\s+)?$", re.IGNORECASE)


def works_from(value: str, clause: str) -> bool:
    """Whether the clause says the user works from the place ("work remote from Limassol"): where they live."""
    at = clause.find(value)
    return at > 0 and bool(_WORKS_FROM.search(clause[:at]))


def works_for(value: str) -> str | None:
    """The value when it is a trade done for a named employer ("drive for Bring, local delivery with a van"): the
    user's job, not a routine; None otherwise."""
    return value if _WORKS_FOR.match(value) else None


# a workplace the job's value ends on, and the place right after it: "gameplay programmer, small indie studio" + " in
# pangyo", "picker at the Tesco distribution centre" + " in Daventry". The screen keeps the place out of the home
# (it is where the user works), so it stays only if the job keeps it
_ENDS_ON_A_WORKPLACE = re.compile(
    r"\b(?:studio|office|clinic|hospital|shop|store|school|restaurant|caf[eé]|bar|pub|salon|company|firm|factory|"
    r"plant|warehouse|depot|branch|lab|agency|bank|hotel|startup|start-up|centre|center|practice|surgery|bakery|"
    r"garage|site|mill|farm|mine|yard|dealership|pharmacy|library|museum|university|college|nursery|kitchen)$",
    re.IGNORECASE)
_PLACE_AFTER = re.compile(r"\s+(?:in|at)\s+(?:the\s+)?(?!(?:morning|mornings|evening|evenings|afternoon|"
                          r"afternoons|night|nights|weekends?|moment|end|same|time)\b)"
                          r"(?P<place>[^\W\d_][\w'’-]*(?:\s+(?-i:[A-Z])[\w'’-]*)?)"
                          r"(?=\s*(?:[,.;:!?()]|\s-\s|$)|\s+(?:and|but|so|where|though)\b)", re.IGNORECASE)


def with_workplace_place(value: str, clause: str) -> str:
    """The job's value with the place of its workplace, said right after it (see _ENDS_ON_A_WORKPLACE)."""
    at = clause.find(value)
    if at < 0 or not _ENDS_ON_A_WORKPLACE.search(value):
        return value
    place = _PLACE_AFTER.match(clause, at + len(value))
    return clause[at:place.end()] if place else value


# the city said just before the part of it the value names: "in Berlin, in Kreuzberg", "in Lyon, in the 6th
# arrondissement" (the tagger marks the second place alone, and the city is lost)
_CITY_BEFORE = re.compile(r"\bin\s+(?:(?P<city>(?-i:[A-Z])[\w'’-]+(?:\s+(?-i:[A-Z])[\w'’-]+)?),\s+(?:in\s+)?|"
                          r"(?P<low>[^\W\d_][\w'’-]+),\s+in\s+)(?:the\s+)?$", re.IGNORECASE)


def with_city_before(value: str, clause: str) -> str:
    """A home's value with the city said right before it (see _CITY_BEFORE), after it: "Kreuzberg, Berlin"."""
    at = clause.find(value)
    m = _CITY_BEFORE.search(clause[:at]) if at > 0 else None
    if m is None:
        return value
    city = m.group("city") or m.group("low")
    return value if city.lower() in value.lower() else f"{value}, {city}"


# a day the user has something on, said of it as "it": "I am preparing for the Goethe B2 exam, it is on 12 March" (the
# tagger reads the date as a project's deadline)
_A_DOING_WITH_A_DAY = re.compile(
    r"\b(?P<what>(?:(?:the|my|a|an)\s+)?(?:[\w'-]+\s+){0,3}?(?:exams?|tests?|interview|appointment|surgery|operation|"
    r"race|marathon|audition|hearing|scan|check-?up|graduation|wedding|conference|talk|presentation|viva|"
    r"defen[cs]e|recital|concert|match|tournament))\b[^.;!?]{0,30}?\bit\s*(?:is|'s|’s|will be|takes place)\s+"
    r"(?:on\s+)?$",
    re.IGNORECASE)


def dated_doing(value: str, sentence: str) -> str | None:
    """"Goethe B2 exam on 12 March" where the sentence names a doing and then says "it is on" the value's day."""
    at = sentence.find(value)
    m = _A_DOING_WITH_A_DAY.search(sentence[:at]) if at > 0 else None
    if m is None:
        return None
    what = re.sub(r"^(?:the|my|a|an)\s+", "", m.group("what"), flags=re.IGNORECASE)
    return f"{what} on {value}"


def job_phrase(value: str, clause: str) -> str:
    """A job is title and employer as one fact (docs/slots.md), and the tagger marks a piece of it ("Stuttgart" of
    "I work since 6 years as mechanical engineer by Bosch in Stuttgart", "& Co" of "I am running a small bakery
    in Pune, name is Crumb & Co"): the value runs back to where the user says what they do, the last "I work",
    "I'm", "I am" before it in its clause, when that is near (``JOB_PHRASE_MAX_WORDS``)."""
    at = clause.find(value)
    if at < 0:
        return value
    openers = list(_JOB_OPENER.finditer(clause, 0, at))
    if not openers:
        return value
    start = openers[-1].end()
    # a title taken back on the way keeps only the one meant ("as senior data analyst, sorry, senior data engineer")
    phrase = _TAKEN_BACK_IN_PHRASE.split(clause[start:at + len(value)])[-1].strip(" ,")
    # how long, "as" and "at" say nothing of which job: "since 6 years as engineer" -> "engineer", "at Target" -> Target
    phrase = _HOW_LONG_AS.sub("", phrase) or phrase
    if _NEW_SUBJECT.search(phrase[:max(0, phrase.find(value))]):
        return value  # "I work as QA at Finvo and we use Cypress for the e2e tests": "tests" is no part of the job
    before = phrase[:max(0, phrase.find(value))]
    if _INTRO_LIST.search(before):
        return value  # "im dana, 41, nurse": the name and the age are no part of the job
    if _I_AGAIN.search(before):
        return value  # "I am Wanjiru I farm in Nyeri": a new clause began, the name is no part of the job
    named = _ONE_WORD_THEN_COMMA.match(before)
    if named and names_self(named.group(1), clause):
        return value  # "im jodie, nurse on a cardio ward": the name is no part of the job ("I'm freelance, ..." is)
    return phrase if value in phrase and len(phrase.split()) <= JOB_PHRASE_MAX_WORDS else value


_I_AGAIN = re.compile(r"(?:^|\s)I(?:\s|$)")
_ONE_WORD_THEN_COMMA = re.compile(r"^\s*([^\W\d_][\w'-]*)\s*,\s*$")
# an introduction's list before the job: a number said alone between commas (the age), as in "dana, 41, nurse"
_INTRO_LIST = re.compile(r"(?:^|,|\s)\s*\d{1,3}\s*(?:,|$)")  # "im dana, 41, nurse", "im dana 41 nurse"
_NEW_SUBJECT = re.compile(r"\b(?:and|but|so|while|because)\s+(?:we|i|they|he|she|my|our|it)\b", re.IGNORECASE)


_HOW_LONG_AS = re.compile(r"^(?:(?:since|for)\s+(?:\w+\s+){0,2}(?:years?|months?|weeks?)\s+)?(?:as|at)\s+|"
                          r"^(?:since|for)\s+(?:\w+\s+){0,2}(?:years?|months?|weeks?)\s+", re.IGNORECASE)


_TAKEN_BACK_IN_PHRASE = re.compile(r"[,;.]*\s*\b(?:sorry|i mean|i meant|wait,? no|no,? wait|or rather|scratch that)\b"
                                   r"[,;:.]*\s*", re.IGNORECASE)


_A_NUMBER_ONLY = re.compile(r"^\W*(?:(?:of|a|an|the|to|by|is|was|for)\s+)*\d+\W*$", re.IGNORECASE)


def deadline_date(value: str, clause: str, when: datetime) -> str:
    """A deadline the tagger read as a bare number beside the date ("of 3" of "MVP deadline is 15 March, team of
    3") is the date its clause names nearest to it; any other value stands."""
    if not _A_NUMBER_ONLY.match(value):
        return value
    at = clause.find(value)
    near = anchor_near(clause, at, at + len(value), when) if at >= 0 else None
    return near[1] if near else value


def completed_phrase(value: str, clause: str) -> str:
    """A phrase value cut off after a function word ("booked a", "getting back into") runs on to the
    end of its phrase in the clause ("booked a week in tenerife from the 3rd of june")."""
    if not _DANGLING.search(value.strip()):
        return value
    at = clause.find(value)
    rest = _REST_OF_PHRASE.match(clause[at + len(value):]) if at >= 0 else None
    if rest is None:
        return value
    longer = f"{value.rstrip()} {rest.group(1).strip()}"
    return longer if len(longer.split()) <= PHRASE_MAX_WORDS else value


# the words that end a fact, said before what ended ("quit volleyball", "gave up meat", "not vegan")
# verbs that end a fact ("quit volleyball", "gave up meat")
_ENDING_VERBS = (r"quit|quitting|stopped|stopping|gave up|given up|give up|giving up|ditched|uninstalled|deleted|"
                 # in the languages users switch to: "dejé keto", "parei de fumar", "j'ai arrêté le vin"
                 r"dej[ée](?: de)?|dejamos|abandon[ée]|par[ée]i de|deixei(?: de)?|larguei|arr[êe]t[ée](?: de)?|"
                 r"aufgeh[öo]rt mit")
_CEASING_WORDS = r"not|never|no longer|dropped|" + _ENDING_VERBS
_NEGATION = re.compile(
    r"(?:\b(?:" + _CEASING_WORDS + r"|no|none|nothing|anymore|any more|stop|sold|left|lost|ex|former|used to|"
    # "off" of a phrasal verb ("sign off is June now", "day off", "time off") ends nothing
    r"without|cancel\w*|(?<!\bsign )(?<!\bsigned )(?<!\bday )(?<!\bdays )(?<!\btime )(?<!\bkick )(?<!\blog )off|"
    r"done with|over|ditch\w*|dump\w*|drop\w*|got rid of|replac\w*|swap\w*|switch\w*|"
    r"moved (?:on|away)|retired|broke up|divorced|instead)\b|n't\b)", re.IGNORECASE)
# "avoids" and "dislikes" carry their own "not" ("I don't drink anymore", "not a fan of small talk"): only
# the avoiding itself undone negates them ("I don't avoid gluten anymore", "I eat meat again")
_CHANGED = re.compile(r"\b(?:(?:no longer|don't|do not|not|stopped|quit) (?:avoid|avoiding|mind|minding|dislike|hate|"
                      r"hating)|again|changed my mind|c[oa]me round|warmed up to)\b", re.IGNORECASE)
_NEGATIVE_SLOTS = frozenset({"avoids", "dislikes"})


def said_no_longer(slot: str, clause: str, value: str = "") -> bool:
    """The tagger's "negated" holds only where the clause says so: a negation word for most slots, a
    change for the slots that are negative already. After the value only a word that ends what came before
    counts: in "I said Porto, not Lisbon" the "not" is Lisbon's, not Porto's. Only the words since the user last
    took up a new thought as subject count ("and I", "but we"); a relative is gone only where words of having none
    come right before them (words of their being gone after them are gone_after's)."""
    if slot in _NEGATIVE_SLOTS:  # "I don't drink anymore": "anymore" is the avoiding's, which holds
        return bool(_CHANGED.search(clause))
    at = clause.find(value) if value else -1  # no value: the whole clause is read
    if at > 0:
        # only the words since the user last took up a new thought as subject: in "I've left Lendwise and I started
        # as head of marketing at Greenloop" the leaving is Lendwise's, not the new job's
        at_new = max((m.end() for m in _USER_AGAIN_AS_SUBJECT.finditer(clause, 0, at)), default=0)
        clause, at = clause[at_new:], at - at_new
    if slot == "family" and at >= 0:
        # a relative is no longer in the user's life only where the words before them say it ("no kids", "lost my
        # dad"; their death or absence said after them is gone_after's): "I stopped cycling to my mum's" ends the
        # cycling
        return bool(_NO_RELATIVE.search(clause[:at]))
    if at < 0:
        return bool(_NEGATION.search(clause))
    if _NEVER_ENDED.search(clause[:at]):
        return False  # "I never stopped going to the gym": two negations, the going goes on
    return bool(_NEGATION.search(clause[:at]) or _ENDED_AFTER.search(clause[at + len(value):]))


# an ending denied right before the value: "I never stopped going to the gym", "haven't given up on the guitar"
_NEVER_ENDED = re.compile(r"(?:\bnever|n['’]t|\bnot)\s+(?:really\s+|actually\s+)?(?:stopped|quit|given up|gave up|"
                          r"give up|dropped)(?:\s+(?:on|the|my|going to|going|doing|playing))*\s+$", re.IGNORECASE)


# a new clause of the user's own within a sentence: "and I", "but we", "so I"
_USER_AGAIN_AS_SUBJECT = re.compile(r"\b(?:and|but|so|then|now)\s+(?:i|we)\b", re.IGNORECASE)
# a relative the user has not, or no longer has, said just before them ("I don't have kids", "we lost our son")
# ("not" is no such word: "I'm not a mum" says nothing of the user's mother)
_NO_RELATIVE = re.compile(r"\b(?:no|never had|(?:don['’]t|do not|didn['’]t|did not) have|"
                          r"(?:haven['’]t|have not) got|have no|no longer (?:have|got)|without|lost)"
                          r"\s+(?:(?:any|a|an|my|our|both|all|of|the|two|three|four)\s+){0,2}$", re.IGNORECASE)
# what, said after a value, ends it ("vegan, not anymore", "the Fiat is gone")
_ENDED_AFTER = re.compile(r"\b(?:any ?more|no more|no longer|for good|is gone|are gone|is over|is history)\b",
                          re.IGNORECASE)


_WORD_BEFORE = re.compile(r"([A-Za-z']+)\s+$")
EVENT_MIN_WORDS_WITHOUT_VERB = 3


def event_value(value: str, clause: str) -> str | None:
    """What happened, with its verb: the tagger often marks only the object ("the Gesellenprüfung" in "I
    passed the Gesellenprüfung"), so a past verb just before it joins it. A value of a word or two with no
    verb at all ("Melbourne", "new Massey") is no event: no labelled event in the training data is one."""
    words = value.split()
    if not any(is_past_verb(w) for w in words):
        at = clause.find(value)
        before = _WORD_BEFORE.search(clause[:at]) if at > 0 else None
        if before and is_past_verb(before.group(1)):
            return f"{before.group(1)} {value}"
        if len(words) < EVENT_MIN_WORDS_WITHOUT_VERB:
            return None
    return value


# slots whose value is or holds a date the tagger may mark in part ("30" of "30 June", "june" of "june 30")
DATED_SLOTS = frozenset({"project_deadline", "birthday"})
# slots whose value a user stops having, doing or using ("gave up the watercolours", "traded in the old F-150");
# never family, names or ages ("dropped the kids at school" ends nothing), nor health, where an episode ending
# ("my asthma attack is finally over") is no end of the condition: a medicine stopped is read by stopped_taking
CEASABLE_SLOTS = frozenset({"diet", "hobby", "uses", "owns", "job", "employer", "habit", "likes", "learning",
                            "project_stack", "current_project", "prefers", "favorite", "home_location"})
# a verb of ending right before the value, with at most a few function words between ("quit the keto thing",
# "given up on the watercolours", "taken me off warfarin", "moved out of the Delft dorm", "I moved from Curitiba":
# past tense only, "we are moving from Lyon" has not happened yet)
# "taken me off warfarin", "came off the pill": a medicine's ending, and a diet's or a habit's
_TAKEN_OFF = r"(?:taken|took|take|came|come|got|went|gone|coming)(?: me| him| her)? off"
_ENDED_BEFORE = re.compile(
    r"\b(?:" + _ENDING_VERBS + r"|ditching|sold|selling|got rid of|traded in|trading in|" + _TAKEN_OFF + r"|"
    r"moved (?:out of|away from)|(?:moved|relocated)(?:\s+[\w'’]+){0,3}?\s+from|no longer|not anymore|no more|"
    # "I'm done with the book club"; not "when I'm done with the course"
    r"(?<!when )(?<!once )(?<!after )(?<!until )(?<!before )(?<!as )(?<!if )(?:i'm|im|i am|we're|we are) "
    r"(?:so |totally |officially |"
    r"finally |really )?done with)"
    r"(?:\s+(?:on|the|my|our|a|an|with|using|doing|eating|playing|taking|at|of|from|that|this|whole|old|all|"
    r"going to|going|drinking|watching|attending|el|la|los|las|mi|mis|le|les|del|du|o|os))*\s+$",
    re.IGNORECASE)


def _words_before(value: str, clause: str) -> str:
    """What the clause says before the value ("" where the value is not in it as written)."""
    return clause[:max(0, clause.find(value))]


def _said_before(pattern: re.Pattern[str], value: str, clause: str) -> re.Match[str] | None:
    """``pattern`` (anchored at its end) right before the value, unless what comes before it denies, wishes or
    only plans it ("I can't quit", "thinking of switching")."""
    at = clause.find(value)
    said = pattern.search(clause[:at]) if at > 0 else None
    return (said if said is not None and not DENIED_OR_WISHED.search(clause[:said.start()])
            and not only_if(clause[:said.start()], clause[at + len(value):]) else None)


# "I'd" before the ending and a condition after it: "I'd quit the gym if it wasn't so close" (not "I'd quit the gym
# years ago", where "'d" is "had")
_I_WOULD = re.compile(r"\b(?:i|we)['’]d\s+(?:\w+\s+)?$", re.IGNORECASE)
_IF_AFTER = re.compile(r"^[^.!?;]*?\b(?:if|unless)\b", re.IGNORECASE)


def only_if(before: str, after: str) -> bool:
    """The ending said between ``before`` and ``after`` is one the user would make on a condition."""
    return bool(_I_WOULD.search(before) and _IF_AFTER.match(after))


# a medicine (health holds the ones a user takes, docs/slots.md) stopped, right before its name: "taken me off
# warfarin", "I stopped the sertraline", "no longer on metformin"
_STOPPED_TAKING = re.compile(
    r"\b(?:" + _TAKEN_OFF + r"|stopped(?: taking)?|"
    r"quit(?: taking)?|no longer(?: taking| on)?)(?:\s+(?:the|my|of|on|all))*\s+$", re.IGNORECASE)


def stopped_taking(value: str, clause: str) -> bool:
    """The clause says, right before a medicine, that the user stopped taking it (health facts end only so)."""
    return _said_before(_STOPPED_TAKING, value, clause) is not None


# the value a switch left, said before the one it went to: "changed me from methotrexate to a weekly injection",
# "we migrated the shop from Square Online Store to Shopify", "shifted our books from QuickBooks to Xero": the
# polarity head reads the value left as the user's still (switched_from reads the same switch from the value gone
# to, where the tagger marks only that one). Past tense only: "we are moving from Lyon to Paris" has not happened.
# Not "went": "I went from Tesco to my mum's", "went from the gym to the pub" are trips
_SWITCHED_AWAY = re.compile(
    r"\b(?:switched|migrated|moved|changed|transitioned|upgraded|swapped|shifted|converted)"
    r"(?:\s+(?:the|my|our|his|their))?(?:\s+[\w'-]+){0,2}?"  # what moved: "me", "the shop", "accounts", "over"
    r"\s+from(?:\s+(?:the|my|our|an?|using))?\s+$", re.IGNORECASE)
# what the switch went to, after the value left: "... to Xero", "... onto a weekly injection"
_SWITCHED_ONTO = re.compile(r"^[^,.;:!?()]{0,40}?\s(?:to|onto|into|for)\b", re.IGNORECASE)


def left_in_a_switch(value: str, clause: str) -> bool:
    """The value is the one a switch said in the clause left behind ("moved from X to Y": X)."""
    if _said_before(_SWITCHED_AWAY, value, clause) is None:
        return False
    return bool(_SWITCHED_ONTO.match(clause[clause.find(value) + len(value):]))


# "I use Waze instead of Google Maps", "I use WeChat for everything, not WhatsApp", "android not iphone": the value
# right after is the one the user does not have
_NOT_THIS_ONE = re.compile(r"(?:\b(?:instead of|rather than)|(?<![\w'’])not)(?:\s+(?:the|my|a|an|any|on))?\s+$",
                           re.IGNORECASE)


def not_this_one(value: str, clause: str) -> bool:
    """The value comes right after "not", "instead of" or "rather than": the user does not have it."""
    at = clause.find(value)
    return at > 0 and _NOT_THIS_ONE.search(clause[:at]) is not None


# right after a pet or a relative, that they died ("our old dog Rex passed away in August", "my cat died this
# morning"); right after a partner, that the user and they parted ("my girlfriend and I broke up")
# (not the owner's: "my mum's friend passed away"; "passed" only said alone or with when: "my son passed his
# driving test" is no death)
_DIED_AFTER = re.compile(
    r"^(?!['’]s\b)\W*(?:[\w'’-]+\s+){0,2}?(?:(?:has|have|had|just|sadly|recently|unfortunately)\s+)*"
    r"(?:passed away|passed on|died|was put down|were put down|had to be put down|"
    r"passed(?=\s*(?:$|[,.;:!?)]|(?:in|on|last|this|earlier|recently|suddenly|peacefully|yesterday|today|during|"
    r"at|before|after|when|and|so|but|\d)\b)))(?!\w)"
    # or no longer here: "my grandparents are no longer alive", "my dad's no longer with us", "the cat is gone" (not
    # gone somewhere: "my mum's gone to Spain")
    r"|^\W*(?:is|are|['’]s|has|have)\s+(?:no longer (?:with us|alive|around|here)|"
    r"gone\b(?!\s+(?:to|for|out|off|away|back|on|up|down|into|home|shopping|quiet)\b))", re.IGNORECASE)
_PARTED_AFTER = re.compile(r"^\s+and i\s+(?:(?:just|finally|have|had|'ve)\s+)*"
                           r"(?:broke up|split up|separated|got divorced|divorced)(?!\w)", re.IGNORECASE)
_GONE_AFTER = {"pet": _DIED_AFTER, "family": _DIED_AFTER, "relationship_status": _PARTED_AFTER}


# "me and my boyfriend Dan split up", "me n callum split up": the user and the partner named together, then parted
_ME_AND_BEFORE = re.compile(r"\b(?:me|i)\s+(?:and|n|&)\s+(?:my\s+)?$", re.IGNORECASE)
_WE_PARTED_AFTER = re.compile(r"^\s+(?:\(?[A-Z][\w'’-]*\)?\s+)?(?:(?:just|finally|have|had|'ve|officially)\s+)*"
                              r"(?:broke up|split up|separated|got divorced|divorced|called it quits)(?!\w)")


def gone_after(slot: str, value: str, clause: str) -> bool:
    """The clause says right after the value that the pet or the relative died or is no longer with us, or that the
    user and their partner parted: they are no longer in the user's life."""
    pattern = _GONE_AFTER.get(slot)
    at = clause.find(value)
    if pattern is None or at < 0:
        return False
    after = clause[at + len(value):]
    return pattern.match(after) is not None or (slot == "relationship_status" and bool(
        _ME_AND_BEFORE.search(clause[:at])) and _WE_PARTED_AFTER.match(after) is not None)


def ended_just_before(value: str, clause: str) -> bool:
    """The clause says, right before the value or in its first words, that it ended: "I quit the keto thing",
    "gave up on the watercolours", "quit volleyball" marked whole. The tagger's polarity head reads such clauses as
    stating the value. Not a pause said right after it ("no more gaming until my exams are done", "quit the gym
    for now")."""
    return not paused(value, clause) and (_said_before(_ENDED_BEFORE, value, clause) is not None
                                          or _opens_ended(value, clause))


# "nearly" or "almost" right before the ending: "I nearly quit the choir", "almost gave up on running"
_NEARLY = re.compile(r"\b(?:nearly|almost)\s+(?:[\w'’]+\s+){1,3}$", re.IGNORECASE)


def nearly_ended(value: str, clause: str) -> bool:
    """The clause says the value nearly ended, right before it."""
    at = clause.find(value)
    return at > 0 and bool(_NEARLY.search(clause[:at]))


def paused(value: str, clause: str) -> bool:
    """The clause says, right after the value, that its ending is for a while only ("quit the gym for now")."""
    at = clause.find(value)
    if at < 0:
        return False
    after = clause[at + len(value):]
    return bool(_FOR_A_WHILE.match(after) or (_NO_MORE_BEFORE.search(clause[:at]) and _THIS_TIME.match(after)))


# the ending inside the value itself, where the tagger's span took the verb in ("quit volleyball"); lower case only,
# as _CEASING, which drops it from the candidate, strips it (a title keeps its words: "Give Up the Ghost"), and
# not a call on the way ("stopped by the bakery", "stopping off at the market")
_OPENS_ENDED = re.compile(r"^(?:" + _ENDING_VERBS + r")\s+(?!(?:by|in|off|at|over|round|for)\b)\S")


def _opens_ended(value: str, clause: str) -> bool:
    """The value opens with a verb of ending, and the words before it neither deny nor only wish it ("never quit
    smoking", "trying to quit sugar")."""
    at = clause.find(value)
    return _OPENS_ENDED.match(value) is not None and (at < 0 or not DENIED_OR_WISHED.search(clause[:at]))


# someone moved the user off one thing onto another: "my GP moved me from lisinopril to amlodipine", "they've
# switched me over from the night shift"; what follows "from" is what ended (the user's, "me" says so)
_MOVED_ME_FROM = r"(?:switched|moved|changed|swapped|transferred|put) (?:me|him|her)(?: over| back)? from"
# a verb of ending and what it ended, named in passing ("stopped the futsal", "given up the painting", "switched me
# off the warfarin"): the tagger, which learned values from messages that introduce them, seldom marks a name
# the user only refers back to; only the name's first words, up to the first that is no part of a name
_ENDED_NAME = re.compile(
    r"\b(?:" + _ENDING_VERBS + r"|ditching|" + _TAKEN_OFF + r"|switched (?:me |him |her )?off|" + _MOVED_ME_FROM + r")"
    r"(?:\s+(?:on|the|my|our|with|doing|playing|taking|going to|learning|using|eating|drinking|watching|all|whole|"
    r"that|this))*\s+"
    r"(?P<name>[^\W\d_][\w'-]*(?:\s+[^\W\d_][\w'-]*){0,2})", re.IGNORECASE)
_NO_NAME = frozenset({
    "a", "an", "and", "as", "at", "after", "all", "altogether", "any", "anyway", "because", "before", "but", "by",
    "completely", "day", "days", "for", "from", "her", "him", "i", "in", "it", "its", "it's", "last", "lol", "me",
    "month", "months", "now", "of", "on", "once", "one", "since", "so", "something", "that", "them", "then",
    "there", "these", "they", "this", "those", "though", "to", "today", "too", "totally", "us", "week", "weeks",
    "when", "while", "year", "years", "yesterday", "you", "recently", "finally", "basically", "entirely",
    "talking", "working", "work", "job", "trying", "caring", "worrying", "thinking", "everything", "anything",
    "what", "which", "who", "where", "how", "we", "he", "she", "is", "was", "be", "been", "being", "just",
    "onto", "into", "with", "without", "instead", "again", "or", "if", "until", "cold",
})
# the user as the one who ended it: "I stopped", "we've given up", or a sentence that starts with the verb ("Quit
# smoking in May"); not "my brother quit smoking" (a verb with "me", "switched me off", is the user's anyway)
USER_BEFORE = re.compile(r"(?:^|[,.;:!?(]|\b(?:i|i've|ive|i have|i had|i'd|we|we've|we have|we had))"
                          r"(?:\s+(?:just|finally|also|already|now|recently|totally|kinda|basically|officially|"
                          r"actually|sadly|have|had|'ve))*\s*$", re.IGNORECASE)
# the ending as a time still to come or a condition ("once I quit the gym I'll take up swimming", "when I quit
# the gym I'll have more time"): "when" may look back too, but an ending missed is said again, a fact retired
# wrongly is gone
NOT_YET = re.compile(r"\b(?:when|whenever|once|if|until|till|unless|as soon as)\s+(?:i|we)\b[^,.;:!?]*$",
                      re.IGNORECASE)
# an ending only for a while, said right after the name ("stopped the futsal for a couple of weeks while my knee
# heals", "quit the gym for now", "no more gaming until my exams are done"): a pause ends nothing ("for a healthier
# life", "for the rest of my life" are no pause)
_FOR_A_WHILE = re.compile(
    r"^\W*(?:for (?:me|us)\s+)?(?:for (?:a (?:while|bit|little|few|couple|week|month|fortnight)|"
    r"the (?:next|moment|time being|rest of the (?:week|month|day|year|season))|now|"
    # "for two weeks now" is how long since it ended; "for at least 12 weeks" is a while too
    r"(?:(?:at least|about|around|roughly|another|a good)\s+)?\w+ (?:days?|weeks?|months?)(?!\s+(?:now|already)\b))\b|"
    r"while\b|until\b|till\b)",
    re.IGNORECASE)
# ... and after "no more", a day or a week ("no more pizza for me tonight", "no more running this week"; "I quit
# the gym this week" says when it ended)
_NO_MORE_BEFORE = re.compile(r"\bno more\s+(?:[\w'’-]+\s+){0,3}$", re.IGNORECASE)
_THIS_TIME = re.compile(r"^\W*(?:for (?:me|us)\s+)?(?:today|tonight|this (?:week|weekend|month|term|season|summer|"
                        r"winter|year))\b", re.IGNORECASE)
# how sure such a retraction is: the user's own verb of ending, said of a name they gave before, is as plain as a
# value the tagger is sure of (within the doubt margin of one at the 0.95 cap, so it can retire it)
PASSING_CONFIDENCE = 0.9
# a medicine's ending says health; anything else a user stops is most often a pastime
_MEDICAL = re.compile(r"\b(?:doctor|doc|gp|meds?|medications?|medicines?|pills?|tablets?|dose|prescri\w*|"
                      r"cardiologist|specialist|consultant)\b", re.IGNORECASE)


def ended_in_passing(text: str, tagged: Sequence[str]) -> list[tuple[str, str, str]]:
    """Names the user says they stopped where the tagger marked nothing: (slot, name, clause) for each, the
    name cut at the first word that is no part of one ("stopped the futsal, the doctor said" -> futsal).
    Endings denied, wished for, still to come, only for a while or asked about are left ("I can't quit coffee",
    "once I quit the gym", "stopped the futsal for a couple of weeks", "did you stop the pills?"), and so are
    names with a word the tagger marked in a value of its own (its reading of them stands)."""
    marked = {t for value in tagged for t in terms(value)}
    found: list[tuple[str, str, str]] = []
    for m in _ENDED_NAME.finditer(text):
        before = text[:m.start()]
        if (DENIED_OR_WISHED.search(before) or NOT_YET.search(before)
                or not (USER_BEFORE.search(before) or " me " in m.group(0).lower())):
            continue
        words: list[str] = []
        for word in m.group("name").split():
            meant = set(terms(word))
            if word.lower() in _NO_NAME or not meant or meant <= NO_VALUE:
                break
            words.append(word)
        if (not words or set(terms(" ".join(words))) & marked or is_question(clause_around(text, m.start(), m.end()))
                or only_if(before, text[m.start("name") + len(" ".join(words)):])):
            continue
        name = " ".join(words)
        if _FOR_A_WHILE.match(text[m.start("name") + len(name):]):
            continue
        # what was said of it: from the break before the verb (from the verb itself where the verb names the user:
        # "the doctor switched me off" is no one else's fact) to the name, and nothing after it ("the futsal, the
        # doctor said maybe forever" is no doubt about the ending)
        opening = m.start() if " me " in m.group(0).lower() else max(before.rfind(c) for c in ",.;:!?(") + 1
        said = text[opening:m.start("name") + len(name)].strip()
        medicine = {"off", "from"} & set(m.group(0).lower().split()) or _MEDICAL.search(said)
        found.append(("health" if medicine else "hobby", name, said))
    for m in _OVER_AFTER_NAME.finditer(text):
        name = m.group("name")
        named = set(terms(name))
        if (not named or named <= NO_VALUE or named & marked or name.split()[0].lower() in _NO_NAME
                or is_question(clause_around(text, m.start(), m.end()))):
            continue
        slot = "diet" if _A_DIET.search(name) or (m.group("kind") or "").lower() == "diet" else "hobby"
        found.append((slot, name, m.group(0)))
    return found


# a name, then that it is over: "the low carb thing is over btw", "my marathon phase is done", "the keto diet is
# finished" (not "is over there", "is done by friday", "is over 40"); the tagger, which learned values from messages
# that introduce them, reads nothing in it
_OVER_AFTER_NAME = re.compile(
    r"\b(?:the|my|this|that|our)\s+(?P<name>[^\W\d_][\w'-]*(?:\s+[^\W\d_][\w'-]*)?)\s+"
    r"(?:(?P<kind>thing|experiment|phase|diet|plan|stuff|kick|streak|regime|era|journey)\s+)?"
    r"(?:is|'s|’s|was)\s+(?:so\s+|totally\s+|officially\s+|definitely\s+|finally\s+)?(?:over|done|finished)\b"
    r"(?!\s+(?:there|here|with|in|by|at|for|soon|tomorrow|next|\d))", re.IGNORECASE)
_A_DIET = re.compile(r"\b(?:" + DIET_NAMES + r"|fasting|detox|cleanse)\b", re.IGNORECASE)


# what an answer is made of, as a user names it in a terse rule ("code only", "no preamble", "bullet points")
_FORM = (r"(?:code|prose|text|explanations?|comments?|bullet(?:\s+points?)?|bullets|numbered lists?|emojis?|"
         r"pleasantries|small\s+talk|chit-?chat|preamble|intros?|introductions?|fluff|filler|tables?|markdown|"
         r"headings?|headers?|caveats?|disclaimers?|summaries|apologies|examples?)")
# one way only to read the gap before each word: "\s*,?\s*" could give a space to either "\s*", and a sentence of
# repeated tail words that failed at "$" then took the engine 2^n tries ("code only please please ... x": one
# turn stalled the jobs process for minutes, helper-84's review)
_RULE_TAIL = (r"(?:[\s,]+(?:please|pls|plz|thanks|thx|ty|next time|from now on|going forward|always|ever|again|"
              r"in (?:your |the )?(?:replies|answers|responses)))*")
_TERSE_RULE = re.compile(
    r"^(?:(?:just|only)\s+" + _FORM + r"(?:\s+only)?|" + _FORM + r"\s+only|"
    r"no(?:\s+more)?\s+" + _FORM + r"(?:\s*(?:,|or|and|/)\s*" + _FORM + r")*|"
    r"(?:bullet\s+points|bullets|numbered lists?)|"
    # a rule lifted as tersely ("prose ok", "examples are fine again"): the rule now, in the one-valued answer format
    + _FORM + r"(?:\s+(?:is|are))?\s+(?:ok|okay|fine|welcome)(?:\s+again)?|" + _FORM + r"\s+again)"
    + _RULE_TAIL + r"$", re.IGNORECASE)
# a sentence that asks for a piece of work, whose "code only" beside it is for that answer alone
_REQUEST = re.compile(
    r"^\W*(?:(?:ok|okay|so|now|pls|please|can you|could you|would you|just)\b[\s,:]*)*"
    r"(?:explain|summari[sz]e|draft|translate|fix|help|find|plan|create|make|tell|show|give|describe|compare|"
    r"check|proofread|rewrite|generate|write|refactor|add|build|implement|debug|review|convert|list|suggest|"
    r"recommend|port|optimi[sz]e|update|rename|format|test|do|send|sort|clean|speed)\b", re.IGNORECASE)

# words said around rules that say nothing themselves ("ok. code only", "no prose, thanks")
_FILLER = re.compile(r"^(?:ok|okay|k|kk|thanks|thank you|thx|ty|please|pls|plz|also|btw|and|oh|right|cool|great|"
                     r"perfect|sure|got it)$", re.IGNORECASE)


def terse_rules(text: str, answer_clauses: Sequence[str] = ()) -> list[str]:
    """The terse answer rules of a message ("code only next time. no prose."): sentences that name what answers
    should be or leave out, and nothing else. Beside a request ("write the parser. code only.", or a question)
    a "code only" is for that answer alone: none. A sentence the tagger read as an answer rule of its own
    (``answer_clauses``) is left to that reading; statements beside them ("switched to zig. prose ok") stand."""
    rules, other = [], False
    for _offset, sentence in sentences(text):
        said = sentence.strip().strip(" .!;:")
        if any(clause and clause in sentence for clause in answer_clauses):
            continue  # the tagger's rule stands
        parts = [part for part in re.split(r"\s*[,;]\s*", said) if part and not _FILLER.match(part)]
        if parts and all(_TERSE_RULE.match(part) for part in parts):
            rules.append(said)
        elif parts and (is_question(sentence) or _REQUEST.match(said)):
            other = True
    return [] if other else rules

# where a clause ends: "over", "gone" or "off" ends a value only there ("my yoga class is over at 7" ends nothing)
_AT_CLAUSE_END = r"(?=\W*$|\s*[,.!;)])"
# right after a value, a word or two of what it was, then that it ended ("the gluten free experiment is over",
# "the Fiat is gone", "vegan no more"); "done" is left out ("my job is done for today" ends no job). What ended is
# the value itself: a new subject after a comma or a conjunction is another thing ("I'm learning Spanish, the
# results are over", "keto so bread is gone")
_ITS_SUBJECT = r"[\s'\"’”)]*(?:(?!(?:and|but|so|or|because|since|as|while|though|then|when|if)\b)[\w'-]+\s+){0,2}"
_ENDED_AFTER_VALUE = re.compile(
    r"^(?:" + _ITS_SUBJECT + r"(?:is|are|was|were|'s)\s+(?:(?:now|finally|officially|totally|well and truly|"
    r"basically|pretty much|completely|mostly|all but)\s+)?"
    r"(?:over|gone|history|finished|a thing of the past)" + _AT_CLAUSE_END + "|"
    # "Python's out": the value alone said out, with no word between ("iPhone 16 is out", "season 2 is out" are
    # things released, and so is "the new iPhone is out": _RELEASED)
    r"(?P<out>\s*(?:is|'s)\s+(?:(?:now|officially|definitely)\s+)?out)" + _AT_CLAUSE_END + "|"
    # "pescatarian was wrong": a value taken back
    r"\s*(?:was|is)\s+(?:(?:all|totally|just)\s+)?wrong" + _AT_CLAUSE_END + "|"
    + _ITS_SUBJECT + r"(?:is|are|'s)\s+(?:[\w'-]+\s+)?gone\s+(?:since|now|for good|completely)\b|"
    r"\W*(?:not\s+)?(?:any ?more|no more|no longer)" + _AT_CLAUSE_END + "|"
    # "vegetarian didnt last", "pescatarian era over", "the keto phase is done"
    r"\W*(?:[\w'-]+\s+){0,1}(?:didn['’]?t|did not|never)\s+last(?:ed)?\b|"
    # "keto just wasn't working for me", "the night shifts didn't work out"
    r"\W*(?:[\w'-]+\s+){0,1}(?:wasn['’]?t|was not|didn['’]?t|did not)\s+(?:really\s+)?work(?:ing)?\s+"
    r"(?:out|for (?:me|us))\b|"
    r"\W*(?:era|phase|experiment|stint|kick|journey|days)\s+(?:is\s+|'s\s+|are\s+)?(?:officially\s+)?"
    r"(?:over|done|finished)\b|"
    # the verb after its object, as Hinglish says it: "vscode uninstall kar diya", "gym chhod diya", "keto band kar di"
    r"\s+(?:(?:uninstall|delete|band|khatam|cancel|quit|stop)\s+(?:kar|kr)\s+(?:diya|diye|di|dia|dii)|"
    r"(?:chhod|chod|chhor|chor|hata)\s+(?:diya|diye|di|dia|dii))\b)",
    re.IGNORECASE)

# a thing just released, right before its name: "the new iPhone is out", "Zelda's latest is out"
_RELEASED = re.compile(r"\b(?:new|newest|latest|next|upcoming)\s+$", re.IGNORECASE)


# slots beside CEASABLE_SLOTS whose value a user can say is not theirs now
NOT_NOW_SLOTS = frozenset({"allergy", "health"})
# right before the value: what the user did once ("I used to love", "we used to play") or is not ("I'm not", "turns
# out I'm actually not allergic to"); "I'm used to" is no past, "I'm not a big fan of" no denial of the value
_ONCE_OR_NOT = re.compile(
    r"(?:\b(?:i|we)\s+used to(?:\s+(?:love|like|enjoy|adore|play|be|do|go|have|own|drive|use|eat|drink|ride|run|"
    r"watch|read|follow|take|work(?:\s+(?:at|for|as|in))?|live(?:\s+in)?))?"
    r"|\b(?:i['’]?m|im|i am|we['’]re|we are)\s+(?:actually\s+|really\s+|technically\s+)?not\s+"
    r"(?:(?:allergic|intolerant|sensitive)\s+to\s+)?"
    # "the allergist says I've outgrown the shellfish allergy"
    r"|\b(?:outgrown|outgrew|grown out of|grew out of))(?:\s*(?:a|an|the|my|on|into|in|at)\s+)*\s*$", re.IGNORECASE)
# "I was keto for two years but", "we were vegan for a while, then": a time it held, said as over
_WAS_BEFORE = re.compile(r"\b(?:i|we)\s+(?:was|were)\s+(?:a\s+|an\s+)?$", re.IGNORECASE)
_HELD_FOR_A_TIME = re.compile(r"^\s+for\s+[^,.;!?]{1,30}?(?:\s*,?\s*(?:but|until|till|then)\b|\W*$)", re.IGNORECASE)


# what the user said before, taken back with a change after it: "I told you I was learning guitar, but I've switched
# to the ukulele", "I said I was on Jira earlier but we moved everything to Linear", "remember i said i was at
# Tesco? not anymore". Not a complaint that holds it ("I told you I was allergic to nuts, but you put almonds in")
_SAID_ONCE = re.compile(r"\b(?:i|we)\s+(?:(?:told|tell)\s+(?:you|u|ya)|said|mentioned|wrote)\s+"
                        r"(?:(?:earlier|before|last\s+time)\s+)?(?:that\s+)?(?:i|we)\b[^.!?]{0,40}$", re.IGNORECASE)
_CHANGED_SINCE = re.compile(
    r"^[^.!?]{0,50}?(?:\bbut\s+(?!you\b|u\b)[^.!?]{0,40}?\b(?:"
    # a change that names where it went ("switched to the ukulele", "moved everything to Linear") or that it ended
    r"(?:switched|swapped|moved|changed|gone\s+back|went\s+back)\s+(?:\w+\s+){0,2}?(?:to|for|over\s+to)\b|"
    r"(?:left|quit|stopped|dropped|ditched|gave\s+up)\s+(?:it|that|them|there)\b|no\s+longer|any\s?more)|"
    r"[?.!]?\s*(?:not\s+any\s?more|no\s+longer|nope|scratch\s+that|that['’]?s\s+changed))\b", re.IGNORECASE)


def said_once_not_now(value: str, message: str) -> bool:
    """The message says the value is what the user told before and has changed since."""
    at = message.find(value)
    return (at > 0 and _SAID_ONCE.search(message[:at]) is not None
            and _CHANGED_SINCE.match(message[at + len(value):]) is not None)


def not_now(value: str, clause: str) -> bool:
    """The clause says the value held once or does not hold, right around it: "I used to love horror films", "I'm
    not lactose intolerant", "I was keto for two years but"."""
    at = clause.find(value)
    if at < 0:
        return False
    before, after = clause[:at], clause[at + len(value):]
    return bool(_ONCE_OR_NOT.search(before) or (_WAS_BEFORE.search(before) and _HELD_FOR_A_TIME.match(after)))


# "i started eating chicken again", "back to having dairy": what the user eats again they no longer avoid (the tagger
# reads "User avoids chicken."). Not "I had gluten again by accident": a slip ends no allergy
_EATING_AGAIN_BEFORE = re.compile(r"\b(?:started|start|starting|began|back to|gone back to|went back to)\s+"
                                  r"(?:eating|having|drinking)\s+(?:[\w'-]+\s+)?$", re.IGNORECASE)


def eats_again(value: str, clause: str) -> bool:
    """The clause says the user has started eating or drinking the value again ("started eating chicken again")."""
    at = clause.find(value)
    return at >= 0 and bool(_EATING_AGAIN_BEFORE.search(clause[:at]))


def ended_just_after(value: str, clause: str) -> bool:
    """The clause says, right after the value, that it ended: "gluten free experiment is over". The
    tagger's polarity head reads such clauses as stating the value."""
    at = clause.find(value)
    said = _ENDED_AFTER_VALUE.match(clause[at + len(value):]) if at >= 0 else None
    return said is not None and not (said.group("out") and _RELEASED.search(clause[:at]))


# a plan called off, said before it ("we cancelled the Sardinia trip") or after it ("the Sardinia trip we have
# cancelled", "the party is off", "the trip fell through"); "take time off" calls nothing off
_CALLED_OFF_BEFORE = re.compile(
    r"\b(?:cancel+(?:ed|ing)?|call(?:ed|ing)? off|scrap(?:ped|ping)?|changed\s+(?:my|our)\s+minds?\s+(?:about|on)|"
    # "nvm about the yoga retreat in Goa, we called it off"
    r"nvm(?:\s+about)?|never\s?mind(?:\s+about)?)"
    r"(?:\s+(?:the|my|our|a|that|this|whole))*\s+$",
    re.IGNORECASE)
_CALLED_OFF_AFTER = re.compile(
    r"^\W*(?:[\w'-]+\s+){0,3}?(?:(?:(?:is|are|was|were|'s|got|has been|have been|had to be)\s+)?"
    r"(?:cancel+ed|called off|scrapped)|(?:is|are|was|'s) off(?:\s+for\s+(?:me|us|now|this year))?(?:\s+now)?"
    + _AT_CLAUSE_END
    + "|fell through|"
    r"(?:isn't|is not|won't be|not) happening)\b",
    re.IGNORECASE)


# a pastime or a routine called off for good, right after it: "Tuesday yoga is off for me now", "pottery class got
# cancelled for good", "the book club is over for me"
_OFF_FOR_GOOD = re.compile(
    r"^\W*(?:[\w'-]+\s+){0,3}?(?:is|are|was|were|'s|got|has\s+been|have\s+been)\s+"
    r"(?:off|cancel+ed|called\s+off|scrapped)\s+for\s+(?:good|me|us)(?:\s+now)?" + _AT_CLAUSE_END, re.IGNORECASE)


def off_for_good(value: str, clause: str) -> bool:
    """The clause says, right after the value, that it is off for good."""
    at = clause.find(value)
    return at >= 0 and _OFF_FOR_GOOD.match(clause[at + len(value):]) is not None


# the plan named, then called off in the next words, past the clause's end: "remember the dentist thing on the 3rd?
# cancelled, they called in sick", "the yoga retreat in Goa, we called it off", "the BBQ on sunday - its off"
_CALLED_OFF_NEXT = re.compile(
    r"^\s*[?!.,;:–—-]*\s*(?:(?:(?:it|that)['’]?s|its|it\s+(?:is|was|got|has\s+been)|that\s+(?:is|was|got)|"
    r"(?:we|i|they)\s+(?:have\s+|['’]ve\s+)?(?:had\s+to\s+)?)\s*)?(?:now\s+|been\s+)?"
    r"(?:cancel+ed|called\s+(?:it\s+)?off|off|scrapped|postponed\s+indefinitely)\b"
    r"(?!\s+(?:to|at|from|the|my|your|our|his|her|their|work|school|with|on)\b)",
    re.IGNORECASE)


def called_off_next(value: str, message: str) -> bool:
    """The words right after the plan in the message call it off, across a "?" or a comma."""
    at = message.find(value)
    return at >= 0 and _CALLED_OFF_NEXT.match(message[at + len(value):]) is not None


def called_off(value: str, clause: str) -> bool:
    """The clause says the plan is off: "we cancelled the Sardinia trip", "the Sardinia trip we have cancelled".
    The tagger's polarity head reads such clauses as stating the plan."""
    at = clause.find(value)
    return at >= 0 and (_said_before(_CALLED_OFF_BEFORE, value, clause) is not None
                        or bool(_CALLED_OFF_AFTER.match(clause[at + len(value):])))


# a plan said as meant once and given up after a "but" in the same sentence: "I was gonna do the 5k on the 28th but
# nah not anymore", "we were meant to be at the wedding on the 9th, but the passport didn't come so we're not going",
# "I was going to visit Rome in June but we cancelled it". One meant and then moved ("but now it's in July") or only
# not known yet ("but I don't know the date") is not given up
_MEANT_ONCE = re.compile(
    r"\b(?:was|were)\s+(?:gonna|going\s+to|meant\s+to|supposed\s+to|planning\s+(?:to|on)|hoping\s+to)\b|"
    r"\b(?:had|i|we|i['’]d|we['’]d)\s+planned\s+(?:to|on)\b", re.IGNORECASE)
# ... after the "but", in a few words: the user can't or won't, it's not happening, it's cancelled, given up
_GIVEN_UP_AFTER_BUT = re.compile(
    r"^[^.!?;]{0,80}?\b(?:"
    r"(?:i|we)\s+(?:can['’]?t|cannot|couldn['’]?t|won['’]?t|will\s+not)\s+(?:make|go|do|afford|come|attend|join|manage)|"
    r"(?:i['’]?m|we['’]?re|i\s+am|we\s+are|it['’]?s|it\s+is|that['’]?s)\s+(?:not|no\s+longer)\s+(?:going|happening|"
    r"gonna|doing)|(?:isn['’]?t|aren['’]?t|not|never)\s+happening|"
    r"not\s+any\s?more|no\s+longer|nah|nope|cancel+ed|called\s+(?:it\s+)?off|scrapped|fell\s+through|"
    r"changed\s+(?:my|our)\s+minds?|decided\s+(?:not|against)|gave\s+(?:it\s+)?up|(?:it|that|is)['’]?s?\s+off)\b",
    re.IGNORECASE)
# ... unless it was moved or replaced, not given up: "but they rebooked me on the 6th", "we're camping instead",
# "I can't go until July now"
_MOVED_NOT_GIVEN_UP = re.compile(r"\b(?:instead|rebook\w*|re-?book\w*|booked|until|till|moved|pushed|postponed|"
                                 r"resched\w*|now\s+(?:on|in|it['’]?s)|new\s+date)\b", re.IGNORECASE)


def given_up(value: str, sentence: str) -> bool:
    """The sentence says the plan was meant once and then given up: "I was gonna do the 5k on the 28th but nah
    not anymore". The tagger reads the plan and not the "but" after it."""
    at = sentence.find(value)
    if at < 0:
        return False
    but = re.search(r"\bbut\b", sentence[at + len(value):])
    if but is None:
        return False
    tail = sentence[at + len(value) + but.end():]
    if _GIVEN_UP_AFTER_BUT.match(tail) is None or _MOVED_NOT_GIVEN_UP.search(tail[:120]):
        return False
    # the words of meaning it may open the value itself: "going to run the Cork 10k" after "I was"
    meant = _MEANT_ONCE.search(sentence, 0, at + len(value))
    return meant is not None and meant.start() <= at


# "switched from Affinity Designer to Adobe Illustrator", "we are migrating from Cypress to Playwright"
_SWITCHED_FROM = re.compile(
    r"\b(?:switch(?:ed|ing)?|migrat(?:e|ed|ing)|mov(?:e|ed|ing)|chang(?:e|ed|ing)|went|going|transition(?:ed|ing)?|"
    r"upgrad(?:e|ed|ing)|swap(?:ped|ping)?)\s+(?:over\s+|all\s+)?from\s+(?:the\s+|my\s+|our\s+|an?\s+)?"
    r"(?P<old>(?:(?!\b(?:to|for|onto|into)\b)[^,.;:!?()]){2,40}?)\s+(?:to|for|onto|into)\s+(?:the\s+|my\s+|our\s+|an?\s+)?$",
    re.IGNORECASE)


def switched_from(value: str, clause: str) -> str | None:
    """What the user switched from to ``value``, when the clause says so right before it."""
    # a switch only thought of or denied has not happened ("thinking of switching from Cypress to Playwright")
    said = _said_before(_SWITCHED_FROM, value, clause)
    return said.group("old").strip() if said is not None else None


# the word that ends a fact is no part of its value: "I quit volleyball" retires "volleyball", not "quit volleyball".
# Lowercase only: a capitalised "Never Let Me Go" or "Not Like Us" is a title, not a word of ceasing
_CEASING = re.compile(r"^(?:" + _CEASING_WORDS + r"|don['’]?t|do not)\s+")


# a value's last words when they lead on to something it left out ("play futsal with", "at the community hall
# on"): lowercase only, so a title's "Carry On" or "Plan A" stays whole; "on" after now, here, then or later
# ends a phrase ("yoga every morning from now on")
_LEADS_ON = re.compile(r"(?<!\bnow)(?<!\bhere)(?<!\bthen)(?<!\blater)"
                       r"(?:\s+(?:a|an|the|to|in|on|of|for|into|at|with|from|my|our|his|her|their|some|about|and|"
                       r"or|but|so|because|like))+$")


# the particles of the Englishes users write, ending a sentence and no part of what it says: "Phuket ka", "my mother
# na", "Bishan lah", "tired yaar" (lower case: a name's "Na" or "Po" stays)
_PARTICLES = re.compile(r"(?:\s+(?-i:ka|kha|krub|khrap|na|naa|lah|leh|lor|meh|sia|yaar|yar|ji|po|jaja+|haha+|hehe+|"
                        r"lol|lmao))+$")


def _clean_value(value: str, *, whole_clause: bool = False) -> str:
    """The value tidied; ``whole_clause``: it is the user's own clause (an instruction), which may end on a
    word that ends nothing ("don't tell me what to focus on", "answer in Spanish from now on")."""
    value = re.sub(r"\s+", " ", value).strip(" .,;:!?-\"'")
    if not whole_clause:
        value = _LEADS_ON.sub("", value) or value
        value = _PARTICLES.sub("", value) or value
        # "me" opening a value is the user's "my" of many Englishes ("me nan", "me mam"): "their", not "them"
        value = re.sub(r"^(?i:me)\s+(?=[^\W\d_])", "my ", value)
    return _PRONOUN_RE.sub(lambda m: m.group(0) if _in_title(value, m) else _PRONOUN[m.group(0).lower()], value)


_WORD = re.compile(r"[^\W\d_][\w'-]*")


def _in_title(text: str, pronoun: re.Match[str]) -> bool:
    """A capitalised pronoun beside a capitalised word is part of a title or a name ("Never Let Me Go",
    "Call Me By Your Name", "I Am Legend"), which names a thing and is not the user's to rewrite."""
    if not pronoun.group(0)[:1].isupper():
        return False
    before = _WORD.findall(text[:pronoun.start()])
    after = _WORD.findall(text[pronoun.end():])
    neighbours = [w for w in (before[-1] if before else "", after[0] if after else "") if w and w != "I"]
    return any(w[0].isupper() for w in neighbours)


# a routine that is the user's way to work, said as such; one said to somewhere else by its common noun ("commute
# to uni twice a week", "commuting to college") is another routine, which no new way to work replaces
_A_COMMUTE = re.compile(r"^(?:my\s+|their\s+|the\s+|daily\s+)?commut(?:e|es|ing)\b"
                        r"(?:\s+(?:in)?to\s+(?:the\s+|my\s+|their\s+)?(?P<to>(?-i:[a-z])[\w'-]*))?", re.IGNORECASE)
COMMUTE_KEY = "commute"
# where a commute to goes that is the way to work all the same ("commute to the office", "commute into town")
_TO_WORK = frozenset({"work", "office", "job", "shift", "site", "town", "city", "centre", "center", "workplace"})


def _key_source(slot: Slot, value: str, clause: str) -> str:
    """Favourites are keyed by their kind ("fave band"), preferences by their topic ("tea" and "coffee" are
    both drinks), so a new favourite band or a new drink replaces the old one."""
    if slot.name == "favorite":
        m = _FAVOURITE_KIND.search(clause)
        if m:
            return m.group("kind")
    if slot.name == "prefers":
        return topic_of(value) or topic_of(clause) or value
    if slot.name == "health":
        return without_dose(value)
    if slot.name == "habit" and is_shift(value):
        return SHIFT_KEY  # one shift at a time: "works day shift" replaces "works nights"
    if slot.name == "habit" and is_day_off(value):
        return DAY_OFF_KEY  # "Wednesday is my day off now" replaces "only Monday is off"
    commute = _A_COMMUTE.match(value) if slot.name == "habit" else None
    if commute is not None:
        # one way to work at a time: "commute by bike now" replaces "commute is u7, 25 min"
        to = commute.group("to")
        return COMMUTE_KEY if to is None or to.lower() in _TO_WORK else f"{COMMUTE_KEY} {to}"
    if slot.multi and not set(terms(value)) - ACTIVITY_VERBS:
        # the tagger kept only the verb ("eating"): the words after it say what is liked
        at = clause.lower().find(value.lower())
        return clause[at:] if at >= 0 else clause
    return value


def _instruction(clause: str) -> str | None:
    """A standing instruction is the whole clause, less its opening ("from now on, answer in short bullet
    points" -> "answer in short bullet points"): a single word ("bullet") would lose what was asked."""
    text = _INSTRUCTION_OPENING.sub("", _RULE_LET_GO.sub("", clause.strip())).strip(" ,.!")
    return text if 1 < len(text.split()) <= 16 else None


def _qualifier(clause: str, value: str) -> str:
    """The few words after a preference that say when or for what ("python" + " for code examples")."""
    at = clause.lower().find(value.lower())
    if at < 0:
        return ""
    m = _QUALIFIER.match(clause[at + len(value):])
    return " " + _clean_value(m.group(1)) if m else ""


def _content(slot: Slot, value: str, clause: str, negated: bool, when: datetime) -> str:
    if slot.category is Category.EPISODIC:
        tense = "future" if slot.name == "plan" else "past" if slot.name == "event" else "any"
        at = clause.find(value)
        near = anchor_near(clause, at, at + len(value), when, tense) if at >= 0 else None
        # the date nearest the value: "Monday was a board meeting, Tuesday I had jury duty" dates the jury duty
        day, said = near if near else (anchor(clause, when, tense), None)
        if said and anchor(value, when, tense) is None:
            # the value is the event and its date words (docs/slots.md): "Noor's concert is feb 26" keeps "feb 26",
            # which the tagger often leaves outside the span, beside the date it anchors to
            value = f"{value.rstrip(' ,.')} {said}"
        text = (slot.negate if negated else slot.affirm).format(v=value).rstrip(".")
        if day:
            text += f" ({'on' if slot.name == 'event' else 'for'} {day})"
        elif slot.name == "event":
            text += f" (said on {when.date().isoformat()})"
        return text + "."
    if slot.name == "allergy" and _NAMES_THE_CONDITION.search(value):
        # "lactose intolerance", "nut allergy", "lactose intolerant": "User is allergic to lactose intolerance."
        # says it wrong
        if value.lower().endswith("intolerant"):
            return f"User is {'not ' if negated else ''}{value}."
        return f"User {'does not have' if negated else 'has'} {value}."
    return (slot.negate if negated else slot.affirm).format(v=value)


# "no cap", "no lie", "no joke": sayings that open a statement, no thing the user avoids or dislikes
_NO_AS_A_SAYING = frozenset({"cap", "lie", "joke", "kidding", "way", "doubt", "worries", "problem", "shame",
                             "offense", "offence", "cap fr"})


# words of fondness right before a value the tagger read as a dislike (a "weakness", a "sucker": words of lack)
_FOND_OF_BEFORE = re.compile(r"\b(?:weakness|soft spot|thing|sucker|obsessed|addicted|hooked)\s+(?:for|with|on)\s+"
                             r"(?:(?:a|an|the|some|any|good|all)\s+)*$", re.IGNORECASE)


# a state of health said of today alone ("my back is destroyed today", "migraine rn"), not one diagnosed, lasting
# or treated: no word of how long or of a diagnosis, and no medicine ("started metformin today" lasts)
# ("an RN", "a nurse (RN)" is the job, not "right now")
_FOR_NOW = re.compile(r"\b(?:today|tonight|this (?:morning|afternoon|evening)|right now|(?<!\ban )(?<!\ba )(?<!\()rn|"
                      r"atm|at the moment)\b", re.IGNORECASE)
# ... a finding ("the doctor told me today", "found out today", "got my results back today") and an injury or an
# operation, which the user lives with for weeks ("torn ACL", "broke my wrist today", "recovering from surgery")
_LASTING = re.compile(r"\b(?:diagnos\w*|since|chronic\w*|always|every|started|starting|prescribed|put me on|"
                      r"taking|take|years?|months?|weeks?|again|still|have had|has been|been|"
                      r"doctor|doc|gp|dr|consultant|specialist|cardiologist|told me|found out|turns out|results?|"
                      r"scan|mri|x-?ray|bloods|confirmed|torn|tore|broke|broken|fractur\w*|sprain\w*|surgery|"
                      r"operation|recovering|cast|crutches)\b", re.IGNORECASE)


# a condition that lasts whatever day it is said on ("my asthma is bad today")
_LASTING_CONDITION = re.compile(
    r"\b(?:asthma\w*|diabet\w*|epilep\w*|arthritis|adhd|add|autis\w*|crohn\w*|colitis|ibs|coeliac|celiac|"
    r"migraines|copd|lupus|ms|sclerosis|parkinson\w*|hypertension|blood pressure|depress\w*|anxiety|bipolar|"
    r"pcos|endometriosis|fibromyalgia|psoriasis|eczema|apn[o]?ea|thyroid|hypothyroid\w*|cancer|hiv|dyslexi\w*|"
    r"deaf|blind|wheelchair|pregnan\w*|insomnia|sciatica|gout|anaemi\w*|anemi\w*|long covid|me/cfs|cfs|"
    r"hernia|tinnitus|ptsd|ocd|allerg\w*|intoleran\w*|"
    # a condition by its kind: "kidney disease", "sickle cell", "type 1"
    r"diseases?|syndromes?|disorders?|conditions?|deficien\w*|type [12]|t[12]d|sickle cell|eds|pots|dyspra\w*)\b",
    re.IGNORECASE)
# where the words said of the value end: "I'm type 1, sugars are all over the place today" (today is the sugars');
# before it only a new thought joined on ("... and I have EDS"), since "today, I have a migraine" is said of it
_SAID_OF_IT_ENDS = re.compile(r"[,;:(]|\b(?:and|but|so|because|cos|cause|which|though|tho)\b", re.IGNORECASE)
_SAID_OF_IT_BEGINS = re.compile(r"[;]|\b(?:and|but|so|because|cos|cause)\b", re.IGNORECASE)


# what the user is on, or a medicine or an aid by its kind: taken from now on, whatever the day ("on prozac atm",
# "I'm on the pill rn", "on HRT at the moment")
_ON_BEFORE = re.compile(r"\bon\s+(?:the\s+|my\s+)?$", re.IGNORECASE)
_TAKEN = re.compile(r"\b(?:pills?|tablets?|meds?|medications?|medicines?|inhalers?|insulin|hrt|antibiotics|"
                    r"antidepressants|injections?|patch(?:es)?|hearing aids?|cpap)\b", re.IGNORECASE)


def only_for_now(value: str, clause: str) -> bool:
    """A health fact the clause says only of today: in the words said of it, from the last break before it to the
    first after it."""
    at = clause.find(value)
    if at >= 0:
        before, after = clause[:at], clause[at + len(value):]
        clause = _SAID_OF_IT_BEGINS.split(before)[-1] + value + _SAID_OF_IT_ENDS.split(after)[0]
    return (bool(_FOR_NOW.search(clause)) and not _LASTING.search(clause)
            and not _LASTING_CONDITION.search(value) and stored_medicine(value, clause) is None
            and not _ON_BEFORE.search(_words_before(value, clause)) and not _TAKEN.search(value))


# a job the tagger read that is the user's studies: a student of any kind ("exchange student", "student at
# Leeds"), a school year at a school ("junior at westland high"); "student nurse" is a job
_A_STUDENT = re.compile(
    r"(?:\b(?:student|undergrad|undergraduate|postgrad|postgraduate|pupil|phd candidate)s?(?:\s+(?:at|in|of)\b.*)?$|"
    r"^(?:a\s+)?(?:freshman|sophomore|junior|senior|fresher|first[- ]year|second[- ]year|third[- ]year|final[- ]year)"
    r"\s+(?:at|in)\s+.*\b(?:high|school|college|university|uni|academy)\b)", re.IGNORECASE)
# a word the tagger cut from a school's name ("moved here for med school": "med")
_SCHOOL_AFTER = re.compile(r"^\s+(?:school|college)\b", re.IGNORECASE)


# words before the student that make the students someone else, whom the user works with ("tutor for high school
# students", "work with international students at the uni")
_STUDENTS_SERVED = re.compile(r"\b(?:for|with|to|of|at|in|on|by|from|about|teach\w*|tutor\w*|work\w*|help\w*|"
                              r"mentor\w*|support\w*|coach\w*|train\w*|advis\w*|counsel\w*|supervis\w*|care)\b",
                              re.IGNORECASE)


def studies_named(value: str, clause: str) -> str | None:
    """The studies a job the tagger read names, or None where it names a job."""
    if (student := _A_STUDENT.search(value)) is not None:
        return None if _STUDENTS_SERVED.search(value[:student.start()]) else value
    at = clause.find(value)
    after = _SCHOOL_AFTER.match(clause[at + len(value):]) if at >= 0 and len(value.split()) == 1 else None
    return f"{value}{after.group(0)}" if after else None


# a doing told in the past tense at the plan's head ("moved in Saturday", "closed last week"); not one arranged for
# later ("booked a week in tenerife from the 3rd of june", "signed up for the Berlin marathon")
_DONE_AT_THE_HEAD = re.compile(
    r"^(?!(?:booked|planned|scheduled|arranged|organi[sz]ed|decided|agreed|signed|registered|entered|invited|"
    r"needed|wanted|promised|reserved|confirmed|pencilled|penciled|applied|asked|offered|accepted|called|"
    r"emailed|messaged|texted|told|started|got|"
    # a plan moved, not done ("rescheduled my driving test to april 3rd", "pushed the move back to June")
    r"resched\w*|postponed|delayed|pushed|bumped|shifted|extended|"
    r"(?:moved|brought|changed) (?:the|my|our|it|them|his|her)|"
    # a state of mind about what is ahead ("supposed to fly to Paris", "excited to go to Japan")
    r"supposed|excited|interested|determined|expected|intended|tempted|committed|obliged|prepared|scared|"
    r"terrified|worried|stoked|pumped|psyched|thrilled|delighted|obsessed|used|allowed|meant|set)\b)"
    # no name ("Ahmed's wedding", "Fred's stag"), and a verb only where what follows is what a verb takes ("moved
    # in", "passed my test", "landed yesterday"): before a noun it describes the noun ("Guided tour of the Vatican
    # on Tuesday", "advanced yoga class on thursday")
    r"(?:(?!(?:hundred|sacred|naked|wicked|speed|seed|feed|weed|breed|bleed|need)\b)[a-z]{2,}ed(?!['’]s)"
    r"(?=\s*$|\s*[,.!;:]|\s+(?:the|a|an|my|our|his|her|their|its|it|them|him|us|me|in|into|out|up|down|back|home|"
    r"off|over|on|at|to|from|with|for|by|away|around|through|last|yesterday|this|and|\d)\b)|went|came|"
    r"left|took|made|met|saw|did|had|flew|drove|ran|won|lost|sold|bought|spent|was|were)\b", re.IGNORECASE)
# the words before a date that make it when the plan was made or moved, not when it is: "since last Tuesday", "the
# trip we booked last week", "postponed from last Monday to this Thursday"
_ARRANGED_ON = (r"\b(?:since|from|(?:booked|planned|arranged|organi[sz]ed|decided|agreed|signed up|registered|bought|"
                r"ordered|paid|confirmed|reserved)(?:\s+[\w'’]+){0,2}?)\s+")
# a plan said to be ahead in so many words ("Ahmed's wedding is next saturday", "the United game tomorrow")
_AHEAD = re.compile(r"\b(?:next|tomorrow|tmrw|tmr|upcoming|coming up|this coming|later (?:this|today|on)|"
                    r"in (?:a|an|\d+|two|three|four|five|six|a few|a couple of) (?:days?|weeks?|months?|years?))\b",
                    re.IGNORECASE)


def already_happened(value: str, clause: str, when: datetime) -> bool:
    """A plan the tagger read that was done already: told in the past tense at its head, or dated before the
    message ("the Austin house last week"): an event, not something the user will do."""
    if _AHEAD.search(value):
        return False
    if _DONE_AT_THE_HEAD.match(value):
        return True
    at = clause.find(value)
    near = anchor_near(clause, at, at + len(value), when, "future") if at >= 0 else None
    day = near[0] if near else anchor(value, when, "future")
    if day is None or len(day) != len("2026-01-01"):
        return False  # a month ("in April") is this one or a later one
    if near is not None and re.search(_ARRANGED_ON + re.escape(near[1]), clause, re.IGNORECASE):
        return False  # "planning our wedding since last Tuesday", "the trip we booked last week": when it was arranged
    return date.fromisoformat(day) < when.date() - timedelta(days=1)


# slots whose value may be a number alone (an age, a date, a team's size)
COUNTED_SLOTS = frozenset({"age", "birthday", "project_deadline", "project_detail", "plan", "event"})
_MEASURE_WORD = re.compile(r"^(?:\d+(?:[.,]\d+)?|ft|feet|foot|in|inch(?:es)?|cm|mm|m|km|kg|kilos?|g|grams?|lbs?|"
                           r"pounds?|oz|ounces?|st|stone|mg|ml|l|litres?|liters?|miles?|mi|hrs?|hours?|mins?)$",
                           re.IGNORECASE)


def only_measures(value: str) -> bool:
    """The value is numbers and units only ("lbs 2", "3.4 kg", "5mg"): a quantity said, no fact of the user's."""
    # "5mg" is a number and a unit; "M3" or "ps5", letters then digits, is a name
    words = re.findall(r"[^\W\d_]+\d\w*|\d+(?:[.,]\d+)?|[^\W\d_]+", value)
    return bool(words) and all(_MEASURE_WORD.match(w.strip(".,")) for w in words)


# a height or a weight where an age was read: feet and inches ("5'11", "6 ft 2"), centimetres, kilos, stones
_A_MEASURE = re.compile(r"\d\s*['’′\"”″]|\b(?:ft|feet|foot|cm|kg|kilos?|lbs?|pounds|st|stone)\b", re.IGNORECASE)


# the age slot holds the user's age now (docs/slots.md): an age the user was when something happened ("came over
# when I was 19", "since I was 18"), a span of years ("22 years on the İETT buses", "41 years at the post office")
# and a range of others' ages ("14 to 16 year olds") are none; no labelled age (130 in the training data, 68 in
# the dev sets) is said so. "at 40" is not among them: "learning to swim at 40 lol" says the age now
_AGE_ONCE_BEFORE = re.compile(r"\b(?:(?:when|since|until|till|before|after|by the time|once)\s+(?:i|we)\s+"
                              r"(?:was|were|turned|hit)|(?:died|passed|passed away|left us|retired|started|began|"
                              r"moved|married|emigrated|diagnosed)\b[^.;!?]{0,30}?\s+at the age of)\s+$", re.IGNORECASE)
_YEARS_AFTER = re.compile(r"^\s*(?:(?:years?|yrs?)\s+(?:at|on|in|of|as|with|for|doing|working|driving|teaching|ago)\b|"
                          r"(?:to|-|–)\s*\d|(?:year|yr)[- ]olds\b)", re.IGNORECASE)


# the words that deny an age, right before it: "I'm not 40", "no longer 29"
# ("I'm not 28 I'm 29": the words between say how, no other age and no new "I'm")
_AGE_DENIED = re.compile(r"(?:\bnot|n['’]t|\bno longer)\s+(?:(?:even|quite|yet|really|actually|exactly|over|under|"
                         r"like|technically)\s+)?$", re.IGNORECASE)
# "for thirty-four years", "for over 20 years": a span, whatever follows it
_FOR_A_SPAN_BEFORE = re.compile(r"\bfor\s+(?:about\s+|around\s+|over\s+|nearly\s+|almost\s+|like\s+)?$", re.IGNORECASE)
# "at 22" after something that happened ("a car accident at 22", "divorced at 30"); "God help me at 52" is now
_AT_BEFORE = re.compile(r"\bat\s+(?:the\s+age\s+of\s+)?$", re.IGNORECASE)
_HAPPENED = re.compile(r"\b(?:(?!(?:ne|spe|se|fe|ble|bre|inde|procee|succee|excee)ed\b)[a-z]{2,}ed|was|were|got|began|"
                       r"became|had|left|quit|took|came|went|met|lost|broke|fell|wrote|made|won|ran|saw|found|since|"
                       r"accident|crash|injury)\b", re.IGNORECASE)
# where the stretch of the clause that says what happened ends: "moved here last year and at 28 I'm the oldest",
# "Went back to college last fall, at 52 I feel ancient" (the happening is told, then the age now)
_STRETCH_BREAK = re.compile(r"[,;:(]|\b(?:and|but|so|now)\b", re.IGNORECASE)
# ... or still to come: "I want to retire at 55", "I'll be a grandad at 48", "hoping to own a house by 35"
_TO_COME_BEFORE = re.compile(r"\b(?:want\w*|wanna|plan\w*|hop(?:e|es|ing)|going to|gonna|will|would|\w+['’](?:ll|d)|"
                             r"goal|aim\w*|dream\w*|expect\w*|retir(?:e|es|ing))\b", re.IGNORECASE)
# ... or told right after it: "and at 41 I ran my first marathon"
_DOING_AFTER = re.compile(r"^\W*(?:i|we)\s+(?:(?:just|finally|also|actually|even)\s+)?(?P<verb>[a-z]+)\b",
                          re.IGNORECASE)


def not_the_age_now(value: str, clause: str) -> bool:
    """The number the tagger read as the user's age is an age they once were or will be, a span of years or others'
    ages."""
    at = clause.find(value)
    if at < 0:
        return False
    before = clause[:at]
    after = clause[at + len(value):]
    stretch = _STRETCH_BREAK.split(before)[-1]
    if _AT_BEFORE.search(before) and (_HAPPENED.search(stretch) or _TO_COME_BEFORE.search(stretch)
                                      or ((doing := _DOING_AFTER.match(after)) is not None
                                          and is_past_verb(doing.group("verb")))):
        return True
    return bool(_AGE_ONCE_BEFORE.search(before) or _FOR_A_SPAN_BEFORE.search(before) or _YEARS_AFTER.match(after))


# an allergy's value that names the condition rather than what the user reacts to
_NAMES_THE_CONDITION = re.compile(r"\b(?:intoleran(?:ce|t)|allerg(?:y|ies)|sensitivity|sensitivities)$",
                                  re.IGNORECASE)


_NOW_NEAR = re.compile(r"\bnow\b", re.IGNORECASE)
_FOR_DAY = re.compile(r"\(for \d{4}(?:-\d\d){0,2}\)")


# the slots of what the user eats or keeps out: a diet's name may be a value of these and of no other, and a thing
# the user is fine with after all (tolerated.py) is a value of none of them
_FOOD_SLOTS = frozenset({"diet", "avoids", "allergy", "health"})
# the words of a value that name the condition, not what it is to ("lactose intolerant")
_CONDITION_TERMS = frozenset(terms("intolerant intolerance allergic allergy allergies sensitive sensitivity"))


def _stated_value(statement: str) -> str:
    """The value a fact's statement says ("User's health: ramipril." -> "ramipril")."""
    start, end, _form = read_statement(statement)
    return statement[start:end]


def _value_is(statement: str, named: set[str]) -> bool:
    """The fact's value names the thing and nothing else, words of a condition aside."""
    said = set(terms(_stated_value(statement))) - _CONDITION_TERMS
    return bool(said) and said <= named


# a plan or a routine says what is done: 238 of the 241 labelled plans and 156 of the 162 labelled routines
# have three words or more; a single word is a name ("ogallala", "blackbirds") unless it is the doing itself
# ("I smoke", "going to propose", "I plan to retire next year")
_DOINGS = frozenset({"plan", "habit"})
DOING_MIN_WORDS = 2
_DOER = r"(?:i|we|to|still|gonna|will|'ll|i'll|i'm|im|also|never|always|usually)"


# verbs that say what is done only with what follows them: alone, no routine or plan
_SAYS_NOTHING_ALONE = frozenset("use stop start get make take do have need want try keep like love hate begin finish "
                                "go work put let give".split())


def says_what_is_done(slot: str, value: str, negated: bool, clause: str = "") -> bool:
    """A plan or a routine names what is done ("fuel up in ogallala on tuesdays"), not only where or who; a
    routine given up may be one word ("quit smoking"), and so may a verb ("I smoke", "going to propose")."""
    if slot not in _DOINGS or negated or len(value.split()) >= DOING_MIN_WORDS:
        return True
    if value.strip().lower() in _SAYS_NOTHING_ALONE:
        return False  # "User's routine: stop.", "User's routine: use." (of "I stop the long distance", "i use a cpap")
    word = re.escape(value.strip())
    return value.strip().lower().endswith("ing") or bool(re.search(rf"\b{_DOER}\s+{word}\b", clause, re.IGNORECASE))


# how people say an allergy or an intolerance: every one of the 127 labelled allergies' messages (and the
# dev set's 8) says one of these, typos included ("peanut alergy", "sesame allegy", "hay fever")
_ALLERGY_TALK = re.compile(
    r"\b(?:all?e\w*g\w*|intoler\w*|sensitiv\w*|react\w*|anaphyla\w*|epi-?pens?|hives|coeliac|celiac|hay ?fever|"
    r"antihistamines?|throat|swell\w*|rash\w*|sneez\w*|itch\w*|(?:can'?t|cannot) (?:eat|have|tolerate|digest|take)|"
    r"makes? me (?:sick|ill)|al[eé]rgi\w*|unverträglich\w*)", re.IGNORECASE)


def speaks_of_an_allergy(message: str) -> bool:
    """An allergy is only read where the message talks of one: a name the tagger took for an allergen
    ("Mercury is in retrograde", "in from the milking") is none."""
    return bool(_ALLERGY_TALK.search(message))


# slots whose value is a phrase ("a week in tenerife from the 3rd of june"), which the tagger sometimes
# marks in pieces ("booked a", "tenerife"): pieces a few words apart within one clause are one value
PHRASE_SLOTS = frozenset({"plan", "event", "habit", "instruction", "project_detail", "current_project"})
_FRAGMENT_GAP = re.compile(r"^\s*(?:(?!(?:and|or|but|so|because|then)\b)[\w'-]+\s+){0,3}$", re.IGNORECASE)


_NAME_BEGUN = re.compile(r"\b(?:called|named)\s+[A-Z]\S*$")
_NAME_GOES_ON = re.compile(r"^(?:\s+(?:[A-Z][\w'&-]*|of|the|de|and)(?=\s|$|[,.;:!?]))+")


def name_said_whole(value: str, clause: str) -> str:
    """A value that ends in a name after "called" or "named", with the rest of the name ("play bass in a band called
    Low" of "... called Low Tide Choir we're from Glasgow" -> "... called Low Tide Choir"): the tagger stops at the
    first word of a name it does not know."""
    if not _NAME_BEGUN.search(value):
        return value
    at = clause.find(value)
    rest = _NAME_GOES_ON.match(clause[at + len(value):]) if at >= 0 else None
    if rest is None:
        return value
    words = rest.group(0).split()
    while words and words[-1] in {"of", "the", "de", "and"}:
        words.pop()
    return " ".join([value, *words]) if words else value


def joined_fragments(text: str, spans: list[Span], gap_words: int = 3) -> list[Span]:
    """Neighbouring spans of one phrase slot with at most ``gap_words`` plain words between them (no
    punctuation, no "and"/"or"/"but", which separate values), and of a job with a space between, become one span."""
    out: list[Span] = []
    for span in spans:
        last = out[-1] if out else None
        between = text[last.end:span.start] if last is not None else ""
        # a job too where nothing but a space parts its pieces ("imam of Masjid" + "Al-Noor"): one slot, one value
        if (last is not None and last.slot == span.slot and (
                (span.slot in PHRASE_SLOTS and len(between.split()) <= gap_words
                 and _FRAGMENT_GAP.match(between + " ")) or (span.slot == "job" and between.isspace()))):
            out[-1] = replace(last, end=span.end, confidence=max(last.confidence, span.confidence),
                              negated=last.negated or span.negated)
        else:
            out.append(span)
    return out


def _dated(text: str, span: Span, when: datetime) -> bool:
    """The plan's sentence names the day it is for: a sentence read alone adds such a plan where the whole
    message's reading lost it (a home, a flight on a date and a seat preference in three terse sentences gave the
    home and no flight); an undated one it may have read out of context (a city named alone) it does not add."""
    return anchor(sentence_around(text, span.start, span.end), when, "future") is not None


def _without_overlaps(spans: list[Span]) -> list[Span]:
    """Two values over the same words (widened to whole words): the more confident one stands."""
    kept: list[Span] = []
    for span in sorted(spans, key=lambda s: -s.confidence):
        if all(span.end <= k.start or span.start >= k.end for k in kept):
            kept.append(span)
    return sorted(kept, key=lambda s: s.start)


def last_value_wins(candidates: list[Candidate], doubt: float = 0.1) -> list[Candidate]:
    """One message, one value per subject: a single-valued slot stated twice keeps the later value when the
    user takes the first back ("google, i mean alphabet"), and otherwise unless the tagger was ``doubt``
    less sure of it (confidences as stored: "i'm in berlin, rust meetups?" keeps berlin); a multi-valued
    key found twice keeps the first, fuller mention."""
    keep: dict[str, int] = {}
    for i, c in enumerate(candidates):
        slot = SLOTS.get(c.tags[0]) if c.tags else None
        if slot is None or not c.should_store or not c.polarity:
            continue
        taken_back = bool(CORRECTION_OPENING.match(c.evidence))  # its clause opens "i mean", "wait no", ...
        if c.subject not in keep or (not slot.multi and (
                taken_back or c.confidence >= candidates[keep[c.subject]].confidence - doubt)):
            keep[c.subject] = i
    return [c for i, c in enumerate(candidates)
            if not (c.should_store and c.polarity and c.subject in keep and keep[c.subject] != i)]


def within_another(candidates: list[Candidate]) -> list[Candidate]:
    """Without a multi-valued fact whose value is said inside another of its slot's ("User's hobby: Low Tide
    Choir." beside "User's hobby: play bass in a band called Low Tide Choir."): a piece of a value is no value."""
    def value(c: Candidate) -> str:
        start, end, form = read_statement(c.content)  # "User uses strict mode." has no colon to split at
        return c.content[start:end].strip(" .").lower() if form else ""

    kept = [c for c in candidates if c.should_store and c.polarity and c.tags]
    return [c for c in candidates if not (
        c in kept and value(c) and any(o is not c and o.tags[0] == c.tags[0] and len(value(o)) > len(value(c))
                                       and f" {value(c)}" in f" {value(o)}" for o in kept))]


def one_fact_once(candidates: list[Candidate]) -> list[Candidate]:
    """One message, one memory per fact: the same fact found twice in one message (the tagger's negated span
    and the switch read around it: "moved from glasgow to paisley" ended glasgow both ways) is kept once, the
    surer reading. Two memories of one fact are one too many (SPEC: one fact, one slot)."""
    best: dict[tuple[str, bool, str], Candidate] = {}
    for c in candidates:
        key = (c.subject, c.polarity, c.content)
        if c.should_store and (key not in best or c.confidence > best[key].confidence):
            best[key] = c
    # a language rule read as a general instruction too ("Non, finalement answer me in English": instruction and
    # answer_language) is the language's: written once as both, it was the instruction that stood and the French it
    # replaces stayed (the other answer slots' rules were labelled instructions, and stay both)
    specific = {(c.polarity, c.content) for c in best.values() if c.subject == "answer_language"}
    return [c for c in candidates if not c.should_store or (
        best[(c.subject, c.polarity, c.content)] is c
        and not (c.subject.startswith("instruction") and (c.polarity, c.content) in specific))]


def _note(text: str, message: Message) -> Candidate:
    """'Remember that X' where no slot fits: the user's own words, kept as an explicit note."""
    clause = text.strip()
    candidate = Candidate(
        category=guess_category(clause), subject=f"note:{slot_key(clause, 4)}", content=third_person(clause),
        confidence=1.0, evidence=clause, message_id=message.message_id, occurred_at=message.created_at,
        source=SourceKind.USER_EXPLICIT,
    )
    reason = rejection_reason(clause)
    if reason and reason != "uncertain":
        candidate.should_store = False
        candidate.rejection_reason = reason
    return candidate
