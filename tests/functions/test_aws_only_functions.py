"""The functions that exist only in the AWS home: the authorizer, the index custom resource, the
scheduled jobs by name. Real-shaped events; DynamoDB through moto, OpenSearch through the fake."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from functions.common import runtime
from mnemo.adapters.aws.api_keys import DynamoApiKeys
from mnemo.adapters.aws.dynamo_state import DynamoTable, create_table
from mnemo.adapters.aws.opensearch_store import IndexTuning, index_body
from mnemo.clock import ManualClock
from mnemo.errors import BackendUnavailable
from tests.contract.opensearch_fake import FakeOpenSearch
from tests.functions.test_handlers import Context, event


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[DynamoApiKeys]:
    from functions.authorizer import handler as authorizer

    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("MNEMO_STATE_TABLE", "mnemo-test-state")
    monkeypatch.setenv("MNEMO_AWS_REGION", "eu-west-1")
    monkeypatch.setenv("MNEMO_DATA_DIR", str(tmp_path))
    runtime.settings.cache_clear()
    authorizer.api_keys.cache_clear()
    with mock_aws():
        client = boto3.client("dynamodb", region_name="eu-west-1")
        create_table(client, "mnemo-test-state")
        yield DynamoApiKeys(DynamoTable(client, "mnemo-test-state"))
    runtime.settings.cache_clear()
    authorizer.api_keys.cache_clear()


def authorizer_event(authorization: str | None) -> dict[str, object]:
    base = event("POST", "/v1/users/u1/retrieve", {"query": "hi"})
    base["type"] = "REQUEST"
    base["routeArn"] = "arn:aws:execute-api:eu-west-1:123456789012:abc123/$default/POST/v1/users/u1/retrieve"
    base["identitySource"] = [authorization] if authorization else []
    base["requestContext"].pop("authorizer")  # type: ignore[attr-defined]
    if authorization is not None:
        base["headers"]["authorization"] = authorization  # type: ignore[index]
    return base


def test_a_valid_key_resolves_its_tenant_and_nothing_else_does(aws_env: DynamoApiKeys) -> None:
    from functions.authorizer.handler import handler

    issued = aws_env.create("tenant_a", ManualClock().now())
    other = aws_env.create("tenant_b", ManualClock().now())
    assert handler(authorizer_event(f"Bearer {issued.key}"), Context()) == {
        "isAuthorized": True, "context": {"tenant_id": "tenant_a"}}
    assert handler(authorizer_event(f"bearer {other.key}"), Context())["context"] == {"tenant_id": "tenant_b"}
    for bad in (None, "", "Bearer", f"Basic {issued.key}", f"Bearer {issued.key}x", "Bearer mk_" + "a" * 500,
                "Bearer ' OR 1=1 --"):
        assert handler(authorizer_event(bad), Context()) == {"isAuthorized": False}, bad
    aws_env.revoke(issued.key)
    assert handler(authorizer_event(f"Bearer {issued.key}"), Context()) == {"isAuthorized": False}


def test_only_the_hash_of_a_key_is_stored(aws_env: DynamoApiKeys) -> None:
    issued = aws_env.create("tenant_a", ManualClock().now())
    items = boto3.client("dynamodb", region_name="eu-west-1").scan(TableName="mnemo-test-state")["Items"]
    assert len(items) == 1
    assert issued.key not in json.dumps(items)
    with pytest.raises(ValueError, match="tenant"):
        aws_env.create("bad#tenant", ManualClock().now())


def test_the_authorizer_fails_and_does_not_deny_when_the_table_is_unreachable(
        aws_env: DynamoApiKeys, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A denial would be cached by API Gateway for the TTL; a raised error is not (and never allows)."""
    from functions.authorizer.handler import handler

    issued = aws_env.create("tenant_a", ManualClock().now())
    monkeypatch.setenv("MNEMO_STATE_TABLE", "no-such-table")
    runtime.settings.cache_clear()
    from functions.authorizer import handler as module

    module.api_keys.cache_clear()
    with pytest.raises(BackendUnavailable):
        handler(authorizer_event(f"Bearer {issued.key}"), Context())
    assert '"AuthorizerError"' in capsys.readouterr().out  # the metric is flushed all the same
    # an unknown key is still a denial, and the table back means the key works at once
    monkeypatch.setenv("MNEMO_STATE_TABLE", "mnemo-test-state")
    runtime.settings.cache_clear()
    module.api_keys.cache_clear()
    assert handler(authorizer_event(f"Bearer {issued.key}"), Context())["isAuthorized"] is True


