"""Both homes behind the same ports: the embedded adapters and the AWS ones (moto)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from mnemo.adapters.aws.dynamo_records import (
    DynamoAuditLog,
    DynamoFeedbackStore,
    DynamoTraceStore,
    DynamoTurnBuffer,
)
from mnemo.adapters.aws.dynamo_state import (
    DynamoProfileStore,
    DynamoSessionStore,
    DynamoSettingsStore,
    DynamoTable,
    DynamoWeightsStore,
    create_table,
)
from mnemo.adapters.aws.kms_vault import KmsKeyVault
from mnemo.adapters.aws.sqs_queue import SqsExtractionQueue
from mnemo.adapters.local.key_file_vault import KeyFileVault
from mnemo.adapters.local.sqlite_db import Database
from mnemo.adapters.local.sqlite_stores import (
    SqliteAuditLog,
    SqliteExtractionQueue,
    SqliteFeedbackStore,
    SqliteProfileStore,
    SqliteSessionStore,
    SqliteSettingsStore,
    SqliteTraceStore,
    SqliteTurnBuffer,
    SqliteWeightsStore,
)
from mnemo.clock import ManualClock
from mnemo.crypto import UserCipher

REGION = "eu-west-1"


@dataclass
class Home:
    name: str
    vault: Any
    profiles: Any
    settings: Any
    sessions: Any
    weights: Any
    traces: Any
    feedback: Any
    audit: Any
    buffer: Any
    queue: Any
    raw: Any  # what a thief with the storage would see, for the sealing checks

    def close(self) -> None:
        for store in (self.traces, self.audit):
            closer = getattr(store, "close", None)
            if closer:
                closer()


def local_home(tmp_path: Path, clock: ManualClock) -> Home:
    db = Database(tmp_path / "m.db")
    vault = KeyFileVault(db, tmp_path / "master.key", clock)
    cipher = UserCipher(vault)
    return Home("local", cipher, SqliteProfileStore(db, cipher), SqliteSettingsStore(db, cache_seconds=0),
                SqliteSessionStore(db, cipher), SqliteWeightsStore(db, cache_seconds=0), SqliteTraceStore(db),
                SqliteFeedbackStore(db, cipher), SqliteAuditLog(db), SqliteTurnBuffer(db, cipher, timedelta(days=7)),
                SqliteExtractionQueue(db), lambda: b"".join(p.read_bytes() for p in tmp_path.glob("m.db*")))


def aws_home(clock: ManualClock) -> Home:
    dynamodb = boto3.client("dynamodb", region_name=REGION)
    create_table(dynamodb, "mnemo-state")
    kms = boto3.client("kms", region_name=REGION)
    key_id = kms.create_key(Description="mnemo test")["KeyMetadata"]["KeyId"]
    table = DynamoTable(dynamodb, "mnemo-state")
    cipher = UserCipher(KmsKeyVault(kms, table, key_id))
    sqs = boto3.client("sqs", region_name=REGION)
    queue_url = sqs.create_queue(QueueName="mnemo-extract")["QueueUrl"]
    return Home("aws", cipher, DynamoProfileStore(table, cipher), DynamoSettingsStore(table),
                DynamoSessionStore(table, cipher), DynamoWeightsStore(table), DynamoTraceStore(table),
                DynamoFeedbackStore(table, cipher), DynamoAuditLog(table),
                DynamoTurnBuffer(table, cipher, timedelta(days=7)), SqsExtractionQueue(sqs, queue_url, table, clock),
                lambda: repr(dynamodb.scan(TableName="mnemo-state")["Items"]).encode())


@pytest.fixture(params=["local", "aws"])
def home(request: pytest.FixtureRequest, tmp_path: Path, clock: ManualClock,
         monkeypatch: pytest.MonkeyPatch) -> Iterator[Home]:
    if request.param == "local":
        built = local_home(tmp_path, clock)
        yield built
        built.close()
        return
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SECURITY_TOKEN", "AWS_SESSION_TOKEN"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    with mock_aws():
        yield aws_home(clock)
