"""The typed results of the client: the API's own pydantic models, so the client and the server
cannot drift apart (one definition, used to serve and to read)."""

from __future__ import annotations

from mnemo.api.schemas import (
    Adjustment,
    CloseAccepted,
    ConsolidateResponse,
    CreateMemoryResponse,
    ExportOut,
    FeedbackResponse,
    ForgetResponse,
    Health,
    ImportResponse,
    ImportResult,
    MemoryIn,
    MemoryOut,
    MemoryPage,
    MemoryWithHistory,
    MessageIn,
    Provenance,
    RetrieveResponse,
    ScoredMemoryOut,
    SearchResponse,
    SettingsOut,
    TurnsAccepted,
)
from mnemo.domain.models import Category, MemoryVersion, Profile, RetrievalTrace, SessionState, Status

__all__ = [
    "Adjustment",
    "Category",
    "CloseAccepted",
    "ConsolidateResponse",
    "CreateMemoryResponse",
    "ExportOut",
    "FeedbackResponse",
    "ForgetResponse",
    "Health",
    "ImportResponse",
    "ImportResult",
    "MemoryIn",
    "MemoryOut",
    "MemoryPage",
    "MemoryVersion",
    "MemoryWithHistory",
    "MessageIn",
    "Profile",
    "Provenance",
    "RetrievalTrace",
    "RetrieveResponse",
    "ScoredMemoryOut",
    "SearchResponse",
    "SessionState",
    "SettingsOut",
    "Status",
    "TurnsAccepted",
]
