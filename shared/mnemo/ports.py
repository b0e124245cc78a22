"""The ports the services depend on. Each home (local, AWS) provides one adapter per port.

Contracts common to all ports:
- every call is scoped by (tenant_id, user_id); nothing searches across users;
- "not found" is ``None`` or an empty list, never an exception;
- back-end failures surface as ``mnemo.errors.BackendUnavailable`` (translated at the edge).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import Enum
from typing import Protocol

import numpy as np
import numpy.typing as npt

from mnemo.domain.conflicts import Relation
from mnemo.domain.extraction import Candidate, Extraction
from mnemo.domain.models import (
    AuditEvent,
    BufferedTurn,
    Category,
    FeedbackRecord,
    Memory,
    MemoryVersion,
    Message,
    Profile,
    RetrievalTrace,
    SessionState,
    Status,
    TunedWeights,
    UserSettings,
)
from mnemo.domain.ranking import Hit
from mnemo.domain.summarise import SummaryFact

Vector = npt.NDArray[np.float32]


class Extractor(Protocol):
    """Turns a batch of one conversation's messages into fact candidates (rules or an LLM)."""

    name: str
    version: str

    def extract(self, messages: Sequence[Message]) -> Extraction:
        """Candidates in message order; refused ones carry should_store=False and a reason."""
        ...

    def classify(self, statement: str, when: datetime) -> Candidate | None:
        """Category, slot and polarity of one statement an app hands over (remember, import), or None
        when it fills no slot; no refusals here (the write path screens)."""
        ...


class Summariser(Protocol):
    """Folds one topic of episodic memories into a few facts (offline rules, or an LLM with them as fallback)."""

    name: str

    def summarise(self, memories: list[Memory], vectors: Vector) -> list[SummaryFact]:
        """Up to 5 self-contained facts about this topic only, in the third person, each a different claim
        (its ``kind``) and each naming the memories it was drawn from (ids from ``memories``). ``vectors``
        are the memories' embeddings, row for row. Never raises for a model's failure: it falls back."""
        ...


class FactEndings(Protocol):
    """How likely a message is to say that each of a user's stored facts no longer holds (a learned judge)."""

    version: str

    def probabilities(self, message: str, statements: Sequence[str],
                      owner: tuple[str, str] | None = None) -> list[float]:
        """One probability per statement, in order; ``owner`` (tenant, user) whose facts they are, so that
        what is kept of them is kept per user (and an erase can empty it)."""
        ...

    def owners(self) -> set[tuple[str, str]]:
        """The (tenant, user) pairs it keeps something of (a user cache: mnemo.services.user_caches)."""
        ...

    def forget_user(self, tenant_id: str, user_id: str) -> None:
        ...


class ConflictJudge(Protocol):
    """Second opinion on a pair of facts the rules found ambiguous (similar, in different slots).

    Only ever consulted for AMBIGUOUS pairs: the rules stay the authority on restatements and on
    one-fact-per-slot contradictions. None means "no opinion": both facts stay, flagged.
    """

    name: str
    version: str

    def judge(self, new: Memory, other: Memory) -> Relation | None: ...


class Embedder(Protocol):
    """Sentence embeddings, L2-normalised, so a dot product is the cosine."""

    dimension: int
    model_id: str
    # whether ``embed_search_queries`` has a model of its own (search weighs words otherwise with it)
    own_search_model: bool

    def embed(self, texts: Sequence[str]) -> Vector:
        """Shape (len(texts), dimension), float32, each row of unit length; batches internally."""
        ...

    def embed_queries(self, texts: Sequence[str]) -> Vector:
        """Like ``embed``, for search queries: may use a faster model whose vectors share the space."""
        ...

    def embed_search_queries(self, texts: Sequence[str]) -> Vector:
        """Like ``embed_queries``, for the search route's questions (memory UIs, agents' tools): may use a
        query encoder tuned to find the memories that answer a question; its vectors score against the
        stored ones, and retrieve never sees them."""
        ...


@dataclass(frozen=True)
class SearchRequest:
    """Filters come first (R5): user, scope, live status, expiry, categories; then similarity."""

    vector: Vector
    terms: list[str]
    limit: int
    now: datetime
    project_id: str | None = None
    session_id: str | None = None
    categories: frozenset[Category] | None = None
    statuses: frozenset[Status] = frozenset({Status.ACTIVE, Status.PROBATIONARY})
    # another vector of the query (the question without the words common in the user's memories): a store
    # that can reports each hit's cosines to it too (Hit.second_cosine); it finds no candidates of its own
    second_vector: Vector | None = None


@dataclass(frozen=True)
class Page:
    items: list[Memory]
    next_cursor: str | None


