"""Implicit feedback (SPEC R7 channel B): corrections and rephrased questions."""

from __future__ import annotations

from tests.conftest import ApiClient

U = "signals-user"


def test_a_correction_decays_the_memory_that_misled_and_stores_the_fix(api: ApiClient) -> None:
    status, created = api.call("POST", f"/v1/users/{U}/memories",
                               {"content": "User's favorite cuisine is Italian food.", "confidence": 0.9})
    assert status == 201
    result = api.retrieve(U, "What cuisine should I cook tonight?", conversation_id="conv-9")
    assert created["memory"]["memory_id"] in [m["memory_id"] for m in result["memories"]]
    api.say(U, "conv-9", "No, that's not right, my favorite cuisine is Japanese food.")
    _, old = api.call("GET", f"/v1/users/{U}/memories/{created['memory']['memory_id']}")
    assert old["status"] == "superseded" or old["confidence"] <= 0.7
    contents = [m["content"] for m in api.memories(U)]
    assert any("Japanese" in c for c in contents)
    assert not any("Italian" in c for c in contents)


def test_a_correction_decays_a_related_memory_in_another_slot(api: ApiClient) -> None:
    status, created = api.call("POST", f"/v1/users/{U}/memories",
                               {"content": "User lives near the beach in Lisbon.", "subject": "home.area"})
    assert status == 201
    result = api.retrieve(U, "Where do I live?", conversation_id="conv-5")
    assert created["memory"]["memory_id"] in [m["memory_id"] for m in result["memories"]]
    api.say(U, "conv-5", "Actually, I live in Porto now.")
    _, old = api.call("GET", f"/v1/users/{U}/memories/{created['memory']['memory_id']}")
    assert old["confidence"] == 0.8  # 1.0 - 0.2


def test_a_rephrased_question_is_recorded_as_a_miss(api: ApiClient) -> None:
    api.call("POST", f"/v1/users/{U}/memories", {"content": "I love fado music."})
    first = api.retrieve(U, "What kind of music do I like?", conversation_id="conv-1")
    api.retrieve(U, "What sort of music do I like?", conversation_id="conv-1")
    api.retrieve(U, "Where is the nearest pharmacy to me?", conversation_id="conv-1")
    _, export = api.call("GET", f"/v1/users/{U}/export")
    misses = [e for e in export["audit"] if e["action"] == "retrieval.miss"]
    assert [e["detail"]["trace_id"] for e in misses] == [first["trace_id"]]
