"""The behaviour scenarios run in both homes: embedded (SQLite) and AWS (moto, and the OpenSearch HTTP
fake behind the real opensearch-py transport)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from mnemo.adapters.aws.dynamo_state import create_table
from mnemo.adapters.aws.opensearch_store import IndexTuning, ensure_index
from mnemo.bootstrap import Mnemo, build_aws, build_local
from mnemo.clock import ManualClock
from mnemo.ports import Embedder
from mnemo.settings import Settings
from tests.contract.opensearch_fake import FakeOpenSearch

REGION = "eu-west-1"


class Atomic:
    """moto runs requests without a lock, so under threads a conditional write can interleave with
    another; DynamoDB applies each request atomically. One lock per client restores that."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._client, name)
        if name.startswith("_") or not callable(attribute):
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return attribute(*args, **kwargs)

        return call


def aws_service(settings: Settings, clock: ManualClock, embedder: Embedder) -> Mnemo:
    dynamodb = Atomic(boto3.client("dynamodb", region_name=REGION))
    create_table(dynamodb, "mnemo-state")
    create_table(dynamodb, "mnemo-keys")  # the wrapped data keys, apart from the data (as the stack has them)
    kms = boto3.client("kms", region_name=REGION)
    sqs = boto3.client("sqs", region_name=REGION)
    fake = FakeOpenSearch()
    aws = settings.model_copy(update={
        "backend": "aws", "kms_key_id": kms.create_key()["KeyMetadata"]["KeyId"], "key_table": "mnemo-keys",
        "extract_queue_url": sqs.create_queue(QueueName="mnemo-extract")["QueueUrl"]})
    transport = fake.transport()
    ensure_index(transport, aws.opensearch_index, embedder.dimension, tuning=IndexTuning.from_settings(aws))
    svc = build_aws(aws, clock=clock, embedder=embedder, dynamodb=dynamodb, kms=kms, sqs=sqs, opensearch=transport)
    svc._closers.append(fake)  # the server stops with the service

    def raw() -> bytes:  # read at call time: the storage as it is then
        return (repr(dynamodb.scan(TableName="mnemo-state")["Items"]) + repr(fake.docs)).encode()

    RAW[id(svc)] = raw
    FAKES[id(svc)] = fake
    DYNAMODB[id(svc)] = dynamodb
    BESIDE[id(svc)] = lambda: build_aws(aws, clock=clock, embedder=embedder, dynamodb=dynamodb, kms=kms, sqs=sqs,
                                        opensearch=fake.transport())
    return svc


# what each home has persisted, read as someone holding a copy of its storage would read it
RAW: dict[int, Callable[[], bytes]] = {}
FAKES: dict[int, FakeOpenSearch] = {}  # the AWS home's OpenSearch, for fault injection
DYNAMODB: dict[int, Any] = {}  # the AWS home's DynamoDB client (backups, fault injection)
BESIDE: dict[int, Callable[[], Mnemo]] = {}  # another function (a warm Lambda) of the same AWS home's stores


@pytest.fixture
def stored(service: Mnemo, settings: Settings) -> Callable[[], bytes]:
    def local() -> bytes:
        for store in (service.ports.traces, service.ports.audit):
            flush = getattr(store, "flush", None)
            if callable(flush):
                flush()  # batched writes land before the storage is read
        return b"".join(p.read_bytes() for p in settings.data_dir.glob("mnemo.db*"))

    read = RAW.get(id(service), local)

    def checked() -> bytes:
        raw = read()
        assert len(raw) > 1000, "the storage read must hold something, or the check could not fail"
        return raw

    return checked


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
        RAW.pop(id(svc), None)
        FAKES.pop(id(svc), None)
        DYNAMODB.pop(id(svc), None)
        BESIDE.pop(id(svc), None)
