"""Every route of API.md as a `Call`: the request to send and the model that reads the answer.

The sync and async clients only send these; what a route looks like on the wire is written once,
here. Bodies leave out the arguments not given (None), so the server's defaults apply and its
validation (not ours) decides what is wrong, with the API's own error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, Literal, TypeVar
from urllib.parse import quote

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from mnemo.client import models
from mnemo.client.errors import InvalidRequestError

T = TypeVar("T")
Message = models.MessageIn | Mapping[str, Any]
Item = models.MemoryIn | Mapping[str, Any]


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request. ``read`` turns the response body into the result (None for a 204);
    ``idempotent`` says whether sending it twice is harmless, which decides what may be retried."""

    method: str
    path: str
    read: type[BaseModel] | None
    idempotent: bool
    json: Any = None
    params: dict[str, str | int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, value in self.params.items():
            sendable(value, name)

    def result(self, content: bytes) -> T:
        if self.read is None:
            return None  # type: ignore[return-value]  # T is None for the routes that answer 204
        return self.read.model_validate_json(content)  # type: ignore[return-value]


def segment(value: str) -> str:
    """An id as one path segment: nothing in it can reach another route. A whole "." or ".." is
    encoded too: as it is, the URL parser removes it as a dot segment (RFC 3986, 5.2.4), and
    delete_memory(u, "..") became DELETE /v1/users/<u>, the user's erase."""
    quoted = quote(sendable(value, "user_id or memory_id"), safe="")
    return quoted.replace(".", "%2E") if quoted in {".", ".."} else quoted


def user(user_id: str) -> str:
    return f"/v1/users/{segment(user_id)}"


def body(**fields: Any) -> dict[str, Any]:
    """The JSON body: the arguments given, models and datetimes as JSON."""
    out = {name: to_jsonable_python(value, exclude_none=True) for name, value in fields.items() if value is not None}
    for name, value in out.items():
        sendable(value, name)
    return out


def sendable(value: Any, name: str) -> Any:
    """``value`` when all its text can go out as UTF-8. A lone surrogate ("\\udfff", which Python strings may
    hold) cannot: the HTTP library would raise a bare UnicodeEncodeError while sending; the client's own
    error says which argument, before anything is sent."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidRequestError(f"{name} holds text that is not valid Unicode (a lone surrogate)",
                                  code="invalid_input", details=[{"field": name, "reason": "not valid Unicode"}]
                                  ) from None
    return value


def plain(value: BaseModel | Mapping[str, Any]) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    return to_jsonable_python(dict(value), exclude_none=True)


def health() -> Call[models.Health]:
    return Call("GET", "/health", models.Health, True)


def retrieve(user_id: str, query: str, *, session_id: str | None, project_id: str | None,
             conversation_id: str | None, top_k: int | None, token_budget: int | None) -> Call[models.RetrieveResponse]:
    # a read (the trace it records is keyed by a fresh id): safe to send again
    return Call("POST", f"{user(user_id)}/retrieve", models.RetrieveResponse, True, body(
        query=query, session_id=session_id, project_id=project_id, conversation_id=conversation_id,
        top_k=top_k, token_budget=token_budget))


def search(user_id: str, query: str, *, top_k: int | None, rank_by: Literal["relevance", "score"] | None,
           category: str | None, project_id: str | None, session_id: str | None) -> Call[models.SearchResponse]:
    return Call("POST", f"{user(user_id)}/search", models.SearchResponse, True, body(
        query=query, top_k=top_k, rank_by=rank_by, category=category, project_id=project_id, session_id=session_id))


def add_turns(user_id: str, conversation_id: str, messages: Sequence[Message], *,
              project_id: str | None) -> Call[models.TurnsAccepted]:
    items = [plain(m) for m in messages]
    # the buffer drops a message id it has seen: with every id given, a repeat adds nothing
    repeatable = bool(items) and all(isinstance(m, dict) and m.get("message_id") for m in items)
    return Call("POST", f"{user(user_id)}/turns", models.TurnsAccepted, repeatable, body(
        conversation_id=conversation_id, project_id=project_id, messages=items))


def close_conversation(user_id: str, conversation_id: str) -> Call[models.CloseAccepted]:
    return Call("POST", f"{user(user_id)}/conversations/{segment(conversation_id)}/close", models.CloseAccepted, True)


def remember(user_id: str, content: str, *, category: str | None, subject: str | None, scope: str | None,
             project_id: str | None, session_id: str | None, expires_at: datetime | None,
             created_at: datetime | None, confidence: float | None,
             metadata: Mapping[str, str] | None) -> Call[models.CreateMemoryResponse]:
    return Call("POST", f"{user(user_id)}/memories", models.CreateMemoryResponse, False, body(
        content=content, category=category, subject=subject, scope=scope, project_id=project_id,
        session_id=session_id, expires_at=expires_at, created_at=created_at, confidence=confidence,
        metadata=dict(metadata) if metadata is not None else None))


def import_memories(user_id: str, items: Sequence[Item], *, resolve_conflicts: bool) -> Call[models.ImportResponse]:
    return Call("POST", f"{user(user_id)}/memories/import", models.ImportResponse, False, body(
        items=[plain(i) for i in items], resolve_conflicts=resolve_conflicts))


def list_memories(user_id: str, *, status: str | None, category: str | None, limit: int | None,
                  cursor: str | None) -> Call[models.MemoryPage]:
    params = {name: value for name, value in
              (("status", status), ("category", category), ("limit", limit), ("cursor", cursor)) if value is not None}
    return Call("GET", f"{user(user_id)}/memories", models.MemoryPage, True, params=params)


def get_memory(user_id: str, memory_id: str) -> Call[models.MemoryWithHistory]:
    return Call("GET", f"{user(user_id)}/memories/{segment(memory_id)}", models.MemoryWithHistory, True)


def update_memory(user_id: str, memory_id: str, *, content: str | None, category: str | None,
                  status: Literal["active", "disabled"] | None, version: int | None) -> Call[models.MemoryOut]:
    # an edit makes a new version each time; with `version` a repeat is refused (409) instead
    return Call("PATCH", f"{user(user_id)}/memories/{segment(memory_id)}", models.MemoryOut, False, body(
        content=content, category=category, status=status, version=version))


def delete_memory(user_id: str, memory_id: str) -> Call[None]:
    return Call("DELETE", f"{user(user_id)}/memories/{segment(memory_id)}", None, True)


def forget(user_id: str, query: str) -> Call[models.ForgetResponse]:
    return Call("POST", f"{user(user_id)}/forget", models.ForgetResponse, True, body(query=query))


def feedback(user_id: str, trace_id: str, rating: Literal["up", "down"], *,
             comment: str | None) -> Call[models.FeedbackResponse]:
    # rating the same retrieval again replaces the first rating (README): safe to repeat
    return Call("POST", f"{user(user_id)}/feedback", models.FeedbackResponse, True, body(
        trace_id=trace_id, rating=rating, comment=comment))


def get_profile(user_id: str) -> Call[models.Profile]:
    return Call("GET", f"{user(user_id)}/profile", models.Profile, True)


def update_profile(user_id: str, *, name: str | None, location: str | None, occupation: str | None,
                   preferences: Sequence[str] | None, constraints: Sequence[str] | None,
                   custom: Mapping[str, str] | None) -> Call[models.Profile]:
    return Call("PATCH", f"{user(user_id)}/profile", models.Profile, False, body(
        name=name, location=location, occupation=occupation,
        preferences=list(preferences) if preferences is not None else None,
        constraints=list(constraints) if constraints is not None else None,
        custom=dict(custom) if custom is not None else None))


def get_settings(user_id: str) -> Call[models.SettingsOut]:
    return Call("GET", f"{user(user_id)}/settings", models.SettingsOut, True)


def put_settings(user_id: str, *, memory_enabled: bool) -> Call[models.SettingsOut]:
    return Call("PUT", f"{user(user_id)}/settings", models.SettingsOut, True, {"memory_enabled": memory_enabled})


def get_session(user_id: str, session_id: str) -> Call[models.SessionState]:
    return Call("GET", f"{user(user_id)}/sessions/{segment(session_id)}", models.SessionState, True)


def put_session(user_id: str, session_id: str, *, confirmed_facts: Sequence[str] | None,
                task_progress: Mapping[str, str | int | float | bool | None] | None,
                open_questions: Sequence[str] | None, rolling_summary: str | None) -> Call[models.SessionState]:
    return Call("PUT", f"{user(user_id)}/sessions/{segment(session_id)}", models.SessionState, True, body(
        confirmed_facts=list(confirmed_facts) if confirmed_facts is not None else None,
        task_progress=dict(task_progress) if task_progress is not None else None,
        open_questions=list(open_questions) if open_questions is not None else None,
        rolling_summary=rolling_summary))


def export(user_id: str) -> Call[models.ExportOut]:
    return Call("GET", f"{user(user_id)}/export", models.ExportOut, True)


def erase_user(user_id: str) -> Call[None]:
    return Call("DELETE", user(user_id), None, True)


def get_trace(trace_id: str) -> Call[models.RetrievalTrace]:
    return Call("GET", f"/v1/traces/{segment(trace_id)}", models.RetrievalTrace, True)


def consolidate(user_id: str | None) -> Call[models.ConsolidateResponse]:
    return Call("POST", "/v1/admin/consolidate", models.ConsolidateResponse, True, body(user_id=user_id))
