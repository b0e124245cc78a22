"""A back end that fails mid-request: the client gets 503 with the error shape, and nothing is
half-written: no memory, no version, no audit entry of the failed request; the same request
afterwards succeeds exactly once. Both homes: SQLite locked by another process (writes time out,
reads work), and OpenSearch refusing writes or unreachable."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from mnemo.bootstrap import Mnemo
from mnemo.settings import Settings
from tests.conftest import ApiClient
from tests.eval.conftest import FAKES

USER = "faulty"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", sqlite_busy_timeout_ms=150)


@contextmanager
def writes_fail(service: Mnemo, settings: Settings, *, unreachable: bool = False) -> Iterator[None]:
    fake = FAKES.get(id(service))
    if fake is not None:
        fake.down, fake.refuse_writes = unreachable, not unreachable
        try:
            yield
        finally:
            fake.down = fake.refuse_writes = False
        return
    blocker = sqlite3.connect(settings.data_dir / "mnemo.db", isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")  # another process holds the write lock
    try:
        yield
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()


def state(api: ApiClient) -> dict[str, Any]:
    """Everything held about the user, without the moment of the export."""
    status, body = api.call("GET", f"/v1/users/{USER}/export")
    assert status == 200
    return {k: v for k, v in body.items() if k != "exported_at"}


def assert_unavailable(answer: tuple[int, Any]) -> None:
    status, body = answer
    assert status == 503, body
    assert body["error"]["code"] == "backend_unavailable"


LISBON = {"content": "I live in Lisbon.", "category": "biographical", "subject": "location"}
PORTO = {"content": "I live in Porto now.", "category": "biographical", "subject": "location"}


def test_a_failing_store_answers_503_and_leaves_nothing_half_written(
        api: ApiClient, service: Mnemo, settings: Settings) -> None:
    status, body = api.call("POST", f"/v1/users/{USER}/memories", LISBON)
    assert status == 201
    lisbon = body["memory"]["memory_id"]
    before = state(api)
    # SQLite is a file: locked by another process, it refuses writes; OpenSearch can also be unreachable
    for unreachable in (False, True) if id(service) in FAKES else (False,):
        fail_everything(api, service, settings, lisbon, unreachable=unreachable)
        assert state(api) == before  # not a memory, a version or an audit entry more
    status, body = api.call("POST", f"/v1/users/{USER}/memories", PORTO)
    assert status == 201
    assert body["outcome"] == "superseded"
    assert body["superseded"] == [lisbon]
    after = state(api)
    live = [m for m in after["memories"] if m["status"] == "active"]
    assert [m["content"] for m in live] == ["I live in Porto now."]
    old = next(m for m in after["memories"] if m["memory_id"] == lisbon)
    assert [h["content"] for h in old["history"]] == ["I live in Lisbon."]  # one version, not two


def fail_everything(api: ApiClient, service: Mnemo, settings: Settings, lisbon: str, *, unreachable: bool) -> None:
    with writes_fail(service, settings, unreachable=unreachable):
        assert_unavailable(api.call("POST", f"/v1/users/{USER}/memories", PORTO))  # would supersede Lisbon
        assert_unavailable(api.call("POST", f"/v1/users/{USER}/memories/import", {"items": [
            {"content": "User plays the cello."}, {"content": "User has a cat named Miso."}]}))
        assert_unavailable(api.call("PATCH", f"/v1/users/{USER}/memories/{lisbon}", {"content": "I live in Faro."}))
        assert_unavailable(api.call("DELETE", f"/v1/users/{USER}/memories/{lisbon}"))
