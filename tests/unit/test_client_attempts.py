"""One attempt's outcome is decided in one place for the blocking and the async client (settle)."""

from __future__ import annotations

import httpx2
import pytest

from mnemo.client import _calls as calls
from mnemo.client._policy import Done, RetryPolicy, settle
from mnemo.client.errors import APIConnectionError, ServiceUnavailableError


def response(status: int, body: bytes = b"{}", headers: dict[str, str] | None = None) -> httpx2.Response:
    return httpx2.Response(status, content=body, headers=headers or {"Content-Type": "application/json"})


def test_an_attempt_ends_in_a_result_a_wait_or_the_apis_error() -> None:
    policy = RetryPolicy(max_retries=1, backoff=0.1)
    health = calls.health()
    done = settle(policy, health, 0, response(200, b'{"status": "ok", "backend": "local", "version": "1"}'))
    assert isinstance(done, Done)
    assert done.value.status == "ok"
    assert settle(policy, calls.erase_user("u"), 0, response(204, b"")) == Done(None)
    busy = response(503, b'{"error": {"code": "backend_unavailable", "message": "busy"}}')
    assert 0.05 <= settle(policy, health, 0, busy) <= 0.1  # idempotent: waits, with jitter
    with pytest.raises(ServiceUnavailableError, match="busy"):
        settle(policy, health, 1, busy)  # no retry left
    with pytest.raises(ServiceUnavailableError):
        settle(policy, calls.remember("u", "I like tea.", category=None, subject=None, scope=None, project_id=None,
                                      session_id=None, expires_at=None, created_at=None, confidence=None,
                                      metadata=None), 0, busy)  # never sent twice
    assert settle(policy, calls.remember("u", "x", category=None, subject=None, scope=None, project_id=None,
                                         session_id=None, expires_at=None, created_at=None, confidence=None,
                                         metadata=None), 0, httpx2.ConnectError("refused")) > 0  # never left
    with pytest.raises(APIConnectionError):
        settle(policy, health, 1, httpx2.ConnectError("refused"))


def test_text_that_is_not_valid_unicode_is_the_clients_error_before_anything_is_sent() -> None:
    # a lone surrogate ("\udfff") is a Python string the wire cannot carry: the HTTP library raised a bare
    # UnicodeEncodeError, not the client's error; now InvalidRequestError naming the argument, nothing sent
    from mnemo.client import Client
    from mnemo.client.errors import InvalidRequestError

    sent: list[httpx2.Request] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        sent.append(request)
        return response(200, b'{"status": "ok", "backend": "local", "version": "1"}')

    with Client("http://mnemo.test", "key", transport=httpx2.MockTransport(answer)) as client:
        with pytest.raises(InvalidRequestError, match="query") as raised:
            client.retrieve("u1", "hi\udfff")
        assert raised.value.details == [{"field": "query", "reason": "not valid Unicode"}]
        with pytest.raises(InvalidRequestError, match="user_id"):
            client.erase_user("u\udfff")
        with pytest.raises(InvalidRequestError, match="cursor"):
            client.list_memories("u1", cursor="c\udfff")
        with pytest.raises(InvalidRequestError, match="items"):
            client.import_memories("u1", [{"content": "ok \ud83d"}])
        assert sent == []
        assert client.health().status == "ok"  # the client still works after the refusals
    assert len(sent) == 1
    assert calls.body(content="I like 🍵 tea") == {"content": "I like 🍵 tea"}  # text outside the BMP still goes
