"""Feedback, lifecycle and user control through the API (SPEC R7, R8, R10, R11)."""

from __future__ import annotations

from tests.conftest import ApiClient

U = "control-user"


def remember(api: ApiClient, content: str, **extra: object) -> dict:
    status, body = api.call("POST", f"/v1/users/{U}/memories", {"content": content, **extra})
    assert status == 201, body
    return body["memory"]


def test_thumbs_up_and_down_adjust_what_was_injected(api: ApiClient) -> None:
    memory = remember(api, "I'm training for the Berlin marathon in September.", confidence=0.6)
    result = api.retrieve(U, "How should I train for my marathon this week?")
    assert [m["memory_id"] for m in result["memories"]] == [memory["memory_id"]]
    status, up = api.call("POST", f"/v1/users/{U}/feedback", {"trace_id": result["trace_id"], "rating": "up"})
    assert status == 200
    assert up["adjusted"] == [{"memory_id": memory["memory_id"], "confidence": 0.7}]
    assert up["follow_up"] is None
    # rating the same retrieval again replaces the first rating: no double counting
    status, down = api.call("POST", f"/v1/users/{U}/feedback", {"trace_id": result["trace_id"], "rating": "down"})
    assert status == 200
    assert down["adjusted"][0]["confidence"] == 0.4
    assert down["follow_up"] == "What should I have known?"


def test_thumbs_down_below_half_makes_a_memory_probationary_and_up_restores_it(api: ApiClient) -> None:
    memory = remember(api, "I'm training for the Berlin marathon in September.")  # confidence 1.0
    for expected in (0.8, 0.6, 0.4):
        trace = api.retrieve(U, f"How is my marathon training going? ({expected})")["trace_id"]
        _, body = api.call("POST", f"/v1/users/{U}/feedback", {"trace_id": trace, "rating": "down"})
        assert body["adjusted"][0]["confidence"] == expected
    _, current = api.call("GET", f"/v1/users/{U}/memories/{memory['memory_id']}")
    assert current["status"] == "probationary"
    for expected, status in ((0.5, "probationary"), (0.6, "active")):
        trace = api.retrieve(U, f"Remind me about my marathon plans ({expected})")["trace_id"]
        api.call("POST", f"/v1/users/{U}/feedback", {"trace_id": trace, "rating": "up"})
        _, current = api.call("GET", f"/v1/users/{U}/memories/{memory['memory_id']}")
        assert (current["status"], current["confidence"]) == (status, expected)


def test_feedback_on_an_unknown_or_foreign_trace_is_404(api: ApiClient) -> None:
    remember(api, "I love fado music.")
    trace = api.retrieve(U, "What music do I love?")["trace_id"]
    assert api.call("POST", f"/v1/users/{U}/feedback", {"trace_id": "0" * 32, "rating": "up"})[0] == 404
    assert api.call("POST", "/v1/users/someone-else/feedback", {"trace_id": trace, "rating": "up"})[0] == 404
    assert api.as_tenant("tenant_b").call("POST", f"/v1/users/{U}/feedback",
                                          {"trace_id": trace, "rating": "up"})[0] == 404


def test_edit_keeps_history_and_checks_the_version(api: ApiClient) -> None:
    memory = remember(api, "I live in Lisbon.")
    status, edited = api.call("PATCH", f"/v1/users/{U}/memories/{memory['memory_id']}",
                              {"content": "I live in Porto.", "version": 1})
    assert status == 200
    assert (edited["version"], edited["content"]) == (2, "I live in Porto.")
    status, _ = api.call("PATCH", f"/v1/users/{U}/memories/{memory['memory_id']}",
                             {"content": "I live in Faro.", "version": 1})
    assert status == 409
    _, full = api.call("GET", f"/v1/users/{U}/memories/{memory['memory_id']}")
    assert [h["content"] for h in full["history"]] == ["I live in Lisbon."]
    assert "Porto" in api.retrieve(U, "Where do I live?")["context"]