class MemoryStore(Protocol):
    """The semantic memory of every user: records, their history, similarity and lexical search."""

    def get(self, tenant_id: str, user_id: str, memory_id: str) -> Memory | None:
        """The memory whatever its status, or None (also for another user's id)."""
        ...

    def get_many(self, tenant_id: str, user_id: str, memory_ids: Sequence[str]) -> list[Memory]:
        """The memories found, in the order of ``memory_ids``; missing ids are skipped."""
        ...

    def save(self, memories: Sequence[Memory], history: Sequence[MemoryVersion] = ()) -> None:
        """Upsert atomically (all or none); each memory must carry its embedding."""
        ...

    def by_subject(self, tenant_id: str, user_id: str, subjects: Sequence[str]) -> list[Memory]:
        """Active, probationary and pending memories in these slots."""
        ...

    def by_fingerprint(self, tenant_id: str, user_id: str, content: str) -> list[Memory]:
        """Non-deleted memories whose normalised content equals ``content``'s."""
        ...

    def similar(self, tenant_id: str, user_id: str, vector: Vector, limit: int) -> list[tuple[Memory, float]]:
        """Active, probationary and pending memories by cosine to ``vector``, best first."""
        ...

    def search(self, tenant_id: str, user_id: str, request: SearchRequest) -> list[Hit]:
        """Up to ``request.limit`` hits, best hybrid first, after all filters."""
        ...

    def common_terms(self, tenant_id: str, user_id: str, terms: Sequence[str], share: float) -> frozenset[str]:
        """Those of ``terms`` found in more than ``share`` of the user's memories (their BM25 document
        frequency); a store that cannot count them cheaply returns none."""
        ...

    def page(
        self, tenant_id: str, user_id: str, *, statuses: Sequence[Status] | None, category: Category | None,
        limit: int, cursor: str | None,
    ) -> Page:
        """Newest first; ``cursor`` is opaque and comes from a previous page."""
        ...

    def history(self, tenant_id: str, user_id: str, memory_id: str) -> list[MemoryVersion]:
        """Earlier versions, oldest first."""
        ...

    def count(self, tenant_id: str, user_id: str, statuses: Sequence[Status]) -> int: ...

    def all_for_user(self, tenant_id: str, user_id: str) -> Iterator[Memory]:
        """Every memory of the user, any status (export, consolidation, profile)."""
        ...

    def delete(self, tenant_id: str, user_id: str, memory_ids: Sequence[str]) -> None:
        """Physically remove the records and their history."""
        ...

    def delete_user(self, tenant_id: str, user_id: str) -> None:
        """Remove every record of the user, and purge what the back end keeps of deleted data."""
        ...

    def users(self, tenant_id: str) -> list[str]:
        """Every user of the tenant who has memories (consolidation walks them)."""
        ...

    def tenants(self) -> list[str]:
        """Every tenant with memories (the scheduled consolidation walks them)."""
        ...

    def atomic(self) -> AbstractContextManager[None]:
        """Writes made inside, by this store and the other stores of its home (audit, profile), commit
        together or not at all: one SQLite transaction; in AWS, the documents first, then the versions
        and audit events in one DynamoDB transaction, a journal entry standing for each write until then."""
        ...

    def recover(self, tenant_id: str, user_id: str) -> int:
        """Settle what writes of the user left half done when they were interrupted (AWS: documents
        written, versions and audit events not yet); returns how many. 0 where writes are atomic.
        The caller holds the user's lock."""
        ...


@dataclass(frozen=True)
class StoredProfile:
    """What the profile store holds for one user: the last derived profile, what it was built
    from, and the app's own ``custom`` fields (which no memory holds, so they are kept apart)."""

    profile: Profile | None = None  # the derived part, ``custom`` empty; None before the first build
    built_at: int = -1  # the generation of the user's memories it was built from
    generation: int = 0  # the generation now: grows with every change to the user's memories
    valid_until: datetime | None = None  # the first expiry among the memories it was built from
    custom: dict[str, str] = field(default_factory=dict)

    def is_current(self, now: datetime) -> bool:
        """Built from the memories as they are now, and none of them has expired since."""
        return (self.profile is not None and self.built_at == self.generation
                and (self.valid_until is None or now < self.valid_until))


