"""Batches that end inside the function's time, throttled records that come back soon, and fan-out batches
whose entries SQS refuses (issue 12, items 7 and 11): real boto3 clients, moto's SQS or botocore's Stubber."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from moto import mock_aws

from functions.common import runtime
from functions.common.batch import come_back_in
from mnemo.errors import BackendUnavailable
from tests.functions.test_handlers import Context, lambda_env  # noqa: F401 - the fixture


@dataclass
class ShortContext(Context):
    remaining_ms: int = 1_000

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_ms


@pytest.fixture
def sqs(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, str]]:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        client = boto3.client("sqs", region_name="eu-west-1")
        url = client.create_queue(QueueName="mnemo-extract", Attributes={"VisibilityTimeout": "720"})["QueueUrl"]
        yield client, url


def received(client: Any, url: str) -> list[dict[str, Any]]:
    return client.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])


def as_record(message: dict[str, Any]) -> dict[str, Any]:
    return {"messageId": message["MessageId"], "receiptHandle": message["ReceiptHandle"], "body": message["Body"],
            "attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": "1795640400000",
                           "SenderId": "AIDAEXAMPLE", "ApproximateFirstReceiveTimestamp": "1795640400000"},
            "messageAttributes": {}, "md5OfBody": message["MD5OfBody"], "eventSource": "aws:sqs",
            "eventSourceARN": "arn:aws:sqs:eu-west-1:123456789012:mnemo-extract", "awsRegion": "eu-west-1"}


@pytest.mark.usefixtures("lambda_env")
def test_records_the_invocation_has_no_time_for_go_straight_back_to_the_queue(
        sqs: tuple[Any, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from functions.common import batch
    from functions.extract.handler import handler as extract
    from functions.extract.handler import record_budget_ms

    client, url = sqs
    monkeypatch.setenv("MNEMO_EXTRACT_QUEUE_URL", url)
    runtime.settings.cache_clear()
    monkeypatch.setattr(batch, "_sqs", lambda: client)
    for i in range(2):
        client.send_message(QueueUrl=url, MessageBody=json.dumps({"job": i}))
    messages = received(client, url)
    assert len(messages) == 2
    assert received(client, url) == []  # in flight: invisible for the queue's 720 s
    event = {"Records": [as_record(m) for m in messages]}
    context = ShortContext(remaining_ms=record_budget_ms() - 1)
    result = extract(event, context)
    assert sorted(f["itemIdentifier"] for f in result["batchItemFailures"]) == sorted(m["MessageId"] for m in messages)
    assert len(received(client, url)) == 2  # handed back at once, not after 720 s
    assert '"ExtractionDeferred"' in capsys.readouterr().out


def test_a_throttled_record_comes_back_after_a_short_pause(sqs: tuple[Any, str]) -> None:
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

    from functions.common.batch import THROTTLED_RETRY_SECONDS, throttled_pause

    client, url = sqs
    client.send_message(QueueUrl=url, MessageBody="{}")
    (message,) = received(client, url)
    pause = throttled_pause()
    assert THROTTLED_RETRY_SECONDS[0] <= pause <= THROTTLED_RETRY_SECONDS[1] < 720
    come_back_in(SQSRecord(as_record(message)), url, 0, client)
    assert len(received(client, url)) == 1


def test_refused_batch_entries_are_sent_again_and_a_lasting_refusal_fails_the_run() -> None:
    from functions.consolidate.handler import send_batch

    client = boto3.client("sqs", region_name="eu-west-1", aws_access_key_id="x", aws_secret_access_key="x")
    url = "https://sqs.eu-west-1.amazonaws.com/123456789012/mnemo-consolidate"
    entries = [{"Id": str(i), "MessageBody": json.dumps({"tenant_id": "t", "user_id": f"u{i}"})} for i in range(3)]
    refused = {"Id": "1", "SenderFault": False, "Code": "InternalError"}
    with Stubber(client) as stub:
        stub.add_response("send_message_batch", {
            "Successful": [{"Id": i, "MessageId": f"m{i}", "MD5OfMessageBody": "0" * 32} for i in ("0", "2")],
            "Failed": [refused]}, {"QueueUrl": url, "Entries": entries})
        stub.add_response("send_message_batch", {
            "Successful": [{"Id": "1", "MessageId": "m1", "MD5OfMessageBody": "0" * 32}], "Failed": []},
            {"QueueUrl": url, "Entries": [entries[1]]})  # only the refused entry, again
        send_batch(client, url, entries)
        stub.assert_no_pending_responses()
    with Stubber(client) as stub:
        for _ in range(3):
            stub.add_response("send_message_batch", {"Successful": [], "Failed": [refused]})
        with pytest.raises(BackendUnavailable, match="1 consolidation messages could not be queued"):
            send_batch(client, url, [entries[1]])
    with Stubber(client) as stub:  # a sender fault cannot succeed later: no retry
        stub.add_response("send_message_batch", {"Successful": [], "Failed": [{**refused, "SenderFault": True}]})
        with pytest.raises(BackendUnavailable):
            send_batch(client, url, [entries[1]])
        stub.assert_no_pending_responses()


def test_nothing_is_built_on_import_outside_lambda(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []
    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME", raising=False)
    runtime.warm_up(lambda: built.append("x"))
    assert built == []
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "mnemo-dev-retrieve")
    runtime.warm_up(lambda: built.append("x"), lambda: 1 / 0, lambda: built.append("y"))  # a failure is logged
    assert built == ["x", "y"]


def test_a_bedrock_fallback_becomes_the_metric_its_alarm_watches(capsys: pytest.CaptureFixture[str]) -> None:
    runtime.record_bedrock_fallback("record_facts", "AccessDeniedException")
    runtime.metrics.flush_metrics()
    emf = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"_aws"' in line]
    (blob,) = [b for b in emf if "BedrockFallback" in b]
    assert blob["BedrockFallback"] in ([1.0], 1.0)
    assert blob["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "mnemo"  # infra/observability.NAMESPACE
