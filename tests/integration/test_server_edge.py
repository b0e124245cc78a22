"""The HTTP edge of `mnemo serve` (the WSGI application each worker runs), driven in process as
gunicorn hands it requests: hostile input gets a 4xx, never a 500; quotas; readiness; metrics;
access logs without bodies. The multi-process behaviour is in tests/e2e."""

from __future__ import annotations

import json
import logging
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from mnemo.api.app import create_app
from mnemo.bootstrap import Mnemo
from mnemo.quotas import TenantQuotas
from mnemo.server import Authenticator, ResolverPool, WsgiApp, call_wsgi

KEYS = {"key-a-0123456789": "tenant_a", "key-b-9876543210": "tenant_b"}
AUTH_A = {"Authorization": "Bearer key-a-0123456789"}


def edge(service: Mnemo, keys: dict[str, str] | None = None, quotas: TenantQuotas | None = None,
         ready: Any = None) -> WsgiApp:
    return WsgiApp(create_app(service), Authenticator(KEYS if keys is None else keys),
                   max_body_bytes=service.settings.max_body_bytes, quotas=quotas, ready=ready,
                   metrics_db=service.settings.data_dir / "mnemo.db")


def call(app: WsgiApp, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
         raw: bytes | None = None, remote: str = "127.0.0.1") -> tuple[int, dict[str, str], Any]:
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else b"")
    status, out_headers, out = call_wsgi(app, method, path, data, {**AUTH_A, **(headers or {})}, remote)
    try:
        parsed = json.loads(out) if out else None
    except ValueError:
        parsed = out
    return status, out_headers, parsed


# -- issue 11 #12: open mode and DNS rebinding
@pytest.mark.parametrize("host", ["attacker.example", "attacker.example:8080", "10.0.0.5", "127.0.0.1.nip.io", ""])
def test_open_mode_refuses_a_host_that_is_not_loopback(service: Mnemo, host: str) -> None:
    app = edge(service, keys={})
    status, _, body = call(app, "GET", "/v1/users/u1/memories", headers={"Host": host})
    assert status == 400
    assert body["error"]["details"][0]["field"] == "host"


@pytest.mark.parametrize("host", ["localhost", "localhost:8080", "127.0.0.1:8080", "[::1]:8080", "127.0.0.2"])
def test_open_mode_serves_loopback_hosts(service: Mnemo, host: str) -> None:
    app = edge(service, keys={})
    assert call(app, "GET", "/v1/users/u1/memories", headers={"Host": host})[0] == 200


def test_with_keys_any_host_is_served(service: Mnemo) -> None:
    assert call(edge(service), "GET", "/v1/users/u1/memories", headers={"Host": "mnemo.internal"})[0] == 200


# -- issue 11 #14: bodies that are not JSON, and JSON that cannot be parsed
@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; "
                                          "boundary=x", "application/xml", "application/jsonp"])
def test_a_body_that_is_not_json_gets_415(service: Mnemo, content_type: str) -> None:
    app = edge(service)
    for method, path in (("POST", "/v1/users/u1/memories"), ("PATCH", "/v1/users/u1/profile"),
                         ("PUT", "/v1/users/u1/settings"), ("POST", "/v1/users/u1/retrieve")):
        status, _, body = call(app, method, path, raw=b"content=I+like+tea", headers={"Content-Type": content_type})
        assert status == 415, (method, path, content_type)
        assert body["error"]["code"] == "unsupported_media_type"


def test_json_with_a_charset_is_json(service: Mnemo) -> None:
    status, _, _ = call(edge(service), "POST", "/v1/users/u1/memories", {"content": "I like green tea."},
                        headers={"Content-Type": "application/json; charset=utf-8"})
    assert status == 201


@pytest.mark.parametrize("raw", [b"[" * 200_000 + b"]" * 200_000, b'{"query": ' + b"[" * 5000 + b"]" * 5000 + b"}",
                                 b'{"query": "tea", "top_k": ' + b"9" * 5000 + b"}", b"{'query': 1}", b'{"query"'])
def test_unparseable_json_gets_400_not_500(service: Mnemo, raw: bytes) -> None:
    status, _, body = call(edge(service), "POST", "/v1/users/u1/retrieve", raw=raw)
    assert status == 400
    assert body["error"]["details"][0]["field"] == "body"


# -- issue 11 #15: route on the raw path
def test_an_encoded_slash_does_not_split_a_segment(service: Mnemo) -> None:
    app = edge(service)
    status, _, created = call(app, "POST", "/v1/users/a/memories", {"content": "I live in Lisbon."})
    assert status == 201
    memory_id = created["memory"]["memory_id"]
    for path in (f"/v1/users/a%2Fmemories%2F{memory_id}", f"/v1/users/a%2fmemories%2f{memory_id}",
                 f"/v1/users/a%252Fmemories%252F{memory_id}"):
        status, _, _ = call(app, "DELETE", path)
        assert status in {400, 404, 422}, path
    assert call(app, "GET", f"/v1/users/a/memories/{memory_id}")[0] == 200


