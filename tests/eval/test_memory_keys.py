"""Issue 15, item 1: a memory is also found by the facts the extractor finds in it, in both homes
(SQLite + the in-process index; OpenSearch's nested part vectors behind the real opensearch-py)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mnemo.bootstrap import Mnemo
from mnemo.clock import ManualClock
from mnemo.domain.ranking import Hit
from mnemo.domain.text import terms
from mnemo.ports import SearchRequest
from mnemo.services.reembed import Reembedder
from mnemo.services.writing import find_keys
from mnemo.settings import Settings
from tests.conftest import ApiClient

U = "keys-user"
SAID = datetime(2024, 1, 8, 9, 0, tzinfo=UTC)
# one sentence: without keys it has no part vectors at all
LONG = ("Ana: I live in Lisbon with my sister and two cats, and on weekends I go surfing at Carcavelos beach "
        "whenever the waves are good.")
EDITED = "Ana: My brother works as a nurse in Porto, and I am allergic to peanuts, which makes dinners complicated."


def keys_of(service: Mnemo, content: str) -> list[str]:
    keys = find_keys(service.ports.key_extractor, [content], [SAID], limit=service.ports.settings.memory_keys,
                     min_words=service.ports.settings.memory_keys_min_words)[0]
    assert keys, "the extractor must find a fact here, or these tests could not fail"
    return keys


def hit_for(service: Mnemo, clock: ManualClock, text: str, memory_id: str) -> Hit:
    """The store's evidence for one memory against ``text`` embedded as a memory is (cosine 1 to itself)."""
    vector = service.ports.embedder.embed([text])[0]
    hits = service.ports.memories.search("tenant_a", U, SearchRequest(vector=vector, terms=terms(text), limit=10,
                                                                     now=clock.now()))
    return next(h for h in hits if h.memory.memory_id == memory_id)


def import_one(api: ApiClient, content: str) -> str:
    status, body = api.call("POST", f"/v1/users/{U}/memories/import",
                            {"items": [{"content": content, "created_at": SAID.isoformat()}]})
    assert status == 200, body
    return str(body["results"][0]["memory_id"])


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Keys on, whatever the default (the service fixture of both homes is built from these settings)."""
    return Settings(data_dir=tmp_path / "data", memory_keys=4, memory_key_kind="clause")


@pytest.fixture
def now(clock: ManualClock) -> ManualClock:
    clock.set(datetime(2024, 1, 10, tzinfo=UTC))
    return clock


def test_a_memory_scores_by_its_best_key_a_fact_found_in_it(service: Mnemo, api: ApiClient,
                                                            now: ManualClock) -> None:
    memory_id = import_one(api, LONG)
    for key in keys_of(service, LONG):
        hit = hit_for(service, now, key, memory_id)
        # the whole memory is a looser match than the key (a clause of it), which the index holds as it is
        assert hit.part_cosine == pytest.approx(1.0, abs=1e-3), key
        assert hit.cosine < 0.95


def test_a_short_memory_is_its_own_key(service: Mnemo, api: ApiClient, now: ManualClock) -> None:
    memory_id = import_one(api, "I am vegetarian.")
    assert hit_for(service, now, "User's diet: vegetarian.", memory_id).part_cosine is None


def test_an_edit_replaces_the_keys_and_a_reembed_keeps_them(service: Mnemo, api: ApiClient,
                                                            now: ManualClock) -> None:
    memory_id = import_one(api, LONG)
    old_keys = keys_of(service, LONG)
    edited = EDITED
    status, body = api.call("PATCH", f"/v1/users/{U}/memories/{memory_id}", {"content": edited})
    assert status == 200, body
    memory_id = body["memory_id"]
    new_keys = keys_of(service, edited)
    assert hit_for(service, now, new_keys[0], memory_id).part_cosine == pytest.approx(1.0, abs=1e-3)
    assert (hit_for(service, now, old_keys[0], memory_id).part_cosine or 0.0) < 0.99  # not held any more

    Reembedder(service.ports).run_user("tenant_a", U)
    assert hit_for(service, now, new_keys[0], memory_id).part_cosine == pytest.approx(1.0, abs=1e-3)


def test_key_texts_are_embedded_never_stored(service: Mnemo, api: ApiClient, now: ManualClock,
                                             stored: Callable[[], bytes]) -> None:
    import_one(api, LONG)
    raw = stored()
    for key in keys_of(service, LONG):
        assert key.encode() not in raw
