"""`Client`: the blocking Python client of the v1 API (API.md), one method per route."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, Literal, TypeVar

import httpx2

import mnemo
from mnemo.client import _calls as calls
from mnemo.client import models
from mnemo.client._policy import Done, RetryPolicy, settle

T = TypeVar("T")
DEFAULT_URL = "http://127.0.0.1:8080"


def default_headers(api_key: str | None) -> dict[str, str]:
    headers = {"Accept": "application/json", "User-Agent": f"mnemo-python/{mnemo.__version__}"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    return headers


class Client:
    """A mnemo server's API, blocking.

    ``Client("http://127.0.0.1:8080", api_key="...")``, or ``Client.from_env()`` (``MNEMO_URL``,
    ``MNEMO_API_KEY``). Results are the API's own pydantic models; failures raise the exceptions of
    :mod:`mnemo.client.errors`. ``transport`` takes any httpx2 transport (e.g. ``httpx2.WSGITransport``
    to call an application in the same process). Use it as a context manager, or call ``close()``.
    """

    def __init__(self, base_url: str = DEFAULT_URL, api_key: str | None = None, *, timeout: float = 30.0,
                 retry: RetryPolicy | None = None, transport: httpx2.BaseTransport | None = None,
                 headers: Mapping[str, str] | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.retry = retry or RetryPolicy()
        self._http = httpx2.Client(base_url=self.base_url, timeout=timeout, transport=transport,
                                   headers={**default_headers(api_key), **(headers or {})})

    @classmethod
    def from_env(cls, **options: Any) -> Client:
        return cls(os.environ.get("MNEMO_URL", DEFAULT_URL), os.environ.get("MNEMO_API_KEY") or None, **options)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def send(self, call: calls.Call[T]) -> T:
        """Send one call, retrying as the policy allows; the result, or the API's error raised."""
        attempt = 0
        while True:
            outcome: httpx2.Response | httpx2.TransportError
            try:
                outcome = self._http.request(call.method, call.path, json=call.json, params=call.params or None)
            except httpx2.TransportError as exc:
                outcome = exc
            step = settle(self.retry, call, attempt, outcome)
            if isinstance(step, Done):
                return step.value
            time.sleep(step)
            attempt += 1

    # -- reading memory for an answer
    def retrieve(self, user_id: str, query: str, *, session_id: str | None = None, project_id: str | None = None,
                 conversation_id: str | None = None, top_k: int | None = None,
                 token_budget: int | None = None) -> models.RetrieveResponse:
        """Before answering: the memories that matter for ``query`` and the prompt block (``.context``)."""
        return self.send(calls.retrieve(user_id, query, session_id=session_id, project_id=project_id,
                                        conversation_id=conversation_id, top_k=top_k, token_budget=token_budget))

    def search(self, user_id: str, query: str, *, top_k: int | None = None,
               rank_by: Literal["relevance", "score"] | None = None, category: str | None = None,
               project_id: str | None = None, session_id: str | None = None) -> models.SearchResponse:
        """Ranked search with no gate and no token budget (memory UIs)."""
        return self.send(calls.search(user_id, query, top_k=top_k, rank_by=rank_by, category=category,
                                      project_id=project_id, session_id=session_id))

    # -- writing: turns, explicit facts
    def add_turns(self, user_id: str, conversation_id: str, messages: Sequence[calls.Message], *,
                  project_id: str | None = None) -> models.TurnsAccepted:
        """After each turn: buffer its messages (``{"role", "content", "message_id"?, "created_at"?}``)."""
        return self.send(calls.add_turns(user_id, conversation_id, messages, project_id=project_id))

    def close_conversation(self, user_id: str, conversation_id: str) -> models.CloseAccepted:
        """The conversation ended: extract what is pending now."""
        return self.send(calls.close_conversation(user_id, conversation_id))

    def remember(self, user_id: str, content: str, *, category: str | None = None, subject: str | None = None,
                 scope: Literal["user", "project", "session"] | None = None, project_id: str | None = None,
                 session_id: str | None = None, expires_at: datetime | None = None,
                 created_at: datetime | None = None, confidence: float | None = None,
                 metadata: Mapping[str, str] | None = None) -> models.CreateMemoryResponse:
        """Store a fact explicitly; a newer fact in the same slot supersedes the old one."""
        return self.send(calls.remember(user_id, content, category=category, subject=subject, scope=scope,
                                        project_id=project_id, session_id=session_id, expires_at=expires_at,
                                        created_at=created_at, confidence=confidence, metadata=metadata))

    def import_memories(self, user_id: str, items: Sequence[calls.Item], *,
                        resolve_conflicts: bool = False) -> models.ImportResponse:
        """Bulk load curated memories (at most 500 a call)."""
        return self.send(calls.import_memories(user_id, items, resolve_conflicts=resolve_conflicts))

    # -- the user's memories
    def list_memories(self, user_id: str, *, status: str | None = None, category: str | None = None,
                      limit: int | None = None, cursor: str | None = None) -> models.MemoryPage:
        return self.send(calls.list_memories(user_id, status=status, category=category, limit=limit, cursor=cursor))

    def iter_memories(self, user_id: str, *, status: str | None = None, category: str | None = None,
                      page_size: int = 100) -> Iterator[models.MemoryOut]:
        """Every memory, following the cursor page by page."""
        cursor: str | None = None
        while True:
            page = self.list_memories(user_id, status=status, category=category, limit=page_size, cursor=cursor)
            yield from page.items
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    def get_memory(self, user_id: str, memory_id: str) -> models.MemoryWithHistory:
        return self.send(calls.get_memory(user_id, memory_id))

    def update_memory(self, user_id: str, memory_id: str, *, content: str | None = None,
                      category: str | None = None, status: Literal["active", "disabled"] | None = None,
                      version: int | None = None) -> models.MemoryOut:
        """Edit (a new version), confirm a pending memory (``status="active"``), disable or re-enable;
        with ``version``, a memory that moved on meanwhile raises ConflictError."""
        return self.send(calls.update_memory(user_id, memory_id, content=content, category=category, status=status,
                                             version=version))

    def delete_memory(self, user_id: str, memory_id: str) -> None:
        self.send(calls.delete_memory(user_id, memory_id))

    def forget(self, user_id: str, query: str) -> models.ForgetResponse:
        """Forget what matches a description ("my old address")."""
        return self.send(calls.forget(user_id, query))

    def feedback(self, user_id: str, trace_id: str, rating: Literal["up", "down"], *,
                 comment: str | None = None) -> models.FeedbackResponse:
        """Thumbs up or down on what a retrieval (its ``trace_id``) injected."""
        return self.send(calls.feedback(user_id, trace_id, rating, comment=comment))

    # -- profile, settings, sessions
    def get_profile(self, user_id: str) -> models.Profile:
        return self.send(calls.get_profile(user_id))

    def update_profile(self, user_id: str, *, name: str | None = None, location: str | None = None,
                       occupation: str | None = None, preferences: Sequence[str] | None = None,
                       constraints: Sequence[str] | None = None,
                       custom: Mapping[str, str] | None = None) -> models.Profile:
        """Named fields become explicit facts; ``custom`` is the app's own map."""
        return self.send(calls.update_profile(user_id, name=name, location=location, occupation=occupation,
                                              preferences=preferences, constraints=constraints, custom=custom))

    def get_settings(self, user_id: str) -> models.SettingsOut:
        return self.send(calls.get_settings(user_id))

    def put_settings(self, user_id: str, *, memory_enabled: bool) -> models.SettingsOut:
        return self.send(calls.put_settings(user_id, memory_enabled=memory_enabled))

    def get_session(self, user_id: str, session_id: str) -> models.SessionState:
        return self.send(calls.get_session(user_id, session_id))

    def put_session(self, user_id: str, session_id: str, *, confirmed_facts: Sequence[str] | None = None,
                    task_progress: Mapping[str, str | int | float | bool | None] | None = None,
                    open_questions: Sequence[str] | None = None,
                    rolling_summary: str | None = None) -> models.SessionState:
        return self.send(calls.put_session(user_id, session_id, confirmed_facts=confirmed_facts,
                                           task_progress=task_progress, open_questions=open_questions,
                                           rolling_summary=rolling_summary))

    # -- the user in control, operations
    def export(self, user_id: str) -> models.ExportOut:
        return self.send(calls.export(user_id))

    def erase_user(self, user_id: str) -> None:
        """Erase everything held about the user, irrecoverably."""
        self.send(calls.erase_user(user_id))

    def get_trace(self, trace_id: str) -> models.RetrievalTrace:
        return self.send(calls.get_trace(trace_id))

    def consolidate(self, user_id: str | None = None) -> models.ConsolidateResponse:
        return self.send(calls.consolidate(user_id))

    def health(self) -> models.Health:
        return self.send(calls.health())
