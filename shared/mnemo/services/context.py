"""Everything a use case may touch, handed over by the composition root."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from mnemo.clock import Clock
from mnemo.domain.policy import PolicyTable
from mnemo.ports import (
    AuditLog,
    ConflictJudge,
    Embedder,
    ExtractionQueue,
    Extractor,
    FactEndings,
    FeedbackStore,
    KeyVault,
    MemoryStore,
    ProfileStore,
    SessionStore,
    SettingsStore,
    TraceStore,
    TurnBuffer,
    UserLocks,
    WeightsStore,
)
from mnemo.settings import Settings


@dataclass
class Ports:
    settings: Settings
    clock: Clock
    embedder: Embedder
    memories: MemoryStore
    profiles: ProfileStore
    user_settings: SettingsStore
    buffer: TurnBuffer
    queue: ExtractionQueue
    traces: TraceStore
    audit: AuditLog
    vault: KeyVault
    locks: UserLocks
    extractor: Extractor
    policy: PolicyTable
    feedback: FeedbackStore
    sessions: SessionStore
    weights: WeightsStore
    judge: ConflictJudge | None = None  # a second opinion on ambiguous pairs (Bedrock in AWS)
    # finds the facts in a memory it indexes as extra keys (the learned extractor; None: sentences only)
    key_extractor: Extractor | None = None
    # judges whether a message ends a stored fact (the learned judge; None: only the rules retire facts)
    endings: FactEndings | None = None

    @property
    def session_ttl(self) -> timedelta:
        return timedelta(hours=self.settings.session_memory_ttl_hours)
