"""The local server over real HTTP: the contract of API.md as a chat app meets it, through the Python
client; raw HTTP where the test is about the wire (bad bodies, headers, methods)."""

from __future__ import annotations

import concurrent.futures
import urllib.error
import urllib.request
import uuid

import pytest

from mnemo.client import Client, NotFoundError
from tests.e2e.conftest import KEYS, Server, start_server, stop_server, wait_for


def user() -> str:
    return f"user-{uuid.uuid4().hex[:8]}"




def test_health_and_openapi(server: Server) -> None:
    with server.client(key=None) as anonymous:  # public, as in the AWS stack
        assert anonymous.health().model_dump() == {"status": "ok", "backend": "local", "version": "0.1.0"}
    status, doc = server.call("GET", "/openapi.json", key=None)  # public, as in the AWS stack
    assert status == 200
    assert "/v1/users/{user_id}/retrieve" in doc["paths"]
    assert "/v1/users/{user_id}/memories/import" in doc["paths"]


def test_the_start_says_where_the_docs_are_and_how_to_stop(server: Server) -> None:
    # the first line (the URL, the data directory) is read by start_server; this is the one after it
    assert server.process.stdout is not None
    line = server.process.stdout.readline()
    assert f"API docs: {server.base}/docs" in line
    assert "Bearer" in line  # this server has keys
    assert "stop with Ctrl+C" in line


def test_swagger_ui_and_the_http_conventions(server: Server) -> None:
    with urllib.request.urlopen(server.base + "/docs", timeout=30) as page:  # no key: no tenant data behind it
        assert page.status == 200
        assert page.headers["Content-Type"].startswith("text/html")
        assert b"SwaggerUIBundle" in page.read()
    status, doc = server.call("GET", "/openapi.json", key=None)
    assert doc["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    assert doc["paths"]["/v1/users/{user_id}/retrieve"]["post"]["operationId"] == "retrieve"
    request = urllib.request.Request(f"{server.base}/v1/users/{user()}/retrieve", method="GET",
                                     headers={"Authorization": f"Bearer {KEYS['tenant_a']}"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    refused.value.close()  # its response holds the connection
    assert (refused.value.code, refused.value.headers["Allow"]) == (405, "POST")
    status, body = server.call("POST", f"/v1/users/{user()}/retrieve", {"query": "x", "token_budget": 5000})
    assert (status, body["error"]["details"][0]["field"]) == (422, "token_budget")
    status, body = server.call("POST", f"/v1/users/{user()}/retrieve", raw=b"query=x",
                               headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert (status, body["error"]["code"]) == (415, "unsupported_media_type")


def test_credentials_are_required(server: Server) -> None:
    status, body = server.call("POST", f"/v1/users/{user()}/retrieve", {"query": "hi"}, key=None)
    assert status == 401
    assert body["error"]["code"] == "unauthorized"
    assert server.call("POST", f"/v1/users/{user()}/retrieve", {"query": "hi"}, key="wrong")[0] == 401


def test_the_memory_loop_end_to_end(client: Client) -> None:
    u = user()
    accepted = client.add_turns(u, "conv-1", [
        {"role": "user", "content": "Hi, I'm vegetarian and I live in Lisbon."},
        {"role": "assistant", "content": "Nice! Lisbon has great food."}])
    assert (accepted.accepted, accepted.pending) == (2, 1)
    closed = client.close_conversation(u, "conv-1")
    assert (closed.accepted, closed.pending, closed.queued) == (0, 1, 1)  # the one user turn, queued for extraction
    assert closed.due_at is not None
    # each fact is its own write: wait for both, not just the first to land
    def both() -> list[str] | None:
        listed = [m.content for m in client.list_memories(u).items]
        return listed if len(listed) >= 2 else None

    assert sorted(wait_for(both)) == ["User lives in Lisbon.", "User's diet: vegetarian."]
    result = client.retrieve(u, "Suggest a dinner recipe for me tonight")
    assert result.decision == "retrieve"
    assert "vegetarian" in result.context
    assert result.tokens <= 500


def test_quiet_period_extraction_runs_in_the_background(client: Client) -> None:
    u = user()
    client.add_turns(u, "c", [{"role": "user", "content": "I have a dog named Rex."}])
    items = wait_for(lambda: client.list_memories(u).items)
    assert [m.content for m in items] == ["User has a pet: dog named Rex."]


def test_tenants_are_isolated(server: Server, client: Client) -> None:
    u = user()
    created = client.remember(u, "I love fado music.")
    assert created.memory is not None
    memory_id = created.memory.memory_id
    with server.client(KEYS["tenant_b"]) as other:
        with pytest.raises(NotFoundError):
            other.get_memory(u, memory_id)
        assert other.list_memories(u).items == []
        assert other.search(u, "fado").items == []


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


def test_concurrent_requests(client: Client) -> None:
    u = user()
    client.remember(u, "I love hiking in the Alps.")

    def one(i: int) -> object:
        if i % 2:
            return client.retrieve(u, f"where should I hike {i}?")
        return client.add_turns(u, f"c{i}", [{"role": "user", "content": f"message {i}"}])

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:  # one client, shared by threads
        answers = list(pool.map(one, range(40)))
    assert len(answers) == 40


def test_data_survives_a_restart_and_stays_sealed(tmp_path) -> None:
    first = start_server(tmp_path)
    try:
        with first.client() as c:
            assert c.remember("u1", "I am allergic to shellfish.").outcome == "created"
    finally:
        assert stop_server(first) == 0
    for path in tmp_path.glob("mnemo.db*"):
        assert b"shellfish" not in path.read_bytes()
    second = start_server(tmp_path)
    try:
        with second.client() as c:
            assert [m.content for m in c.list_memories("u1").items] == ["I am allergic to shellfish."]
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


def on_a_terminal(*command: str) -> str:
    """What a command writes to its stderr when stderr is a terminal (a pseudo-terminal, read as it goes)."""
    import os
    import subprocess
    import threading

    leader, follower = os.openpty()
    seen: list[bytes] = []

    def read() -> None:
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the other side is closed
                return
            if not chunk:
                return
            seen.append(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=follower, check=True, timeout=120)
    finally:
        os.close(follower)
        reader.join(timeout=10)
        os.close(leader)
    return b"".join(seen).decode(errors="replace")


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
    assert "\r" not in imported.stderr  # stderr is a pipe here: no progress bar
    assert "import [" in on_a_terminal(sys.executable, "-m", "mnemo.cli", "import", str(source), "--user", "u3",
                                       "--data-dir", str(tmp_path / "on-a-terminal"))
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


def test_user_control_over_http(client: Client) -> None:
    u = user()
    created = client.remember(u, "I love fado music.")
    assert created.memory is not None
    memory_id = created.memory.memory_id
    result = client.retrieve(u, "What music do I love?")
    assert memory_id in [m.memory_id for m in result.memories]
    rated = client.feedback(u, result.trace_id, "down")
    assert (rated.adjusted[0].confidence, rated.follow_up) == (0.8, "What should I have known?")
    assert client.update_memory(u, memory_id, content="I love jazz music.").version == 2
    assert client.get_settings(u).memory_enabled is True
    assert client.forget(u, "jazz music").forgotten == [memory_id]
    client.put_session(u, "s1", open_questions=["Which venue?"])
    assert client.export(u).memories
    assert client.consolidate(u).users == 1
    client.erase_user(u)
    assert client.get_session(u, "s1").open_questions == []


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
