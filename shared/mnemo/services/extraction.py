"""The debounced consumer: buffered turns -> candidates -> validated facts -> the write path."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta

from mnemo.domain.conflicts import key_ends_in_its_slot
from mnemo.domain.extraction import Candidate, Extraction
from mnemo.domain.extraction.answer_stances import overrides, said_stances, stances
from mnemo.domain.extraction.ending import read_statement
from mnemo.domain.extraction.household import (
    Person,
    family_value,
    household_of,
    partner_left,
    partner_parted,
    partner_value,
    people_in,
)
from mnemo.domain.extraction.medicines import same_kind, stored_medicine, which_replaced
from mnemo.domain.extraction.moves import due_move, home_owned, says_moved_in
from mnemo.domain.extraction.named_endings import ENDED_BY_NAME, Stored, ended_by_name, restates, says_a_stop
from mnemo.domain.extraction.readings import reading_for
from mnemo.domain.extraction.reschedules import (
    called_off_plans,
    corrects,
    meant_day,
    moved_plan_value,
    moved_to,
    on_the_day,
    plan_topic,
    retimed,
    taken_back,
    times_corrected,
)
from mnemo.domain.extraction.slots import ANSWER_SLOTS, RETRACTION_TAG, SLOTS, subject_for
from mnemo.domain.for_others import LIFE_PREFIX
from mnemo.domain.models import (
    RETRIEVABLE,
    BufferedTurn,
    Category,
    Memory,
    Message,
    Provenance,
    Scope,
    SourceKind,
    Status,
)
from mnemo.domain.screening import defuse
from mnemo.domain.text import terms
from mnemo.ports import Claim, ExtractionJob, FactEndings
from mnemo.services.context import Ports
from mnemo.services.counters import Counters
from mnemo.services.forgetting import Forgetter
from mnemo.services.sessions import SessionService
from mnemo.services.signals import ImplicitSignals
from mnemo.services.writing import Embedded, MemoryWriter, NewFact, WriteResult, stable_id

log = logging.getLogger("mnemo.extraction")
# facts no later message ends: what happened stays what happened (a correction of an event is the extractor's)
NEVER_ENDED = frozenset({"event"})

# what the local server exposes and the extract Lambda sends as metrics (functions/extract/handler.py)
EXTRACTION_COUNTERS = (
    "jobs_completed",  # claimed copies that extracted what was pending and finished
    "jobs_dropped_stale",  # copies a newer schedule overtook, or already done: dropped, nothing changed
    "jobs_deferred_busy",  # copies that found their conversation being extracted: delivered again later
    "jobs_failed",  # claimed copies that raised: lease handed back, the job tried again later
    "turns_extracted",  # buffered turns the extractor saw and the buffer then acknowledged
    "turns_acknowledged_unextracted",  # must stay 0: turns the buffer let go of that no extractor saw
)


@dataclass
class ExtractionReport:
    job: ExtractionJob
    stale: bool = False
    busy: bool = False
    messages: int = 0
    acknowledged: int = 0
    extracted: int = 0
    unextracted: int = 0  # turns acknowledged that the extractor did not see (must be 0)
    results: list[WriteResult] = field(default_factory=list)
    rejected: dict[str, int] = field(default_factory=dict)
    forgotten: list[str] = field(default_factory=list)
    decayed: list[str] = field(default_factory=list)
    checkpointed: bool = False  # the session's rolling summary folded what a checkpoint marked


@dataclass
class Prepared:
    """An extraction's result ready to write: its facts with their vectors (computed ahead of the lock)."""

    extraction: Extraction
    facts: list[NewFact]
    rejected: dict[str, int]
    embedded: Embedded