def test_disable_and_delete(api: ApiClient) -> None:
    memory = remember(api, "I love fado music.")
    api.call("PATCH", f"/v1/users/{U}/memories/{memory['memory_id']}", {"status": "disabled"})
    assert "fado" not in api.retrieve(U, "What music do I love?")["context"]
    api.call("PATCH", f"/v1/users/{U}/memories/{memory['memory_id']}", {"status": "active"})
    assert "fado" in api.retrieve(U, "What music do I love?")["context"]
    assert api.call("DELETE", f"/v1/users/{U}/memories/{memory['memory_id']}")[0] == 204
    assert api.call("GET", f"/v1/users/{U}/memories/{memory['memory_id']}")[0] == 404
    assert api.call("DELETE", f"/v1/users/{U}/memories/{memory['memory_id']}")[0] == 404


def test_pending_fact_is_confirmed_by_patch(api: ApiClient) -> None:
    api.say(U, "c1", "Our budget is 50k EUR for the whole project.")
    (pending,) = api.memories(U, status="pending")
    status, confirmed = api.call("PATCH", f"/v1/users/{U}/memories/{pending['memory_id']}", {"status": "active"})
    assert (status, confirmed["status"]) == (200, "active")
    assert "50k" in api.retrieve(U, "What's my budget for the project?")["context"]


def test_forget_by_description(api: ApiClient) -> None:
    remember(api, "I love fado music.")
    remember(api, "I have a dog named Rex.")
    status, body = api.call("POST", f"/v1/users/{U}/forget", {"query": "fado music"})
    assert status == 200
    assert len(body["forgotten"]) == 1
    assert [m["content"] for m in api.memories(U)] == ["I have a dog named Rex."]


def test_profile_patch_becomes_facts(api: ApiClient) -> None:
    api.say(U, "c1", "I live in Lisbon.")
    status, profile = api.call("PATCH", f"/v1/users/{U}/profile",
                               {"location": "Berlin", "custom": {"plan": "pro"}})
    assert status == 200
    assert profile["location"] == "Berlin"
    assert profile["custom"] == {"plan": "pro"}
    contents = [m["content"] for m in api.memories(U)]
    assert "User lives in Berlin." in contents
    assert "User lives in Lisbon." not in contents


def test_memory_off_switch(api: ApiClient) -> None:
    remember(api, "I love fado music.")
    assert api.call("PUT", f"/v1/users/{U}/settings", {"memory_enabled": False})[1]["memory_enabled"] is False
    result = api.retrieve(U, "What music do I love?")
    assert (result["decision"], result["context"]) == ("skip", "")
    api.say(U, "c1", "I have a dog named Rex.")
    assert all("Rex" not in m["content"] for m in api.memories(U))
    assert api.call("GET", f"/v1/users/{U}/settings")[1]["memory_enabled"] is False


def test_export_holds_everything_readable(api: ApiClient) -> None:
    remember(api, "I love fado music.")
    api.retrieve(U, "What music do I love?")
    status, export = api.call("GET", f"/v1/users/{U}/export")
    assert status == 200
    assert [m["content"] for m in export["memories"]] == ["I love fado music."]
    assert {"memory.created", "retrieve", "inject"} <= {e["action"] for e in export["audit"]}
    assert all("fado" not in str(e) for e in export["audit"])  # audit carries ids, never content


def test_erase_leaves_nothing_readable(api: ApiClient, stored) -> None:
    remember(api, "I love fado music and I live in Alfama.")
    api.say(U, "c1", "I have a dog named Rex.", close=False)
    trace = api.retrieve(U, "What music do I love?")["trace_id"]
    assert api.call("DELETE", f"/v1/users/{U}")[0] == 204
    assert api.memories(U, status=None) == []
    assert api.call("GET", f"/v1/traces/{trace}")[0] == 404
    _, export = api.call("GET", f"/v1/users/{U}/export")
    assert export["memories"] == []
    assert export["audit"] == []
    api.call("POST", "/v1/users/someone-else/memories", {"content": "I like tea."})  # the storage is not empty
    raw = stored()
    assert b"Alfama" not in raw
    assert b"Rex" not in raw


def test_content_and_import_limits_are_the_settings(api: ApiClient) -> None:
    status, body = api.call("POST", f"/v1/users/{U}/memories", {"content": "x" * 2001})
    assert (status, body["error"]["details"][0]["field"]) == (422, "content")
    items = [{"content": f"User likes thing {i}."} for i in range(501)]
    status, body = api.call("POST", f"/v1/users/{U}/memories/import", {"items": items})
    assert (status, body["error"]["details"][0]["field"]) == (422, "items")
    assert api.memories(U, status=None) == []  # nothing half-written
