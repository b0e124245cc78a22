"""An erase that stops midway, or that a write races, leaves nothing readable and brings nothing back;
a read never makes a data key (both homes: SQLite, and moto + the OpenSearch HTTP fake)."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from mnemo.bootstrap import Mnemo, run_due_jobs
from mnemo.ports import SearchRequest
from tests.conftest import ApiClient
from tests.eval.conftest import DYNAMODB

T, U = "tenant_a", "erase-user"


class Killed(Exception):
    """The process stops here: nothing after this step of the erase runs."""


def has_key(service: Mnemo, user: str) -> bool:
    """Whether a wrapped data key of the user is stored, read from the storage itself."""
    dynamodb = DYNAMODB.get(id(service))
    if dynamodb is not None:
        item = dynamodb.get_item(TableName=service.settings.key_table,
                                 Key={"pk": {"S": f"{T}#{user}"}, "sk": {"S": "DATAKEY"}}).get("Item")
        return item is not None and "wrapped" in item  # an erase under way leaves its mark in its place
    with sqlite3.connect(service.settings.data_dir / "mnemo.db") as conn:
        return conn.execute("SELECT 1 FROM data_keys WHERE tenant_id=? AND user_id=?", (T, user)).fetchone() is not None


def remember(api: ApiClient, content: str) -> int:
    return api.call("POST", f"/v1/users/{U}/memories", {"content": content})[0]


def test_reads_of_a_user_with_nothing_make_no_key(api: ApiClient, service: Mnemo) -> None:
    for path in (f"/v1/users/{U}/memories", f"/v1/users/{U}/profile", f"/v1/users/{U}/export",
                 f"/v1/users/{U}/memories/m-unknown"):
        assert api.call("GET", path)[0] in (200, 404), path
    memories = service.ports.memories
    vector = service.ports.embedder.embed_queries(["tea"])[0]
    assert memories.by_fingerprint(T, U, "I like tea.") == []
    assert memories.by_subject(T, U, ["likes:tea"]) == []
    assert memories.search(T, U, SearchRequest(vector=vector, terms=["tea"], limit=5,
                                               now=service.ports.clock.now())) == []
    assert not has_key(service, U)
    assert service.ports.vault.existing_key(T, U) is None
    assert remember(api, "I like green tea.") == 201  # a write makes the key
    assert has_key(service, U)


def stop_erase_at(service: Mnemo, monkeypatch: pytest.MonkeyPatch, store: str,
                  before: Any = None) -> None:
    """The erase dies when it reaches ``store``'s deletion (after the key and the stores before it)."""
    adapter = getattr(service.ports, store)

    def die(tenant_id: str, user_id: str) -> None:
        if before is not None:
            before()
        raise Killed

    monkeypatch.setattr(adapter, "delete_user", die)


@pytest.mark.parametrize("step", ["feedback", "memories"])
def test_an_erase_that_stops_midway_serves_nothing_refuses_writes_and_finishes_on_retry(
        api: ApiClient, service: Mnemo, monkeypatch: pytest.MonkeyPatch, step: str) -> None:
    assert remember(api, "I love fado music and I live in Alfama.") == 201
    api.say(U, "c1", "I have a dog named Rex.", close=False)
    with monkeypatch.context() as patch:
        stop_erase_at(service, patch, step)
        with pytest.raises(Killed):
            service.control.erase(T, U)
    # half erased: every read answers, and answers nothing
    assert api.memories(U, status=None) == []
    assert api.call("GET", f"/v1/users/{U}/profile")[0] == 200
    status, found = api.call("POST", f"/v1/users/{U}/retrieve", {"query": "What music do I love?",
                                                                 "conversation_id": "c2"})
    assert status in (200, 503), found
    assert "fado" not in str(found).lower()
    status, export = api.call("GET", f"/v1/users/{U}/export")
    assert status == 200
    assert export["memories"] == []
    assert not has_key(service, U)
    # and a write is refused (retryable), not left for the unfinished erase to miss
    status, body = api.call("POST", f"/v1/users/{U}/memories", {"content": "I like green tea."})
    assert (status, body["error"]["code"]) == (503, "backend_unavailable")
    # the retry does what was left, and the user starts afresh
    assert api.call("DELETE", f"/v1/users/{U}")[0] == 204
    assert remember(api, "I like green tea.") == 201
    assert [m["content"] for m in api.memories(U, status=None)] == ["I like green tea."]


def test_a_turn_racing_the_erase_is_refused_and_nothing_comes_back(
        api: ApiClient, service: Mnemo, monkeypatch: pytest.MonkeyPatch) -> None:
    assert remember(api, "I love fado music.") == 201
    other = ApiClient(service)  # another worker, taking no lock of the user for an ingest
    answers: list[int] = []

    def turn_arrives() -> None:
        answers.append(other.call("POST", f"/v1/users/{U}/turns", {"conversation_id": "c9", "messages": [
            {"role": "user", "content": "I have a dog named Rex.", "message_id": "m-rex"}]})[0])

    sessions = service.ports.sessions
    real = sessions.delete_user

    def delete_then_race(tenant_id: str, user_id: str) -> None:
        real(tenant_id, user_id)
        turn_arrives()  # after the buffer's deletion, before the erase is over

    monkeypatch.setattr(sessions, "delete_user", delete_then_race)
    assert api.call("DELETE", f"/v1/users/{U}")[0] == 204
    assert answers == [503]
    assert service.ports.buffer.for_user(T, U) == []
    other.call("POST", f"/v1/users/{U}/conversations/c9/close")
    run_due_jobs(service)
    assert api.memories(U, status=None) == []
    assert not has_key(service, U)
    # the erase over, the same turn is taken again
    turn_arrives()
    assert answers[-1] == 202