def test_an_encoded_colon_still_means_a_colon(service: Mnemo) -> None:
    app = edge(service)
    assert call(app, "POST", "/v1/users/app%3Aana/memories", {"content": "I live in Oslo."})[0] == 201
    status, _, page = call(app, "GET", "/v1/users/app:ana/memories")
    assert status == 200
    assert [m["content"] for m in page["items"]] == ["I live in Oslo."]


# -- quotas
def test_a_tenant_over_its_rate_gets_429_with_retry_after_and_others_do_not(service: Mnemo, tmp_path: Path) -> None:
    quotas = TenantQuotas(tmp_path / "quotas", KEYS.values(), rate=2, burst=3, concurrent=0)
    quotas.prepare()
    app = edge(service, quotas=quotas)
    statuses = [call(app, "GET", "/v1/users/u1/settings")[0] for _ in range(6)]
    assert statuses[:3] == [200, 200, 200]
    assert 429 in statuses[3:]
    status, headers, body = call(app, "GET", "/v1/users/u1/settings")
    assert status == 429
    assert int(headers["Retry-After"]) >= 1
    assert body["error"]["code"] == "throttled"
    assert call(app, "GET", "/v1/users/u1/settings", headers={"Authorization": "Bearer key-b-9876543210"})[0] == 200
    assert call(app, "GET", "/health")[0] == 200  # liveness is never throttled


def test_a_tenant_at_its_concurrency_limit_gets_429(service: Mnemo, tmp_path: Path) -> None:
    quotas = TenantQuotas(tmp_path / "quotas", KEYS.values(), rate=0, burst=0, concurrent=1)
    quotas.prepare()
    refused, held = quotas.admit("tenant_a")  # one request of tenant_a in progress (another worker's)
    assert refused is None
    app = edge(service, quotas=quotas)
    status, headers, _ = call(app, "GET", "/v1/users/u1/settings")
    assert status == 429
    assert headers["Retry-After"] == "1"
    assert call(app, "GET", "/v1/users/u1/settings", headers={"Authorization": "Bearer key-b-9876543210"})[0] == 200
    quotas.release(held)
    assert call(app, "GET", "/v1/users/u1/settings")[0] == 200


