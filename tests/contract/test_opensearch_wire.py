"""The OpenSearch adapter against OpenSearch's answers on the wire: the real opensearch-py transport and
SigV4 signer talk HTTP to the fake (and to a real cluster too, for the checks that need no fault
injection, when MNEMO_OPENSEARCH_URL is set). Each test is a way a first deploy used to break."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from mnemo.adapters.aws.opensearch_store import (
    IndexTuning,
    OpenSearchError,
    OpenSearchMemoryStore,
    ensure_index,
)
from mnemo.adapters.aws.opensearch_transport import SignedOpenSearchTransport
from mnemo.domain.models import Status
from mnemo.errors import BackendUnavailable, ConfigurationError, Throttled
from mnemo.settings import Settings
from tests.contract.conftest import REGION
from tests.contract.opensearch_fake import ACCESS_KEY, FakeOpenSearch
from tests.contract.test_memory_store import DIM, aws_state, mem, request, vec

TARGETS = ["fake"] + (["live"] if os.environ.get("MNEMO_OPENSEARCH_URL") else [])


@pytest.fixture(params=TARGETS)
def wire(request: pytest.FixtureRequest) -> Iterator[tuple[Any, FakeOpenSearch | None]]:
    """A transport to the fake, or to the real cluster (with the caller's own credentials)."""
    if request.param == "live":
        yield SignedOpenSearchTransport(os.environ["MNEMO_OPENSEARCH_URL"],
                                        os.environ.get("MNEMO_AWS_REGION", REGION)), None
        return
    with FakeOpenSearch() as fake:
        yield fake.transport(), fake


@pytest.fixture
def index_name(wire: tuple[Any, FakeOpenSearch | None]) -> Iterator[str]:
    name = f"mnemo-wire-{uuid.uuid4().hex[:12]}"
    yield name
    with contextlib.suppress(OpenSearchError):  # never created
        wire[0].request("DELETE", f"/{name}")


@pytest.fixture
def fake() -> Iterator[FakeOpenSearch]:
    with FakeOpenSearch() as server:
        yield server


@pytest.fixture
def adapter(fake: FakeOpenSearch, monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenSearchMemoryStore]:
    with aws_state(monkeypatch) as (cipher, table):
        transport = fake.transport()
        ensure_index(transport, "memories", DIM)
        yield OpenSearchMemoryStore(transport, "memories", cipher, table, DIM)


def test_a_missing_index_is_created_though_the_client_answers_head_with_false(
        wire: tuple[Any, FakeOpenSearch | None], index_name: str) -> None:
    transport, _ = wire
    assert transport.head(f"/{index_name}") is False  # opensearch-py: a 404 to a HEAD is False, not an error
    assert ensure_index(transport, index_name, DIM) == "created"
    assert transport.head(f"/{index_name}") is True
    mapping = next(iter(transport.request("GET", f"/{index_name}/_mapping").values()))["mappings"]
    assert mapping["properties"]["embedding"] == {**mapping["properties"]["embedding"], "type": "knn_vector",
                                                  "dimension": DIM}
    assert ensure_index(transport, index_name, DIM) == "exists"


class HeadSawNothing(SignedOpenSearchTransport):
    """Our transport, as seen by a run whose HEAD came just before another run's PUT."""

    def head(self, path: str) -> bool:
        return False


def test_two_runs_racing_to_create_the_index_both_succeed(wire: tuple[Any, FakeOpenSearch | None],
                                                           index_name: str) -> None:
    transport, fake = wire
    assert ensure_index(transport, index_name, DIM) == "created"
    late = HeadSawNothing(fake.url, REGION, 60.0, credentials=_credentials()) if fake else None
    if late is None:
        pytest.skip("the race needs the fake's credentials")
    assert ensure_index(late, index_name, DIM) == "exists"  # its PUT got 400 resource_already_exists_exception
    assert fake is not None
    assert [s for m, _p, s, a in fake.answers if m == "PUT"] == [200, 400]
    assert [a["error"]["type"] for m, _p, s, a in fake.answers if m == "PUT" and s == 400] == [
        "resource_already_exists_exception"]


def _credentials() -> Any:
    from botocore.credentials import Credentials

    from tests.contract.opensearch_fake import SECRET_KEY

    return Credentials(ACCESS_KEY, SECRET_KEY)


def test_an_index_a_write_auto_created_or_of_another_dimension_is_refused(
        fake: FakeOpenSearch, monkeypatch: pytest.MonkeyPatch, clock: Any) -> None:
    transport = fake.transport()
    with aws_state(monkeypatch) as (cipher, table):
        # a write that lands before the index set-up: OpenSearch auto-creates a dynamically mapped index
        early = OpenSearchMemoryStore(transport, "memories", cipher, table, DIM)
        early.save([mem(clock, "a", "User likes tea", seed=1)])
        assert fake.indices["memories"].fields()["embedding"].type == "float"
        with pytest.raises(ConfigurationError, match="not a k-NN index of dimension 384"):
            ensure_index(transport, "memories", DIM)
        with pytest.raises(BackendUnavailable):  # a knn query on it is a 400 query_shard_exception, not a crash
            early.search("t1", "u1", request(clock, 1, "tea"))
    ensure_index(transport, "other", 256)
    with pytest.raises(ConfigurationError, match="dimension 384"):
        ensure_index(transport, "other", DIM)


def test_a_missing_index_is_a_clear_backend_error_for_every_call(
        wire: tuple[Any, FakeOpenSearch | None], index_name: str, monkeypatch: pytest.MonkeyPatch,
        clock: Any) -> None:
    transport, _ = wire
    with aws_state(monkeypatch) as (cipher, table):
        store = OpenSearchMemoryStore(transport, index_name, cipher, table, DIM)
        cipher.data_key("t1", "u1")  # a user with a key: one without has nothing to read, and is not asked
        calls = {
            "search": lambda: store.search("t1", "u1", request(clock, 1, "tea")),
            "get": lambda: store.get("t1", "u1", "a"),  # _mget answers 200 with an error per document
            "count": lambda: store.count("t1", "u1", [Status.ACTIVE]),
            "page": lambda: store.page("t1", "u1", statuses=None, category=None, limit=3, cursor=None),
            "delete": lambda: store.delete("t1", "u1", ["a"]),
            "delete_user": lambda: store.delete_user("t1", "u1"),
        }
        for name, call in calls.items():
            with pytest.raises(OpenSearchError) as caught:
                call()
            assert isinstance(caught.value, BackendUnavailable), name  # the API answers 503
            assert caught.value.error_type == "index_not_found_exception", name
            assert "index set-up" in caught.value.message, name


def test_deleting_a_missing_document_succeeds_so_a_retried_delete_is_idempotent(
        wire: tuple[Any, FakeOpenSearch | None], index_name: str, monkeypatch: pytest.MonkeyPatch,
        clock: Any) -> None:
    transport, fake = wire
    ensure_index(transport, index_name, DIM)
    with aws_state(monkeypatch) as (cipher, table):
        store = OpenSearchMemoryStore(transport, index_name, cipher, table, DIM)
        store.save([mem(clock, "a", "User likes tea", seed=1)])
        store.delete("t1", "u1", ["a"])
        store.delete("t1", "u1", ["a", "never-existed"])  # OpenSearch: 404 {"result": "not_found"}
        assert store.get("t1", "u1", "a") is None
    if fake is not None:
        deletes = [(s, a["result"]) for m, _p, s, a in fake.answers if m == "DELETE"]
        assert deletes == [(200, "deleted"), (404, "not_found"), (404, "not_found")]


def test_bulk_items_refused_as_overloaded_are_sent_again(adapter: OpenSearchMemoryStore, fake: FakeOpenSearch,
                                                         clock: Any) -> None:
    fake.fail("t1:u1:b", 429, "es_rejected_execution_exception", times=2)
    adapter.save([mem(clock, "a", "User likes tea", seed=1), mem(clock, "b", "User likes coffee", seed=2)])
    assert {m.memory_id for m in adapter.get_many("t1", "u1", ["a", "b"])} == {"a", "b"}
    bulks = [body for _m, path, _p, body in fake.requests if path == "/_bulk"]
    assert [body.count('"index"') for body in bulks] == [2, 1, 1]  # then only the refused item, twice
    answers = [a for _m, path, _s, a in fake.answers if path == "/_bulk"]
    assert [a["errors"] for a in answers] == [True, True, False]


def test_bulk_failures_that_remain_are_raised_and_no_version_is_written(
        adapter: OpenSearchMemoryStore, fake: FakeOpenSearch, clock: Any) -> None:
    from mnemo.domain.models import MemoryVersion

    old = mem(clock, "a", "User lives in Lisbon", seed=3)
    version = MemoryVersion(memory_id="a", version=1, content=old.content, category=old.category,
                            status=old.status, confidence=old.confidence, updated_at=clock.now(), reason="moved")
    fake.fail("t1:u1:a", 400, "mapper_parsing_exception")
    with pytest.raises(OpenSearchError, match="refused 1 of 2 documents") as caught:
        adapter.save([old, mem(clock, "b", "User likes tea", seed=4)], [version])
    assert caught.value.error_type == "mapper_parsing_exception"
    assert len([p for _m, p, _q, _b in fake.requests if p == "/_bulk"]) == 1  # not retryable: sent once
    assert adapter.history("t1", "u1", "a") == []  # versions follow their memories, never precede them
    fake.fail("t1:u1:a", 429, "es_rejected_execution_exception", times=3)
    with pytest.raises(Throttled):  # overloaded on every attempt: 429 for the caller, who retries later
        adapter.save([old], [version])
    adapter.save([old], [version])  # the caller's retry writes the same document and version
    assert [v.reason for v in adapter.history("t1", "u1", "a")] == ["moved"]


def test_a_delete_by_query_that_leaves_documents_behind_raises(adapter: OpenSearchMemoryStore,
                                                               fake: FakeOpenSearch, clock: Any) -> None:
    adapter.save([mem(clock, "a", "User likes tea", seed=1)])
    fake.refuse_writes = True  # an index write block: delete by query answers 200 with failures
    with pytest.raises(OpenSearchError, match="could not delete 1 documents"):
        adapter.delete_user("t1", "u1")
    fake.refuse_writes = False
    adapter.delete_user("t1", "u1")
    assert list(adapter.all_for_user("t1", "u1")) == []


def test_vectors_stay_out_of_the_answers_that_do_not_need_them(adapter: OpenSearchMemoryStore,
                                                               fake: FakeOpenSearch, clock: Any) -> None:
    long = mem(clock, "long", "User works nights. User rides a red kayak on weekends.", seed=7)
    long.part_embeddings = [vec(8), vec(9)]
    word = mem(clock, "word", "User owns a kayak", seed=99)
    adapter.save([long, word])
    fake.answers.clear()
    hits = {h.memory.memory_id: h for h in adapter.search("t1", "u1", request(clock, 7, "kayak"))}
    adapter.similar("t1", "u1", np.asarray(vec(7), dtype=np.float32), 3)
    adapter.page("t1", "u1", statuses=None, category=None, limit=5, cursor=None)
    searched = [a for _m, path, _s, a in fake.answers if path.endswith("/_search")]
    sources = [h["_source"] for a in searched for h in a["hits"]["hits"]]
    assert sources
    assert not [s for s in sources if "embedding" in s or "parts" in s]
    # the hit found only by its words still gets its true cosine, scored by OpenSearch
    assert hits["word"].cosine == pytest.approx(float(np.dot(vec(99), vec(7))), abs=1e-5)
    assert hits["long"].part_cosine == pytest.approx(max(float(np.dot(vec(8), vec(7))),
                                                       float(np.dot(vec(9), vec(7)))), abs=1e-5)
    # the reads that hand a memory back for re-saving keep its embedding, without the sentence vectors
    fake.answers.clear()
    assert adapter.get("t1", "u1", "long").embedding == pytest.approx(vec(7), abs=1e-6)
    assert [m.memory_id for m in adapter.by_subject("t1", "u1", ["s:long"])] == ["long"]
    kept = [d.get("_source", {}) for _m, _p, _s, a in fake.answers for d in a.get("docs", [])] + [
        h["_source"] for _m, _p, _s, a in fake.answers for h in a.get("hits", {}).get("hits", [])]
    assert kept
    assert all("embedding" in s and "parts" not in s for s in kept)


def test_bm25_runs_with_the_settings_k1_and_b(fake: FakeOpenSearch, monkeypatch: pytest.MonkeyPatch,
                                               clock: Any) -> None:
    transport = fake.transport()
    short_text, long_text = "User owns a kayak", "User owns a kayak and a bike and a boat and a tent and skis"
    scores = {}
    with aws_state(monkeypatch) as (cipher, table):
        for name, settings in (("tuned", Settings()), ("lucene", Settings(bm25_k1=1.2, bm25_b=0.75))):
            ensure_index(transport, name, DIM, tuning=IndexTuning.from_settings(settings))
            store = OpenSearchMemoryStore(transport, name, cipher, table, DIM)
            store.save([mem(clock, "s", short_text, seed=1), mem(clock, "l", long_text, seed=2)])
            hits = {h.memory.memory_id: h.lexical for h in store.search("t1", "u1", request(clock, 50, "kayak"))}
            scores[name] = hits["s"] / hits["l"]
            similarity = fake.indices[name].settings
            assert (similarity["index.similarity.memory_bm25.k1"], similarity["index.similarity.memory_bm25.b"]) == (
                str(settings.bm25_k1), str(settings.bm25_b))
    # b = 0.4 normalises length less than OpenSearch's default 0.75: the long memory loses less
    assert 1 < scores["tuned"] < scores["lucene"]


def test_slow_log_thresholds_are_index_settings_and_follow_the_settings(fake: FakeOpenSearch) -> None:
    transport = fake.transport()
    ensure_index(transport, "memories", DIM)
    flat = fake.indices["memories"].settings
    assert flat["index.search.slowlog.threshold.query.warn"] == "1000ms"
    assert flat["index.indexing.slowlog.threshold.index.info"] == "200ms"
    tuning = IndexTuning.from_settings(Settings(opensearch_slow_search_warn_ms=700))
    assert ensure_index(transport, "memories", DIM, tuning=tuning) == "updated"
    assert flat["index.search.slowlog.threshold.query.warn"] == "700ms"
    assert ensure_index(transport, "memories", DIM, tuning=tuning) == "exists"
    # BM25 parameters are static: a changed k1 is left for a new index, never a failed deploy
    assert ensure_index(transport, "memories", DIM, tuning=IndexTuning.from_settings(Settings(bm25_k1=2.0))) in (
        "exists", "updated")


def test_the_fake_refuses_what_opensearch_and_aws_refuse(fake: FakeOpenSearch) -> None:
    transport = fake.transport()
    ensure_index(transport, "memories", DIM)
    with pytest.raises(OpenSearchError) as caught:  # a body that breaks the API specification
        transport.request("POST", "/memories/_search", body={"size": "ten", "query": {"match_all": {}}})
    assert (caught.value.status, caught.value.error_type) == (400, "x_content_parse_exception")
    with pytest.raises(OpenSearchError) as caught:  # a query outside the subset is never a silent match
        transport.request("POST", "/memories/_search", body={"query": {"fuzzy": {"terms": "x"}}})
    assert caught.value.status == 400
    with pytest.raises(OpenSearchError) as caught:  # a static setting on an open index
        transport.request("PUT", "/memories/_settings", body={"index": {"number_of_shards": 2}})
    assert caught.value.error_type == "illegal_argument_exception"
    from botocore.credentials import Credentials

    for region, secret in (("us-east-1", "fake-opensearch-secret"), (REGION, "wrong")):
        signed_badly = SignedOpenSearchTransport(fake.url, region, 60.0, credentials=Credentials(ACCESS_KEY, secret))
        with pytest.raises(OpenSearchError) as caught:
            signed_badly.head("/memories")
        assert caught.value.status == 403
    fake.down = True
    with pytest.raises(BackendUnavailable, match="unreachable"):
        transport.request("POST", "/memories/_count", body={"query": {"match_all": {}}})
