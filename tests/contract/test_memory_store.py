"""The MemoryStore contract, run against SQLite (embedded) and OpenSearch (the real opensearch-py
transport and SigV4 signer against the HTTP fake; a real cluster too when MNEMO_OPENSEARCH_URL is set)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import boto3
import numpy as np
import pytest
from moto import mock_aws

from mnemo.adapters.aws.dynamo_state import DynamoTable, create_table
from mnemo.adapters.aws.kms_vault import KmsKeyVault
from mnemo.adapters.aws.opensearch_store import OpenSearchMemoryStore, ensure_index, index_body
from mnemo.adapters.local.key_file_vault import KeyFileVault
from mnemo.adapters.local.sqlite_db import Database
from mnemo.adapters.local.sqlite_memory_store import SqliteMemoryStore
from mnemo.crypto import UserCipher
from mnemo.domain.models import Category, Memory, MemoryVersion, Scope, Status
from mnemo.domain.text import terms
from mnemo.ports import SearchRequest
from tests.contract.conftest import REGION
from tests.contract.opensearch_fake import FakeOpenSearch

DIM = 384


def vec(seed: int) -> list[float]:
    v = np.random.default_rng(seed).normal(size=DIM).astype(np.float32)
    return (v / np.linalg.norm(v)).tolist()


# the same contract runs against a real cluster when one is configured (never here: no server runs)
HOMES = ["sqlite", "opensearch"] + (["opensearch-live"] if os.environ.get("MNEMO_OPENSEARCH_URL") else [])


@contextmanager
def aws_state(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[UserCipher, DynamoTable]]:
    """moto's DynamoDB and KMS: the history table and the user keys beside the index."""
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        dynamodb = boto3.client("dynamodb", region_name=REGION)
        create_table(dynamodb, "state")
        kms = boto3.client("kms", region_name=REGION)
        table = DynamoTable(dynamodb, "state")
        yield UserCipher(KmsKeyVault(kms, table, kms.create_key()["KeyMetadata"]["KeyId"])), table


@contextmanager
def fake_store(cipher: UserCipher, table: DynamoTable) -> Iterator[Any]:
    """The adapter over the HTTP fake, its index made by ensure_index as the custom resource makes it."""
    with FakeOpenSearch() as fake:
        transport = fake.transport()
        ensure_index(transport, "memories", DIM)
        adapter = OpenSearchMemoryStore(transport, "memories", cipher, table, DIM)
        adapter.fake = fake  # type: ignore[attr-defined]
        yield adapter