class ExtractionService:
    def __init__(self, ports: Ports, writer: MemoryWriter, forgetter: Forgetter, signals: ImplicitSignals,
                 sessions: SessionService) -> None:
        self.p = ports
        self.writer = writer
        self.forgetter = forgetter
        self.signals = signals
        self.sessions = sessions
        self.counters = Counters(EXTRACTION_COUNTERS)

    def process(self, job: ExtractionJob) -> ExtractionReport:
        """Run one delivered copy of a job. Safe whatever the copy: a stale one changes nothing, a
        redelivered one finds its turns acknowledged, a crash halfway is redone by the next copy
        (the write path is idempotent), and one delivery at a time extracts a conversation."""
        report = ExtractionReport(job)
        settings = self.p.settings
        now = self.p.clock.now()
        claim = self.p.queue.claim(job, now, timedelta(seconds=settings.extraction_lease_seconds))
        if claim is Claim.STALE:
            report.stale = True  # a newer schedule overtook it: that one covers these turns
            self.p.queue.drop(job)
            self.counters.add("jobs_dropped_stale")
            return report
        if claim is Claim.BUSY:
            report.busy = True  # another delivery is extracting this conversation: come back later
            self.p.queue.defer(job, now + timedelta(seconds=settings.extraction_busy_retry_seconds))
            self.counters.add("jobs_deferred_busy")
            return report
        try:
            # the extractor and the embedding of what it found (the slow parts) first work on the turns read
            # without the user's lock, so the user's own requests (turns, remember) do not wait for them, and
            # the lock's holder (raised out of the jobs process's idle priority) does little; what they found
            # is used only if the turns are still the same under the lock, else they are read again there
            early, prepared = self._prepare_early(job)
            # the user's lock from the buffer read to the last write: an erase comes before (nothing left
            # to read) or after (it removes what was written), never in between (issue 11, item 1)
            with self.p.locks.hold(job.tenant_id, job.user_id):
                turns = self.p.buffer.pending(job.tenant_id, job.user_id, job.conversation_id, job.up_to_seq)
                report.messages = len(turns)
                # memory turned off after these were buffered: they are let go of unread, by the user's choice
                seen = bool(turns) and self.p.user_settings.get(job.tenant_id, job.user_id).memory_enabled
                if seen:
                    same = prepared is not None and _same_turns(early, turns)
                    self._extract(job, turns, report, prepared if same else None)
                # exactly the turns read, never a range: one with a lower seq may have landed since
                report.acknowledged = self.p.buffer.acknowledge(job.tenant_id, job.user_id, job.conversation_id,
                                                                [t.seq for t in turns])
        except Exception:
            self.counters.add("jobs_failed")
            self.p.queue.release(job, self.p.clock.now() + timedelta(seconds=settings.extraction_retry_seconds))
            raise
        if any(r.memory is not None and r.outcome != "rejected" for r in report.results):
            # the profile the write made stale, built once the user's lock is let go (the write committed)
            self.writer.refresh_profile_after_write(job.tenant_id, job.user_id)
        # the rolling summary's checkpoint a turns request marked (after the user's lock: it takes it only to
        # write); a failure leaves the mark for the conversation's next job
        try:
            report.checkpointed = self.sessions.checkpoint(job.tenant_id, job.user_id, job.conversation_id)
        except Exception as exc:
            log.warning("rolling summary checkpoint failed", extra={"error": type(exc).__name__})
        self.p.queue.complete(job)
        report.extracted = len(turns) if seen else 0
        report.unextracted = max(0, report.acknowledged - report.extracted) if seen else 0
        self.counters.add("jobs_completed")
        self.counters.add("turns_extracted", report.extracted)
        self.counters.add("turns_acknowledged_unextracted", report.unextracted)
        log.info("extraction done", extra={"messages": report.messages, "facts": len(report.results),
                                           "rejected": sum(report.rejected.values())})
        return report

    def _prepare_early(self, job: ExtractionJob) -> tuple[list[BufferedTurn], Prepared | None]:
        """The pending turns and what the extractor finds in them, embedded, all without the user's lock.
        Only a head start: a store that refuses the read (an erase under way) leaves it to the read under
        the lock, which decides as it always did; an extractor's or embedder's error fails the job as it
        always did."""
        try:
            early = self.p.buffer.pending(job.tenant_id, job.user_id, job.conversation_id, job.up_to_seq)
            enabled = bool(early) and self.p.user_settings.get(job.tenant_id, job.user_id).memory_enabled
        except Exception as exc:
            log.info("extraction read ahead of the lock failed: reading under it", extra={"error": type(exc).__name__})
            return [], None
        return early, self._prepare(job, early) if enabled else None

    def _read(self, turns: list[BufferedTurn]) -> Extraction:
        return self.p.extractor.extract([defuse_message(t.message) for t in turns])

    def _family(self, job: ExtractionJob) -> list[Person]:
        """The people the user's live family facts name ("daughter Jess"): a later session's "Jess is
        pescatarian now" is then known as a dependant's (domain/extraction/household.py)."""
        facts = self.p.memories.page(job.tenant_id, job.user_id, statuses=[Status.ACTIVE],
                                     category=Category.BIOGRAPHICAL, limit=self.p.settings.max_active_memories,
                                     cursor=None).items
        return [p for m in facts if m.polarity
                for p in people_in(family_value(m.content) or partner_value(m.content))]

    def _prepare(self, job: ExtractionJob, turns: list[BufferedTurn]) -> Prepared:
        """What the extractor finds in ``turns``: the facts to store, embedded, and what it rejected."""
        # the user's own readings of pieces read before (the rolling summary's fold reads these turns again)
        with reading_for(job.tenant_id, job.user_id), household_of(self._family(job)):
            extraction = self._read(turns)
        project_id = next((t.project_id for t in turns if t.project_id), None)
        facts: list[NewFact] = []
        rejected: dict[str, int] = {}
        for c in extraction.candidates:
            if not c.should_store:
                key = c.rejection_reason or "rejected"
                rejected[key] = rejected.get(key, 0) + 1
                continue
            if c.confidence < self.p.settings.min_store_confidence:
                rejected["low_confidence"] = rejected.get("low_confidence", 0) + 1
                continue
            facts.append(self._fact(job, c, project_id))
        facts = self._with_replaced_medicines(job, turns, extraction, facts)
        facts = self._with_partners_left(job, turns, facts)
        facts = self._with_due_moves(job, facts)
        facts = self._with_home_moved_into(job, turns, facts)
        facts = self._with_moved_plans(job, turns, facts)
        facts = self._with_dates_taken_back(job, turns, facts)
        facts = self._with_times_taken_back(job, turns, facts)
        facts = self._with_cancelled_plans(job, turns, facts)
        facts = self._with_ended_by_name(job, turns, facts)
        facts = self._with_answer_rules_overridden(job, turns, facts)
        if self.p.endings is not None:
            facts = self._with_endings(self.p.endings, job, turns, facts, project_id)
        # what ended is written before what holds now: "I quit the keto thing ... lower carb" retires keto
        # first, so the new value meets no stale one to lose to
        facts.sort(key=lambda f: f.polarity)
        return Prepared(extraction, facts, rejected, self.writer.embed(facts) if facts else ([], []))

    def _extract(self, job: ExtractionJob, turns: list[BufferedTurn], report: ExtractionReport,
                 prepared: Prepared | None = None) -> None:
        prepared = prepared if prepared is not None else self._prepare(job, turns)
        extraction = prepared.extraction
        for key, count in prepared.rejected.items():
            report.rejected[key] = report.rejected.get(key, 0) + count
        if not self.p.buffer.pending(job.tenant_id, job.user_id, job.conversation_id, job.up_to_seq):
            # the turns are gone (an erase the lock did not fence: another process, a lapsed lease): the
            # facts learnt from them must not come back under a new key
            report.stale = True
            return
        for request in extraction.forget:
            report.forgotten.extend(self.forgetter.forget(job.tenant_id, job.user_id, request.query,
                                                          actor="extraction"))
        # each fact commits on its own (the write lock is held for one fact's rows at a time): a crash between
        # two is redone by the job's next copy, whose stable ids find the facts already written
        report.results = self.writer.write(job.tenant_id, job.user_id, prepared.facts, actor="extraction",
                                           embedded=prepared.embedded, refresh=False, each_alone=True)
        corrections = [c for c in extraction.accepted if c.correction]
        if corrections:
            report.decayed = self.signals.corrected(
                job.tenant_id, job.user_id, job.conversation_id,
                [c.content for c in corrections], [c.subject for c in corrections])

    def _with_endings(self, endings: FactEndings, job: ExtractionJob, turns: list[BufferedTurn],
                      facts: list[NewFact], project_id: str | None) -> list[NewFact]:
        """``facts`` and a retraction of each stored fact that one of the user's messages ends, by the learned
        judge: "the cardiologist moved me from warfarin to apixaban" ends "User's health: warfarin." though no
        rule reads it so. Where the extractor read the same value in the message as said again ("it's Ray again",
        "now settled in my bungalow in Ripon"), or read its ending itself, the extractor's reading stands. Only
        the facts of the partitions the job writes to are judged (the user's, and the conversation's project's):
        a message in one project ends nothing of another's, nor of a session it is not part of."""
        settings = self.p.settings
        read = {t.message.message_id for t in turns}
        live = sorted((m for m in self.p.memories.all_for_user(job.tenant_id, job.user_id)
                       if m.status in RETRIEVABLE and m.polarity
                       and (m.scope is Scope.USER or (m.scope is Scope.PROJECT and project_id is not None
                                                      and m.project_id == project_id))
                       and RETRACTION_TAG not in m.tags and m.subject.partition(":")[0] not in NEVER_ENDED
                       and not read & set(m.provenance.message_ids)),
                      key=lambda m: m.last_confirmed_at, reverse=True)[:settings.ending_max_facts]
        if not live:
            return facts
        out = list(facts)
        for turn in turns:
            message = defuse_message(turn.message)
            if message.role != "user":
                continue
            said_before = [m for m in live if m.created_at <= message.created_at]
            chances = endings.probabilities(message.content, [m.content for m in said_before],
                                            owner=(job.tenant_id, job.user_id))
            for old, chance in zip(said_before, chances, strict=True):
                if chance < settings.ending_at_least:
                    continue
                # the same value: a keyed subject ("health:warfarin") names it; a single-valued slot's subject
                # ("job") is a new value's too, which does not say the old one again
                if any(f.subject == old.subject and f.provenance is not None
                       and message.message_id in f.provenance.message_ids
                       and (":" in f.subject or not f.polarity or f.content == old.content) for f in facts):
                    continue
                out.append(self._ending(job, message, old, chance, endings.version))
        return out

    def _with_replaced_medicines(self, job: ExtractionJob, turns: list[BufferedTurn], extraction: Extraction,
                                 facts: list[NewFact]) -> list[NewFact]:
        """``facts`` and a retraction of the stored medicine each new one replaces where the message does not name
        it ("the doctor put me on nebivolol instead"): the medicine said of what the new one is for, or the user's
        one medicine (medicines.which_replaced); none where the user's facts do not say which. A new medicine said as
        the one taken now ("Chemist give mi di losartan now") ends the stored ones of its kind (medicines.same_kind)."""
        new = [c for c in extraction.candidates
               if (c.replaces_unnamed or c.replaces_same_kind) and c.should_store and c.polarity]
        if not new:
            return facts
        read = {t.message.message_id: t.message for t in turns}
        stored = [(m, stored_medicine(m.content[slice(*read_statement(m.content)[:2])], m.provenance.evidence or ""))
                  for m in self.p.memories.all_for_user(job.tenant_id, job.user_id)
                  if m.status in RETRIEVABLE and m.polarity and m.scope is Scope.USER
                  and m.subject.partition(":")[0] == "health" and RETRACTION_TAG not in m.tags
                  and not set(read) & set(m.provenance.message_ids)]
        medicines = {m.memory_id: (m, name) for m, name in stored if name is not None}
        ended = {f.subject for f in facts if not f.polarity}
        out = list(facts)
        for c in new:
            message = read.get(c.message_id)
            if message is None:
                continue
            start, end, _form = read_statement(c.content)
            listed = [(i, name, m.provenance.evidence or m.content) for i, (m, name) in medicines.items()
                      if m.subject not in ended and m.created_at <= message.created_at]
            name = c.content[start:end]
            replaced = (which_replaced(name, message.content, listed) if c.replaces_unnamed
                        else same_kind(name, listed))
            for memory_id in replaced:
                old = medicines[memory_id][0]
                ended.add(old.subject)
                out.append(self._ending(job, message, old, c.confidence, self.p.extractor.version,
                                        extractor=self.p.extractor.name))
        return out

    def _with_ended_by_name(self, job: ExtractionJob, turns: list[BufferedTurn],
                            facts: list[NewFact]) -> list[NewFact]:
        """``facts`` with the end of each stored fact a user message names after a way of stopping ("doctor say
        back better, stop the meloxicam", "left the choir last month"; named_endings.ended_by_name) where the
        extractor ended nothing of that subject; what else the extractor read of the ended value in this message
        ("finished the meloxicam" as a hobby, "off the meloxicam now" as a diet given up) is not written."""
        if not any(turn.message.role == "user" and says_a_stop(turn.message.content) for turn in turns):
            return facts  # the user's facts are read only for a job whose messages say a stop
        read = {t.message.message_id for t in turns}
        stored = [m for m in self.p.memories.all_for_user(job.tenant_id, job.user_id)
                  if m.status in RETRIEVABLE and m.polarity and m.scope is Scope.USER
                  and m.subject.partition(":")[0] in ENDED_BY_NAME and RETRACTION_TAG not in m.tags
                  and not read & set(m.provenance.message_ids)]
        if not stored:
            return facts
        by_id = {m.memory_id: m for m in stored}
        values = [Stored(m.memory_id, m.subject.partition(":")[0], m.content[slice(*read_statement(m.content)[:2])],
                         m.subject.partition(":")[2]) for m in stored]
        ended = {f.subject for f in facts if not f.polarity}
        out = list(facts)
        for turn in turns:
            message = defuse_message(turn.message)
            if message.role != "user":
                continue
            for ending in ended_by_name(message.content, [v for v in values
                                                          if by_id[v.memory_id].created_at <= message.created_at]):
                old = by_id[ending.memory_id]
                # ended already: by its subject, or by a retraction of this message whose key the old one's holds
                # (conflicts.ends_in_its_slot retires it: "I stopped cycling" ends "cycle to work every day")
                theirs = [f for f in out if not f.polarity and f.ends is None and f.provenance is not None
                          and message.message_id in f.provenance.message_ids]
                if old.subject in ended or any(key_ends_in_its_slot(f.subject, old.subject) for f in theirs):
                    continue
                ended.add(old.subject)
                # what else the extractor read of it in this message, if it says nothing more (not an ending, not a
                # new thing of its kind: "bought a 2022 Corolla hybrid")
                out = [f for f in out if not (f.ends is None and f.provenance is not None
                                              and message.message_id in f.provenance.message_ids
                                              and f.subject.partition(":")[0] in ENDED_BY_NAME
                                              and restates(f.content[slice(*read_statement(f.content)[:2])],
                                                           ending))]
                out.append(self._ending(job, message, old, old.confidence, "1", extractor="ended-by-name"))
        return out

    def _with_answer_rules_overridden(self, job: ExtractionJob, turns: list[BufferedTurn],
                                      facts: list[NewFact]) -> list[NewFact]:
        """``facts`` with the end of each stored rule about answers that a later user message takes another stance
        on, aspect by aspect (answer_stances: "can do lists now" ends "keep answers short; no bullet points",
        "English mein hi likho" ends "Hindi mein jawab do"), whether or not the extractor read a rule from that
        message; and without a rule this job read from an earlier message that a later one overrides (both said in
        one session: "bullet points pls" ... "actually paragraphs read better")."""
        said = [(t.message, said_stances(t.message.content)) for t in turns if t.message.role == "user"]
        said = [(message, new) for message, new in said if new]
        if not said:
            return facts
        order = {t.message.message_id: i for i, t in enumerate(turns)}

        def overridden(rule: str, after: datetime, after_index: int | None = None) -> Message | None:
            held = stances(rule)
            for message, new in said:
                later = (order[message.message_id] > after_index if after_index is not None
                         else message.created_at >= after)
                if later and overrides(new, held):
                    return message
            return None

        out = [f for f in facts
               if not (f.polarity and f.ends is None and f.subject.partition(":")[0] in ANSWER_SLOTS
                       and f.provenance is not None and f.provenance.message_ids
                       and overridden(f.content, f.occurred_at, order.get(f.provenance.message_ids[0], len(turns)))
                       is not None)]
        read = set(order)
        ended = {f.ends for f in facts if f.ends is not None}
        for old in self.p.memories.all_for_user(job.tenant_id, job.user_id):
            if (old.status not in RETRIEVABLE or not old.polarity or old.scope is not Scope.USER
                    or old.subject.partition(":")[0] not in ANSWER_SLOTS or RETRACTION_TAG in old.tags
                    or old.memory_id in ended or read & set(old.provenance.message_ids)):
                continue
            message = overridden(old.content[slice(*read_statement(old.content)[:2])], old.created_at)
            # a rule of the same single-valued slot read from that message replaces the old one as it is written
            if message is not None and not any(
                    f.subject == old.subject and f.polarity and ":" not in f.subject and f.provenance is not None
                    and message.message_id in f.provenance.message_ids for f in out):
                out.append(self._ending(job, defuse_message(message), old, old.confidence, "1",
                                        extractor="answer-stances"))
        return out

    def _with_partners_left(self, job: ExtractionJob, turns: list[BufferedTurn], facts: list[NewFact]) -> list[NewFact]:
        """``facts`` and an ending of each stored fact of a partner's life (family_life) that a new relationship
        leaves behind ("User's girlfriend Larissa's diet: vegetarian." once the user is dating Inês or single):
        a partner's life is the user's matter while they are the partner (household.partner_left)."""
        said = [f for f in facts if f.subject == "relationship_status"]
        if not said:
            return facts
        read = {t.message.message_id: t.message for t in turns}
        out = list(facts)
        for old in self._live(job, Category.BIOGRAPHICAL):
            if old.subject == "relationship_status" and old.polarity and RETRACTION_TAG not in old.tags:
                # a parting said of the partner by name or as "we" ("Pavel and me, we broke up", household.partings)
                # ends the relationship stored as "boyfriend Pavel", which its own value does not name whole
                parting = next((f for f in said if not f.polarity and partner_parted(f.content, old.content)), None)
                ids = parting.provenance.message_ids if parting is not None and parting.provenance else []
                message = read.get(ids[0]) if ids else None
                if parting is not None and message is not None:
                    out.append(self._ending(job, message, old, parting.confidence, self.p.extractor.version,
                                            extractor=self.p.extractor.name))
                continue
            if not old.subject.startswith(LIFE_PREFIX) or RETRACTION_TAG in old.tags:
                continue
            for fact in said:
                ids = fact.provenance.message_ids if fact.provenance is not None else []
                message = read.get(ids[0]) if ids else None
                if message is None or set(old.provenance.message_ids) & set(ids):
                    continue
                if partner_left(fact.content, not fact.polarity, old.content):
                    out.append(self._ending(job, message, old, fact.confidence, self.p.extractor.version,
                                            extractor=self.p.extractor.name))
                    break
        return out

    def _live(self, job: ExtractionJob, category: Category) -> list[Memory]:
        """The user's own live facts of one category (not a project's)."""
        page = self.p.memories.page(job.tenant_id, job.user_id, statuses=[Status.ACTIVE], category=category,
                                    limit=self.p.settings.max_active_memories, cursor=None).items
        return [m for m in page if m.scope is Scope.USER and m.polarity]

    def _with_due_moves(self, job: ExtractionJob, facts: list[NewFact]) -> list[NewFact]:
        """``facts`` and the home a stored plan to move has made true by now (domain/extraction/moves.py): the
        plan's place, unless the user has named a home since the plan (or does in this job). Its id is the
        plan's: a job that runs again writes it once."""
        home = SLOTS["home_location"]
        if any(f.subject == home.name and f.polarity for f in facts):
            return facts
        now = self.p.clock.now()
        # plans are episodic: one category read in every job, the homes only where a move has come due
        plans = [m for m in self._live(job, Category.EPISODIC)
                 if m.subject.startswith("plan:") and RETRACTION_TAG not in m.tags]
        for plan in sorted(plans, key=lambda m: m.created_at, reverse=True):
            place = due_move(plan.content, now)
            if place is None:
                continue
            if any(other.created_at > plan.created_at and place.lower() in other.content.lower() for other in plans):
                continue  # the move said again since, maybe for another date ("toronto is pushed to june")
            provenance = plan.provenance
            said = set(provenance.message_ids) if provenance else set()
            if any(m.subject == home.name and m.created_at > plan.created_at
                   and not said & set(m.provenance.message_ids if m.provenance else [])
                   for m in self._live(job, home.category)):
                return facts  # a home named since the plan says where the user lives
            return [*facts, NewFact(
                content=home.affirm.format(v=place), category=home.category, subject=home.name,
                # the user said it, dated: a stated fact (an inferred one would never replace the stated home, R6)
                confidence=plan.confidence, source=SourceKind.EXTRACTED, occurred_at=now, importance=home.importance,
                # of the conversation it comes due in: a value said later in the plan's own conversation is taken
                # for an aside (said_again_in_passing), and this one is a change
                provenance=Provenance(source=SourceKind.EXTRACTED, conversation_id=job.conversation_id,
                                      message_ids=list(provenance.message_ids) if provenance else [],
                                      extractor="due-move", extractor_version="1",
                                      evidence=((provenance.evidence if provenance else None) or plan.content)[:500]),
                memory_id=stable_id(job.tenant_id, job.user_id, "due-move", plan.memory_id))]
        return facts

    def _with_home_moved_into(self, job: ExtractionJob, turns: list[BufferedTurn],
                              facts: list[NewFact]) -> list[NewFact]:
        """``facts`` and the home a stored one the user owns has become, where a message of this job says they moved
        in and names no place ("WE BOUGHT A LITTLE HOUSE IN AMES ... Moving end of the month", then "Moved in. House
        is fine"): the newest such home (domain/extraction/moves.py). Not where this job names a home itself."""
        home = SLOTS["home_location"]
        said = [t.message for t in turns if t.message.role == "user" and says_moved_in(t.message.content)]
        if not said or any(f.subject == home.name and f.polarity for f in facts):
            return facts
        # owned things and homes are both biographical: one read serves both
        biographical = self._live(job, Category.BIOGRAPHICAL)
        owned = sorted(((m, place) for m in biographical
                        if m.subject.startswith("owns:") and (place := home_owned(m.content)) is not None),
                       key=lambda pair: pair[0].created_at, reverse=True)
        if not owned:
            return facts
        fact, place = owned[0]
        if any(m.subject == home.name and m.created_at > fact.created_at for m in biographical):
            return facts  # a home named since the one bought says where the user lives
        return [*facts, NewFact(
            content=home.affirm.format(v=place), category=home.category, subject=home.name,
            confidence=fact.confidence, source=SourceKind.EXTRACTED, occurred_at=self.p.clock.now(),
            importance=home.importance,
            provenance=Provenance(source=SourceKind.EXTRACTED, conversation_id=job.conversation_id,
                                  message_ids=[m.message_id for m in said], extractor="moved-in",
                                  extractor_version="1", evidence=fact.content[:500]),
            memory_id=stable_id(job.tenant_id, job.user_id, "moved-in", fact.memory_id))]

    def _with_moved_plans(self, job: ExtractionJob, turns: list[BufferedTurn], facts: list[NewFact]) -> list[NewFact]:
        """``facts``, and for each user message that says a date moved (domain/extraction/reschedules.py) the end of
        the stored plans it names best by the words of what a plan is about, and the first of them at the new date:
        "Baner opening is delayed ... Now it will be January next year" ends "User plans: opening in October" and
        holds "User plans: opening, now January next year". A plan already for that date is left alone. Where the
        extractor reads the moved plan itself, the writer moves the stored one (conflicts.reschedules); this is for the
        messages where it reads a deadline or nothing, and may end more than one plan the message names."""
        said_moved = [(turn.message, moved) for turn in turns if turn.message.role == "user"
                      and (moved := moved_to(turn.message.content, turn.message.created_at)) is not None]
        if not said_moved:
            return facts  # the plans are read only for a job whose messages say a date moved
        plans = self._stored_plans(job)
        out = list(facts)
        for message, (iso, words) in said_moved:
            # a plan said earlier in these turns, not stored yet, is held at the new date in place
            for fact in _facts_named([f for f in _said_earlier_plans(out, turns, message)
                                      if f"(for {iso}" not in f.content], message.content):
                out[out.index(fact)] = _held_at(fact, words, iso)
            named = _plans_named([p for p in plans if f"(for {iso}" not in p.content], message.content, message)
            if not named:
                continue
            out.extend(self._ending(job, message, plan, plan.confidence, "1", extractor="moved-plan") for plan in named)
            if any(f.polarity and f.subject.startswith("plan:") and f"(for {iso})" in f.content for f in out):
                continue  # the message's own reading holds the plan at its new date
            out.append(self._moved_plan(job, message, named[0], words, iso))
        return out

    def _stored_plans(self, job: ExtractionJob) -> list[Memory]:
        """The user's live plans (not the retractions of plans)."""
        return [m for m in self._live(job, Category.EPISODIC)
                if m.subject.startswith("plan:") and RETRACTION_TAG not in m.tags]

    def _moved_plan(self, job: ExtractionJob, message: Message, plan: Memory, words: str, iso: str) -> NewFact:
        """The stored ``plan`` held again at its new date (``words``, ``iso``), said by ``message``."""
        slot = SLOTS["plan"]
        value = moved_plan_value(plan.content, words)
        return NewFact(
            content=slot.affirm.format(v=f"{value} (for {iso})"), category=plan.category,
            subject=subject_for(slot, value), confidence=plan.confidence, source=SourceKind.EXTRACTED,
            occurred_at=message.created_at, importance=plan.importance,
            provenance=Provenance(source=SourceKind.EXTRACTED, conversation_id=job.conversation_id,
                                  message_ids=[message.message_id], extractor="moved-plan", extractor_version="1",
                                  evidence=message.content[:500]),
            memory_id=stable_id(job.tenant_id, job.user_id, job.conversation_id, message.message_id, "moved-plan",
                                plan.memory_id))

    def _with_dates_taken_back(self, job: ExtractionJob, turns: list[BufferedTurn],
                               facts: list[NewFact]) -> list[NewFact]:
        """``facts``, and for each day a user message takes back by naming it ("actually no its the 23rd not the 16th,
        i read the letter wrong"; reschedules.taken_back) the stored plans said before it for that day, ended and held
        again at the day meant, where the message's own reading holds no plan at that day."""
        said = [(turn.message, back) for turn in turns if turn.message.role == "user"
                for back in taken_back(turn.message.content, turn.message.created_at)]
        if not said:
            return facts
        plans = self._stored_plans(job)
        out = list(facts)
        for message, (was, meant, words) in said:
            on_it = [p for p in plans if on_the_day(p.content, was) is not None and _said_before(p, message)]
            if was.startswith("wd:"):
                # a weekday is every week's: only the plans said last for it ("sorry i meant thursday nt wednesday")
                last = max((p.created_at for p in on_it), default=None)
                on_it = [p for p in on_it if p.created_at == last]
            for plan in on_it:
                held = on_the_day(plan.content, was)
                if held is None:
                    continue
                # a correction, or one that names the plan; a day of any month only within the month said and next;
                # a weekday, every week's, only the plan named, or the one said last where the correction names none
                named_it = plan_topic(plan.content) & set(terms(message.content))
                if not (corrects(message.content) or named_it):
                    continue
                if was.startswith("wd:") and not named_it and _names_something(message.content):
                    continue
                if was.startswith(("--", "wd:")) and not _this_month_or_next(held, message.created_at):
                    continue
                iso = meant_day(held, meant)
                if was.startswith("wd:") and iso < message.created_at.date().isoformat():
                    iso = (date.fromisoformat(iso) + timedelta(days=7)).isoformat()  # "monday not friday": the next
                out.append(self._ending(job, message, plan, plan.confidence, "1", extractor="moved-plan"))
                if not any(f.polarity and f.subject.startswith("plan:") and f"(for {iso})" in f.content for f in out):
                    # (where the message's own reading holds a plan at the day meant, that one stands)
                    out.append(self._moved_plan(job, message, plan, words, iso))
            # a plan said earlier in the same turns is not stored yet: held at the day meant in place ("I have a
            # dentist appointment on the 16th." ... "sorry, the 23rd not the 16th")
            for fact in _said_earlier_plans(out, turns, message):
                held = on_the_day(fact.content, was)
                named_it = plan_topic(fact.content) & set(terms(message.content))
                if held is None or not (corrects(message.content) or named_it):
                    continue
                out[out.index(fact)] = _held_at(fact, words, meant_day(held, meant))
        return out

    def _with_times_taken_back(self, job: ExtractionJob, turns: list[BufferedTurn],
                               facts: list[NewFact]) -> list[NewFact]:
        """``facts``, and for each time of day a user message takes back by naming it ("Correction to my previous
        message: the appointment is at 3:15 pm, not 2:15 pm"; reschedules.times_corrected) the stored plans said
        before it at that time, ended and held again at the time meant: the one plan the message names best by its
        words, none where two are named alike or none is named."""
        said = [(turn.message, corrected) for turn in turns if turn.message.role == "user"
                for corrected in times_corrected(turn.message.content)]
        if not said:
            return facts
        plans = self._stored_plans(job)
        ended = {f.subject for f in facts if not f.polarity}
        out = list(facts)
        for message, (was, meant) in said:
            # named by the words of what it is, not by the times ("sorry, the team call is at 3pm not 2pm" is not the
            # dentist's 2pm); the one plan named best, none where two are named alike
            said_words = set(terms(message.content))
            named = {p.memory_id: len(_not_times(plan_topic(p.content) & said_words))
                     for p in plans if p.subject not in ended and was.search(p.content) and _said_before(p, message)}
            # and the plans said earlier in the same turns, not stored yet ("Correction to my previous message: the
            # appointment is at 3:15 pm, not 2:15 pm" in the session that made it)
            earlier = [f for f in _said_earlier_plans(out, turns, message) if was.search(f.content)]
            named_earlier = [len(_not_times(plan_topic(f.content) & said_words)) for f in earlier]
            most = max([*named.values(), *named_earlier], default=0)
            # named by nothing but said as a correction ("oops, it's 3:15 pm not 2:15 pm"): the one plan at that time
            bare = not most and corrects(message.content) and not _not_times(said_words - _A_BARE_CORRECTION)
            best = [p for p in plans if p.memory_id in named and (bare or named[p.memory_id] == most)]
            best_earlier = [f for f, n in zip(earlier, named_earlier, strict=True) if bare or (most and n == most)]
            if not (most or bare):
                continue
            if len(best) + len(best_earlier) != 1:
                continue
            if best_earlier:
                fact = best_earlier[0]
                out[out.index(fact)] = replace(fact, content=retimed(fact.content, was, meant))
                continue
            plan = best[0]
            ended.add(plan.subject)
            out.append(self._ending(job, message, plan, plan.confidence, "1", extractor="moved-plan"))
            out.append(self._retimed_plan(job, message, plan, retimed(plan.content, was, meant)))
        return out

    @staticmethod
    def _retimed_plan(job: ExtractionJob, message: Message, plan: Memory, content: str) -> NewFact:
        """The stored ``plan`` held again in its own words at the time meant (``content``), said by ``message``."""
        return NewFact(
            content=content, category=plan.category, subject=plan.subject, confidence=plan.confidence,
            source=SourceKind.EXTRACTED, occurred_at=message.created_at, importance=plan.importance,
            provenance=Provenance(source=SourceKind.EXTRACTED, conversation_id=job.conversation_id,
                                  message_ids=[message.message_id], extractor="moved-plan", extractor_version="1",
                                  evidence=message.content[:500]),
            memory_id=stable_id(job.tenant_id, job.user_id, job.conversation_id, message.message_id, "retimed-plan",
                                plan.memory_id))

    def _with_cancelled_plans(self, job: ExtractionJob, turns: list[BufferedTurn],
                              facts: list[NewFact]) -> list[NewFact]:
        """``facts`` and the end of each stored plan a user message says is off by the words of what it is about
        ("And Valencia is cancelled too" ends "User plans: Valencia booked! 3. to 17. August."; reschedules.
        called_off_plans), where the extractor read no plan there to end: the plans it names best, said before it."""
        said_off = [(turn.message, name) for turn in turns if turn.message.role == "user"
                    for name in called_off_plans(turn.message.content)]
        if not said_off:
            return facts
        ended = {f.subject for f in facts if not f.polarity}
        plans = [m for m in self._stored_plans(job) if m.subject not in ended]
        out = list(facts)
        for message, name in said_off:
            # a plan said earlier in these turns, not stored yet, is not written
            for fact in _facts_named(_said_earlier_plans(out, turns, message), name):
                out.remove(fact)
            for plan in _plans_named([p for p in plans if p.subject not in ended], name, message):
                ended.add(plan.subject)
                out.append(self._ending(job, message, plan, plan.confidence, "1", extractor="called-off-plan"))
        return out

    @staticmethod
    def _ending(job: ExtractionJob, message: Message, old: Memory, chance: float, version: str,
                extractor: str = "ending-judge") -> NewFact:
        slot = SLOTS.get(old.subject.partition(":")[0])
        start, end, _form = read_statement(old.content)
        value = old.content[start:end]
        content = slot.negate.format(v=value) if slot is not None else f"No longer: {old.content}"
        return NewFact(
            content=content, category=old.category, subject=old.subject, confidence=chance,
            source=SourceKind.EXTRACTED, occurred_at=message.created_at, polarity=False, importance=old.importance,
            scope=old.scope, project_id=old.project_id, session_id=old.session_id, ends=old.memory_id,
            ends_version=old.version,
            provenance=Provenance(source=SourceKind.EXTRACTED, conversation_id=job.conversation_id,
                                  message_ids=[message.message_id], extractor=extractor,
                                  extractor_version=version,
                                  evidence=message.content[:500]),
            # the ended fact's id too: one message may end two facts of one subject (the user's and the project's),
            # and each needs its own retraction (a shared id made the second a "merge" into the first)
            memory_id=stable_id(job.tenant_id, job.user_id, job.conversation_id, message.message_id, old.subject,
                                "no longer", old.memory_id),
        )

    def _fact(self, job: ExtractionJob, c: Candidate, project_id: str | None) -> NewFact:
        scope = Scope.PROJECT if project_id and c.category.value == "project_fact" else Scope.USER
        return NewFact(
            content=c.content, category=c.category, subject=c.subject, confidence=c.confidence, source=c.source,
            occurred_at=c.occurred_at, polarity=c.polarity, importance=c.importance, scope=scope,
            project_id=project_id if scope is Scope.PROJECT else None, sensitivity=c.sensitivity,
            high_stakes=c.high_stakes, correction=c.correction, only_to_retire=c.only_to_retire,
            provenance=Provenance(source=c.source, conversation_id=job.conversation_id,
                                  message_ids=[c.message_id], extractor=self.p.extractor.name,
                                  extractor_version=self.p.extractor.version, evidence=c.evidence[:500]),
            # the same message read again gives the same ids (a redelivered job writes nothing twice); a value
            # that ends and the one that replaces it in one message ("i quit chipotle, im at target now") share
            # a subject, so a retraction's id says it is one (a positive fact's id is as it always was)
            memory_id=stable_id(job.tenant_id, job.user_id, job.conversation_id, c.message_id,
                                *([c.subject] if c.polarity else [c.subject, "no longer"])),
        )


