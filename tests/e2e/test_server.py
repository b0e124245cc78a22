"""The local server over real HTTP: the contract of API.md as a chat app meets it."""

from __future__ import annotations

import concurrent.futures
import uuid

from tests.e2e.conftest import KEYS, Server, start_server, stop_server


def user() -> str:
    return f"user-{uuid.uuid4().hex[:8]}"


def test_health_and_openapi(server: Server) -> None:
    assert server.call("GET", "/health", key=None) == (200, {"status": "ok", "backend": "local",
                                                             "version": "0.1.0"})
    status, doc = server.call("GET", "/openapi.json", key=None)  # public, as in the AWS stack
    assert status == 200
    assert "/v1/users/{user_id}/retrieve" in doc["paths"]
    assert "/v1/users/{user_id}/memories/import" in doc["paths"]


def test_credentials_are_required(server: Server) -> None:
    status, body = server.call("POST", f"/v1/users/{user()}/retrieve", {"query": "hi"}, key=None)
    assert status == 401
    assert body["error"]["code"] == "unauthorized"
    assert server.call("POST", f"/v1/users/{user()}/retrieve", {"query": "hi"}, key="wrong")[0] == 401


def test_the_memory_loop_end_to_end(server: Server) -> None:
    u = user()
    status, body = server.call("POST", f"/v1/users/{u}/turns", {
        "conversation_id": "conv-1",
        "messages": [{"role": "user", "content": "Hi, I'm vegetarian and I live in Lisbon."},
                     {"role": "assistant", "content": "Nice! Lisbon has great food."}]})
    assert status == 202
    assert body == {"accepted": 2, "pending": 1}
    assert server.call("POST", f"/v1/users/{u}/conversations/conv-1/close")[0] == 202
    # each fact is its own write: wait for both, not just the first to land
    def both() -> list[dict[str, str]] | None:
        listed = server.call("GET", f"/v1/users/{u}/memories")[1]["items"]
        return listed if len(listed) >= 2 else None

    items = server.wait_for(both)
    assert sorted(m["content"] for m in items) == ["User lives in Lisbon.", "User's diet: vegetarian."]
    status, result = server.call("POST", f"/v1/users/{u}/retrieve",
                                 {"query": "Suggest a dinner recipe for me tonight"})
    assert status == 200
    assert result["decision"] == "retrieve"
    assert "vegetarian" in result["context"]
    assert result["tokens"] <= 500


def test_quiet_period_extraction_runs_in_the_background(server: Server) -> None:
    u = user()
    server.call("POST", f"/v1/users/{u}/turns", {"conversation_id": "c", "messages": [
        {"role": "user", "content": "I have a dog named Rex."}]})
    items = server.wait_for(lambda: server.call("GET", f"/v1/users/{u}/memories")[1]["items"])
    assert [m["content"] for m in items] == ["User has a pet: dog named Rex."]


def test_tenants_are_isolated(server: Server) -> None:
    u = user()
    status, created = server.call("POST", f"/v1/users/{u}/memories", {"content": "I love fado music."})
    assert status == 201
    memory_id = created["memory"]["memory_id"]
    other = KEYS["tenant_b"]
    assert server.call("GET", f"/v1/users/{u}/memories/{memory_id}", key=other)[0] == 404
    assert server.call("GET", f"/v1/users/{u}/memories", key=other)[1]["items"] == []
    status, result = server.call("POST", f"/v1/users/{u}/search", {"query": "fado"}, key=other)
    assert (status, result["items"]) == (200, [])


def test_bad_input_gets_a_clear_json_error(server: Server) -> None:
    u = user()
    status, body = server.call("POST", f"/v1/users/{u}/retrieve", raw=b"{not json")
    assert status == 400  # malformed syntax: 400; well-formed but invalid fields: 422
    assert body["error"]["details"][0]["field"] == "body"
    status, body = server.call("POST", f"/v1/users/{u}/retrieve", {"query": "x", "top_k": 0})
    assert status == 422
    assert body["error"]["details"][0]["field"] == "top_k"
    status, body = server.call("POST", f"/v1/users/{u}/turns", {"conversation_id": "c", "messages": [
        {"role": "system", "content": "x"}]})
    assert status == 422
    assert "messages" in body["error"]["details"][0]["field"]
    assert server.call("GET", "/v1/nothing-here")[0] == 404
    status, body = server.call("GET", f"/v1/users/{u}/memories?limit=abc")
    assert status == 422


def test_oversized_body_is_refused_before_reading(server: Server) -> None:
    status, body = server.call("POST", f"/v1/users/{user()}/memories", raw=b"x" * (1_048_576 + 1))
    assert status == 413
    assert body["error"]["code"] == "payload_too_large"


def test_concurrent_requests(server: Server) -> None:
    u = user()
    server.call("POST", f"/v1/users/{u}/memories", {"content": "I love hiking in the Alps."})

    def one(i: int) -> int:
        if i % 2:
            return server.call("POST", f"/v1/users/{u}/retrieve", {"query": f"where should I hike {i}?"})[0]
        return server.call("POST", f"/v1/users/{u}/turns", {"conversation_id": f"c{i}", "messages": [
            {"role": "user", "content": f"message {i}"}]})[0]

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(pool.map(one, range(40)))
    assert set(statuses) <= {200, 202}


