"""The DynamoDB fake behaves as the service does where the AWS home relies on it."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws


@pytest.fixture
def table(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    with mock_aws():
        client = boto3.client("dynamodb")
        client.create_table(TableName="t", BillingMode="PAY_PER_REQUEST",
                            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
        yield client


def test_a_conditional_put_is_atomic_so_one_of_many_racing_threads_wins(table: Any) -> None:
    # the user lease (adapters/aws/locks.py) is a put "if absent": two winners would be two holders
    client = table
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch as often as a loaded machine makes them
    try:
        for attempt in range(60):
            winners: list[int] = []

            def take(i: int, key: str = f"lease-{attempt}", won: list[int] = winners) -> None:
                try:
                    client.put_item(TableName="t", Item={"pk": {"S": key}, "owner": {"S": str(i)}},
                                    ConditionExpression="attribute_not_exists(pk)")
                    won.append(i)
                except ClientError as e:
                    # by its code, not by client.exceptions' class: that registry is built lazily, and threads
                    # that build it at once can each get a class of their own (seen in CI: the loser's exception
                    # escaped the except clause)
                    if e.response["Error"]["Code"] != "ConditionalCheckFailedException":
                        raise

            threads = [threading.Thread(target=take, args=(i,)) for i in range(6)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert len(winners) == 1, f"attempt {attempt}: {len(winners)} threads took the same key"
    finally:
        sys.setswitchinterval(interval)
