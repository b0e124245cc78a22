"""Issue 15: a memory made in the same sitting as a strong match is found by it (the answer to a question
seldom repeats its words), in both homes; it only orders, and never lets a memory past the relevance floor
on its neighbour's evidence."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from mnemo.bootstrap import Mnemo
from mnemo.clock import ManualClock
from tests.conftest import ApiClient

U = "sitting-user"
SAID = datetime(2024, 3, 2, 18, 0, tzinfo=UTC)
QUESTION = "Caroline: What did you paint for the art show at the library, Melanie?"
REPLY = "Melanie: A sunset over the lake, all purple and orange."
# closer to the query than the reply is (art, Melanie), said two days later
ELSEWHERE = "Melanie: My kids loved the art museum yesterday."
ASKED = "What did Melanie paint for the art show at the library?"


def import_all(api: ApiClient, items: list[tuple[str, datetime]]) -> list[str]:
    status, body = api.call("POST", f"/v1/users/{U}/memories/import", {"items": [
        {"content": text, "created_at": when.isoformat()} for text, when in items]})
    assert status == 200, body
    return [str(r["memory_id"]) for r in body["results"]]


def order(api: ApiClient, query: str) -> list[str]:
    status, found = api.call("POST", f"/v1/users/{U}/search", {"query": query, "top_k": 3})
    assert status == 200, found
    return [item["memory_id"] for item in found["items"]]


def test_the_reply_made_in_the_sitting_of_the_best_match_comes_before_a_like_memory_of_another_day(
        service: Mnemo, api: ApiClient, clock: ManualClock) -> None:
    # search's own encoder already puts this reply above the other day's memory on its own words; the
    # sitting's share is pinned where they lose, with retrieve's query twin (whose vectors retrieve ranks by)
    service.retriever.search_queries = service.retriever.queries
    clock.set(SAID + timedelta(days=5))
    question, reply, elsewhere = import_all(api, [(QUESTION, SAID), (REPLY, SAID + timedelta(seconds=30)),
                                                  (ELSEWHERE, SAID + timedelta(days=2))])
    ranked = order(api, ASKED)
    assert ranked[0] == question
    assert ranked.index(reply) < ranked.index(elsewhere)
    # the same memories without the sitting's context: the reply's own words lose (the check can fail)
    service.ports.settings = service.ports.settings.model_copy(update={"context_weight": 0.0})
    ranked = order(api, ASKED)
    assert ranked.index(reply) > ranked.index(elsewhere)


def test_a_neighbours_match_never_lets_a_memory_past_the_relevance_floor(
        service: Mnemo, api: ApiClient, clock: ManualClock) -> None:
    clock.set(SAID + timedelta(days=5))
    # the aside's own relevance is far below the floor; with its neighbour's share it would clear it
    strong, aside = import_all(api, [("Ana: My food allergies: I am allergic to peanuts and shellfish.", SAID),
                                     ("Ana: I had lunch with my sister today.", SAID + timedelta(seconds=20))])
    status, body = api.call("POST", f"/v1/users/{U}/retrieve", {"query": "What food allergies do I have?"})
    assert status == 200, body
    shown = [m["memory_id"] for m in body["memories"]]
    assert strong in shown
    assert aside not in shown
    trace = service.ports.traces.get("tenant_a", body["trace_id"], clock.now())
    assert trace is not None
    candidates = {c.memory_id: c for c in trace.candidates}
    assert candidates[aside].reason == "below_min_relevance"
    assert candidates[aside].relevance >= service.ports.settings.min_relevance, \
        "with its neighbour's share the aside must clear the floor, or this could not fail"
