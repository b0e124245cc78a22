"""The Python client (`mnemo.client`) against a real `mnemo serve`: every route, typed results, the
API's errors as typed exceptions, and what it retries (and what it must not)."""

from __future__ import annotations

import json
import socket
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anyio
import httpx2
import pytest

from mnemo.client import (
    APIConnectionError,
    AsyncClient,
    AuthenticationError,
    Client,
    ConflictError,
    InvalidRequestError,
    MnemoError,
    NotFoundError,
    RateLimitError,
    RetryPolicy,
    ServiceUnavailableError,
)
from mnemo.client.models import MemoryOut, Profile, RetrieveResponse
from tests.e2e.conftest import KEYS, Server, start_server, stop_server

FAST = RetryPolicy(max_retries=2, backoff=0.01, max_backoff=0.05)


def user() -> str:
    return f"user-{uuid.uuid4().hex[:8]}"


class Counting(httpx2.BaseTransport):
    """A real HTTP transport that counts the requests it sends (how many attempts a call made)."""

    def __init__(self) -> None:
        self.inner = httpx2.HTTPTransport()
        self.sent: list[str] = []

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        self.sent.append(f"{request.method} {request.url.path}")
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()


def test_every_route_answers_with_the_apis_own_models(client: Client) -> None:
    u = user()
    assert client.health().status == "ok"
    created = client.remember(u, "I love fado music.", metadata={"app_id": "note-7"})
    assert created.outcome == "created"
    assert isinstance(created.memory, MemoryOut)
    memory_id = created.memory.memory_id
    assert created.memory.metadata == {"app_id": "note-7"}

    found = client.retrieve(u, "What music do I love?", conversation_id="c1")
    assert isinstance(found, RetrieveResponse)
    assert found.decision == "retrieve"
    assert "fado" in found.context
    assert [m.memory_id for m in found.memories] == [memory_id]
    assert client.get_trace(found.trace_id).selected == [memory_id]
    rated = client.feedback(u, found.trace_id, "up")
    assert [a.memory_id for a in rated.adjusted] == [memory_id]

    assert [m.memory_id for m in client.search(u, "fado").items] == [memory_id]
    imported = client.import_memories(u, [{"content": "User likes jazz."}, {"content": "User likes jazz."}])
    assert [r.outcome for r in imported.results] == ["created", "merged"]
    page = client.list_memories(u, limit=1)
    assert len(page.items) == 1
    assert page.next_cursor
    assert sorted(m.content for m in client.iter_memories(u, page_size=1)) == [
        "I love fado music.", "User likes jazz."]

    edited = client.update_memory(u, memory_id, content="I love fado and guitar music.", version=1)
    assert edited.version == 2
    history = client.get_memory(u, memory_id)
    assert history.version == 2
    assert [v.version for v in history.history] == [1]

    profile = client.update_profile(u, name="Ana", custom={"plan": "pro"})
    assert isinstance(profile, Profile)
    assert profile.name == "Ana"
    assert client.get_profile(u).custom == {"plan": "pro"}
    assert client.put_settings(u, memory_enabled=True).memory_enabled is True
    assert client.get_settings(u).memory_enabled is True
    session = client.put_session(u, "s1", open_questions=["Which venue?"], task_progress={"step": 2})
    assert session.open_questions == ["Which venue?"]
    assert client.get_session(u, "s1").task_progress == {"step": 2}

    accepted = client.add_turns(u, "conv-1", [{"role": "user", "content": "I live in Porto.", "message_id": "m1",
                                               "created_at": datetime(2026, 1, 5, tzinfo=UTC)}])
    assert (accepted.accepted, accepted.pending) == (1, 1)
    closed = client.close_conversation(u, "conv-1")
    assert (closed.queued, closed.due_at is not None) == (1, True)
    assert client.consolidate(u).users == 1
    exported = client.export(u)
    assert len(exported.memories) >= 2

    assert client.forget(u, "jazz").forgotten
    client.delete_memory(u, memory_id)
    with pytest.raises(NotFoundError):
        client.get_memory(u, memory_id)
    client.erase_user(u)
    assert client.list_memories(u).items == []


