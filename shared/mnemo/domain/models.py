"""The memory record (SPEC R1) and the other records the service keeps."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Category(StrEnum):
    PREFERENCE = "preference"
    CONSTRAINT = "constraint"
    BIOGRAPHICAL = "biographical"
    EPISODIC = "episodic"
    PROCEDURAL = "procedural"
    PROJECT_FACT = "project_fact"
    TASK_STATE = "task_state"
    SUMMARY = "summary"
    TOOL_RESULT = "tool_result"


class Status(StrEnum):
    ACTIVE = "active"
    PENDING = "pending"
    PROBATIONARY = "probationary"
    SUPERSEDED = "superseded"
    EXPIRED = "expired"
    DELETED = "deleted"
    ARCHIVED = "archived"
    DISABLED = "disabled"


# Statuses a memory can be injected or searched from.
RETRIEVABLE = frozenset({Status.ACTIVE, Status.PROBATIONARY})


class Scope(StrEnum):
    USER = "user"
    TENANT = "tenant"
    PROJECT = "project"
    SESSION = "session"
    AGENT_RUN = "agent_run"


class Importance(StrEnum):
    CRITICAL = "critical"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


IMPORTANCE_WEIGHT = {
    Importance.CRITICAL: 1.0,
    Importance.HIGH: 0.75,
    Importance.MEDIUM: 0.5,
    Importance.LOW: 0.25,
}


class SourceKind(StrEnum):
    USER_EXPLICIT = "user_explicit"
    EXTRACTED = "extracted"
    INFERRED = "inferred"
    SUMMARY = "summary"
    IMPORTED = "imported"


# Precedence when facts disagree (R6): explicit correction > stated > inferred > summary.
SOURCE_PRECEDENCE = {
    SourceKind.USER_EXPLICIT: 3,
    SourceKind.EXTRACTED: 2,
    SourceKind.IMPORTED: 2,
    SourceKind.INFERRED: 1,
    SourceKind.SUMMARY: 0,
}
# Whose word it is: among the user's own statements the later one wins (people change their
# minds); nothing the service inferred or summarised ever overrides what the user said.
SOURCE_TIER = {
    SourceKind.USER_EXPLICIT: 2,
    SourceKind.EXTRACTED: 2,
    SourceKind.IMPORTED: 2,
    SourceKind.INFERRED: 1,
    SourceKind.SUMMARY: 0,
}


class Sensitivity(StrEnum):
    NORMAL = "normal"
    PERSONAL = "personal"  # health, family: kept, never in logs
    RESTRICTED = "restricted"  # never stored (secrets, payment data)


class Provenance(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: SourceKind = SourceKind.EXTRACTED
    conversation_id: str | None = None
    message_ids: list[str] = Field(default_factory=list)
    memory_ids: list[str] = Field(default_factory=list)  # a summary's source episodes (kept, archived)
    extractor: str | None = None
    extractor_version: str | None = None
    evidence: str | None = None  # the span of the message the fact came from


class Memory(BaseModel):
    """One small, typed, traceable fact about a user (never a transcript)."""

    model_config = ConfigDict(extra="forbid", validate_assignment=False)

    memory_id: str
    tenant_id: str
    user_id: str
    scope: Scope = Scope.USER
    project_id: str | None = None
    session_id: str | None = None
    category: Category
    subject: str  # normalised slot key, e.g. "diet" or "likes:sushi"
    content: str
    polarity: bool = True  # False for "does not like X", "no longer ..."
    confidence: float = Field(ge=0.0, le=1.0)
    importance: Importance = Importance.MEDIUM
    version: int = 1
    status: Status = Status.ACTIVE
    superseded_by: str | None = None
    supersedes: str | None = None
    conflicts_with: list[str] = Field(default_factory=list)
    provenance: Provenance = Field(default_factory=Provenance)
    created_at: datetime
    updated_at: datetime
    last_confirmed_at: datetime
    last_accessed_at: datetime | None = None
    access_count: int = 0
    expires_at: datetime | None = None
    sensitivity: Sensitivity = Sensitivity.NORMAL
    tags: list[str] = Field(default_factory=list)
    metadata: dict[str, str] = Field(default_factory=dict)
    embedding: list[float] | None = Field(default=None, exclude=True, repr=False)
    part_embeddings: list[list[float]] | None = Field(default=None, exclude=True, repr=False)

    def is_live(self, now: datetime) -> bool:
        """Retrievable now: a retrievable status and not past its expiry."""
        return self.status in RETRIEVABLE and (self.expires_at is None or self.expires_at > now)

    @property
    def owner(self) -> tuple[str, str]:
        return (self.tenant_id, self.user_id)


class MemoryVersion(BaseModel):
    """An earlier state of a memory, kept for history and audit."""

    model_config = ConfigDict(extra="forbid")

    memory_id: str
    version: int
    content: str
    category: Category
    status: Status
    confidence: float
    updated_at: datetime
    reason: str


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: str  # "user" | "assistant"
    content: str
    message_id: str
    created_at: datetime


class BufferedTurn(BaseModel):
    """A message waiting for extraction in the debounce buffer."""

    model_config = ConfigDict(extra="forbid")

    tenant_id: str
    user_id: str
    conversation_id: str
    project_id: str | None
    seq: int
    message: Message


# keys an app may give its own profile fields: they are printed in the memory block, so no
# newline, quote, colon or markup can get in (values are quoted; keys are quoted too)
PROFILE_KEY_PATTERN = r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$"
# the fields of that map a user holds at once (a request may send as many; it merges into what is held)
PROFILE_CUSTOM_MAX_KEYS = 16


class Profile(BaseModel):
    """The compact, always-injected summary of a user (< 2 KB), derived from active facts."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = None
    location: str | None = None
    occupation: str | None = None
    preferences: list[str] = Field(default_factory=list)
    constraints: list[str] = Field(default_factory=list)
    instructions: list[str] = Field(default_factory=list)  # how the user wants answers: apply to every request
    custom: dict[str, str] = Field(default_factory=dict)  # set by the app (PATCH profile)
    updated_at: datetime | None = None

    def is_empty(self) -> bool:
        return not (self.name or self.location or self.occupation or self.preferences
                    or self.constraints or self.instructions or self.custom)


class UserSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    memory_enabled: bool = True
    updated_at: datetime | None = None


class SessionState(BaseModel):
    """Short-lived structured state of one conversation (R2)."""

    model_config = ConfigDict(extra="forbid")

    session_id: str
    confirmed_facts: list[str] = Field(default_factory=list)
    task_progress: dict[str, Any] = Field(default_factory=dict)
    open_questions: list[str] = Field(default_factory=list)
    rolling_summary: str = ""
    recent_turns: list[dict[str, str]] = Field(default_factory=list)
    turn_count: int = 0
    # how many of the oldest recent turns a rolling-summary checkpoint has yet to fold into the summary:
    # a turns request only marks the checkpoint, the extraction job folds them (the extractor is no
    # request's work)
    fold_due: int = Field(0, ge=0)
    updated_at: datetime | None = None
    expires_at: datetime | None = None


class TraceCandidate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    memory_id: str
    cosine: float
    lexical: float
    relevance: float
    recency: float
    confidence: float = 0.0
    score: float
    selected: bool
    reason: str | None = None  # why it was rejected
    derived_from: list[str] = Field(default_factory=list)  # a summary's source episodes: why it says what it says


class RetrievalTrace(BaseModel):
    """What one retrieval considered and chose; no memory content, no query text."""

    model_config = ConfigDict(extra="forbid")

    trace_id: str
    tenant_id: str
    user_id: str
    conversation_id: str | None = None
    decision: str
    reason: str
    query_hash: str
    candidates: list[TraceCandidate] = Field(default_factory=list)
    selected: list[str] = Field(default_factory=list)
    conflicts: list[list[str]] = Field(default_factory=list)
    tokens: int = 0
    weights: dict[str, float] = Field(default_factory=dict)
    weights_version: int = 0
    timings_ms: dict[str, float] = Field(default_factory=dict)
    created_at: datetime
    expires_at: datetime


class FeedbackRecord(BaseModel):
    """A rating of one retrieval; the comment is user text and is sealed at rest."""

    model_config = ConfigDict(extra="forbid")

    tenant_id: str
    user_id: str
    trace_id: str
    rating: str  # "up" | "down"
    comment: str | None = None
    adjustments: dict[str, float] = Field(default_factory=dict)  # memory id -> confidence delta applied
    categories: dict[str, str] = Field(default_factory=dict)  # memory id -> category (for tuning)
    at: datetime


class TunedWeights(BaseModel):
    """One version of a tenant's re-ranking weights, with why it was chosen."""

    model_config = ConfigDict(extra="forbid")

    tenant_id: str
    version: int
    a: float
    b: float
    c: float
    created_at: datetime
    samples: int = 0
    report: dict[str, dict[str, float]] = Field(default_factory=dict)


class AuditEvent(BaseModel):
    """Who did what to which record; ids only, never content."""

    model_config = ConfigDict(extra="forbid")

    tenant_id: str
    user_id: str
    action: str  # create, update, retrieve, inject, delete, erase, ...
    actor: str
    memory_ids: list[str] = Field(default_factory=list)
    at: datetime
    detail: dict[str, str] = Field(default_factory=dict)
