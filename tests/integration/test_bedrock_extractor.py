"""The Bedrock extractor through botocore's Stubber (which checks our parameters against the service model)."""

from __future__ import annotations

from datetime import UTC, datetime

import boto3
import pytest
from botocore.stub import ANY, Stubber

from mnemo.adapters.aws.bedrock_extractor import BedrockExtractor
from mnemo.domain.models import Category, Message

WHEN = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0"


def messages(*texts: tuple[str, str]) -> list[Message]:
    return [Message(role=r, content=t, message_id=f"m{i}", created_at=WHEN) for i, (r, t) in enumerate(texts)]


def tool_answer(payload: dict) -> dict:
    return {"output": {"message": {"role": "assistant", "content": [
        {"toolUse": {"toolUseId": "t1", "name": "record_facts", "input": payload}}]}},
        "stopReason": "tool_use", "usage": {"inputTokens": 10, "outputTokens": 20, "totalTokens": 30},
        "metrics": {"latencyMs": 100}}


@pytest.fixture
def bedrock(monkeypatch: pytest.MonkeyPatch):
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    client = boto3.client("bedrock-runtime", region_name="eu-west-1")
    with Stubber(client) as stubber:
        yield client, stubber


def fact(message: int, slot: str, value: str, evidence: str, negated: bool = False) -> dict:
    return {"message": message, "slot": slot, "value": value, "negated": negated, "evidence": evidence}


def test_structured_facts_in_the_slot_vocabulary_pass_the_same_screening(bedrock) -> None:
    client, stubber = bedrock
    stubber.add_response("converse", tool_answer({"facts": [
        fact(0, "allergy", "peanuts", "I'm allergic to peanuts"),
        fact(1, "home_location", "Paris", "You live in Paris"),  # the assistant's words: dropped
        fact(0, "job", "an admin", "I am an admin"),  # an identity claim: refused
        fact(0, "diet", "vegan", "I'm vegan"),  # not in the message: dropped
    ], "forget": [{"message": 0, "what": "my old address"}]}), {
        "modelId": MODEL, "system": ANY, "messages": ANY, "toolConfig": ANY, "inferenceConfig": ANY})
    result = BedrockExtractor(client, MODEL).extract(messages(
        ("user", "I'm allergic to peanuts. I am an admin. My card is 4111 1111 1111 1111. Forget my old address"),
        ("assistant", "You live in Paris, right?")))
    assert [(c.category, c.subject, c.content) for c in result.accepted] == [
        (Category.CONSTRAINT, "allergy:peanut", "User is allergic to peanuts.")]
    assert {c.rejection_reason for c in result.candidates if not c.should_store} == {"identity_or_permission_claim"}
    assert [f.query for f in result.forget] == ["my old address"]
    assert result.redacted_kinds == ["payment_card"]
    stubber.assert_no_pending_responses()


def test_the_tool_schema_is_the_slot_vocabulary(bedrock) -> None:
    from mnemo.domain.extraction.llm import FACT_SCHEMA
    from mnemo.domain.extraction.slots import FOUND_AROUND_THE_TAGGER, SLOTS

    client, stubber = bedrock
    tool = {"tools": [{"toolSpec": {"name": "record_facts", "description": ANY,
                                    "inputSchema": {"json": FACT_SCHEMA}}}],
            "toolChoice": {"tool": {"name": "record_facts"}}}
    stubber.add_response("converse", tool_answer({"facts": [], "forget": []}), {
        "modelId": MODEL, "system": ANY, "messages": ANY, "toolConfig": tool, "inferenceConfig": ANY})
    BedrockExtractor(client, MODEL).extract(messages(("user", "I love tea")))
    stubber.assert_no_pending_responses()
    offered = [s for s in SLOTS if s not in FOUND_AROUND_THE_TAGGER]
    assert FACT_SCHEMA["properties"]["facts"]["items"]["properties"]["slot"]["enum"] == offered


def test_a_schema_violation_falls_back_and_is_counted(bedrock) -> None:
    from mnemo.fallbacks import FallbackCounter

    client, stubber = bedrock
    counter = FallbackCounter("t", "t")
    stubber.add_response("converse", tool_answer({"facts": [
        {"message": 0, "category": "biographical", "subject": "location", "content": "User lives in Lisbon."}]}))
    result = BedrockExtractor(client, MODEL, counter=counter).extract(messages(("user", "I live in Lisbon.")))
    assert [c.subject for c in result.accepted] == ["location"]  # the rules' answer
    stubber.add_client_error("converse", service_error_code="ThrottlingException", http_status_code=429)
    BedrockExtractor(client, MODEL, counter=counter).extract(messages(("user", "I live in Lisbon.")))
    assert (counter.count("bedrock", "schema"), counter.count("bedrock", "error")) == (1, 1)


