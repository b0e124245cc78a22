"""Bedrock's second opinion on ambiguous pairs, through botocore's Stubber, on the real write path."""

from __future__ import annotations

from datetime import datetime

import boto3
import pytest
from botocore.stub import ANY, Stubber

from mnemo.adapters.aws.bedrock_conflicts import BedrockConflictJudge
from mnemo.bootstrap import Mnemo
from mnemo.domain.models import Category, SourceKind, Status
from mnemo.services.writing import NewFact

MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0"
MORNING = "User usually goes running in the morning."
EVENING = "User usually goes running in the evening."


def fact(content: str, subject: str, when: datetime) -> NewFact:
    return NewFact(content=content, category=Category.PREFERENCE, subject=subject, confidence=0.8,
                   source=SourceKind.EXTRACTED, occurred_at=when)


def verdict(relation: str) -> dict:
    return {"output": {"message": {"role": "assistant", "content": [
        {"toolUse": {"toolUseId": "t1", "name": "record_relation", "input": {"relation": relation}}}]}},
        "stopReason": "tool_use", "usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15},
        "metrics": {"latencyMs": 80}}


@pytest.fixture
def judged(service: Mnemo, monkeypatch: pytest.MonkeyPatch):
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    client = boto3.client("bedrock-runtime", region_name="eu-west-1")
    service.ports.judge = BedrockConflictJudge(client, MODEL)
    with Stubber(client) as stubber:
        yield service, stubber


def write_pair(service: Mnemo, clock) -> tuple:
    first = service.writer.write("t", "u", [fact(MORNING, "habit:running_morning", clock.now())])[0]
    clock.advance(days=20)
    second = service.writer.write("t", "u", [fact(EVENING, "habit:running_evening", clock.now())])[0]
    return first.memory, second


def test_a_contradiction_the_model_sees_supersedes_the_older_fact(judged, clock) -> None:
    service, stubber = judged
    stubber.add_response("converse", verdict("contradicts"), {
        "modelId": MODEL, "system": ANY, "messages": ANY, "toolConfig": ANY, "inferenceConfig": ANY})
    old, result = write_pair(service, clock)
    assert result.outcome == "superseded"
    assert result.superseded == [old.memory_id]
    assert service.ports.memories.get("t", "u", old.memory_id).status is Status.SUPERSEDED
    assert result.memory.version == 2
    assert result.memory.supersedes == old.memory_id
    stubber.assert_no_pending_responses()


def test_independent_facts_are_both_kept_without_a_flag(judged, clock) -> None:
    service, stubber = judged
    stubber.add_response("converse", verdict("independent"))
    old, result = write_pair(service, clock)
    assert result.outcome == "created"
    assert result.memory.conflicts_with == []
    assert service.ports.memories.get("t", "u", old.memory_id).conflicts_with == []
    assert service.ports.memories.get("t", "u", old.memory_id).status is Status.ACTIVE


def test_a_restatement_the_model_recognises_is_merged(judged, clock) -> None:
    service, stubber = judged
    stubber.add_response("converse", verdict("same"))
    old, result = write_pair(service, clock)
    assert result.outcome == "merged"
    assert result.memory.memory_id == old.memory_id
    assert result.memory.last_confirmed_at == clock.now()


@pytest.mark.parametrize("failure", ["ThrottlingException", "ModelTimeoutException", "not_a_relation"])
def test_when_the_model_fails_both_facts_stay_flagged(judged, clock, failure: str) -> None:
    service, stubber = judged
    if failure == "not_a_relation":
        stubber.add_response("converse", verdict("maybe"))
    else:
        stubber.add_client_error("converse", service_error_code=failure, http_status_code=429)
    old, result = write_pair(service, clock)
    assert result.outcome == "created"
    assert result.memory.conflicts_with == [old.memory_id]
    assert service.ports.memories.get("t", "u", old.memory_id).status is Status.ACTIVE