@pytest.fixture(params=HOMES)
def store(request: pytest.FixtureRequest, tmp_path: Path, clock, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    if request.param == "sqlite":
        db = Database(tmp_path / "m.db")
        yield SqliteMemoryStore(db, UserCipher(KeyFileVault(db, tmp_path / "k", clock)), DIM)
        return
    live = None
    if request.param == "opensearch-live":
        from mnemo.adapters.aws.opensearch_transport import SignedOpenSearchTransport

        # built before moto replaces the credentials in the environment: a real cluster needs the real ones
        live = SignedOpenSearchTransport(os.environ["MNEMO_OPENSEARCH_URL"], os.environ.get("MNEMO_AWS_REGION", REGION))
    with aws_state(monkeypatch) as (cipher, table):
        if live is not None:
            index = f"mnemo-contract-{os.getpid()}"
            ensure_index(live, index, DIM)
            try:
                yield OpenSearchMemoryStore(live, index, cipher, table, DIM)
            finally:
                live.request("DELETE", f"/{index}")
            return
        with fake_store(cipher, table) as adapter:
            yield adapter


@pytest.fixture
def os_store(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The OpenSearch adapter over the fake only: for checks of the requests themselves."""
    with aws_state(monkeypatch) as (cipher, table), fake_store(cipher, table) as adapter:
        yield adapter


def mem(clock, mid: str, content: str, *, tenant: str = "t1", user: str = "u1", seed: int = 0,
        status: Status = Status.ACTIVE, scope: Scope = Scope.USER, project: str | None = None,
        subject: str | None = None, expires_in: timedelta | None = None) -> Memory:
    now = clock.now()
    return Memory(memory_id=mid, tenant_id=tenant, user_id=user, category=Category.PREFERENCE,
                  subject=subject or f"s:{mid}", content=content, confidence=0.9, created_at=now, updated_at=now,
                  last_confirmed_at=now, status=status, scope=scope, project_id=project, embedding=vec(seed),
                  expires_at=now + expires_in if expires_in else None)


def request(clock, seed: int, text: str = "", **kw: Any) -> SearchRequest:
    return SearchRequest(vector=np.asarray(vec(seed), dtype=np.float32), terms=terms(text), limit=10,
                         now=clock.now(), **kw)


def test_round_trip_and_isolation(store: Any, clock) -> None:
    store.save([mem(clock, "a", "User adores pineapple pizza", seed=1)])
    assert store.get("t1", "u1", "a").content == "User adores pineapple pizza"
    assert store.get("t1", "u2", "a") is None
    assert store.get("t2", "u1", "a") is None
    assert store.search("t2", "u1", request(clock, 1, "pineapple")) == []
    assert [m.memory_id for m in store.get_many("t1", "u1", ["x", "a"])] == ["a"]


def test_search_combines_semantic_and_lexical_evidence_with_filters(store: Any, clock) -> None:
    store.save([mem(clock, "near", "User likes kayaking", seed=7),
                mem(clock, "word", "User owns a red kayak and paddles", seed=99),
                mem(clock, "old", "User liked kayaking", seed=7, status=Status.SUPERSEDED),
                mem(clock, "gone", "User liked kayaking", seed=7, expires_in=timedelta(hours=1)),
                mem(clock, "proj", "Repo uses kayak lib", seed=7, scope=Scope.PROJECT, project="p1")])
    clock.advance(hours=2)
    hits = {h.memory.memory_id: h for h in store.search("t1", "u1", request(clock, 7, "kayak"))}
    assert set(hits) == {"near", "word"}
    assert hits["near"].cosine == pytest.approx(1.0, abs=1e-4)
    assert hits["word"].lexical > 0
    scoped = {h.memory.memory_id for h in store.search("t1", "u1", request(clock, 7, "kayak", project_id="p1"))}
    assert scoped == {"near", "word", "proj"}


def test_subject_fingerprint_similarity_and_history(store: Any, clock) -> None:
    old = mem(clock, "a", "User lives in Lisbon", seed=3, subject="location")
    store.save([old])
    assert [m.memory_id for m in store.by_subject("t1", "u1", ["location"])] == ["a"]
    assert [m.memory_id for m in store.by_fingerprint("t1", "u1", "user LIVES in lisbon!")] == ["a"]
    assert store.similar("t1", "u1", np.asarray(vec(3), dtype=np.float32), 3)[0][0].memory_id == "a"
    retired = old.model_copy(update={"status": Status.SUPERSEDED, "embedding": None})
    history = MemoryVersion(memory_id="a", version=1, content=old.content, category=old.category,
                            status=old.status, confidence=old.confidence, updated_at=clock.now(), reason="moved")
    store.save([retired], [history])
    assert store.by_subject("t1", "u1", ["location"]) == []
    assert [h.reason for h in store.history("t1", "u1", "a")] == ["moved"]
    assert store.count("t1", "u1", [Status.SUPERSEDED]) == 1


def test_paging_listing_deleting(store: Any, clock) -> None:
    for i in range(7):
        store.save([mem(clock, f"m{i}", f"fact {i}", seed=i, user="u9", tenant="t9")])
        clock.advance(seconds=1)
    seen, cursor = [], None
    while True:
        page = store.page("t9", "u9", statuses=None, category=None, limit=3, cursor=cursor)
        seen += [m.memory_id for m in page.items]
        if not page.next_cursor:
            break
        cursor = page.next_cursor
    assert seen == [f"m{i}" for i in reversed(range(7))]
    assert [m.memory_id for m in store.all_for_user("t9", "u9")] == [f"m{i}" for i in range(7)]
    assert store.users("t9") == ["u9"]
    assert "t9" in store.tenants()
    store.delete("t9", "u9", ["m0"])
    assert store.get("t9", "u9", "m0") is None
    store.delete_user("t9", "u9")
    assert list(store.all_for_user("t9", "u9")) == []


def test_opensearch_requests_are_routed_and_filter_inside_knn(os_store: Any, clock) -> None:
    store = os_store
    store.save([mem(clock, "a", "User likes tea", seed=1)])
    store.search("t1", "u1", request(clock, 1, "tea"))
    for _method, path, params, body in store.fake.requests:
        if path.endswith("/_search") and "aggs" not in (body or {}):
            assert params.get("routing") == "t1:u1"
        if isinstance(body, dict) and "knn" in body.get("query", {}):
            assert "filter" in body["query"]["knn"]["embedding"]
    raw = repr(store.fake.docs)
    assert "likes tea" not in raw  # sealed
    assert "tea" not in " ".join(d["terms"] for d in store.fake.docs.values())  # hashed terms only


def test_every_opensearch_request_conforms_to_the_api_spec(os_store: Any, clock) -> None:
    from tests.contract.opensearch_spec import problems

    store = os_store
    old = mem(clock, "a", "User lives in Lisbon", seed=3, subject="location")
    store.save([old, mem(clock, "b", "User likes tea. User also likes green tea a lot.", seed=4)])
    store.search("t1", "u1", request(clock, 3, "lisbon tea", project_id="p1", session_id="s1"))
    store.by_subject("t1", "u1", ["location"])
    store.by_fingerprint("t1", "u1", "User lives in Lisbon")
    store.similar("t1", "u1", np.asarray(vec(3), dtype=np.float32), 3)
    store.page("t1", "u1", statuses=[Status.ACTIVE], category=Category.PREFERENCE, limit=1, cursor=None)
    store.count("t1", "u1", [Status.ACTIVE])
    list(store.all_for_user("t1", "u1"))
    store.users("t1")
    store.delete("t1", "u1", ["a"])
    store.delete_user("t1", "u1")
    checked = 0
    for method, path, _params, body in store.fake.requests:
        assert problems(method, path, body) == [], (method, path)
        checked += 1
    assert checked >= 12
    # and the fake answered every one as a success (a body that broke the spec gets a 400); the one
    # 404 is ensure_index's HEAD before it created the index
    assert [(m, status) for m, _path, status, _answer in store.fake.answers if status >= 300] == [("HEAD", 404)]


def test_the_spec_check_catches_wrong_bodies() -> None:
    from tests.contract.opensearch_spec import problems

    assert problems("POST", "/m/_search", {"size": "ten", "query": {"match_all": {}}})
    assert problems("POST", "/m/_search", {"sort": [123], "query": {"match_all": {}}})
    assert problems("POST", "/m/_count", {"query": "everything"})
    assert problems("POST", "/m/_search", {"size": 3, "sort": [{"created_at": {"order": "desc"}}]}) == []


def test_index_creation_is_idempotent_and_conforms() -> None:
    from tests.contract.opensearch_spec import problems

    with FakeOpenSearch() as fake:
        transport = fake.transport()
        assert ensure_index(transport, "memories", DIM) == "created"
        assert ensure_index(transport, "memories", DIM) == "exists"
        created = [body for method, _path, _params, body in fake.requests if method == "PUT"]
    assert len(created) == 1
    assert created[0] == index_body(DIM)
    assert problems("PUT", "/memories", created[0]) == []
    mapping = created[0]["mappings"]
    assert mapping["dynamic"] == "strict"
    assert mapping["_routing"] == {"required": True}
    assert mapping["properties"]["embedding"]["method"]["engine"] == "faiss"
    assert mapping["properties"]["embedding"]["method"]["space_type"] == "innerproduct"