_CLOCK_WORDS = frozenset(terms("am pm a.m. p.m. o'clock"))
# the words of a correction that names no plan: "oops, it's 3:15 pm not 2:15 pm" ("sorry, the team call is at 3pm
# not 2pm" names one)
_A_BARE_CORRECTION = frozenset(terms("sorry oops actually correction mean meant wait no not it its is was at the my "
                                     "mistake bad typo wrong misread misremembered mixed up i time appointment "
                                     "previous message earlier said nt"))
_WEEKDAY_WORDS = frozenset(terms("monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur "
                                 "thurs fri sat sun"))



def _names_something(text: str) -> bool:
    """The text says more than a bare correction of a day or a time ("sorry i meant thursday nt wednesday" says
    nothing more; "thursday not wednesday for the call" names the call)."""
    return bool(_not_times(set(terms(text)) - _A_BARE_CORRECTION - _WEEKDAY_WORDS))


def _not_times(words: set[str]) -> set[str]:
    """The words that are no time of day ("3", "15", "pm")."""
    return {t for t in words if not t.isdigit() and t not in _CLOCK_WORDS}


def _held_at(fact: NewFact, words: str, iso: str) -> NewFact:
    """A plan read in this job (not stored yet) held at the date said later in it (``words``, ``iso``), as a stored
    one is by _moved_plan."""
    value = moved_plan_value(fact.content, words)
    return replace(fact, content=SLOTS["plan"].affirm.format(v=f"{value} (for {iso})"),
                   subject=subject_for(SLOTS["plan"], value))


