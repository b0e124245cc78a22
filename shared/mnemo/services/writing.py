"""The write path (DESIGN.md section 4): validate, embed, resolve against existing facts, write."""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import numpy as np

from mnemo.clock import to_utc
from mnemo.domain.conflicts import (
    ENDED_WHOLE_IN_SLOT,
    PASTIMES,
    Existing,
    Relation,
    Resolution,
    classify,
    ends_in_its_slot,
    ends_the_job,
    lifts_instruction,
    names_its_value,
    outranks,
    replaces_instruction,
    retires_value,
    same_partition,
    says_the_rule_changed,
)
from mnemo.domain.extraction import Candidate
from mnemo.domain.extraction.ending import read_statement
from mnemo.domain.extraction.medicines import has_medicine_stem, stored_medicine
from mnemo.domain.extraction.slots import (
    PROJECT_SLOTS,
    RETIRED_IN_PASSING,
    RETIRED_IN_PASSING_BY,
    RETRACTION_TAG,
    SLOTS,
    only_lifts,
    retracts,
)
from mnemo.domain.keys import fact_keys, speaker_of
from mnemo.domain.models import (
    RETRIEVABLE,
    AuditEvent,
    Category,
    Importance,
    Memory,
    MemoryVersion,
    Message,
    Provenance,
    Scope,
    Sensitivity,
    SourceKind,
    Status,
)
from mnemo.domain.screening import ALWAYS_REFUSED, rejection_reason
from mnemo.domain.text import normalise_content, sentence_parts, visible
from mnemo.errors import InvalidField, InvalidInput
from mnemo.ports import Embedder, Extractor
from mnemo.services.context import Ports
from mnemo.services.profile import ProfileView

log = logging.getLogger("mnemo.writing")
# each fact's whole vector and, for a long one, its sentences' (and keys') vectors
Embedded = tuple[list[np.ndarray], list[np.ndarray | None]]
ID_NAMESPACE = uuid.UUID("6f1c1f4e-8a43-4c8e-9a7e-6d4b1f0d2a11")
LIVE_OR_PENDING = frozenset({*RETRIEVABLE, Status.PENDING})
# Facts the service learned by itself pass every screen; facts an app hands over explicitly
# (remember, import) are the app's call, except for what is never stored from anyone.
SCREENED_SOURCES = frozenset({SourceKind.EXTRACTED, SourceKind.INFERRED, SourceKind.SUMMARY})


def refusal(fact: NewFact) -> str | None:
    """Why the writer refuses ``fact`` whatever is stored (the screen, as its source is held to), or None:
    a caller writing several facts for one request checks them all before writing any."""
    reason = rejection_reason(fact.content)
    return reason if reason and (fact.source in SCREENED_SOURCES or reason in ALWAYS_REFUSED) else None


CLIENT_DATED = frozenset({SourceKind.USER_EXPLICIT, SourceKind.IMPORTED})


@dataclass
class NewFact:
    """A fact on its way in, from any source (the extractor, the API, an import)."""

    content: str
    category: Category
    subject: str
    confidence: float
    source: SourceKind
    occurred_at: datetime
    polarity: bool = True
    importance: Importance = Importance.MEDIUM
    scope: Scope = Scope.USER
    project_id: str | None = None
    session_id: str | None = None
    expires_at: datetime | None = None
    sensitivity: Sensitivity = Sensitivity.NORMAL
    high_stakes: bool = False
    correction: bool = False
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, str] = field(default_factory=dict)
    provenance: Provenance | None = None
    memory_id: str | None = None  # deterministic for extracted facts: redelivery cannot duplicate
    only_to_retire: bool = False  # a retraction written only where it retires a stored fact (see Candidate)
    # a retraction the learned judge of endings made: it retires this stored fact (its id) and nothing else,
    # and only while that fact is live, older, and not of a more authoritative source than the message
    ends: str | None = None
    # the version of that fact the judge read: a fact edited since (the judge runs without the user's lock) was
    # not the fact judged, and is not ended
    ends_version: int | None = None


