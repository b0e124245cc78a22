"""Hostile input against every route: whatever a client sends, never a 5xx, always the error shape."""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ApiClient

SCALE = float(os.environ.get("MNEMO_FUZZ_SCALE", "1"))  # `make fuzz` runs many more

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**63) | st.floats(allow_nan=False) | st.text(max_size=50),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=12,
)
FIELDS = ["query", "top_k", "token_budget", "conversation_id", "messages", "role", "content", "trace_id", "rating",
          "items", "status", "category", "version", "memory_enabled", "user_id", "session_id", "project_id",
          "metadata", "custom", "expires_at", "created_at", "subject", "scope", "rank_by", "confidence"]
BODIES = st.one_of(JSON, st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=6))
ROUTES = [
    ("POST", "/v1/users/{u}/retrieve"), ("POST", "/v1/users/{u}/search"), ("POST", "/v1/users/{u}/turns"),
    ("POST", "/v1/users/{u}/conversations/{u}/close"), ("POST", "/v1/users/{u}/feedback"),
    ("POST", "/v1/users/{u}/memories"), ("POST", "/v1/users/{u}/memories/import"),
    ("GET", "/v1/users/{u}/memories?limit={u}&status={u}&cursor={u}"), ("GET", "/v1/users/{u}/memories/{u}"),
    ("PATCH", "/v1/users/{u}/memories/{u}"), ("DELETE", "/v1/users/{u}/memories/{u}"),
    ("POST", "/v1/users/{u}/forget"), ("GET", "/v1/users/{u}/profile"), ("PATCH", "/v1/users/{u}/profile"),
    ("GET", "/v1/users/{u}/settings"), ("PUT", "/v1/users/{u}/settings"), ("GET", "/v1/users/{u}/export"),
    ("GET", "/v1/users/{u}/sessions/{u}"), ("PUT", "/v1/users/{u}/sessions/{u}"), ("GET", "/v1/traces/{u}"),
    ("POST", "/v1/admin/consolidate"), ("DELETE", "/v1/users/{u}"),
]
IDS = st.one_of(st.sampled_from(["u1", "a" * 128, "a" * 129, "", "..", "x%20y", "%00", "üser", "1e9"]),
                st.text(alphabet="abc._:@-/%", min_size=0, max_size=20))


def check(status: int, body: Any) -> None:
    assert status < 500, body
    if status >= 400:
        assert set(body) == {"error"}
        assert {"code", "message"} <= set(body["error"])


@settings(max_examples=int(150 * SCALE), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(route=st.sampled_from(ROUTES), ident=IDS, body=BODIES)
def test_structured_garbage_never_breaks_a_route(api: ApiClient, route: tuple[str, str], ident: str,
                                                 body: Any) -> None:
    method, template = route
    status, answer = api.call(method, template.format(u=ident), raw=json.dumps(body).encode())
    check(status, answer)


@settings(max_examples=int(60 * SCALE), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(route=st.sampled_from(ROUTES), raw=st.binary(max_size=200))
def test_raw_bytes_never_break_a_route(api: ApiClient, route: tuple[str, str], raw: bytes) -> None:
    method, template = route
    status, answer = api.call(method, template.format(u="u1"), raw=raw)
    check(status, answer)


@settings(max_examples=int(40 * SCALE), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=400))
def test_any_message_text_goes_through_the_whole_loop(api: ApiClient, text: str) -> None:
    if not text.strip():
        return
    status, body = api.call("POST", "/v1/users/fuzz/turns", {"conversation_id": "c", "messages": [
        {"role": "user", "content": text}]})
    check(status, body)
    check(*api.call("POST", "/v1/users/fuzz/conversations/c/close"))
    from mnemo.bootstrap import run_due_jobs

    run_due_jobs(api.service)
    check(*api.call("POST", "/v1/users/fuzz/retrieve", {"query": text[:4000]}))