def custom_resource(request_type: str) -> dict[str, object]:
    return {"RequestType": request_type, "ServiceToken": "arn:aws:lambda:eu-west-1:123456789012:function:x",
            "ResponseURL": "https://cloudformation-custom-resource-response.example/x",
            "StackId": "arn:aws:cloudformation:eu-west-1:123456789012:stack/mnemo-dev/1",
            "RequestId": "r-1", "LogicalResourceId": "KnnIndex", "ResourceType": "Custom::KnnIndex",
            "ResourceProperties": {"ServiceToken": "x", "IndexName": "mnemo-dev-memories", "Dimension": "384",
                                   "Shards": "12", "Replicas": "1"}}


def test_the_index_custom_resource_creates_the_adapters_mapping_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """End to end over the wire: the handler's ensure_index through opensearch-py and SigV4 to the
    HTTP fake. A HEAD 404 is False for the client; the index must be created all the same."""
    from functions.index_setup.handler import handler

    monkeypatch.setenv("MNEMO_BM25_K1", "1.1")
    monkeypatch.setenv("MNEMO_OPENSEARCH_SLOW_SEARCH_WARN_MS", "800")
    runtime.settings.cache_clear()
    tuning = IndexTuning.from_settings(runtime.settings())
    with FakeOpenSearch() as fake:
        http = fake.transport()
        created = handler(custom_resource("Create"), Context(), http=http)
        assert created["PhysicalResourceId"] == "knn-index:mnemo-dev-memories"
        handler(custom_resource("Update"), Context(), http=http)  # idempotent
        handler(custom_resource("Delete"), Context(), http=http)  # memories survive a stack operation
        puts = [(path, body) for method, path, _, body in fake.requests if method == "PUT"]
        assert puts == [("/mnemo-dev-memories", index_body(384, 12, 1, tuning))]
        index = fake.indices["mnemo-dev-memories"]
        assert index.settings["index.number_of_shards"] == "12"
        assert index.settings["index.similarity.memory_bm25.k1"] == "1.1"  # the function's settings
        assert index.settings["index.search.slowlog.threshold.query.warn"] == "800ms"
        assert index.fields()["terms"].k1 == 1.1  # and the fake's BM25 scores with it
        assert not [r for r in fake.requests if r[0] == "DELETE"]

        # a later deploy with new slow-log thresholds updates the live index in place
        monkeypatch.setenv("MNEMO_OPENSEARCH_SLOW_SEARCH_WARN_MS", "600")
        runtime.settings.cache_clear()
        handler(custom_resource("Update"), Context(), http=http)
        assert index.settings["index.search.slowlog.threshold.query.warn"] == "600ms"
        assert [path for method, path, _, _ in fake.requests if method == "PUT"][-1] == "/mnemo-dev-memories/_settings"
    runtime.settings.cache_clear()


def test_the_cli_issues_a_key_the_authorizer_accepts_and_revokes_it(
        aws_env: DynamoApiKeys, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from functions.authorizer.handler import handler
    from mnemo.cli import main

    assert main(["apikey", "create", "--tenant", "acme"]) == 0
    issued = json.loads(capsys.readouterr().out)
    assert issued["tenant"] == "acme"
    assert handler(authorizer_event(f"Bearer {issued['key']}"), Context())["context"] == {"tenant_id": "acme"}
    monkeypatch.setattr("sys.stdin", io.StringIO(issued["key"] + "\n"))
    assert main(["apikey", "revoke"]) == 0
    assert handler(authorizer_event(f"Bearer {issued['key']}"), Context()) == {"isAuthorized": False}
    assert main(["apikey", "create"]) == 2