def test_the_apis_errors_are_typed_exceptions_with_its_code_and_details(server: Server, client: Client) -> None:
    u = user()
    with pytest.raises(InvalidRequestError) as bad:
        client.retrieve(u, "x", top_k=0)
    assert (bad.value.status, bad.value.code) == (422, "invalid_input")
    assert bad.value.details[0]["field"] == "top_k"

    with pytest.raises(NotFoundError) as missing:
        client.get_memory(u, "0" * 32)
    assert (missing.value.status, missing.value.code) == (404, "not_found")

    memory_id = client.remember(u, "I love fado music.").memory.memory_id  # type: ignore[union-attr]
    client.update_memory(u, memory_id, content="I love jazz music.", version=1)
    with pytest.raises(ConflictError) as moved:
        client.update_memory(u, memory_id, content="I love blues music.", version=1)
    assert moved.value.status == 409

    with server.client(key=None) as anonymous, pytest.raises(AuthenticationError) as refused:
        anonymous.retrieve(u, "hi")
    assert (refused.value.status, refused.value.code) == (401, "unauthorized")
    with server.client(key=KEYS["tenant_b"]) as other, pytest.raises(NotFoundError):
        other.get_memory(u, memory_id)  # another tenant's id is an unknown id
    assert isinstance(refused.value, MnemoError)


def test_ids_are_one_path_segment(client: Client) -> None:
    # ':' and '@' are allowed in ids; a '/' cannot reach another route
    u = f"tenant:{uuid.uuid4().hex[:6]}@app"
    client.remember(u, "I like tea.")
    assert [m.content for m in client.list_memories(u).items] == ["I like tea."]
    with pytest.raises(InvalidRequestError):
        client.list_memories("a/memories/../b")


def test_a_dot_segment_id_reaches_no_other_route(client: Client) -> None:
    """'..' as an id was sent as a dot segment, which the URL parser removes: delete_memory(u, "..")
    became DELETE /v1/users/<u>, the user's erase (round-3 hostile review)."""
    u = user()
    client.remember(u, "I like tea.")
    for memory_id in ("..", "."):
        with pytest.raises(InvalidRequestError):
            client.delete_memory(u, memory_id)
        with pytest.raises(InvalidRequestError):
            client.get_memory(u, memory_id)
    assert [m.content for m in client.list_memories(u).items] == ["I like tea."]
    assert client.get_session(u, "..").session_id == ".."  # the session "..", not a route above it


def test_no_retry_on_a_client_error(server: Server) -> None:
    counting = Counting()
    with server.client(retry=FAST, transport=counting) as c, pytest.raises(InvalidRequestError):
        c.retrieve(user(), "x", top_k=0)
    assert len(counting.sent) == 1


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_refused_connection_is_retried_for_any_request_then_raised() -> None:
    counting = Counting()
    with Client(f"http://127.0.0.1:{free_port()}", retry=FAST, transport=counting) as c, \
            pytest.raises(APIConnectionError) as failed:
        c.remember("u1", "I like tea.")  # not idempotent, but it never left: safe to send again
    assert len(counting.sent) == 3
    assert failed.value.status is None


class AsyncCounting(httpx2.AsyncBaseTransport):
    def __init__(self) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.sent: list[str] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        self.sent.append(f"{request.method} {request.url.path}")
        return await self.inner.handle_async_request(request)


def test_the_async_client_retries_a_refused_connection_too() -> None:
    counting = AsyncCounting()

    async def main() -> None:
        async with AsyncClient(f"http://127.0.0.1:{free_port()}", retry=FAST, transport=counting) as c:
            await c.search("u1", "tea")

    with pytest.raises(APIConnectionError):
        anyio.run(main)
    assert len(counting.sent) == 3


def test_turns_are_resent_only_when_every_message_has_an_id() -> None:
    from mnemo.client import _calls as calls

    with_ids = calls.add_turns("u", "c", [{"role": "user", "content": "hi", "message_id": "m1"}], project_id=None)
    without = calls.add_turns("u", "c", [{"role": "user", "content": "hi"}], project_id=None)
    assert (with_ids.idempotent, without.idempotent) == (True, False)
    assert calls.remember("u", "x", category=None, subject=None, scope=None, project_id=None, session_id=None,
                          expires_at=None, created_at=None, confidence=None, metadata=None).idempotent is False


