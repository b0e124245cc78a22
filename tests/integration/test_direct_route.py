"""The retrieve and search routes answered without Powertools' middleware chain (issue 14: a warm retrieve's fixed
cost): a valid request skips the chain, and every request gets the answer the chain gives."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_lambda_powertools.event_handler.middlewares.openapi_validation import OpenAPIRequestValidationMiddleware

from mnemo.api.app import create_app
from mnemo.bootstrap import Mnemo
from mnemo.server import build_event
from tests.conftest import ApiClient

STATEMENTS = ["I'm allergic to peanuts.", "I live in Lisbon.", "I love hiking on weekends.",
              "My daughter Ana is seven.", "I work as a nurse on night shifts."]
VALID = [{"query": "What should I cook for my kids tonight?"},
         {"query": "plan my weekend", "top_k": 2, "token_budget": 60},
         {"query": "any snack ideas for the hike?", "session_id": "s-1", "project_id": "p.1", "conversation_id": "c1"},
         {"query": "what is a mole"}]
# refused by the schema, the body limit, the JSON parser, the media type, the handler's own checks
INVALID: list[tuple[str, bytes, str]] = [
    ("u1", b"", "application/json"), ("u1", b"{", "application/json"), ("u1", b"[]", "application/json"),
    ("u1", b'{"query": ""}', "application/json"), ("u1", b'{"query": "x", "extra": 1}', "application/json"),
    ("u1", b'{"query": "x", "top_k": 0}', "application/json"), ("u1", b'{"query": NaN}', "application/json"),
    ("u1", b'{"query": "x", "token_budget": 5000}', "application/json"),
    ("u1", b'{"query": "x", "session_id": "4111111111111111"}', "application/json"),
    ("u1", json.dumps({"query": "x", "pad": "z" * 1_100_000}).encode(), "application/json"),
    ("u1", b'{"query": "x"}', "text/plain"), ("u1", b"\xff\xfe", "application/json"),
    ("bad id", b'{"query": "x"}', "application/json"), ("a" * 200, b'{"query": "x"}', "application/json")]


SEARCHES = [{"query": "what do I eat?"}, {"query": "hiking", "top_k": 3, "rank_by": "score"},
            {"query": "Lisbon", "category": "semantic", "project_id": "p.1", "session_id": "s-1"},
            {"query": "x", "category": "nonsense"}, {"query": "x", "rank_by": "newest"}, {"query": "x", "top_k": 101},
            {"query": "x", "extra": True}, {"top_k": 2}]


def answer(api: ApiClient, user: str, raw: bytes, media: str,
           route: str = "retrieve") -> tuple[int, dict[str, Any], Any]:
    event = build_event("POST", f"/v1/users/{user}/{route}", {"content-type": media}, raw, api.tenant, "127.0.0.1")
    result = api.app.resolve(event, None)
    body = json.loads(result["body"]) if result.get("body") else None
    trace = body.pop("trace_id", None) if isinstance(body, dict) else None
    if trace is not None:  # the trace each way wrote, less what differs by nature (its id and moment)
        stored = api.service.ports.traces.get(api.tenant, trace, api.service.ports.clock.now())
        assert stored is not None
        body["trace"] = stored.model_dump(exclude={"trace_id", "created_at", "expires_at", "timings_ms"})
    return int(result["statusCode"]), dict(result.get("headers") or {}), body


@pytest.fixture
def filled(api: ApiClient) -> ApiClient:
    for user in ("u1", "u2"):
        status, _ = api.call("POST", f"/v1/users/{user}/memories/import",
                             {"items": [{"content": text} for text in STATEMENTS]})
        assert status == 200
    return api


def test_a_valid_retrieve_skips_the_middleware_chain(filled: ApiClient, monkeypatch: pytest.MonkeyPatch) -> None:
    validated: list[str] = []
    handler = OpenAPIRequestValidationMiddleware.handler

    def counted(self: Any, app: Any, next_middleware: Any) -> Any:
        validated.append(app.current_event.path)
        return handler(self, app, next_middleware)

    monkeypatch.setattr(OpenAPIRequestValidationMiddleware, "handler", counted)
    assert filled.retrieve("u1", "what am I allergic to?")["memories"]
    assert validated == []  # the chain validated it before
    status, _ = filled.call("POST", "/v1/users/u1/retrieve", {"query": ""})
    assert status == 422
    assert validated == ["/v1/users/u1/retrieve"]  # refused by the chain, in its words


def test_every_retrieve_gets_the_chains_answer(filled: ApiClient) -> None:
    direct = filled.app._direct
    assert direct
    cases = [(user, json.dumps(body).encode(), "application/json") for user in ("u1", "u2", "u3") for body in VALID]
    for n, (user, raw, media) in enumerate(cases + INVALID):
        answers = {}
        for way in ("direct", "chain") if n % 2 else ("chain", "direct"):
            filled.app._direct = direct if way == "direct" else None
            answers[way] = answer(filled, user, raw, media)
        filled.app._direct = direct
        assert answers["direct"] == answers["chain"], (user, raw[:80])


def test_every_search_gets_the_chains_answer(filled: ApiClient) -> None:
    direct = filled.app._direct
    assert direct
    assert ("POST", "/v1/users/<user_id>/search") in direct
    statuses = set()
    for n, (user, body) in enumerate((user, body) for user in ("u1", "u2", "bad id") for body in SEARCHES):
        answers = {}
        for way in ("direct", "chain") if n % 2 else ("chain", "direct"):
            filled.app._direct = direct if way == "direct" else None
            answers[way] = answer(filled, user, json.dumps(body).encode(), "application/json", "search")
        filled.app._direct = direct
        assert answers["direct"] == answers["chain"], (user, body)
        statuses.add(answers["direct"][0])
    assert statuses == {200, 422}


def test_a_resolver_given_another_middleware_runs_it_on_every_retrieve(service: Mnemo) -> None:
    app = create_app(service)
    seen: list[str] = []

    def spy(app: Any, next_middleware: Any) -> Any:
        seen.append(app.current_event.path)
        return next_middleware(app)

    app.use([spy])
    event = build_event("POST", "/v1/users/u1/retrieve", {"content-type": "application/json"},
                        b'{"query": "what do I like?"}', "tenant_a", "127.0.0.1")
    assert app.resolve(event, None)["statusCode"] == 200
    assert seen == ["/v1/users/u1/retrieve"]