class ProfileStore(Protocol):
    """The profile cache of each user (SPEC R2) and the generation that invalidates it.

    The profile is derived from the memories (``mnemo.services.profile``); the store keeps the
    last build and a per-user generation that every change to the memories moves on, so a
    reader knows whether the cached build still stands.
    """

    def get(self, tenant_id: str, user_id: str) -> StoredProfile:
        """What is stored; an empty ``StoredProfile`` (generation 0) for a user with nothing."""
        ...

    def put(self, tenant_id: str, user_id: str, profile: Profile, built_at: int, valid_until: datetime | None) -> None:
        """Keep a derived profile built from generation ``built_at``, only if that is still the
        generation (a user with no row is at 0): a build overtaken by a change, or started before an
        erase, is dropped. The generation and ``custom`` stay as they are."""
        ...

    def put_custom(self, tenant_id: str, user_id: str, custom: dict[str, str]) -> None:
        """Replace the app's fields; the derived part and the generation stay."""
        ...

    def invalidate(self, tenant_id: str, user_id: str) -> None:
        """Move the generation on: the cached build is stale from now on. Atomic, never lost."""
        ...

    def delete_user(self, tenant_id: str, user_id: str) -> None: ...


class SettingsStore(Protocol):
    def get(self, tenant_id: str, user_id: str) -> UserSettings:
        """Defaults when the user has none stored."""
        ...

    def put(self, tenant_id: str, user_id: str, settings: UserSettings) -> None: ...

    def delete_user(self, tenant_id: str, user_id: str) -> None: ...


@dataclass(frozen=True)
class ExtractionJob:
    """A debounced request to extract one conversation's buffered turns up to ``up_to_seq``.

    ``schedule_id`` identifies a copy: the queue gives every schedule of a conversation a fresh id
    (its generation), so a copy delivered late (a stale message, a redelivery) is told apart from
    the newer one even when both carry the same ``up_to_seq`` and the same ``due_at``, and an id is
    never reused once its job is gone. The services build jobs without one; the queue assigns it.
    """

    tenant_id: str
    user_id: str
    conversation_id: str
    up_to_seq: int
    due_at: datetime
    schedule_id: str = ""


class Claim(Enum):
    """What a delivery of a job may do (see ``ExtractionQueue.claim``)."""

    CLAIMED = "claimed"  # this copy is the conversation's current job and now holds its lease: extract
    STALE = "stale"  # a newer schedule overtook this copy, or the job is done: drop it, change nothing
    BUSY = "busy"  # the conversation is being extracted by another delivery: try again later


@dataclass(frozen=True)
class BufferResult:
    accepted: int  # new messages (duplicates of a message_id are ignored)
    pending: int  # user messages waiting for extraction in this conversation
    last_seq: int
    last_at: datetime | None = None
    first_pending_at: datetime | None = None
    dropped: list[str] = field(default_factory=list)


class TurnBuffer(Protocol):
    """Durable buffer of not-yet-extracted messages, per conversation."""

    def append(self, turns: Sequence[BufferedTurn], now: datetime) -> BufferResult:
        """Store in order; a message_id already buffered or extracted is ignored (idempotent)."""
        ...

    def pending(self, tenant_id: str, user_id: str, conversation_id: str, up_to_seq: int) -> list[BufferedTurn]:
        """Buffered turns with seq <= up_to_seq, in order."""
        ...

    def acknowledge(self, tenant_id: str, user_id: str, conversation_id: str, seqs: Sequence[int]) -> int:
        """Drop exactly these turns once extracted (never a range: a turn with a lower seq may land
        after the extraction read the buffer); their ids stay known so a redelivery is ignored.
        Returns how many of them were still pending."""
        ...

    def for_user(self, tenant_id: str, user_id: str) -> list[BufferedTurn]:
        """Every turn still buffered for the user, any conversation (export), by conversation then seq."""
        ...

    def rewrite(self, turn: BufferedTurn, content: str) -> bool:
        """Replace the text of a turn still buffered (a forget reaches what is not extracted yet); False
        when it was acknowledged meanwhile."""
        ...

    def delete_user(self, tenant_id: str, user_id: str) -> None: ...


class ExtractionQueue(Protocol):
    """The debounce queue: one live job per conversation; every schedule makes a new generation that
    overtakes the older ones, and one delivery at a time extracts a conversation (its lease).

    The guarantee the services build on: while a conversation has scheduled turns that were not
    acknowledged, a copy of its current generation will still be delivered. Completing or dropping
    an old copy never removes a newer one; a copy whose worker died comes back once its lease ends.
    A delivery ends with exactly one of ``complete``, ``release``, ``defer`` or ``drop``.
    """

    def schedule(self, job: ExtractionJob) -> None:
        """Make a new generation covering at least ``job.up_to_seq`` (never less than the live job's),
        due at ``job.due_at``. A lease held on the conversation stays with its holder."""
        ...

    def due(self, now: datetime, limit: int) -> list[ExtractionJob]:
        """Current jobs whose time has come and whose conversation no live lease holds (local home;
        in AWS, SQS delivers them)."""
        ...

    def claim(self, job: ExtractionJob, now: datetime, lease: timedelta) -> Claim:
        """Take the conversation's lease for this copy until ``now + lease`` if it is the current
        generation and no other live lease holds the conversation."""
        ...

    def complete(self, job: ExtractionJob) -> None:
        """The claimed copy is done: remove the job if it is still this generation; otherwise keep
        the newer generation and hand the lease back so that it can run."""
        ...

    def release(self, job: ExtractionJob, retry_at: datetime) -> None:
        """The claimed copy failed: hand the lease back; the job (this generation or a newer one)
        stays, and this generation is tried again no earlier than ``retry_at`` (in AWS, SQS
        redelivers the message after its visibility timeout)."""
        ...

    def defer(self, job: ExtractionJob, at: datetime) -> None:
        """A BUSY copy: deliver it again at ``at`` (SQS gets it again; locally the row is still there
        and becomes due when the lease is handed back or runs out)."""
        ...

    def drop(self, job: ExtractionJob) -> None:
        """A STALE copy: forget this delivery and change nothing else (never the newer job, never
        a lease another delivery holds)."""
        ...