def test_data_survives_a_restart_and_stays_sealed(tmp_path) -> None:
    first = start_server(tmp_path)
    try:
        assert first.call("POST", "/v1/users/u1/memories", {"content": "I am allergic to shellfish."})[0] == 201
    finally:
        assert stop_server(first) == 0
    for path in tmp_path.glob("mnemo.db*"):
        assert b"shellfish" not in path.read_bytes()
    second = start_server(tmp_path)
    try:
        items = second.call("GET", "/v1/users/u1/memories")[1]["items"]
        assert [m["content"] for m in items] == ["I am allergic to shellfish."]
    finally:
        stop_server(second)


def test_open_mode_refuses_a_public_address(tmp_path) -> None:
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "mnemo.cli", "serve", "--host", "0.0.0.0", "--port", "0",
         "--data-dir", str(tmp_path)], check=False, capture_output=True, text=True, timeout=60,
        env={k: v for k, v in __import__("os").environ.items() if k != "MNEMO_API_KEYS"})
    assert result.returncode != 0
    assert "loopback" in result.stderr


def test_the_demo_runs_and_shows_each_step() -> None:
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "mnemo.cli", "demo"], check=False, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    out = result.stdout
    for expected in ("what mnemo learned", "superseded by", "## What you know about this user",
                     "thumbs down moved the ranking", "forgotten: 1 memory", "summaries (originals archived",
                     "files still containing the text: none"):
        assert expected in out
    assert "4111" not in out.split("what mnemo learned", 1)[1]


def test_cli_import_consolidate_and_tune(tmp_path) -> None:
    import json as _json
    import subprocess
    import sys

    items = [{"user_id": "u1", "content": "User likes hiking in the Alps."},
             {"user_id": "u1", "content": "User likes hiking in the Alps."},
             {"content": "User is allergic to penicillin.", "category": "constraint"},
             {"content": "User likes jazz.", "created_at": "2020-01-02T10:00:00Z"}]
    source = tmp_path / "memories.json"
    source.write_text(_json.dumps(items))

    def mnemo(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "mnemo.cli", *args, "--data-dir", str(tmp_path / "d")],
                              check=False, capture_output=True, text=True, timeout=120)

    imported = mnemo("import", str(source), "--user", "u2")
    assert imported.returncode == 0, imported.stderr
    assert _json.loads(imported.stdout)["outcomes"] == {"created": 3, "merged": 1}
    assert "imported 4/4" in imported.stderr
    consolidated = mnemo("consolidate")
    assert consolidated.returncode == 0
    assert _json.loads(consolidated.stdout.splitlines()[0])["expired"] == 1  # the 2020 preference
    tuned = mnemo("tune")
    assert tuned.returncode == 0
    assert "unchanged (version 0)" in tuned.stdout
    bad = tmp_path / "bad.json"
    bad.write_text('[{"content": ""}]')
    refused = mnemo("import", str(bad), "--user", "u2")
    assert refused.returncode == 2
    assert "item 0: content" in refused.stderr


def test_user_control_over_http(server: Server) -> None:
    u = user()
    status, created = server.call("POST", f"/v1/users/{u}/memories", {"content": "I love fado music."})
    assert status == 201
    memory_id = created["memory"]["memory_id"]
    status, result = server.call("POST", f"/v1/users/{u}/retrieve", {"query": "What music do I love?"})
    assert memory_id in [m["memory_id"] for m in result["memories"]]
    status, rated = server.call("POST", f"/v1/users/{u}/feedback", {"trace_id": result["trace_id"], "rating": "down"})
    assert (status, rated["adjusted"][0]["confidence"], rated["follow_up"]) == (200, 0.8, "What should I have known?")
    status, edited = server.call("PATCH", f"/v1/users/{u}/memories/{memory_id}", {"content": "I love jazz music."})
    assert (status, edited["version"]) == (200, 2)
    assert server.call("GET", f"/v1/users/{u}/settings")[1]["memory_enabled"] is True
    assert server.call("POST", f"/v1/users/{u}/forget", {"query": "jazz music"})[1]["forgotten"] == [memory_id]
    assert server.call("PUT", f"/v1/users/{u}/sessions/s1", {"open_questions": ["Which venue?"]})[0] == 200
    assert server.call("GET", f"/v1/users/{u}/export")[0] == 200
    assert server.call("POST", "/v1/admin/consolidate", {"user_id": u})[0] == 200
    status, _ = server.call("DELETE", f"/v1/users/{u}")
    assert status == 204
    assert server.call("GET", f"/v1/users/{u}/sessions/s1")[1]["open_questions"] == []


def test_methods_not_served_are_a_client_error(server: Server) -> None:
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(server.base)
    for method in ("HEAD", "OPTIONS", "TRACE", "BREW"):
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
        connection.request(method, "/health")
        response = connection.getresponse()
        body = response.read()
        connection.close()
        assert response.status == 405, method
        assert response.getheader("Content-Type") == "application/json"
        if method != "HEAD":
            assert b'"method_not_allowed"' in body
