"""Offline tuning (SPEC R7 channel C): bounded, versioned, used by retrieve, reported by category."""

from __future__ import annotations

from mnemo.bootstrap import Mnemo
from tests.conftest import ApiClient


def rate(api: ApiClient, user: str, query: str, rating: str) -> str:
    trace = api.retrieve(user, query)["trace_id"]
    assert api.call("POST", f"/v1/users/{user}/feedback", {"trace_id": trace, "rating": rating})[0] == 200
    return trace


def test_no_change_without_enough_evidence(api: ApiClient, service: Mnemo) -> None:
    api.call("POST", "/v1/users/u/memories", {"content": "I love fado music."})
    rate(api, "u", "What music do I love?", "up")
    report = service.tuner.run("tenant_a")
    assert not report.changed
    assert report.version == 0


def test_feedback_moves_weights_within_bounds_and_retrieve_uses_the_new_version(
        api: ApiClient, service: Mnemo, clock) -> None:
    # memories the user confirms are fresh; the ones they reject are stale: recency should gain weight
    for i in range(12):
        api.call("POST", "/v1/users/u/memories", {"content": f"I like hobby number {i} a lot, it is my thing {i}.",
                                                   "created_at": "2025-01-01T00:00:00Z" if i % 2 else None,
                                                   "category": "preference"})
    for i in range(24):
        rate(api, "u", f"Which hobby number {i % 12} do I like?", "down" if (i % 12) % 2 else "up")
    before = service.tuner.current("tenant_a")
    report = service.tuner.run("tenant_a")
    assert report.changed
    assert report.version == 1
    assert report.weights["b"] > before.b
    bounds = service.settings.tuning_bounds
    assert all(bounds[k][0] <= v <= bounds[k][1] for k, v in report.weights.items())
    assert report.categories["preference"]["total"] > 0
    trace = api.retrieve("u", "Which hobby do I like?")
    _, body = api.call("GET", f"/v1/traces/{trace['trace_id']}")
    assert body["weights_version"] == 1
    assert body["weights"]["b"] == report.weights["b"]
    # a second run with no new feedback changes nothing
    assert not service.tuner.run("tenant_a").changed