class TraceStore(Protocol):
    def put(self, trace: RetrievalTrace) -> None: ...

    def latest(self, tenant_id: str, user_id: str, conversation_id: str, now: datetime) -> RetrievalTrace | None:
        """The newest unexpired trace of a conversation (what the assistant was told last)."""
        ...

    def get(self, tenant_id: str, trace_id: str, now: datetime) -> RetrievalTrace | None:
        """None when unknown, expired, or another tenant's."""
        ...

    def delete_user(self, tenant_id: str, user_id: str) -> None: ...


class SessionStore(Protocol):
    """Short-lived state of one conversation (R2), expiring with its TTL."""

    def get(self, tenant_id: str, user_id: str, session_id: str, now: datetime) -> SessionState | None:
        """None when unknown or expired."""
        ...

    def put(self, tenant_id: str, user_id: str, state: SessionState) -> None: ...

    def for_user(self, tenant_id: str, user_id: str, now: datetime) -> list[SessionState]:
        """Every unexpired session of the user (export), by session id."""
        ...

    def delete_user(self, tenant_id: str, user_id: str) -> None: ...


class WeightsStore(Protocol):
    """Versioned re-ranking weights per tenant (offline tuning, R7)."""

    def current(self, tenant_id: str) -> TunedWeights | None: ...

    def put(self, weights: TunedWeights) -> None:
        """Versions only grow; an older version never replaces a newer one."""
        ...


class FeedbackStore(Protocol):
    def get(self, tenant_id: str, trace_id: str) -> FeedbackRecord | None: ...

    def put(self, record: FeedbackRecord) -> None:
        """One record per trace: a second rating of the same retrieval replaces the first."""
        ...

    def since(self, tenant_id: str, moment: datetime) -> list[FeedbackRecord]:
        """Every record of the tenant at or after ``moment`` (offline tuning)."""
        ...

    def for_user(self, tenant_id: str, user_id: str) -> list[FeedbackRecord]:
        """Every record of the user (export), oldest first."""
        ...

    def delete_user(self, tenant_id: str, user_id: str) -> None: ...


class AuditLog(Protocol):
    def record(self, events: Sequence[AuditEvent]) -> None: ...

    def for_user(self, tenant_id: str, user_id: str, limit: int) -> list[AuditEvent]: ...

    def delete_user(self, tenant_id: str, user_id: str) -> None: ...


class KeyVault(Protocol):
    """Per-user data keys (envelope encryption): created by the first write, destroyed on erase.

    An erase marks the user (``destroy``) until ``finish_erase``: meanwhile no key is created, so no
    write racing the erase can seal anything the erase would miss."""

    def data_key(self, tenant_id: str, user_id: str) -> bytes:
        """The 32-byte plaintext data key of the user, creating it the first time (writes only);
        ``ErasureUnderway`` while an erase of the user has not finished."""
        ...

    def existing_key(self, tenant_id: str, user_id: str) -> bytes | None:
        """The user's key, or None when there is none (never created, or erased): never creates one."""
        ...

    def destroy(self, tenant_id: str, user_id: str) -> None:
        """Crypto-shredding: afterwards nothing sealed under the key can be opened. Marks the erase
        under way in the same step; idempotent."""
        ...

    def erasing(self, tenant_id: str, user_id: str) -> bool:
        """An erase has begun (``destroy``) and not finished (``finish_erase``)."""
        ...

    def finish_erase(self, tenant_id: str, user_id: str) -> None:
        """Every row of the user is gone: keys may be created again (a later write starts afresh)."""
        ...


class UserLocks(Protocol):
    """Serialises writes of one user across workers (R6: no two workers supersede each other)."""

    def hold(self, tenant_id: str, user_id: str) -> AbstractContextManager[None]: ...