def _facts_named(facts: list[NewFact], words: str) -> list[NewFact]:
    """The plans among ``facts`` (read in this job, not stored yet) that ``words`` name best."""
    return [facts[i] for i in _best_named([f.content for f in facts], words)]


def _best_named(contents: list[str], words: str) -> list[int]:
    """Which plans ``words`` name best by what a plan is about (reschedules.plan_topic), none where none is named:
    "Sarah's wedding got postponed" names the wedding, not "dinner with Sarah"."""
    said = set(terms(words))
    overlap = [len(plan_topic(content) & said) for content in contents]
    most = max(overlap, default=0)
    return [i for i, n in enumerate(overlap) if most and n == most]


def _said_earlier_plans(facts: list[NewFact], turns: list[BufferedTurn], message: Message) -> list[NewFact]:
    """The plans read from the turns before ``message`` in this job (not stored yet when it is read)."""
    order = {t.message.message_id: i for i, t in enumerate(turns)}
    at = order.get(message.message_id, -1)
    return [f for f in facts if f.polarity and f.ends is None and f.subject.startswith("plan:")
            and f.provenance is not None and f.provenance.message_ids
            and -1 < order.get(f.provenance.message_ids[0], -1) < at]


def _same_turns(a: list[BufferedTurn], b: list[BufferedTurn]) -> bool:
    """The same turns with the same words (a forget rewrites a turn it reaches in place)."""
    return [(t.seq, t.message) for t in a] == [(t.seq, t.message) for t in b]


def defuse_message(message: Message) -> Message:
    """The message without what follows an injection marker ("SYSTEM:", "[INST]", ...): the
    statement before it is still learnt, the attacker's part never reaches the extractor."""
    clean = defuse(message.content)
    return message if clean == message.content else message.model_copy(update={"content": clean})


def _this_month_or_next(held: str, when: datetime) -> bool:
    """Whether an ISO date falls in the month of ``when`` or the next one."""
    month = when.year * 12 + when.month - 1
    try:
        year, number = int(held[:4]), int(held[5:7])
    except ValueError:
        return False
    return month <= year * 12 + number - 1 <= month + 1


def _said_before(plan: Memory, message: Message) -> bool:
    """A stored plan said before the message, and not by it."""
    return plan.created_at <= message.created_at and message.message_id not in (
        plan.provenance.message_ids if plan.provenance else [])


def _plans_named(plans: list[Memory], words: str, message: Message) -> list[Memory]:
    """The stored plans, said before the message and not in it, that ``words`` name best (_best_named)."""
    before = [p for p in plans if _said_before(p, message)]
    return [before[i] for i in _best_named([p.content for p in before], words)]