def test_secrets_never_reach_the_model(bedrock) -> None:
    client, stubber = bedrock
    # the Stubber fails the call unless the parameters are exactly these: the secret is already gone
    text = "Conversation:\n[0] user: my [REDACTED:password]!! and I love tea"
    expected = [{"role": "user", "content": [{"text": text}]}]
    stubber.add_response("converse", tool_answer({"facts": [], "forget": []}), {
        "modelId": MODEL, "system": ANY, "messages": expected, "toolConfig": ANY, "inferenceConfig": ANY})
    BedrockExtractor(client, MODEL).extract(messages(("user", "my password is hunter2!! and I love tea")))
    stubber.assert_no_pending_responses()


def test_any_failure_falls_back_to_the_rules(bedrock) -> None:
    client, stubber = bedrock
    stubber.add_client_error("converse", service_error_code="ThrottlingException", http_status_code=429)
    result = BedrockExtractor(client, MODEL).extract(messages(("user", "I live in Lisbon.")))
    assert [c.subject for c in result.accepted] == ["location"]
    stubber.add_response("converse", {"output": {"message": {"role": "assistant", "content": [{"text": "sure!"}]}},
                                      "stopReason": "end_turn",
                                      "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
                                      "metrics": {"latencyMs": 1}})
    result = BedrockExtractor(client, MODEL).extract(messages(("user", "I live in Lisbon.")))
    assert [c.subject for c in result.accepted] == ["location"]


def test_the_llm_summariser_keeps_supported_facts_and_falls_back(bedrock) -> None:
    from datetime import timedelta

    from mnemo.adapters.aws.bedrock_extractor import BedrockSummariser
    from mnemo.domain.models import Memory

    client, stubber = bedrock
    memories = [Memory(memory_id=f"m{i}", tenant_id="t", user_id="u", category=Category.EPISODIC,
                       subject=f"event:{i}", content=f"User ran {5 + i} km.", confidence=0.9,
                       created_at=WHEN + timedelta(days=2 * i), updated_at=WHEN,
                       last_confirmed_at=WHEN) for i in range(6)]
    vectors = __import__("numpy").eye(6, 384, dtype="float32")

    def summary(facts: list[dict]) -> dict:
        return {"output": {"message": {"role": "assistant", "content": [{"toolUse": {
            "toolUseId": "t", "name": "record_summary", "input": {"facts": facts}}}]}}, "stopReason": "tool_use",
            "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2}, "metrics": {"latencyMs": 1}}

    every = [f"e{i}" for i in range(1, 7)]
    stubber.add_response("converse", summary([
        {"text": "User ran 6 times between 1 March 2026 and 11 March 2026.", "sources": every},
        {"text": "User's runs were 5 to 10 km.", "sources": every},
        {"text": "User ran 12 km with Marta.", "sources": every},  # no such run, no Marta: dropped
        {"text": "User ran 6 times.", "sources": every},  # the same claim again: dropped
        {"text": "User's longest run was 10 km.", "sources": ["e6"]},
    ]), {"modelId": MODEL, "system": ANY, "messages": ANY, "toolConfig": ANY, "inferenceConfig": ANY})
    summariser = BedrockSummariser(client, MODEL)
    facts = summariser.summarise(memories, vectors)
    assert [f.text for f in facts] == ["User ran 6 times between 1 March 2026 and 11 March 2026.",
                                       "User's runs were 5 to 10 km.",
                                       "User's longest run was 10 km."]
    assert facts[2].sources == ("m5",)  # provenance in memory ids, not the prompt's short ids
    stubber.add_client_error("converse", service_error_code="ServiceUnavailableException", http_status_code=503)
    fallback = summariser.summarise(memories, vectors)
    assert summariser.fallbacks == 1
    assert fallback[0].text.startswith("User ran 6 times")
    assert fallback[0].kind == "habit"


def test_a_refused_model_is_logged_as_an_error_and_every_fallback_is_reported(
        bedrock, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    from mnemo.adapters.aws import bedrock_extractor

    heard: list[tuple[str, str]] = []
    monkeypatch.setattr(bedrock_extractor, "FALLBACK_LISTENERS", [lambda tool, code: heard.append((tool, code))])
    client, stubber = bedrock
    # what a model served only through an inference profile, or IAM on the wrong ARN, answers
    stubber.add_client_error("converse", service_error_code="AccessDeniedException", http_status_code=403)
    stubber.add_client_error("converse", service_error_code="ThrottlingException", http_status_code=429)
    with caplog.at_level("WARNING", logger="mnemo.bedrock"):
        for _ in range(2):
            result = BedrockExtractor(client, MODEL).extract(messages(("user", "I live in Lisbon.")))
            assert [c.subject for c in result.accepted] == ["location"]  # the rules answered
    assert heard == [("record_facts", "AccessDeniedException"), ("record_facts", "ThrottlingException")]
    assert [r.levelname for r in caplog.records] == ["ERROR", "WARNING"]
    assert "Lisbon" not in caplog.text
