"""The AWS home's functions each keep the data keys they unwrapped (KMS is not asked on every request): an
erase answered by one must not leave another sealing or hashing with the shredded key (moto + the OpenSearch
HTTP fake, two services over the same stores, each request started as the Lambda handlers start it)."""

from __future__ import annotations

from typing import Any

import pytest
from moto import mock_aws

from mnemo.bootstrap import Mnemo
from mnemo.clock import ManualClock
from mnemo.ports import Embedder
from mnemo.settings import Settings
from tests.conftest import ApiClient
from tests.eval.conftest import BESIDE, aws_service

T, U = "tenant_a", "erased-and-back"


def invoke(api: ApiClient, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    api.service.caches.drop_erased()  # as functions.common.runtime.serve begins every invocation
    return api.call(method, path, body)


@pytest.fixture
def functions(settings: Settings, clock: ManualClock, embedder: Embedder,
              monkeypatch: pytest.MonkeyPatch) -> Any:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        first = aws_service(settings, clock, embedder)
        second: Mnemo = BESIDE[id(first)]()
        yield ApiClient(first), ApiClient(second)
        second.close()
        first.close()


def test_a_warm_function_writes_what_the_user_can_read_after_an_erase_elsewhere(functions: Any) -> None:
    warm, other = functions
    assert invoke(warm, "POST", f"/v1/users/{U}/memories", {"content": "I live in Lisbon"})[0] == 201
    # the key, the question's vector and the question itself (implicit signals) are kept in the warm function
    assert invoke(warm, "POST", f"/v1/users/{U}/retrieve", {"query": "where should I go this weekend?",
                                                               "conversation_id": "c1"})[0] == 200
    assert (T, U) in warm.service.caches.held()
    assert invoke(other, "DELETE", f"/v1/users/{U}")[0] in (202, 204)
    assert invoke(warm, "GET", f"/v1/users/{U}/memories")[1]["items"] == []
    assert (T, U) not in warm.service.caches.held()  # its first use of the gone key dropped them all
    assert invoke(other, "POST", f"/v1/users/{U}/memories", {"content": "I work as a nurse"})[0] == 201
    assert invoke(warm, "POST", f"/v1/users/{U}/memories", {"content": "I keep bees in the garden"})[0] == 201
    for function in (other, warm):
        status, body = invoke(function, "GET", f"/v1/users/{U}/memories")
        assert status == 200
        assert sorted(m["content"] for m in body["items"]) == ["I keep bees in the garden", "I work as a nurse"]
    # the lexical half of search hashes the question's words with the user's key: the warm function's hashes
    # are the other's (with the erased key they matched nothing, and the semantic half alone hid it)
    terms = ["nurse", "bees"]
    assert warm.service.ports.vault.lookup_terms(T, U, terms) == other.service.ports.vault.lookup_terms(T, U, terms)