def test_a_lost_connection_retries_reads_only() -> None:
    policy = RetryPolicy(max_retries=2)
    lost = httpx2.RemoteProtocolError("Server disconnected without sending a response.")
    assert policy.after_error(0, lost, idempotent=True) is not None
    assert policy.after_error(0, lost, idempotent=False) is None  # it may have been applied
    assert policy.after_error(0, httpx2.ConnectError("refused"), idempotent=False) is not None
    assert policy.after_error(2, httpx2.ConnectError("refused"), idempotent=True) is None  # retries spent


@pytest.fixture(scope="module")
def throttled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose tenants may send one request a second."""
    srv = start_server(tmp_path_factory.mktemp("quota"), {"MNEMO_TENANT_REQUESTS_PER_SECOND": "1",
                                                          "MNEMO_TENANT_BURST": "1"}, workers=1)
    yield srv
    stop_server(srv)


def test_429_with_retry_after_is_waited_out_for_idempotent_requests(throttled: Server) -> None:
    u = user()
    counting = Counting()
    with throttled.client(retry=FAST, transport=counting) as c:
        c.list_memories(u)
        page = c.list_memories(u)  # refused (429, Retry-After: 1), waited for, then served
    assert page.items == []
    assert len(counting.sent) >= 3


def test_429_is_not_retried_for_a_remember(throttled: Server) -> None:
    counting = Counting()
    with throttled.client(retry=FAST, transport=counting) as c:
        c.list_memories(user())  # takes the second's one request (waiting out the last test's)
        with pytest.raises(RateLimitError) as limited:
            c.remember(user(), "I like tea.")
    assert limited.value.status == 429
    assert limited.value.retry_after is not None
    assert limited.value.retry_after >= 1
    assert [s for s in counting.sent if s.startswith("POST")] == [counting.sent[-1]]  # sent once


class Unavailable(BaseHTTPRequestHandler):
    """Answers 503 in the API's error shape until told otherwise: a back end that is down (our
    server only says 503 when SQLite or OpenSearch fails, which tests/eval/test_backend_faults.py
    covers; here only the client's reaction is under test)."""

    failures = 2

    def _answer(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if Unavailable.failures > 0:
            Unavailable.failures -= 1
            body = json.dumps({"error": {"code": "backend_unavailable", "message": "the store is down",
                                         "details": None}}).encode()
            self.send_response(503)
        else:
            body = json.dumps({"status": "ok", "backend": "local", "version": "0.1.0"}).encode()
            self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer  # noqa: N815  # the names http.server dispatches to

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def unavailable() -> Iterator[str]:
    Unavailable.failures = 2
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Unavailable)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_503_is_retried_with_backoff_for_idempotent_requests(unavailable: str) -> None:
    counting = Counting()
    with Client(unavailable, retry=FAST, transport=counting) as c:
        assert c.health().status == "ok"
    assert len(counting.sent) == 3


def test_503_is_raised_at_once_for_a_remember(unavailable: str) -> None:
    counting = Counting()
    with Client(unavailable, retry=FAST, transport=counting) as c, \
            pytest.raises(ServiceUnavailableError) as down:
        c.remember("u1", "I like tea.")
    assert (down.value.status, down.value.code, down.value.message) == (503, "backend_unavailable",
                                                                        "the store is down")
    assert len(counting.sent) == 1


def test_the_async_client_runs_the_same_loop(server: Server) -> None:
    u = user()

    async def main() -> list[str]:
        async with AsyncClient(server.base, api_key=KEYS["tenant_a"]) as c:
            created = await c.remember(u, "I am vegetarian.")
            assert created.memory is not None
            async with anyio.create_task_group() as tg:  # concurrent calls on one client
                for i in range(4):
                    tg.start_soon(c.search, u, f"diet {i}")
            found = await c.retrieve(u, "Suggest a dinner recipe for tonight")
            assert "vegetarian" in found.context
            with pytest.raises(NotFoundError):
                await c.get_memory(u, "0" * 32)
            contents = [m.content async for m in c.iter_memories(u)]
            await c.erase_user(u)
            return contents

    assert anyio.run(main) == ["I am vegetarian."]


def test_from_env_reads_the_url_and_key(server: Server, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MNEMO_URL", server.base)
    monkeypatch.setenv("MNEMO_API_KEY", KEYS["tenant_b"])
    with Client.from_env() as c:
        u = user()
        c.remember(u, "I like tea.")
    with server.client() as a:
        assert a.list_memories(u).items == []  # written as tenant b
