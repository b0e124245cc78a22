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
def test_extract_consumes_jobs_and_reports_poison_records() -> None:
    from functions.extract.handler import handler as extract
    from functions.ingest.handler import handler as ingest
    from mnemo.adapters.aws.sqs_queue import job_to_body

    turns = {"conversation_id": "c9", "messages": [{"role": "user", "content": "I have a cat named Miso."}]}
    assert ingest(event("POST", "/v1/users/u1/turns", turns), Context())["statusCode"] == 202
    assert ingest(event("POST", "/v1/users/u1/conversations/c9/close", None), Context())["statusCode"] == 202
    jobs = runtime.service().ports.queue.due(runtime.service().ports.clock.now(), 10)
    assert len(jobs) == 1
    result = extract(sqs_event(job_to_body(jobs[0]), "{not a job"), Context())
    assert result == {"batchItemFailures": [{"itemIdentifier": "msg-1"}]}
    memories = list(runtime.service().ports.memories.all_for_user("tenant_a", "u1"))
    assert [m.content for m in memories] == ["User has a cat named Miso."]
    # the same message delivered again changes nothing
    assert extract(sqs_event(job_to_body(jobs[0])), Context()) == {"batchItemFailures": []}
    assert len(list(runtime.service().ports.memories.all_for_user("tenant_a", "u1"))) == 1