def test_concurrency_slots_exclude_threads_of_one_process(tmp_path: Path) -> None:
    quotas = TenantQuotas(tmp_path / "quotas", ["t"], rate=0, burst=0, concurrent=2)
    quotas.prepare()
    results: list[Any] = []
    barrier = threading.Barrier(4)

    def take() -> None:
        barrier.wait()
        results.append(quotas.admit("t"))

    threads = [threading.Thread(target=take) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    admitted = [ticket for refused, ticket in results if refused is None]
    assert len(admitted) == 2


def test_per_request_caps_on_embeddings_and_sentences(service: Mnemo) -> None:
    app = edge(service)
    cap = service.settings.max_request_embeddings
    long_text = " ".join(f"I visited city number {i} last year." for i in range(25))  # 25 sentences
    items = [{"content": long_text[:1990]} for _ in range(cap // 20 + 5)]
    status, _, body = call(app, "POST", "/v1/users/u1/memories/import", {"items": items})
    assert status == 413
    assert body["error"]["details"][0]["field"] == "items"
    messages = [{"role": "user", "content": "I like tea. " * 1000} for _ in range(3)]
    status, _, body = call(app, "POST", "/v1/users/u1/turns", {"conversation_id": "c1", "messages": messages})
    assert status == 413
    assert body["error"]["details"][0]["field"] == "messages"


def test_the_openapi_document_states_the_limits(service: Mnemo) -> None:
    status, _, doc = call(edge(service), "GET", "/openapi.json")
    assert status == 200
    limits = doc["info"]["x-mnemo-limits"]
    assert limits["max_request_embeddings"] == service.settings.max_request_embeddings
    assert "tenant_requests_per_second" in limits
    assert doc["components"]["schemas"]["ImportRequest"]["properties"]["items"]["maxItems"] == 500
    retrieve = doc["paths"]["/v1/users/{user_id}/retrieve"]["post"]["responses"]
    assert {"413", "415", "429"} <= set(retrieve)


# -- operations
def test_readiness_is_separate_from_liveness(service: Mnemo) -> None:
    problem: list[str] = []
    app = edge(service, ready=lambda: problem[0] if problem else None)
    assert call(app, "GET", "/ready", headers={"Authorization": ""})[0] == 200
    problem.append("shutting down")
    status, _, body = call(app, "GET", "/ready", headers={"Authorization": ""})
    assert status == 503
    assert body["error"]["code"] == "not_ready"
    assert call(app, "GET", "/health", headers={"Authorization": ""})[0] == 200


def test_metrics_are_prometheus_text_for_loopback_only(service: Mnemo) -> None:
    app = edge(service)
    call(app, "POST", "/v1/users/u1/memories", {"content": "I live in Quito."})
    call(app, "POST", "/v1/users/u1/retrieve", {"query": "where do I live"})
    status, headers, text = call(app, "GET", "/metrics", headers={"Authorization": ""})
    assert status == 200
    assert headers["Content-Type"].startswith("text/plain")
    text = text.decode() if isinstance(text, bytes) else str(text)
    assert 'mnemo_request_duration_seconds_count{method="POST",route="/v1/users/<user_id>/retrieve"' in text
    assert 'mnemo_memories{tenant="tenant_a"} 1.0' in text
    assert "mnemo_extraction_queue_depth" in text
    assert "Quito" not in text
    assert "u1" not in text
    assert call(app, "GET", "/metrics", headers={"Authorization": ""}, remote="10.1.2.3")[0] == 401


def test_access_logs_are_structured_and_carry_no_body_or_user(service: Mnemo,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    app = edge(service)
    with caplog.at_level(logging.INFO, logger="mnemo.access"):
        call(app, "POST", "/v1/users/secret-user/memories", {"content": "I am allergic to kumquats."})
    records = [r for r in caplog.records if r.name == "mnemo.access"]
    assert len(records) == 1
    record = records[0]
    assert (record.method, record.route, record.status, record.tenant) == (  # type: ignore[attr-defined]
        "POST", "/v1/users/<user_id>/memories", 201, "tenant_a")
    text = json.dumps(vars(record), default=str)
    assert "kumquats" not in text
    assert "secret-user" not in text


# -- issue 14: threaded workers, the Server-Timing split
def test_threads_each_take_a_resolver_of_their_own_and_get_their_own_answers(service: Mnemo) -> None:
    """Powertools keeps the current event on the resolver: two requests in one resolver at once would
    read each other's tenant and user. With a resolver per thread every answer is the request's own."""
    pool = ResolverPool([create_app(service) for _ in range(4)])
    app = WsgiApp(create_app(service), Authenticator(KEYS), max_body_bytes=service.settings.max_body_bytes,
                  resolvers=pool)
    keys = list(KEYS)
    failures: list[str] = []

    def user(n: int) -> None:
        key = {"Authorization": f"Bearer {keys[n % 2]}"}
        for i in range(6):
            status, _, _ = call(app, "POST", f"/v1/users/t{n}/memories", {"content": f"I live in Town{n}x{i}."},
                                headers=key)
            if status != 201:
                failures.append(f"remember {n}: {status}")
            status, _, page = call(app, "GET", f"/v1/users/t{n}/memories?limit=50", headers=key)
            towns = {item["content"].split("Town")[1].split("x")[0] for item in page["items"]}
            if status != 200 or towns != {str(n)}:
                failures.append(f"user {n} read {towns}")

    threads = [threading.Thread(target=user, args=(n,)) for n in range(8)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch as often as they can: a shared resolver is caught at once
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert failures == [], failures[:12]
    # and none of them landed under the other tenant
    for n in range(8):
        other = {"Authorization": f"Bearer {keys[(n + 1) % 2]}"}
        assert call(app, "GET", f"/v1/users/t{n}/memories?limit=50", headers=other)[2]["items"] == []


def test_server_timing_is_sent_only_when_asked(service: Mnemo) -> None:
    plain = edge(service)
    assert "Server-Timing" not in call(plain, "GET", "/health")[1]
    timed = WsgiApp(create_app(service), Authenticator(KEYS), max_body_bytes=service.settings.max_body_bytes,
                    server_timing=True)
    header = call(timed, "POST", "/v1/users/u1/retrieve", {"query": "where do I live?"})[1]["Server-Timing"]
    assert header.startswith("app;dur=")
    assert 0 < float(header.removeprefix("app;dur=")) < 10_000


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="TCP_CORK is Linux's")
def test_an_answer_over_a_socket_leaves_in_one_piece(service: Mnemo) -> None:
    """gunicorn sends an answer's head and body with a send each; the connection is corked while it writes
    them and uncorked when it closes the body, so the client gets the answer at once, not a head to read and
    then a body to wait for (a second wake-up of the client for every answer)."""
    import io
    import socket

    app = edge(service)
    listener = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(listener.getsockname())
    conn, _ = listener.accept()
    try:
        environ = {"REQUEST_METHOD": "GET", "RAW_URI": "/health", "PATH_INFO": "/health", "QUERY_STRING": "",
                   "wsgi.input": io.BytesIO(b""), "REMOTE_ADDR": "127.0.0.1", "HTTP_HOST": "localhost",
                   "gunicorn.socket": conn}
        answered: list[str] = []
        body = app(environ, lambda status, headers: answered.append(status))
        assert answered == ["200 OK"]
        assert conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_CORK) == 1  # while gunicorn writes
        assert b"".join(body).startswith(b"{")
        body.close()  # type: ignore[attr-defined]  # what gunicorn calls once the answer is written
        assert conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_CORK) == 0
        # in process (no socket), the body is the plain list it always was
        assert call(app, "GET", "/health")[0] == 200
    finally:
        for s in (conn, client, listener):
            s.close()
