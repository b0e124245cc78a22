"""A query that names a date finds what was said that day first (issue 15), through the public API."""

from __future__ import annotations

from datetime import UTC, datetime

from mnemo.clock import ManualClock
from tests.conftest import ApiClient


def test_search_puts_the_memory_made_on_the_named_day_first(
        api: ApiClient, clock: ManualClock) -> None:
    # given two equally plausible answers, said on different days
    clock.set(datetime(2024, 1, 10, tzinfo=UTC))
    items = [{"content": "Tim: I finished reading a fantasy novel about dragons.",
              "created_at": "2023-11-20T10:00:00+00:00"},
             {"content": "Tim: I just finished reading a fantasy book about dragons!",
              "created_at": "2023-12-08T18:00:00+00:00"}]
    status, body = api.call("POST", "/v1/users/u1/memories/import", {"items": items})
    assert status == 200, body
    on_the_day = body["results"][1]["memory_id"]

    # when the question names the day, then that day's memory comes first
    for question in ("What book did Tim finish reading on 8th December, 2023?",
                     "What book did Tim finish reading in December 2023?"):
        status, found = api.call("POST", "/v1/users/u1/search", {"query": question, "top_k": 2})
        assert status == 200, found
        assert found["items"][0]["memory_id"] == on_the_day, question

    # and naming the other day turns the order round
    status, found = api.call("POST", "/v1/users/u1/search",
                             {"query": "What book did Tim finish reading on 20 November 2023?", "top_k": 2})
    assert found["items"][0]["memory_id"] == body["results"][0]["memory_id"]


def test_a_month_named_without_its_year_is_read_against_the_moment_of_asking(
        api: ApiClient, clock: ManualClock) -> None:
    clock.set(datetime(2024, 1, 10, tzinfo=UTC))
    items = [{"content": "Tim: I finished reading a fantasy novel about dragons.",
              "created_at": "2023-11-20T10:00:00+00:00"},
             {"content": "Tim: I just finished reading a fantasy book about dragons!",
              "created_at": "2023-12-08T18:00:00+00:00"},
             {"content": "Tim: Finished a fantasy novel about dragons, loved it.",
              "created_at": "2022-12-08T18:00:00+00:00"}]
    status, body = api.call("POST", "/v1/users/u1/memories/import", {"items": items})
    assert status == 200, body
    ids = [r["memory_id"] for r in body["results"]]
    # "in December", asked in January 2024: the December just gone, not the one a year before it
    status, found = api.call("POST", "/v1/users/u1/search",
                             {"query": "What book did Tim finish reading in December?", "top_k": 3})
    assert status == 200, found
    assert found["items"][0]["memory_id"] == ids[1]
    status, found = api.call("POST", "/v1/users/u1/search",
                             {"query": "What book did Tim finish reading in November?", "top_k": 3})
    assert found["items"][0]["memory_id"] == ids[0]