@dataclass
class WriteResult:
    memory: Memory | None
    outcome: str  # created | merged | superseded | rejected
    superseded: list[str] = field(default_factory=list)
    reason: str | None = None


def a_condition(memory: Memory) -> bool:
    """A stored health fact that names no medicine ("User's health: car sick on long drives."): an ending said in
    passing ("so I stopped the car at the services") ends a medicine taken, never a condition."""
    if memory.subject.partition(":")[0] != "health":
        return False
    start, end, _form = read_statement(memory.content)
    value = re.sub(r"^(?:takes|taking|on)\s+", "", memory.content[start:end], flags=re.IGNORECASE)
    return (stored_medicine(value, memory.provenance.evidence or "") is None
            and not any(has_medicine_stem(word) for word in value.split()))


def stable_id(*parts: str) -> str:
    return str(uuid.uuid5(ID_NAMESPACE, "\x1f".join(parts)))



class MemoryWriter:
    def __init__(self, ports: Ports, profiles: ProfileView | None = None) -> None:
        self.p = ports
        self.profiles = profiles or ProfileView(ports)

    def write(self, tenant_id: str, user_id: str, facts: Sequence[NewFact], *, resolve_conflicts: bool = True,
              actor: str = "api", embedded: Embedded | None = None, refresh: bool = True,
              each_alone: bool = False) -> list[WriteResult]:
        """Write ``facts`` (embedded here unless ``embedded``, from ``embed``, gives their vectors).

        Only the resolution against the stored facts and the rows themselves run inside the write
        transaction, which every writer of every user waits for; the embedding comes before the user's
        lock and the profile's rebuild after it. ``refresh=False`` leaves the rebuild to the caller (a
        caller that holds the user's lock around this write rebuilds it once it has let go).
        ``each_alone``: each fact commits on its own with its audit events (for a caller whose redo
        finds what was written, as an extraction job's stable ids do); else all commit together."""
        if not facts:
            return []
        latest = self.p.clock.now() + timedelta(seconds=self.p.settings.max_clock_skew_seconds)
        for fact in facts:
            # a date a client gave (turns are checked when they arrive, so extracted facts are too)
            if fact.source in CLIENT_DATED and to_utc(fact.occurred_at) > latest:
                # a fact dated in the future would outrank every later correction (and overflow expiries)
                raise InvalidInput("created_at must not be in the future", details={"field": "created_at"})
        vectors, part_vectors = embedded if embedded is not None else self.embed(facts)
        if len(vectors) != len(facts) or len(part_vectors) != len(facts):
            raise ValueError("one embedding per fact")
        results: list[WriteResult] = []
        wrote = False
        items = list(zip(facts, vectors, part_vectors, strict=True))
        # one transaction for all, or (``each_alone``, a caller that can redo what a crash cut short) one per
        # fact, so that every other writer waits for one fact's rows at a time, not for the whole batch
        batches = [[item] for item in items] if each_alone and resolve_conflicts else [items]
        with self.p.locks.hold(tenant_id, user_id):
            for batch in batches:
                # the data and the audit events describing it commit together
                with self.p.memories.atomic():
                    if resolve_conflicts:
                        done = [self._write_one(tenant_id, user_id, fact, vector, part_vector, True)
                                for fact, vector, part_vector in batch]
                    else:
                        done = self._write_plain(tenant_id, user_id, [f for f, _, _ in batch],
                                                 [v for _, v, _ in batch], [p for _, _, p in batch])
                    events = [AuditEvent(
                        tenant_id=tenant_id, user_id=user_id, action=f"memory.{result.outcome}", actor=actor,
                        memory_ids=[result.memory.memory_id, *result.superseded], at=self.p.clock.now(),
                        detail={"category": result.memory.category.value, "status": result.memory.status.value})
                        for result in done if result.memory is not None and result.outcome != "rejected"]
                    self.p.audit.record(events)
                results.extend(done)
                wrote = wrote or bool(events)
        if wrote and refresh:
            # any write made the cached profile stale (its generation moved inside the transaction): build it
            # now, off the read path but outside the write lock, which every other writer waits for
            self.refresh_profile_after_write(tenant_id, user_id)
        return results

    def embed(self, facts: Sequence[NewFact]) -> Embedded:
        """The vectors ``write`` needs, computed with no lock held (a caller may do this ahead of its lock)."""
        return embed_memories(self.p, [f.content for f in facts], [f.occurred_at for f in facts],
                              [f.source for f in facts], budget=self.p.settings.max_request_embeddings)

    def _write_plain(self, tenant_id: str, user_id: str, facts: Sequence[NewFact], vectors: list[np.ndarray],
                     part_vectors: list[np.ndarray | None]) -> list[WriteResult]:
        """A bulk load (import): validation and exact-duplicate merging only, one transaction for all."""
        results: list[WriteResult] = []
        batch: dict[str, Memory] = {}  # fingerprint of the normalised text -> new memory in this batch
        for fact, vector, parts in zip(facts, vectors, part_vectors, strict=True):
            reason = refusal(fact)
            if reason:
                results.append(WriteResult(None, "rejected", reason=reason))
                continue
            new = self._new_memory(tenant_id, user_id, fact, vector, parts)
            key = f"{new.scope}|{new.project_id}|{new.session_id}|{normalise_content(new.content)}"
            twin = batch.get(key)
            if twin is not None:
                twin.last_confirmed_at = max(twin.last_confirmed_at, new.last_confirmed_at)
                results.append(WriteResult(twin, "merged"))
                continue
            stored = next((old for old in self.p.memories.by_fingerprint(tenant_id, user_id, fact.content)
                           if same_partition(new, old) and old.status in LIVE_OR_PENDING), None)
            if stored is not None:
                results.append(WriteResult(self._confirm(stored, new), "merged"))
                continue
            batch[key] = new
            results.append(WriteResult(new, "created"))
        self.p.memories.save(list(batch.values()))
        return results

    def _status_for(self, fact: NewFact) -> Status:
        if fact.high_stakes and self.p.settings.confirm_high_stakes:
            return Status.PENDING
        return Status.ACTIVE if fact.confidence > self.p.settings.active_confidence else Status.PROBATIONARY

    def _new_memory(self, tenant_id: str, user_id: str, fact: NewFact, vector: np.ndarray,
                    part_vectors: np.ndarray | None) -> Memory:
        now = self.p.clock.now()
        occurred = to_utc(fact.occurred_at)
        expires = fact.expires_at or self.p.policy.expiry_for(
            fact.category, occurred if occurred < now else now, fact.scope, self.p.session_ttl)
        return Memory(
            memory_id=fact.memory_id or str(uuid.uuid4()), tenant_id=tenant_id, user_id=user_id,
            scope=fact.scope, project_id=fact.project_id, session_id=fact.session_id,
            category=fact.category, subject=fact.subject, content=fact.content, polarity=fact.polarity,
            confidence=round(fact.confidence, 4), importance=fact.importance, status=self._status_for(fact),
            provenance=fact.provenance or Provenance(source=fact.source), created_at=occurred,
            updated_at=now, last_confirmed_at=occurred, expires_at=expires, sensitivity=fact.sensitivity,
            tags=fact.tags, metadata=fact.metadata, embedding=vector.tolist(),
            part_embeddings=part_vectors.tolist() if part_vectors is not None else None,
        )

    def _write_one(self, tenant_id: str, user_id: str, fact: NewFact, vector: np.ndarray,
                   part_vectors: np.ndarray | None, resolve_conflicts: bool) -> WriteResult:
        reason = refusal(fact)
        if reason:
            return WriteResult(None, "rejected", reason=reason)
        new = self._new_memory(tenant_id, user_id, fact, vector, part_vectors)
        if fact.memory_id:
            existing_same_id = self.p.memories.get(tenant_id, user_id, fact.memory_id)
            if existing_same_id is not None:
                # redelivered: the fact was written before; never write it twice
                return WriteResult(existing_same_id, "merged")
        # exact restatement of a stored fact (also the only check on a plain import)
        for old in self.p.memories.by_fingerprint(tenant_id, user_id, fact.content):
            if not same_partition(new, old):
                continue
            if old.status in LIVE_OR_PENDING:
                return WriteResult(self._confirm(old, new), "merged")
        if fact.ends is not None:
            return self._end(tenant_id, user_id, fact.ends, fact.ends_version, new)
        nearby = {m.memory_id: Existing(m, float(np.dot(vector, np.asarray(m.embedding, dtype=np.float32))))
                  for m in self.p.memories.by_subject(tenant_id, user_id, [fact.subject])
                  if m.embedding is not None}
        for m, cosine in self.p.memories.similar(tenant_id, user_id, vector, 8):
            nearby.setdefault(m.memory_id, Existing(m, cosine))
        retraction_at = self.p.settings.retraction_similarity
        if fact.only_to_retire:
            retired = RETIRED_IN_PASSING_BY.get(new.subject.partition(":")[0], RETIRED_IN_PASSING)
            nearby = {k: e for k, e in nearby.items() if e.memory.subject.partition(":")[0] in retired
                      and names_its_value(new, e.memory) and not a_condition(e.memory)}
            # an ending said of a name alone ("given up bridge") is a short statement whose vector sits far from
            # a long fact that names it among other words ("routine: bridge club at the Guildhall on Tuesday
            # afternoons", 0.40): the facts left name its value, and every word of it must be in the fact
            retraction_at = 0.0
        resolution = classify(new, list(nearby.values()),
                              conflict_similarity=self.p.settings.conflict_similarity,
                              duplicate_similarity=self.p.settings.duplicate_similarity,
                              instruction_similarity=(self.p.settings.instruction_replace_similarity,
                                                      self.p.settings.instruction_change_similarity),
                              retraction_similarity=retraction_at,
                              doubt_margin=self.p.settings.supersede_doubt_margin)
        resolution = self._second_opinion(new, resolution)
        other = resolution.other
        if fact.only_to_retire and not (resolution.relation is Relation.CONTRADICTS and resolution.new_wins):
            ended = self._ended_in_its_slot(tenant_id, user_id, new)
            return (self._end_all(new, ended) if ended else
                    WriteResult(None, "rejected", reason="retires_nothing"))
        if resolution.relation is Relation.SAME and other is not None:
            return WriteResult(self._confirm(other, new), "merged")
        if resolution.relation is Relation.CONTRADICTS and other is not None:
            if resolution.new_wins:
                result = self._supersede(other, new)
                self._retire_project_facts(new)
                others = [e for e in nearby.values() if e.memory.memory_id != other.memory_id]
                self._retire_named_values(new, others, retraction_at)
                self._retire_lifted_rules(new, others)
                self._retire_replaced_rules(new, others)
                return result
            # an older or less authoritative statement: kept for the record, never active
            new.status = Status.SUPERSEDED
            new.superseded_by = other.memory_id
            self.p.memories.save([new])
            return WriteResult(new, "created")
        if resolution.relation is Relation.AMBIGUOUS and other is not None:
            new.confidence = max(new.confidence, min(1.0, round(other.confidence + 0.05, 4)))
            new.conflicts_with = [other.memory_id]
            linked = other.model_copy(update={"conflicts_with": [*other.conflicts_with, new.memory_id],
                                            "updated_at": self.p.clock.now()})
            self.p.memories.save([new, linked])
            return WriteResult(new, "created")
        if retracts(new.subject, new.polarity):
            ended = self._ended_in_its_slot(tenant_id, user_id, new)
            if ended:
                return self._end_all(new, ended)
        if retracts(new.subject, new.polarity) or only_lifts(new.subject, new.content):
            # "no longer vegan", "you don't need to add Chinese anymore" with nothing to retire: listed and
            # kept, never injected all the same (a block says what holds now; naming a value only to say it
            # no longer holds misleads)
            new.tags = [*new.tags, RETRACTION_TAG]
        self.p.memories.save([new])
        return WriteResult(new, "created")

    def _end_all(self, retraction: Memory, ended: list[Memory]) -> WriteResult:
        """The retraction supersedes the first fact it ends and retires the others."""
        result = self._supersede(ended[0], retraction)
        for old in ended[1:]:
            self._retire(old, retraction.memory_id)
        return WriteResult(result.memory, "superseded", superseded=[m.memory_id for m in ended])

    def _ended_in_its_slot(self, tenant_id: str, user_id: str, retraction: Memory) -> list[Memory]:
        """The user's live facts of the retraction's slot that it names whole (conflicts.ends_in_its_slot), said
        before it: what a retraction no nearer fact contradicted still ends."""
        if retraction.subject.partition(":")[0] not in ENDED_WHOLE_IN_SLOT:
            return []
        slot = retraction.subject.partition(":")[0]
        # a pastime ends one of either pastime slot (conflicts.ends_in_its_slot), which file under two categories
        categories = ({SLOTS[s].category for s in PASTIMES} if slot in PASTIMES else {retraction.category})
        page = [m for category in sorted(categories, key=str)
                for m in self.p.memories.page(tenant_id, user_id, statuses=[Status.ACTIVE], category=category,
                                              limit=self.p.settings.max_active_memories, cursor=None).items]
        jobs = ([m for m in self.p.memories.by_subject(tenant_id, user_id, ["job"]) if m.status is Status.ACTIVE]
                if slot in PASTIMES else [])
        return ([m for m in page if same_partition(m, retraction) and m.created_at <= retraction.created_at
                 and RETRACTION_TAG not in m.tags and ends_in_its_slot(retraction, m) and not a_condition(m)]
                + [m for m in jobs if same_partition(m, retraction) and m.created_at <= retraction.created_at
                   and ends_the_job(retraction, m)])

    def _end(self, tenant_id: str, user_id: str, ended_id: str, judged_version: int | None,
             retraction: Memory) -> WriteResult:
        """The judge's retraction supersedes the one fact it names, as the user's "no longer" would: the fact
        is kept in history and the retraction is listed but never injected. Nothing is written when the fact
        has gone meanwhile or is newer than the message, nor when it outranks the message as R6 ranks sources
        (between the user's own statements, whoever wrote them down, the later wins), nor when it is no longer
        the version the judge read (the user edited it meanwhile)."""
        old = self.p.memories.get(tenant_id, user_id, ended_id)
        if (old is None or old.status not in RETRIEVABLE or not old.polarity
                or (judged_version is not None and old.version != judged_version)
                or not same_partition(retraction, old) or old.subject != retraction.subject
                or old.created_at > retraction.created_at or not outranks(retraction, old)):
            return WriteResult(None, "rejected", reason="retires_nothing")
        # an ended answer instruction too is only a record ("No longer: use tables." is no instruction)
        retraction.tags = [*retraction.tags, RETRACTION_TAG]
        return self._supersede(old, retraction)

    def _retire_project_facts(self, project: Memory) -> None:
        """A new current project retires what was said about the old one (its stack, deadline, details)."""
        if project.subject != "current_project" or not project.polarity:
            return
        stale = [m for m in self.p.memories.by_subject(project.tenant_id, project.user_id, list(PROJECT_SLOTS))
                 if m.status is Status.ACTIVE and m.created_at < project.created_at and same_partition(m, project)]
        stale += [m for m in self.p.memories.page(project.tenant_id, project.user_id, statuses=[Status.ACTIVE],
                                                  category=Category.PROJECT_FACT, limit=200, cursor=None).items
                  if m.subject.startswith("project_detail:") and m.created_at < project.created_at
                  and same_partition(m, project) and m not in stale]
        for old in stale:
            self._retire(old, project.memory_id)

    def _retire_named_values(self, retraction: Memory, others: list[Existing], at_least: float) -> None:
        """A retraction retires every live fact that names its value, not only the closest: "given up on the
        watercolours" ends "likes watercolours" and "hobby: painting in watercolours" alike."""
        if not retracts(retraction.subject, retraction.polarity):
            return
        for e in others:
            if (e.memory.status is Status.ACTIVE and same_partition(e.memory, retraction)
                    and e.memory.created_at <= retraction.created_at
                    and retires_value(retraction, e, at_least)):
                self._retire(e.memory, retraction.memory_id)

    def _retire_lifted_rules(self, lift: Memory, others: list[Existing]) -> None:
        """A lift retires every live answer rule it lifts, not only the closest: "you don't need the British
        spelling anymore" ends "answer in British English" and "use British spelling in documents" alike. As for a
        retraction (_retire_named_values), the topic word they share is the evidence and retraction_similarity the
        bar: a lift and a rule it ends are often further apart than two rules on one topic (0.69)."""
        if not only_lifts(lift.subject, lift.content):
            return
        for e in others:
            if (e.memory.status is Status.ACTIVE and same_partition(e.memory, lift)
                    and e.memory.created_at <= lift.created_at and RETRACTION_TAG not in e.memory.tags
                    and e.cosine >= self.p.settings.retraction_similarity and lifts_instruction(lift, e.memory)):
                self._retire(e.memory, lift.memory_id)

    def _retire_replaced_rules(self, rule: Memory, others: list[Existing]) -> None:
        """A rule the user says replaces their rules ("changed my mind on format: explanation first, then the code")
        retires every live answer rule on the same thing, not only the closest ("code only." and "no
        explanations." said apart)."""
        if not says_the_rule_changed(rule):
            return
        settings = self.p.settings
        for e in others:
            if (e.memory.status is Status.ACTIVE and same_partition(e.memory, rule)
                    and e.memory.created_at <= rule.created_at and RETRACTION_TAG not in e.memory.tags
                    and replaces_instruction(rule, e, settings.instruction_replace_similarity,
                                             settings.instruction_change_similarity)):
                self._retire(e.memory, rule.memory_id)

    def _retire(self, old: Memory, by: str) -> None:
        retired = old.model_copy(update={"status": Status.SUPERSEDED, "superseded_by": by, "confidence": 0.0,
                                         "updated_at": self.p.clock.now()})
        history = MemoryVersion(memory_id=old.memory_id, version=old.version, content=old.content,
                                category=old.category, status=old.status, confidence=old.confidence,
                                updated_at=old.updated_at, reason=f"superseded by {by}")
        self.p.memories.save([retired], [history])

    def _second_opinion(self, new: Memory, resolution: Resolution) -> Resolution:
        """Ask the judge (when there is one) about a pair the rules could not settle."""
        judge, other = self.p.judge, resolution.other
        if judge is None or resolution.relation is not Relation.AMBIGUOUS or other is None:
            return resolution
        verdict = judge.judge(new, other)
        if verdict is Relation.SAME:
            return Resolution(Relation.SAME, other)
        if verdict is Relation.CONTRADICTS:
            return Resolution(Relation.CONTRADICTS, other, new_wins=outranks(new, other))
        if verdict is Relation.INDEPENDENT:
            return Resolution(Relation.INDEPENDENT)
        return resolution

    def _confirm(self, old: Memory, new: Memory) -> Memory:
        """Same fact restated: keep one, refresh when it was confirmed (and its expiry, by policy)."""
        now = self.p.clock.now()
        confirmed = max(old.last_confirmed_at, new.last_confirmed_at)
        update: dict[str, object] = {
            "last_confirmed_at": confirmed,
            "updated_at": now,
            "confidence": max(old.confidence, new.confidence),
        }
        if old.status is Status.PROBATIONARY and new.confidence > self.p.settings.active_confidence:
            update["status"] = Status.ACTIVE
        if self.p.policy[old.category].refresh_on_repeat and old.expires_at is not None:
            update["expires_at"] = self.p.policy.expiry_for(old.category, confirmed, old.scope,
                                                            self.p.session_ttl)
        merged = old.model_copy(update=update)
        self.p.memories.save([merged])
        return merged

    def _supersede(self, old: Memory, new: Memory) -> WriteResult:
        now = self.p.clock.now()
        new.version = old.version + 1
        new.supersedes = old.memory_id
        if RETRACTION_TAG not in new.tags and (
                (old.polarity and retracts(new.subject, new.polarity)) or lifts_instruction(new, old)):
            # "not doing keto anymore", "you don't need to add the translation anymore": the statement
            # retires the old value; it is kept and listed, but a block never needs to name a value only
            # to say it no longer holds
            new.tags = [*new.tags, RETRACTION_TAG]
        retired = old.model_copy(update={
            "status": Status.SUPERSEDED, "superseded_by": new.memory_id, "confidence": 0.0, "updated_at": now,
        })
        history = MemoryVersion(memory_id=old.memory_id, version=old.version, content=old.content,
                                category=old.category, status=old.status, confidence=old.confidence,
                                updated_at=old.updated_at, reason=f"superseded by {new.memory_id}")
        # the new version first: were a bulk write to stop half-way, the fact would not be lost
        self.p.memories.save([new, retired], [history])
        return WriteResult(new, "superseded", superseded=[old.memory_id])

    def refresh_profile(self, tenant_id: str, user_id: str) -> None:
        """Warm the profile cache after a write (the write already made the old build stale)."""
        self.profiles.refresh(tenant_id, user_id)

    def refresh_profile_after_write(self, tenant_id: str, user_id: str) -> None:
        """``refresh_profile`` once a write has committed. The write is done whatever happens here: a
        build that fails (an erase began meanwhile, a busy store) leaves the cache stale, and the next
        read builds it, so the caller is not told its committed write failed."""
        try:
            self.refresh_profile(tenant_id, user_id)
        except Exception as exc:
            log.warning("profile rebuild after a write failed: the next read builds it",
                        extra={"error": type(exc).__name__})


