"""What is derived from memories follows them: forget, delete and edit refresh the summaries consolidation
drew from what they touch, in both homes (issue 11, #5: derived stores)."""

from __future__ import annotations

import json
from datetime import timedelta

from mnemo.bootstrap import Mnemo, run_due_jobs
from mnemo.domain.models import Category, SourceKind, Status
from mnemo.services.writing import NewFact
from tests.conftest import ApiClient

T, U = "tenant_a", "runner"


def runs(service: Mnemo, count: int, place: str = "along the Douro river in Porto", elsewhere: int = 0,
         other: str = "along the canal in Aveiro") -> None:
    """``count`` runs, the last ``elsewhere`` of them in another place, folded into summaries."""
    start = service.ports.clock.now() - timedelta(days=70)
    service.writer.write(T, U, [
        NewFact(content=f"User went for a {5 + i % 4} km run {other if i >= count - elsewhere else place} on day {i}.",
                category=Category.EPISODIC,
                subject=f"event:run_{i}", confidence=0.9, source=SourceKind.EXTRACTED,
                occurred_at=start + timedelta(days=i)) for i in range(count)], resolve_conflicts=False)
    assert service.consolidator.run(T, U).totals.summarised == count


def summaries(service: Mnemo) -> list[str]:
    return [m.content for m in service.ports.memories.all_for_user(T, U)
            if m.category is Category.SUMMARY and m.status is Status.ACTIVE]


def test_forget_wipes_the_summaries_drawn_from_what_it_forgets(service: Mnemo, api: ApiClient) -> None:
    # given runs in Porto folded into summaries that name the Douro
    runs(service, 52)
    assert any("Douro" in s for s in summaries(service))
    assert "Douro" in api.retrieve(U, "Where do I go running?")["context"]
    # when the user forgets Porto
    status, answer = api.call("POST", f"/v1/users/{U}/forget", {"query": "runs in Porto"})
    assert status == 200
    assert len(answer["forgotten"]) >= 52
    # then no summary drawn from those runs reaches the block, the export or any listing
    assert "Douro" not in api.retrieve(U, "Where do I go running?")["context"]
    assert "Douro" not in json.dumps(api.call("GET", f"/v1/users/{U}/export")[1])
    assert summaries(service) == []


def test_deleting_an_episode_summarises_the_rest_again(service: Mnemo, api: ApiClient) -> None:
    runs(service, 52)
    assert "User went for a run river 52 times, about 7 times a week." in summaries(service)
    episode = next(m for m in service.ports.memories.all_for_user(T, U) if m.subject == "event:run_7")
    assert api.call("DELETE", f"/v1/users/{U}/memories/{episode.memory_id}")[0] == 204
    now = summaries(service)
    assert any(s.startswith("User went for a run river 51 times") for s in now), now
    assert not any("52 times" in s for s in now)
    # the old summaries are tombstones without their text; the episodes point to the new ones
    memories = list(service.ports.memories.all_for_user(T, U))
    assert not any("52 times" in m.content for m in memories)
    live = {m.memory_id for m in memories if m.category is Category.SUMMARY and m.status is Status.ACTIVE}
    assert {m.superseded_by for m in memories if m.status is Status.ARCHIVED} <= live


def test_too_few_episodes_left_for_a_summary_come_back_live(service: Mnemo, api: ApiClient) -> None:
    runs(service, 52, elsewhere=7)
    assert len(api.call("POST", f"/v1/users/{U}/forget", {"query": "runs in Porto"})[1]["forgotten"]) == 45
    live = [m for m in service.ports.memories.all_for_user(T, U) if m.status is Status.ACTIVE]
    assert summaries(service) == []
    assert len([m for m in live if m.category is Category.EPISODIC]) == 7


def test_forget_reaches_the_session_state_derived_from_the_turns(service: Mnemo, api: ApiClient) -> None:
    # given a conversation whose session state holds the turns and what the app confirmed
    status, _ = api.call("POST", f"/v1/users/{U}/turns", {"conversation_id": "c1", "messages": [
        {"role": "user", "content": "I go running along the Douro in Porto every morning."},
        {"role": "assistant", "content": "Lovely!"},
        {"role": "user", "content": "Can you suggest a vegetarian dinner?"}]})
    assert status == 202
    assert api.call("POST", f"/v1/users/{U}/conversations/c1/close")[0] == 202
    run_due_jobs(service)  # extracted: the buffer is empty, the session state stays
    assert api.call("PUT", f"/v1/users/{U}/sessions/c1", {"confirmed_facts": ["Runs in Porto", "Vegetarian"]})[0] == 200
    assert "Porto" in json.dumps(api.call("GET", f"/v1/users/{U}/sessions/c1")[1])
    # when the user forgets Porto
    assert api.call("POST", f"/v1/users/{U}/forget", {"query": "Porto"})[0] == 200
    # then the session state no longer says it, and keeps the rest
    state = api.call("GET", f"/v1/users/{U}/sessions/c1")[1]
    assert "Porto" not in json.dumps(state)
    assert state["confirmed_facts"] == ["Vegetarian"]
    assert [t["content"] for t in state["recent_turns"]] == ["Lovely!", "Can you suggest a vegetarian dinner?"]
    assert "Porto" not in json.dumps(api.call("GET", f"/v1/users/{U}/export")[1])


def test_forget_reaches_turns_not_extracted_yet(service: Mnemo, api: ApiClient) -> None:
    # given turns still buffered (extraction has not run) that say the fact
    assert api.call("POST", f"/v1/users/{U}/turns", {"conversation_id": "c2", "messages": [
        {"role": "user", "content": "I live in Porto."}, {"role": "user", "content": "I am a vegetarian."}]})[0] == 202
    # when the user forgets it before the extraction runs
    assert api.call("POST", f"/v1/users/{U}/forget", {"query": "I live in Porto"})[0] == 200
    assert "Porto" not in json.dumps(api.call("GET", f"/v1/users/{U}/export")[1])
    # then the extraction does not teach it again, and keeps the rest
    assert api.call("POST", f"/v1/users/{U}/conversations/c2/close")[0] == 202
    run_due_jobs(service)
    contents = [m["content"] for m in api.memories(U)]
    assert not any("Porto" in c for c in contents), contents
    assert any("vegetarian" in c for c in contents), contents
