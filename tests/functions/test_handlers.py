"""The Lambda handlers with real-shaped API Gateway HTTP API (v2) events, on the embedded back end."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from functions.common import runtime
from mnemo.bootstrap import run_due_jobs


@dataclass
class Context:
    function_name: str = "mnemo-retrieve"
    memory_limit_in_mb: int = 1024
    invoked_function_arn: str = "arn:aws:lambda:eu-west-1:123456789012:function:mnemo-retrieve"
    aws_request_id: str = "0f3b8c1e-1111-2222-3333-444455556666"


def event(method: str, path: str, body: object | None, tenant: str = "tenant_a") -> dict[str, object]:
    return {
        "version": "2.0", "routeKey": "$default", "rawPath": path, "rawQueryString": "",
        "headers": {"content-type": "application/json", "host": "api.example.com"},
        "requestContext": {
            "accountId": "123456789012", "apiId": "abc123", "domainName": "api.example.com",
            "domainPrefix": "api", "requestId": "req-1", "routeKey": "$default", "stage": "$default",
            "time": "25/Nov/2026:21:00:00 +0000", "timeEpoch": 1795640400000,
            "http": {"method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": "203.0.113.9",
                     "userAgent": "chat-app/1.0"},
            "authorizer": {"lambda": {"tenant_id": tenant}},
        },
        "body": json.dumps(body) if body is not None else None,
        "isBase64Encoded": False,
    }


@pytest.fixture
def lambda_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder) -> Iterator[None]:
    monkeypatch.setenv("MNEMO_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "mnemo-test")
    for cached in (runtime.settings, runtime.service, runtime.resolver):
        cached.cache_clear()
    yield
    runtime.service().close()
    for cached in (runtime.settings, runtime.service, runtime.resolver):
        cached.cache_clear()


@pytest.mark.usefixtures("lambda_env")
def test_ingest_then_retrieve_through_the_handlers(capsys: pytest.CaptureFixture[str]) -> None:
    from functions.ingest.handler import handler as ingest
    from functions.retrieve.handler import handler as retrieve

    turns = {"conversation_id": "c1", "messages": [{"role": "user", "content": "I'm allergic to peanuts."}]}
    response = ingest(event("POST", "/v1/users/u1/turns", turns), Context())
    assert response["statusCode"] == 202
    assert ingest(event("POST", "/v1/users/u1/conversations/c1/close", None), Context())["statusCode"] == 202
    run_due_jobs(runtime.service())
    response = retrieve(event("POST", "/v1/users/u1/retrieve", {"query": "Suggest a snack for me"}), Context())
    assert response["statusCode"] == 200
    assert "peanuts" in json.loads(response["body"])["context"]
    logs = capsys.readouterr().out
    assert "peanuts" not in logs  # no user content in the logs
    emf = [json.loads(line) for line in logs.splitlines() if line.startswith("{") and "_aws" in line]
    retrieval = next(blob for blob in emf if "MemoriesInjected" in blob)
    assert len(retrieval["MemoriesInjected"]) == 1  # the allergy travels in the profile part of the block
    assert retrieval["MemoryTokens"][0] > 0
    for stage in ("gate", "embed", "search", "rerank", "total"):
        assert retrieval[f"RetrieveStage_{stage}"][0] >= 0


@pytest.mark.usefixtures("lambda_env")
def test_tenant_comes_from_the_authorizer_only() -> None:
    from functions.retrieve.handler import handler as retrieve

    no_tenant = event("POST", "/v1/users/u1/retrieve", {"query": "hello"})
    no_tenant["requestContext"]["authorizer"] = {}  # type: ignore[index]
    response = retrieve(no_tenant, Context())
    assert response["statusCode"] == 401
    assert json.loads(response["body"])["error"]["code"] == "unauthorized"


def sqs_event(*bodies: str) -> dict[str, object]:
    return {"Records": [{
        "messageId": f"msg-{i}", "receiptHandle": f"rh-{i}", "body": body,
        "attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": "1795640400000",
                       "SenderId": "AIDAEXAMPLE", "ApproximateFirstReceiveTimestamp": "1795640400000"},
        "messageAttributes": {}, "md5OfBody": "0" * 32, "eventSource": "aws:sqs",
        "eventSourceARN": "arn:aws:sqs:eu-west-1:123456789012:mnemo-extract", "awsRegion": "eu-west-1",
    } for i, body in enumerate(bodies)]}


@pytest.mark.usefixtures("lambda_env")
def test_extract_consumes_jobs_and_reports_poison_records(capsys: pytest.CaptureFixture[str]) -> None:
    from functions.extract.handler import handler as extract
    from functions.ingest.handler import handler as ingest
    from mnemo.adapters.aws.sqs_queue import job_to_body

    turns = {"conversation_id": "c9", "messages": [{"role": "user", "content": "I have a cat named Miso."}]}
    assert ingest(event("POST", "/v1/users/u1/turns", turns), Context())["statusCode"] == 202
    assert ingest(event("POST", "/v1/users/u1/conversations/c9/close", None), Context())["statusCode"] == 202
    jobs = runtime.service().ports.queue.due(runtime.service().ports.clock.now(), 10)
    assert len(jobs) == 1
    started: list[int] = []
    runtime.service().caches.on_request(lambda: started.append(1))  # each job checks what was erased elsewhere
    result = extract(sqs_event(job_to_body(jobs[0]), "{not a job"), Context())
    assert result == {"batchItemFailures": [{"itemIdentifier": "msg-1"}]}
    assert len(started) == 1  # the job; the poison record never became one
    memories = list(runtime.service().ports.memories.all_for_user("tenant_a", "u1"))
    assert [m.content for m in memories] == ["User has a pet: cat named Miso."]
    # the same message delivered again changes nothing
    assert extract(sqs_event(job_to_body(jobs[0])), Context()) == {"batchItemFailures": []}
    assert len(list(runtime.service().ports.memories.all_for_user("tenant_a", "u1"))) == 1
    emf = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{") and "_aws" in line]
    done, again = (blob for blob in emf if "ExtractionLag" in blob or "ExtractionStale" in blob)
    assert (done["TurnsExtracted"], done["TurnsAcknowledgedUnextracted"]) == ([1], [0])  # issue 17's alarm reads it
    assert again["ExtractionStale"] == [1]


@pytest.mark.usefixtures("lambda_env")
def test_memories_and_feedback_handlers_serve_their_routes() -> None:
    from functions.feedback.handler import handler as feedback
    from functions.memories.handler import handler as memories
    from functions.retrieve.handler import handler as retrieve

    created = memories(event("POST", "/v1/users/u1/memories", {"content": "I love fado music."}), Context())
    assert created["statusCode"] == 201
    found = json.loads(retrieve(event("POST", "/v1/users/u1/retrieve", {"query": "What music do I love?"}),
                                Context())["body"])
    rated = feedback(event("POST", "/v1/users/u1/feedback", {"trace_id": found["trace_id"], "rating": "down"}),
                     Context())
    assert rated["statusCode"] == 200
    assert json.loads(rated["body"])["adjusted"][0]["confidence"] == 0.8
    assert memories(event("DELETE", "/v1/users/u1", None), Context())["statusCode"] == 204


@pytest.mark.usefixtures("lambda_env")
def test_consolidate_runs_on_the_schedule_and_from_the_fan_out_queue(monkeypatch: pytest.MonkeyPatch) -> None:
    from functions.consolidate.handler import handler as consolidate
    from functions.memories.handler import handler as memories

    for user in ("u1", "u2"):
        memories(event("POST", f"/v1/users/{user}/memories", {"content": "I went to the dentist.",
                                                              "category": "episodic",
                                                              "created_at": "2020-01-01T00:00:00Z"}), Context())
    scheduled = {"version": "0", "id": "e-1", "detail-type": "Scheduled Event", "source": "aws.events",
                 "account": "123456789012", "time": "2026-11-25T03:00:00Z", "region": "eu-west-1",
                 "resources": ["arn:aws:events:eu-west-1:123456789012:rule/mnemo-consolidate"], "detail": {}}
    assert consolidate(scheduled, Context()) == {"inline": 2, "fanned_out": 0}
    store = runtime.service().ports.memories
    statuses = {m.status.value for u in ("u1", "u2") for m in store.all_for_user("tenant_a", u)}
    assert statuses == {"expired"}
    result = consolidate(sqs_event(json.dumps({"tenant_id": "tenant_a", "user_id": "u1"}), "nope"), Context())
    assert result == {"batchItemFailures": [{"itemIdentifier": "msg-1"}]}


@pytest.mark.usefixtures("lambda_env")
def test_the_tuning_rule_tunes_without_consolidating() -> None:
    from functions.consolidate.handler import handler as consolidate
    from functions.memories.handler import handler as memories

    memories(event("POST", "/v1/users/u1/memories", {"content": "I went to the dentist.", "category": "episodic",
                                                     "created_at": "2020-01-01T00:00:00Z"}), Context())
    rule = {"job": "tune"}  # the rule's constant input
    assert consolidate(rule, Context()) == {"inline": 0, "fanned_out": 0}
    statuses = {m.status.value for m in runtime.service().ports.memories.all_for_user("tenant_a", "u1")}
    assert statuses == {"active"}  # an expired episode stays until the consolidation rule runs
    assert consolidate({"job": "consolidate"}, Context()) == {"inline": 1, "fanned_out": 0}
    with pytest.raises(ValueError, match="unknown scheduled job"):
        consolidate({"job": "drop-tables"}, Context())


@pytest.mark.usefixtures("lambda_env")
def test_consolidate_fans_out_one_message_per_user_past_the_inline_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    import boto3
    from moto import mock_aws

    from functions.consolidate.handler import run_schedule
    from functions.memories.handler import handler as memories

    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        sqs = boto3.client("sqs", region_name="eu-west-1")
        url = sqs.create_queue(QueueName="mnemo-consolidate")["QueueUrl"]
        monkeypatch.setenv("MNEMO_CONSOLIDATE_QUEUE_URL", url)
        monkeypatch.setenv("MNEMO_CONSOLIDATE_INLINE_USERS", "1")
        runtime.settings.cache_clear()
        for user in ("u1", "u2", "u3"):
            memories(event("POST", f"/v1/users/{user}/memories", {"content": f"I like tea {user}."}), Context())
        assert run_schedule(sqs) == {"inline": 0, "fanned_out": 3}
        bodies = [json.loads(m["Body"]) for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]]
        assert sorted(b["user_id"] for b in bodies) == ["u1", "u2", "u3"]


@pytest.mark.usefixtures("lambda_env")
def test_every_invocation_starts_by_checking_what_other_functions_erased() -> None:
    from functions.retrieve.handler import handler as retrieve

    started: list[int] = []
    runtime.service().caches.on_request(lambda: started.append(1))  # as the AWS home's key vault is told
    for _ in range(2):
        assert retrieve(event("POST", "/v1/users/u1/retrieve", {"query": "hello"}), Context())["statusCode"] == 200
    assert len(started) == 2
