"""Shared fixtures: the real embedding model (loaded once), a manual clock, a wired local service."""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mnemo.api.app import create_app
from mnemo.bootstrap import Mnemo, build_local, run_due_jobs, shared_embedder
from mnemo.clock import ManualClock
from mnemo.ports import Embedder
from mnemo.server import build_event
from mnemo.settings import Settings


@pytest.fixture(autouse=True, scope="session")
def _atomic_dynamodb_writes() -> Iterator[None]:
    """DynamoDB applies each write, its condition included, atomically; moto checks a condition and then
    writes in two unguarded steps, so two threads can both pass "attribute_not_exists(pk)" (the user-lease
    contract test saw two holders at once on a loaded machine, as no real table would allow). Here moto's
    writes go one at a time, as the service's do for an item."""
    from moto.dynamodb.models import DynamoDBBackend

    lock = threading.RLock()
    originals = {name: getattr(DynamoDBBackend, name)
                 for name in ("put_item", "update_item", "delete_item", "transact_write_items")}

    def one_at_a_time(write: Any) -> Any:
        @functools.wraps(write)
        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            with lock:
                return write(self, *args, **kwargs)
        return call

    for name, write in originals.items():
        setattr(DynamoDBBackend, name, one_at_a_time(write))
    yield
    for name, write in originals.items():
        setattr(DynamoDBBackend, name, write)


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return shared_embedder(Settings())


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data")


@pytest.fixture
def service(settings: Settings, clock: ManualClock, embedder: Embedder) -> Iterator[Mnemo]:
    svc = build_local(settings, clock=clock, embedder=embedder)
    yield svc
    svc.close()


class ApiClient:
    """Drives the resolver with the same API Gateway v2 events the Lambdas and `mnemo serve` get."""

    def __init__(self, service: Mnemo, tenant: str = "tenant_a") -> None:
        self.service = service
        self.app = create_app(service)
        self.tenant = tenant
        # a resolver serves one event at a time (one per Lambda container; `mnemo serve` holds a lock)
        self.lock = threading.Lock()

    def as_tenant(self, tenant: str) -> ApiClient:
        other = ApiClient.__new__(ApiClient)
        other.service, other.app, other.tenant, other.lock = self.service, self.app, tenant, self.lock
        return other

    def call(self, method: str, path: str, body: Any = None, raw: bytes | None = None) -> tuple[int, Any]:
        payload = raw if raw is not None else (json.dumps(body).encode() if body is not None else b"")
        event = build_event(method, path, {"content-type": "application/json"}, payload, self.tenant, "127.0.0.1")
        with self.lock:
            result = self.app.resolve(event, None)
        text = result.get("body") or ""
        return int(result["statusCode"]), json.loads(text) if text else None

    # conveniences for scenario tests
    def say(self, user: str, conversation: str, *messages: str, close: bool = True) -> None:
        for i, text in enumerate(messages):
            status, _ = self.call("POST", f"/v1/users/{user}/turns", {
                "conversation_id": conversation,
                "messages": [{"role": "user", "content": text, "message_id": f"{conversation}-{i}-{len(text)}"}]})
            assert status == 202
        if close:
            status, _ = self.call("POST", f"/v1/users/{user}/conversations/{conversation}/close")
            assert status == 202
            run_due_jobs(self.service)

    def memories(self, user: str, status: str | None = "active") -> list[dict[str, Any]]:
        path = f"/v1/users/{user}/memories?limit=200" + (f"&status={status}" if status else "")
        code, body = self.call("GET", path)
        assert code == 200
        return list(body["items"])

    def retrieve(self, user: str, query: str, **extra: Any) -> dict[str, Any]:
        code, body = self.call("POST", f"/v1/users/{user}/retrieve", {"query": query, **extra})
        assert code == 200, body
        return dict(body)


@pytest.fixture
def api(service: Mnemo) -> ApiClient:
    return ApiClient(service)