def capped_parts(content: str, max_parts: int) -> list[str]:
    """The sentences of a long memory, each once, at most ``max_parts`` of them: beyond the cap,
    neighbouring sentences share a part (a memory of 165 sentences costs ``max_parts`` embeddings)."""
    parts = list(dict.fromkeys(sentence_parts(content)))
    if len(parts) < 2:
        return []
    if len(parts) > max_parts:
        size = -(-len(parts) // max_parts)
        parts = [" ".join(parts[i:i + size]) for i in range(0, len(parts), size)]
    return parts


def find_keys(extractor: Extractor | None, contents: Sequence[str], whens: Sequence[datetime], *,
              limit: int, min_words: int, kind: str = "clause",
              keyed: Sequence[bool] | None = None) -> list[list[str]]:
    """The extra keys of each memory (mnemo.domain.keys), from the facts ``extractor`` finds in it.

    Only the memories ``keyed`` marks (all by default), and of those only the ones of at least
    ``min_words`` words: a shorter one is already as short as a key. All go to the extractor in one
    call (it tags them in one batch); each is its own message, so what one says cannot change what
    another's keys are. ``whens`` (when each memory was said) anchor the dates the extractor
    normalises ("last Saturday")."""
    keys: list[list[str]] = [[] for _ in contents]
    if extractor is None or limit <= 0:
        return keys
    labels: dict[str, str] = {}
    messages: list[Message] = []
    for i, (content, when) in enumerate(zip(contents, whens, strict=True)):
        if len(content.split()) < min_words or (keyed is not None and not keyed[i]):
            continue
        label, body = speaker_of(content)
        labels[str(i)] = label
        messages.append(Message(role="user", content=body, message_id=str(i), created_at=to_utc(when)))
    if not messages:
        return keys
    found: dict[str, list[Candidate]] = {}
    for candidate in extractor.extract(messages).candidates:
        found.setdefault(candidate.message_id, []).append(candidate)
    for message_id, candidates in found.items():
        if message_id in labels:
            keys[int(message_id)] = fact_keys(labels[message_id], candidates, limit, kind)
    return keys


def embed_memories(ports: Ports, contents: Sequence[str], whens: Sequence[datetime], sources: Sequence[SourceKind],
                   *, budget: int | None = None) -> tuple[list[np.ndarray], list[np.ndarray | None]]:
    """Every memory's vectors as the index keeps them: whole, sentences, and the facts found in it.

    Keys are found in an app's own words only (remember, import, an edit): what the extractor or a
    summary wrote is a fact statement already, and finding facts in it again would cost a pass of
    the tagger on every extracted fact for a key that restates it."""
    keys = find_keys(ports.key_extractor, contents, whens, limit=ports.settings.memory_keys,
                     min_words=ports.settings.memory_keys_min_words, kind=ports.settings.memory_key_kind,
                     keyed=[source in CLIENT_DATED for source in sources])
    return embed_contents(ports.embedder, contents, max_parts=ports.settings.max_sentence_parts, budget=budget,
                          keys=keys)


def embed_contents(embedder: Embedder, contents: Sequence[str], *, max_parts: int = 16,
                   budget: int | None = None, keys: Sequence[Sequence[str]] | None = None,
                   ) -> tuple[list[np.ndarray], list[np.ndarray | None]]:
    """One batch for all: a short memory is embedded whole; a long one sentence by sentence, its
    whole vector being the normalised mean of its sentences (half the cost of embedding it whole
    too; a development experiment on LoCoMo saw no loss in R@10, tests/bench/locomo.py measures
    the result). Returns each memory's vector and, for a long one, its sentences' vectors.

    ``keys`` (find_keys) are more texts per memory, embedded beside its sentences: a memory's part
    vectors are its sentences' then its keys', and its whole vector stays the mean of its sentences.

    At most ``max_parts`` parts per memory and ``budget`` texts in all: past the budget, the keys
    go first, then the longest memories are embedded whole instead of sentence by sentence, and a
    request holding more memories than the budget is refused (the work one request can cause is bounded)."""
    if budget is not None and len(contents) > budget:
        raise InvalidInput(f"at most {budget} memories can be embedded in one request", details={"field": "items"})
    parts = [capped_parts(c, max_parts) for c in contents]
    extra = ([_new_keys(c, ps, ks) for c, ps, ks in zip(contents, parts, keys, strict=True)]
             if keys is not None else [[] for _ in contents])
    if budget is not None:
        total = sum((len(ps) or 1) + len(ks) for ps, ks in zip(parts, extra, strict=True))
        if total > budget:
            total -= sum(len(ks) for ks in extra)
            extra = [[] for _ in contents]
        for i in sorted(range(len(parts)), key=lambda i: -len(parts[i])):
            if total <= budget or not parts[i]:
                break
            total -= len(parts[i]) - 1
            parts[i] = []
    texts = [p for c, ps, ks in zip(contents, parts, extra, strict=True) for p in [*(ps or [c]), *ks]]
    embedded = embedder.embed(texts)
    vectors: list[np.ndarray] = []
    part_vectors: list[np.ndarray | None] = []
    cursor = 0
    for ps, ks in zip(parts, extra, strict=True):
        own = embedded[cursor:cursor + (len(ps) or 1)]
        cursor += len(own)
        if ps:
            mean = own.mean(axis=0)
            vectors.append((mean / max(float(np.linalg.norm(mean)), 1e-12)).astype(np.float32))
        else:
            vectors.append(own[0])
            own = own[:0]  # embedded whole: no sentence parts
        found = np.concatenate([own, embedded[cursor:cursor + len(ks)]])
        cursor += len(ks)
        part_vectors.append(found if len(found) else None)
    return vectors, part_vectors


def _new_keys(content: str, parts: Sequence[str], keys: Sequence[str]) -> list[str]:
    """The keys that are not the memory or one of its sentences again (those have their vector already;
    a clause is often a whole one-sentence turn without its full stop)."""
    def bare(text: str) -> str:
        return text.strip().rstrip(".!?").strip()

    have = {bare(content), *(bare(p) for p in parts)}
    return [k for k in keys if bare(k) not in have]


def validate_content(content: str, max_chars: int) -> str:
    text = content.strip()
    if not visible(text).strip():  # zero-width spaces alone say nothing either
        raise InvalidField("content must not be empty", details={"field": "content"})
    if len(text) > max_chars:  # the limit is a setting, so checked here rather than in the request schema
        raise InvalidField(f"content is longer than {max_chars} characters", details={"field": "content"})
    return text
