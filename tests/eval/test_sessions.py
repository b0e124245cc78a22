"""Session state (SPEC R2): structured state, rolling summary checkpoints, TTL."""

from __future__ import annotations

from typing import Any

from mnemo.bootstrap import run_due_jobs
from mnemo.clock import ManualClock
from tests.conftest import ApiClient

U = "session-user"


def post(api: ApiClient, session: str, i: int, text: str) -> None:
    status, _ = api.call("POST", f"/v1/users/{U}/turns", {"conversation_id": session, "messages": [
        {"role": "user", "content": text, "message_id": f"u{i}"},
        {"role": "assistant", "content": f"Answer {i}.", "message_id": f"a{i}"}]})
    assert status == 202


def run_jobs(api: ApiClient, clock: ManualClock) -> None:
    clock.advance(seconds=api.service.settings.debounce_quiet_seconds + 1)
    run_due_jobs(api.service)


def test_rolling_summary_keeps_the_last_turns_raw(api: ApiClient, clock: ManualClock) -> None:
    post(api, "s1", 0, "I'm vegetarian and I live in Lisbon.")
    post(api, "s1", 1, "Can you plan a three day trip to Porto?")
    for i in range(2, 6):
        post(api, "s1", i, f"Tell me more about day {i}.")
    run_jobs(api, clock)
    status, state = api.call("GET", f"/v1/users/{U}/sessions/s1")
    assert status == 200
    assert state["turn_count"] == 12
    # the checkpoint at turn 10 folded turns 1-4 and kept 5-10 raw; 11 and 12 came after it
    assert len(state["recent_turns"]) == 8
    assert state["recent_turns"][0] == {"role": "user", "content": "Tell me more about day 2."}
    assert "User's diet: vegetarian." in state["rolling_summary"]
    assert "User asked: Can you plan a three day trip to Porto?" in state["rolling_summary"]
    assert state["recent_turns"][-1] == {"role": "assistant", "content": "Answer 5."}
    assert state["fold_due"] == 0


class NoExtraction:
    """An extractor that fails the request that would run it."""

    def extract(self, messages: Any) -> Any:
        raise AssertionError("a turns request ran the extractor")


def test_a_turns_request_never_runs_the_extractor(api: ApiClient, clock: ManualClock) -> None:
    real = api.service.ports.extractor
    api.service.ports.extractor = NoExtraction()  # type: ignore[assignment]
    for i in range(5):  # the fifth request reaches the checkpoint at turn 10
        post(api, "s5", i, "I'm vegetarian." if i == 0 else f"Tell me more about day {i}.")
    _, state = api.call("GET", f"/v1/users/{U}/sessions/s5")
    assert state["rolling_summary"] == ""  # marked, not folded: that is the extraction job's
    assert state["fold_due"] == 4
    assert len(state["recent_turns"]) == 10
    api.service.ports.extractor = real
    run_jobs(api, clock)
    _, state = api.call("GET", f"/v1/users/{U}/sessions/s5")
    assert "User's diet: vegetarian." in state["rolling_summary"]
    assert state["fold_due"] == 0
    assert len(state["recent_turns"]) == 6
    assert state["recent_turns"][0] == {"role": "user", "content": "Tell me more about day 2."}


def test_a_forget_before_the_checkpoint_folds_keeps_the_mark_on_the_same_turns(
        api: ApiClient, clock: ManualClock) -> None:
    real = api.service.ports.extractor
    api.service.ports.extractor = NoExtraction()  # type: ignore[assignment]
    post(api, "s6", 0, "I'm vegetarian.")
    post(api, "s6", 1, "My sister Ana lives in Porto.")
    for i in range(2, 5):
        post(api, "s6", i, f"Tell me more about day {i}.")
    api.service.ports.extractor = real
    status, _ = api.call("POST", f"/v1/users/{U}/forget", {"query": "My sister Ana lives in Porto."})
    assert status == 200
    _, state = api.call("GET", f"/v1/users/{U}/sessions/s6")
    assert state["fold_due"] == 3  # of the four turns marked, the forgotten one left
    run_jobs(api, clock)
    _, state = api.call("GET", f"/v1/users/{U}/sessions/s6")
    assert state["fold_due"] == 0
    assert state["recent_turns"][0] == {"role": "user", "content": "Tell me more about day 2."}
    assert "Ana" not in str(state)


def test_structured_state_is_set_and_expires(api: ApiClient, clock) -> None:
    status, state = api.call("PUT", f"/v1/users/{U}/sessions/s2", {
        "confirmed_facts": ["Trip is for two people"], "task_progress": {"step": 2, "done": False},
        "open_questions": ["Which dates?"]})
    assert status == 200
    assert state["task_progress"] == {"step": 2, "done": False}
    assert api.call("GET", f"/v1/users/{U}/sessions/s2")[1]["open_questions"] == ["Which dates?"]
    clock.advance(hours=25)
    assert api.call("GET", f"/v1/users/{U}/sessions/s2")[1]["open_questions"] == []


def test_session_state_refuses_secrets_and_is_per_user(api: ApiClient) -> None:
    status, body = api.call("PUT", f"/v1/users/{U}/sessions/s3", {"confirmed_facts": ["card 4111 1111 1111 1111"]})
    assert status == 400
    assert "4111" not in str(body)
    api.call("PUT", f"/v1/users/{U}/sessions/s3", {"open_questions": ["Which hotel?"]})
    assert api.call("GET", "/v1/users/other-user/sessions/s3")[1]["open_questions"] == []
    assert api.as_tenant("tenant_b").call("GET", f"/v1/users/{U}/sessions/s3")[1]["open_questions"] == []


def test_turns_are_redacted_in_the_session_too(api: ApiClient) -> None:
    post(api, "s4", 0, "My password is hunter2!! and I love tea.")
    _, state = api.call("GET", f"/v1/users/{U}/sessions/s4")
    assert "hunter2" not in str(state)
