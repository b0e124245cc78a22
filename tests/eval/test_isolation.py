"""Isolation under random interleavings (SPEC R10): two tenants, several users each, the same user
ids in both tenants. Whatever sequence of creates, imports, turns, searches, retrievals, feedback,
forgets, edits, deletes and erasures runs, no response carries another tenant's or user's data, and
another owner's ids behave exactly like ids that do not exist. Runs in both homes."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, invariant, rule, run_state_machine_as_test

from mnemo.bootstrap import Mnemo, run_due_jobs
from tests.conftest import ApiClient

TENANTS = ("tenant_a", "tenant_b")
USERS = ("u1", "u2", "u3")
OWNERS = [(t, u) for t in TENANTS for u in USERS]
TOPICS = ["green tea", "hiking", "jazz", "sourdough", "chess", "kayaking", "ramen", "poetry"]
UNKNOWN_MEMORY = "00000000-0000-4000-8000-000000000000"
UNKNOWN_TRACE = "0" * 32


def marker(owner: tuple[str, str]) -> str:
    """A word only this owner's data contains."""
    return f"zorb{owner[0][-1]}{owner[1]}x"


class Isolation(RuleBasedStateMachine):
    memories = Bundle("memories")
    traces = Bundle("traces")

    def __init__(self, service: Mnemo) -> None:
        super().__init__()
        self.clients = {t: ApiClient(service, t) for t in TENANTS}
        self.service = service
        self.owner_of: dict[str, tuple[str, str]] = {}  # memory and trace ids -> who created them
        self.erased: set[str] = set()  # trace ids whose owner was erased since

    # -- helpers
    def call(self, owner: tuple[str, str], method: str, path: str, body: Any = None) -> tuple[int, Any]:
        status, answer = self.clients[owner[0]].call(method, path.format(u=owner[1]), body)
        assert status < 500, (method, path, answer)
        self.no_foreign_data(owner, answer)
        return status, answer

    def no_foreign_data(self, owner: tuple[str, str], answer: Any) -> None:
        text = json.dumps(answer)
        for other in OWNERS:
            if other != owner:
                assert marker(other) not in text, (owner, other, text[:500])
        for memory_id, creator in self.owner_of.items():
            if creator != owner:
                assert memory_id not in text, (owner, creator, memory_id)

    def fact(self, owner: tuple[str, str], topic: str) -> str:
        return f"I really enjoy {topic} with my friend {marker(owner)}."

    # -- writes
    @rule(target=memories, owner=st.sampled_from(OWNERS), topic=st.sampled_from(TOPICS))
    def remember(self, owner: tuple[str, str], topic: str) -> tuple[tuple[str, str], str]:
        status, body = self.call(owner, "POST", "/v1/users/{u}/memories", {"content": self.fact(owner, topic)})
        assert status == 201, body
        self.owner_of[body["memory"]["memory_id"]] = owner
        return owner, body["memory"]["memory_id"]

    @rule(owner=st.sampled_from(OWNERS), topics=st.lists(st.sampled_from(TOPICS), min_size=1, max_size=3))
    def import_(self, owner: tuple[str, str], topics: list[str]) -> None:
        status, body = self.call(owner, "POST", "/v1/users/{u}/memories/import",
                                 {"items": [{"content": f"User collects {t} notes, tagged {marker(owner)}."}
                                            for t in topics]})
        assert status == 200, body
        for result in body["results"]:
            if result.get("memory_id"):
                self.owner_of[result["memory_id"]] = owner

    @rule(owner=st.sampled_from(OWNERS), topic=st.sampled_from(TOPICS))
    def converse(self, owner: tuple[str, str], topic: str) -> None:
        status, _ = self.call(owner, "POST", "/v1/users/{u}/turns", {"conversation_id": "c1", "messages": [
            {"role": "user", "content": f"My favourite hobby is {topic}. My nickname is {marker(owner)}."}]})
        assert status == 202
        assert self.call(owner, "POST", "/v1/users/{u}/conversations/c1/close")[0] == 202
        run_due_jobs(self.service)
        for item in self.call(owner, "GET", "/v1/users/{u}/memories?limit=200&status=active")[1]["items"]:
            self.owner_of.setdefault(item["memory_id"], owner)

    # -- reads
    @rule(target=traces, owner=st.sampled_from(OWNERS), topic=st.sampled_from(TOPICS))
    def retrieve(self, owner: tuple[str, str], topic: str) -> tuple[tuple[str, str], str]:
        status, body = self.call(owner, "POST", "/v1/users/{u}/retrieve", {"query": f"what about {topic}?"})
        assert status == 200
        self.owner_of[body["trace_id"]] = owner
        return owner, body["trace_id"]

    @rule(owner=st.sampled_from(OWNERS), topic=st.sampled_from(TOPICS))
    def search(self, owner: tuple[str, str], topic: str) -> None:
        status, body = self.call(owner, "POST", "/v1/users/{u}/search", {"query": topic, "top_k": 50})
        assert status == 200
        assert all(self.owner_of.get(i["memory_id"], owner) == owner for i in body["items"])

    @rule(owner=st.sampled_from(OWNERS))
    def export(self, owner: tuple[str, str]) -> None:
        assert self.call(owner, "GET", "/v1/users/{u}/export")[0] == 200

    # -- someone else's ids behave like ids that do not exist
    @rule(owner=st.sampled_from(OWNERS), memory=memories)
    def read_any_memory(self, owner: tuple[str, str], memory: tuple[tuple[str, str], str]) -> None:
        creator, memory_id = memory
        status, _ = self.call(owner, "GET", f"/v1/users/{{u}}/memories/{memory_id}")
        unknown, _ = self.call(owner, "GET", f"/v1/users/{{u}}/memories/{UNKNOWN_MEMORY}")
        if creator != owner:
            assert status == unknown == 404

    @rule(owner=st.sampled_from(OWNERS), memory=memories)
    def edit_any_memory(self, owner: tuple[str, str], memory: tuple[tuple[str, str], str]) -> None:
        creator, memory_id = memory
        status, _ = self.call(owner, "PATCH", f"/v1/users/{{u}}/memories/{memory_id}", {"status": "disabled"})
        if creator != owner:
            assert status == 404
            assert self.call(owner, "DELETE", f"/v1/users/{{u}}/memories/{memory_id}")[0] == 404
            before = self.call(creator, "GET", f"/v1/users/{{u}}/memories/{memory_id}")
            assert before[0] in (200, 404)  # the creator may have erased it; nothing else touched it
            if before[0] == 200:
                assert before[1]["status"] != "deleted"

    @rule(owner=st.sampled_from(OWNERS), trace=traces, rating=st.sampled_from(["up", "down"]))
    def feedback_any_trace(self, owner: tuple[str, str], trace: tuple[tuple[str, str], str], rating: str) -> None:
        creator, trace_id = trace
        status, _ = self.call(owner, "POST", "/v1/users/{u}/feedback", {"trace_id": trace_id, "rating": rating})
        unknown, _ = self.call(owner, "POST", "/v1/users/{u}/feedback", {"trace_id": UNKNOWN_TRACE, "rating": rating})
        if creator != owner:
            assert status == unknown == 404
        if creator[0] != owner[0]:  # traces are the tenant's (GET /v1/traces has no user): none of another's
            assert self.call(owner, "GET", f"/v1/traces/{trace_id}")[0] == 404
        else:
            expected = 404 if trace_id in self.erased else 200
            assert self.call(creator, "GET", f"/v1/traces/{trace_id}")[0] == expected

    # -- forgetting and erasure
    @rule(owner=st.sampled_from(OWNERS), topic=st.sampled_from(TOPICS))
    def forget(self, owner: tuple[str, str], topic: str) -> None:
        status, body = self.call(owner, "POST", "/v1/users/{u}/forget", {"query": topic})
        assert status == 200
        assert all(self.owner_of.get(i, owner) == owner for i in body["forgotten"])

    @rule(memory=consumes(memories))
    def erase_owner(self, memory: tuple[tuple[str, str], str]) -> None:
        owner, _ = memory
        others = {o: self.call(o, "GET", "/v1/users/{u}/memories?limit=200&status=active")[1]["items"]
                  for o in OWNERS if o != owner}
        assert self.call(owner, "DELETE", "/v1/users/{u}")[0] in (202, 204)
        self.erased |= {i for i, o in self.owner_of.items() if o == owner}
        assert self.call(owner, "GET", "/v1/users/{u}/memories?limit=200")[1]["items"] == []
        for other, items in others.items():  # nobody else lost anything
            after = self.call(other, "GET", "/v1/users/{u}/memories?limit=200&status=active")[1]["items"]
            assert {i["memory_id"] for i in items} <= {i["memory_id"] for i in after}

    @invariant()
    def listings_hold_only_their_owners_memories(self) -> None:
        for owner in OWNERS[::2]:
            items = self.call(owner, "GET", "/v1/users/{u}/memories?limit=200")[1]["items"]
            assert all(self.owner_of.get(i["memory_id"], owner) == owner for i in items)


def test_no_interleaving_leaks_across_tenants_or_users(service: Mnemo) -> None:
    assert len({marker(o) for o in OWNERS}) == len(OWNERS)
    run_state_machine_as_test(lambda: Isolation(service), settings=settings(
        max_examples=8, stateful_step_count=25, deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]))
