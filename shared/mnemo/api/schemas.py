"""Request and response bodies of the v1 API (API.md). The OpenAPI document is generated from them."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, WithJsonSchema, field_validator

from mnemo.clock import to_utc
from mnemo.domain.models import PROFILE_KEY_PATTERN, Category, Memory, MemoryVersion, Profile, Scope, Status
from mnemo.domain.text import SEEN_CHARACTER_PATTERN, visible

ID_PATTERN = r"^[A-Za-z0-9._:@-]{1,128}$"
_ID = re.compile(ID_PATTERN)


def _app_id(value: str) -> str:
    if not _ID.match(value):
        raise ValueError("must be 1-128 characters of A-Z a-z 0-9 . _ : @ -")
    return value


# the pattern is in the OpenAPI document too, so a client (or a fuzzer) knows the rule before sending
AppId = Annotated[str, Field(pattern=ID_PATTERN), AfterValidator(_app_id)]


def _visible(value: str) -> str:
    """Invisible characters dropped before anything reads the text (mnemo.domain.text.visible): a
    secret or an injection marker cannot hide from the screens behind them."""
    seen = visible(value)
    # nothing visible at all: nothing to hide from a screen either, and the text is left as sent (the
    # route's own rules, "must not be empty" or a skip, apply to it as before)
    return seen if seen.strip() else value


# every free text a client sends: content, queries, profile and session values, comments, metadata
Text = Annotated[str, AfterValidator(_visible)]


# a memory's content holds at least one character a reader sees ("must not be empty" otherwise); in the
# document only, so that a client or a fuzzer knows the rule: the service's own check names the field
Content = Annotated[Text, Field(json_schema_extra={"pattern": SEEN_CHARACTER_PATTERN})]

def _utc(value: datetime) -> datetime:
    """In UTC (naive: taken as UTC). An offset that carries the moment past year 1 or 9999 is a
    validation error naming the field, not an OverflowError (a 500) further in."""
    try:
        return to_utc(value)
    except OverflowError:
        raise ValueError("is out of range once converted to UTC") from None


Moment = Annotated[datetime, AfterValidator(_utc)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False)


def _metadata(value: dict[str, str] | None) -> dict[str, str] | None:
    if value is None:
        return value
    if len(value) > 16:
        raise ValueError("at most 16 keys")
    for key, item in value.items():
        if not 1 <= len(key) <= 64:
            raise ValueError("keys must be 1-64 characters")
        if len(item) > 256:
            raise ValueError(f"value of {key!r} is longer than 256 characters")
    return value


MetaKey = Annotated[Text, Field(min_length=1, max_length=64)]
MetaValue = Annotated[Text, Field(max_length=256)]
Metadata = Annotated[dict[MetaKey, MetaValue] | None, Field(max_length=16), AfterValidator(_metadata)]
CustomKey = Annotated[str, Field(pattern=PROFILE_KEY_PATTERN)]
# documented with propertyNames: pydantic's patternProperties alone would let other keys through the schema
CustomDict = Annotated[dict[CustomKey, MetaValue], WithJsonSchema({
    "type": "object", "maxProperties": 16, "propertyNames": {"pattern": PROFILE_KEY_PATTERN},
    "additionalProperties": {"type": "string", "maxLength": 256}})]
CustomFields = Annotated[CustomDict | None, Field(max_length=16), AfterValidator(_metadata)]


class RetrieveRequest(Strict):
    query: Text = Field(min_length=1, max_length=4000)
    session_id: AppId | None = None
    project_id: AppId | None = None
    conversation_id: AppId | None = None
    top_k: int | None = Field(None, ge=1, le=50, description="default MNEMO_DEFAULT_TOP_K (5)")
    token_budget: int | None = Field(
        None, ge=50, description="default MNEMO_TOKEN_BUDGET (500), at most MNEMO_TOKEN_BUDGET_CAP (2,000)")


class SearchRequestBody(Strict):
    query: Text = Field(min_length=1, max_length=4000)
    top_k: int = Field(10, ge=1, le=100)
    rank_by: Literal["relevance", "score"] = Field(
        "relevance", description="relevance: what matches the query; score: the re-rank retrieve uses")
    category: Category | None = None
    project_id: AppId | None = None
    session_id: AppId | None = None


class MessageIn(Strict):
    role: Literal["user", "assistant"]
    content: Text = Field(min_length=1, max_length=20000)
    message_id: AppId | None = None
    created_at: Moment | None = None


class TurnsRequest(Strict):
    conversation_id: AppId
    project_id: AppId | None = None
    messages: list[MessageIn] = Field(min_length=1, max_length=100)

    @field_validator("messages")
    @classmethod
    def _unique_ids(cls, messages: list[MessageIn]) -> list[MessageIn]:
        ids = [m.message_id for m in messages if m.message_id]
        if len(ids) != len(set(ids)):
            raise ValueError("message_id values must be unique within a request")
        return messages


class TurnsAccepted(BaseModel):
    accepted: int
    pending: int = Field(description="user turns of the conversation buffered and not yet extracted")


class CloseAccepted(TurnsAccepted):
    """POST .../close: what the close handed to extraction (``accepted`` is 0: a close brings no turns)."""

    queued: int = Field(description="user turns queued for extraction now (0: nothing was pending)")
    due_at: datetime | None = Field(None, description="when the extraction job is due (null: none was queued)")


class MemoryIn(Strict):
    content: Content = Field(min_length=1, description=(
        "at most MNEMO_MAX_CONTENT_CHARS (2,000) characters, at least one of them visible (not a space, control or "
        "format character)"))
    category: Category | None = None
    subject: str | None = Field(None, min_length=1, max_length=128, pattern=r"^[a-z0-9_.:-]+$")
    scope: Literal["user", "project", "session"] | None = None
    project_id: AppId | None = None
    session_id: AppId | None = None
    expires_at: Moment | None = None
    created_at: Moment | None = None
    confidence: float | None = Field(None, ge=0.0, le=1.0)
    metadata: Metadata = None


class ImportRequest(Strict):
    items: list[MemoryIn] = Field(min_length=1, description="at most MNEMO_MAX_IMPORT_ITEMS (500)")
    resolve_conflicts: bool = False


class Provenance(BaseModel):
    conversation_id: str | None = None
    message_ids: list[str] = []
    memory_ids: list[str] = Field(default=[], description="a summary's source episodes (archived, still readable)")
    extractor: str | None = None
    evidence: str | None = None


class MemoryOut(BaseModel):
    memory_id: str
    content: str
    category: Category
    subject: str
    confidence: float
    status: Status
    version: int
    scope: Scope
    project_id: str | None
    session_id: str | None
    importance: str
    polarity: bool
    created_at: datetime
    updated_at: datetime
    last_confirmed_at: datetime
    last_accessed_at: datetime | None
    access_count: int
    expires_at: datetime | None
    source: str
    provenance: Provenance
    superseded_by: str | None
    supersedes: str | None
    conflicts_with: list[str]
    tags: list[str]
    metadata: dict[str, str]

    @classmethod
    def of(cls, m: Memory) -> MemoryOut:
        return cls.model_validate(cls.fields_of(m))

    @staticmethod
    def fields_of(m: Memory) -> dict[str, Any]:
        """Plain values for ``model_validate``: pydantic-core checks them in one pass, in half the time of a
        ``model_construct``, whose loop over the fields runs in Python (retrieve's hot path)."""
        return dict(
            memory_id=m.memory_id, content=m.content, category=m.category, subject=m.subject,
            confidence=m.confidence, status=m.status, version=m.version, scope=m.scope, project_id=m.project_id,
            session_id=m.session_id, importance=m.importance.value, polarity=m.polarity, created_at=m.created_at,
            updated_at=m.updated_at, last_confirmed_at=m.last_confirmed_at, last_accessed_at=m.last_accessed_at,
            access_count=m.access_count, expires_at=m.expires_at, source=m.provenance.source.value,
            provenance=dict(
                conversation_id=m.provenance.conversation_id, message_ids=m.provenance.message_ids,
                memory_ids=m.provenance.memory_ids, extractor=m.provenance.extractor,
                evidence=m.provenance.evidence),
            superseded_by=m.superseded_by, supersedes=m.supersedes, conflicts_with=m.conflicts_with,
            tags=m.tags, metadata=m.metadata,
        )


class ScoredMemoryOut(MemoryOut):
    score: float
    relevance: float
    similarity: float
    lexical: float
    recency: float


class RetrieveResponse(BaseModel):
    decision: Literal["retrieve", "skip"]
    reason: str
    profile: Profile | None
    memories: list[ScoredMemoryOut]
    conflicts: list[list[str]]
    pending_confirmations: list[MemoryOut]
    context: str
    tokens: int
    trace_id: str


class SearchResponse(BaseModel):
    items: list[ScoredMemoryOut]


class CreateMemoryResponse(BaseModel):
    memory: MemoryOut | None
    outcome: Literal["created", "merged", "superseded", "rejected"]
    superseded: list[str]


class ImportResult(BaseModel):
    memory_id: str | None
    outcome: Literal["created", "merged", "superseded", "rejected"]
    reason: str | None = None


class ImportResponse(BaseModel):
    results: list[ImportResult]


class MemoryPage(BaseModel):
    items: list[MemoryOut]
    next_cursor: str | None


class MemoryWithHistory(MemoryOut):
    history: list[MemoryVersion]


class FeedbackRequest(Strict):
    trace_id: str = Field(pattern=r"^[a-f0-9]{32}$")
    rating: Literal["up", "down"]
    comment: Text | None = Field(None, max_length=2000)


class Adjustment(BaseModel):
    memory_id: str
    confidence: float


class FeedbackResponse(BaseModel):
    adjusted: list[Adjustment]
    follow_up: str | None = None


class MemoryPatch(Strict):
    content: Content | None = Field(None, min_length=1, max_length=2000, description=(
        "at least one character visible (not a space, control or format character)"))
    category: Category | None = None
    status: Literal["active", "disabled"] | None = None
    version: int | None = Field(None, ge=1, description="the version you last saw; 409 if it moved on")


class ForgetRequest(Strict):
    query: Text = Field(min_length=1, max_length=2000)


class ForgetResponse(BaseModel):
    forgotten: list[str]


class ProfilePatch(Strict):
    name: Text | None = Field(None, min_length=1, max_length=200)
    location: Text | None = Field(None, min_length=1, max_length=200)
    occupation: Text | None = Field(None, min_length=1, max_length=200)
    # each becomes a memory: at most MNEMO_MAX_CONTENT_CHARS (2,000) characters, as a remembered one
    preferences: list[Annotated[Text, Field(max_length=2000)]] | None = Field(None, max_length=20)
    constraints: list[Annotated[Text, Field(max_length=2000)]] | None = Field(None, max_length=20)
    custom: CustomFields = Field(None, description="the app's own fields; keys: a letter, then letters, "
                                 "digits, '_', '.' or '-' (64 at most)")


class SettingsBody(Strict):
    memory_enabled: bool


class SettingsOut(BaseModel):
    memory_enabled: bool
    updated_at: datetime | None


# a session's state is screened for secrets whole on every PUT: without a cap on each item, one PUT of 60,000
# task_progress keys held a worker 11 s, and one confirmed fact of 840,000 characters 7.6 s (within the body cap)
SessionText = Annotated[Text, Field(max_length=2000)]


class SessionPut(Strict):
    confirmed_facts: list[SessionText] | None = Field(None, max_length=100)
    task_progress: dict[Annotated[Text, Field(min_length=1, max_length=128)],
                        SessionText | int | float | bool | None] | None = Field(None, max_length=50)
    open_questions: list[SessionText] | None = Field(None, max_length=50)
    rolling_summary: Text | None = Field(None, max_length=4000)


class ConsolidateRequest(Strict):
    user_id: AppId | None = None


class ConsolidateResponse(BaseModel):
    users: int
    expired: int
    pruned: int
    archived: int
    deleted: int
    summarised: int
    summaries: int
    merged: int
    evicted: int


class Health(BaseModel):
    status: Literal["ok"]
    backend: str
    version: str


class ErrorDetail(BaseModel):
    field: str = Field(description="the field at fault: a dotted path into the body (`messages.0.content`), a "
                                   "path or query parameter, or `body`, `host`, `content-type`")
    reason: str


class ErrorBody(BaseModel):
    code: str = Field(description="stable, machine-readable: invalid_input, unauthorized, not_found, "
                                  "method_not_allowed, version_conflict, payload_too_large, "
                                  "unsupported_media_type, throttled, backend_unavailable, ...")
    message: str
    details: list[ErrorDetail] | None = Field(
        None, description="every validation error has this one shape; null when no field is at fault")


class ErrorResponse(BaseModel):
    error: ErrorBody


class ExportOut(BaseModel):
    """GET /export: everything held about the user, readable (R11)."""

    tenant_user: str
    exported_at: datetime
    settings: dict[str, Any]
    profile: dict[str, Any]
    memories: list[dict[str, Any]] = Field(description="every memory, any status, each with its history")
    audit: list[dict[str, Any]]
    feedback: list[dict[str, Any]] = Field(default_factory=list, description="ratings and their comments")
    sessions: list[dict[str, Any]] = Field(default_factory=list, description="unexpired conversation state")
    buffered_turns: list[dict[str, Any]] = Field(default_factory=list,
                                                 description="messages not yet extracted, as buffered (redacted)")
