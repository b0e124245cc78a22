"""The behaviour scenarios run in both homes: embedded (SQLite) and AWS (moto + the OpenSearch fake)."""

from __future__ import annotations

from collections.abc import Iterator

import boto3
import pytest
from moto import mock_aws

from mnemo.adapters.aws.dynamo_state import create_table
from mnemo.adapters.aws.opensearch_store import index_body
from mnemo.bootstrap import Mnemo, build_aws, build_local
from mnemo.clock import ManualClock
from mnemo.ports import Embedder
from mnemo.settings import Settings
from tests.contract.opensearch_fake import FakeOpenSearch

REGION = "eu-west-1"


def aws_service(settings: Settings, clock: ManualClock, embedder: Embedder) -> Mnemo:
    dynamodb = boto3.client("dynamodb", region_name=REGION)
    create_table(dynamodb, "mnemo-state")
    kms = boto3.client("kms", region_name=REGION)
    sqs = boto3.client("sqs", region_name=REGION)
    fake = FakeOpenSearch()
    fake.request("PUT", "/mnemo-memories", body=index_body(embedder.dimension))
    aws = settings.model_copy(update={
        "backend": "aws", "kms_key_id": kms.create_key()["KeyMetadata"]["KeyId"],
        "extract_queue_url": sqs.create_queue(QueueName="mnemo-extract")["QueueUrl"]})
    return build_aws(aws, clock=clock, embedder=embedder, dynamodb=dynamodb, kms=kms, sqs=sqs, opensearch=fake)


@pytest.fixture(params=["local", "aws"])
def service(request: pytest.FixtureRequest, settings: Settings, clock: ManualClock, embedder: Embedder,
            monkeypatch: pytest.MonkeyPatch) -> Iterator[Mnemo]:
    if request.param == "local":
        svc = build_local(settings, clock=clock, embedder=embedder)
        yield svc
        svc.close()
        return
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        svc = aws_service(settings, clock, embedder)
        yield svc
        svc.close()
