"""Issue 15: with settings.sitting_penalty (off by default: it lost on LoCoMo's tuning half) a question
needing several sittings gets more than the first one's memories; the n-th memory of one sitting pays for
those above it, in search and in retrieve."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from mnemo.bootstrap import Mnemo
from mnemo.clock import ManualClock
from tests.conftest import ApiClient

U = "penalty-user"
SAID = datetime(2024, 5, 4, 10, 0, tzinfo=UTC)
SITTING = ["Melanie: On weekends I go swimming with the kids at the lake.",
           "Melanie: Swimming with the kids at the lake on weekends is our favourite thing.",
           "Melanie: The kids and I swim at the lake most weekends."]
OTHER_DAY = "Melanie: I also signed up for a pottery class at the community centre."
ASKED = "What does Melanie do on weekends with the kids at the lake?"


def test_the_nth_memory_of_one_sitting_gives_way_to_another_sittings(
        service: Mnemo, api: ApiClient, clock: ManualClock) -> None:
    clock.set(SAID + timedelta(days=5))
    items = [{"content": text, "created_at": (SAID + timedelta(seconds=30 * i)).isoformat()}
             for i, text in enumerate(SITTING)]
    items.append({"content": OTHER_DAY, "created_at": (SAID + timedelta(days=2)).isoformat()})
    status, body = api.call("POST", f"/v1/users/{U}/memories/import", {"items": items})
    assert status == 200, body
    ids = [str(r["memory_id"]) for r in body["results"]]
    sitting, other = set(ids[:3]), ids[3]

    def searched() -> list[str]:
        status, found = api.call("POST", f"/v1/users/{U}/search", {"query": ASKED, "top_k": 4})
        assert status == 200, found
        return [item["memory_id"] for item in found["items"]]

    def retrieved() -> list[str]:
        # retrieve orders its candidates by score; the trace keeps that order
        status, body = api.call("POST", f"/v1/users/{U}/retrieve", {"query": ASKED, "top_k": 4})
        assert status == 200, body
        trace = service.ports.traces.get("tenant_a", body["trace_id"], clock.now())
        assert trace is not None
        return [c.memory_id for c in trace.candidates]

    # off (the default): the sitting's three memories come first, so the checks below can fail
    assert set(searched()[:3]) == sitting
    assert set(retrieved()[:3]) == sitting
    service.ports.settings = service.ports.settings.model_copy(update={"sitting_penalty": 1.0})
    ranked = searched()
    assert ranked[0] in sitting
    assert ranked[1] == other
    order = retrieved()
    assert order[0] in sitting
    assert order[1] == other
