"""The evaluation table of seed 001 and the practical scenarios of seed 003, automated."""

from __future__ import annotations

import pytest

from tests.conftest import ApiClient

U = "seed-user"


def remember(api: ApiClient, content: str, **extra: object) -> str:
    status, body = api.call("POST", f"/v1/users/{U}/memories", {"content": content, **extra})
    assert status == 201, body
    return str(body["memory"]["memory_id"])


def test_use_relevant_preference(api: ApiClient) -> None:
    remember(api, "I prefer TypeScript for code examples.")
    assert "TypeScript" in api.retrieve(U, "Give me an SDK example.")["context"]


def test_current_request_wins(api: ApiClient) -> None:
    remember(api, "I prefer TypeScript for code examples.")
    context = api.retrieve(U, "Give me this example in Python.")["context"]
    assert "current request always wins" in context


def test_block_expired_fact(api: ApiClient, clock) -> None:
    remember(api, "Our API examples use the v1 billing endpoint.", category="project_fact",
             expires_at=clock.now().isoformat())
    remember(api, "Our API examples use the v2 billing endpoint.", category="project_fact",
             subject="api.billing_endpoint_current")
    clock.advance(seconds=1)
    context = api.retrieve(U, "Which billing endpoint should I call in our API examples?")["context"]
    assert "v2 billing endpoint" in context
    assert "v1 billing endpoint" not in context


def test_tenant_isolation_leaves_no_trace(api: ApiClient) -> None:
    remember(api, "Our billing endpoint is /v2/invoices.")
    other = api.as_tenant("tenant_b")
    result = other.retrieve(U, "What is our billing endpoint?")
    status, trace = other.call("GET", f"/v1/traces/{result['trace_id']}")
    assert status == 200
    assert trace["candidates"] == []


def test_irrelevant_memory_suppression(api: ApiClient) -> None:
    remember(api, "I prefer detailed onboarding docs.")
    result = api.retrieve(U, "Write a 5-line code snippet that reverses a string.")
    assert "onboarding" not in result["context"]
    assert all("onboarding" not in m["content"] for m in result["memories"])


@pytest.mark.parametrize("request_text", ["recommend a movie for tonight", "what should I order for team lunch?",
                                          "plan a weekend trip to Rome"])
def test_a_preference_about_work_stays_out_of_a_leisure_request(api: ApiClient, request_text: str) -> None:
    # the request needs the user's likes; how they want their docs is no like (slot_affinity.KINDRED)
    remember(api, "I prefer detailed onboarding docs.")
    result = api.retrieve(U, request_text)
    assert "onboarding" not in result["context"]


def test_preference_update_is_used_at_once_and_the_old_one_retired(api: ApiClient, clock) -> None:
    api.say(U, "c1", "From now on, answer in long detailed paragraphs.")
    clock.advance(days=1)
    api.say(U, "c2", "From now on, answer in short bullet points.")
    context = api.retrieve(U, "Explain how DNS works for me")["context"]
    assert "short bullet points" in context
    assert "detailed paragraphs" not in context
    assert len(api.memories(U, status="superseded")) == 1
