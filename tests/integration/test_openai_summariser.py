"""The LLM summariser over a real HTTP chat-completions endpoint (a fake speaking OpenAI's wire format).

What the model says is kept only where its source episodes support it; whenever the endpoint fails
(an error status, a timeout, a refusal, a truncated or malformed answer, nobody listening) or too
little of its answer holds, the offline summariser answers and consolidation carries on.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from mnemo.adapters.openai_chat import ChatCompletionsClient
from mnemo.adapters.openai_summariser import OpenAICompatibleSummariser
from mnemo.bootstrap import build_local
from mnemo.domain.models import Category, Memory, SourceKind, Status
from mnemo.errors import ConfigurationError
from mnemo.services.writing import NewFact
from mnemo.settings import Settings
from tests.contract.openai_fake import FakeOpenAI

WHEN = datetime(2026, 1, 5, 7, 0, tzinfo=UTC)
MODEL = "gpt-4o-mini"


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def runs(count: int = 8) -> tuple[list[Memory], np.ndarray]:
    memories = [Memory(memory_id=f"m{i}", tenant_id="t", user_id="u", category=Category.EPISODIC,
                       subject=f"event:{i}", content=f"User ran {5 + i} km along the river.", confidence=0.9,
                       created_at=WHEN + timedelta(days=3 * i), updated_at=WHEN, last_confirmed_at=WHEN)
                for i in range(count)]
    return memories, np.eye(count, 384, dtype=np.float32)


def summariser(fake: FakeOpenAI, timeout: float = 5.0) -> OpenAICompatibleSummariser:
    return OpenAICompatibleSummariser(ChatCompletionsClient(fake.base_url, MODEL, fake.api_key, timeout))


EVERY = [f"e{i}" for i in range(1, 9)]
GOOD = {"facts": [
    {"text": "User ran 8 times between 5 January 2026 and 26 January 2026.", "sources": EVERY},
    {"text": "User's runs were 5 to 12 km, all along the river.", "sources": EVERY},
    {"text": "User ran a half marathon with Marta.", "sources": ["e1"]},  # nothing says so: dropped
    {"text": "User's runs have got longer: 5 km at first, 12 km by the end.", "sources": EVERY},
    {"text": "User ran 8 times.", "sources": ["e1", "e2"]},  # a count its sources do not bear out: dropped
]}


def test_the_model_is_asked_for_structured_facts_and_only_supported_ones_are_kept(fake) -> None:
    fake.answer = GOOD
    memories, vectors = runs()
    facts = summariser(fake).summarise(memories, vectors)
    assert [f.text for f in facts] == [GOOD["facts"][0]["text"], GOOD["facts"][1]["text"], GOOD["facts"][3]["text"]]
    assert all(f.sources == tuple(f"m{i}" for i in range(8)) for f in facts)  # memory ids, not prompt ids
    assert len({f.kind for f in facts}) == 3
    # the request on the wire: the model, a system prompt, the episodes with short ids and dates, strict schema
    (request,) = fake.requests
    assert request["model"] == MODEL
    assert request["temperature"] == 0
    assert [m["role"] for m in request["messages"]] == ["system", "user"]
    assert "[e1] 2026-01-05: User ran 5 km along the river." in request["messages"][1]["content"]
    schema = request["response_format"]["json_schema"]
    assert (request["response_format"]["type"], schema["strict"]) == ("json_schema", True)
    assert schema["schema"]["properties"]["facts"]["items"]["required"] == ["text", "sources"]


def test_a_fenced_answer_is_the_models_answer_for_the_summariser_too(fake) -> None:
    """One chat-completions client serves the extractor and the summariser: what one reads (here a local
    server's markdown fence around the JSON), the other reads as well."""
    fake.answer = f"```json\n{json.dumps(GOOD)}\n```"
    memories, vectors = runs()
    llm = summariser(fake)
    facts = llm.summarise(memories, vectors)
    assert llm.fallbacks == 0
    assert [f.text for f in facts] == [GOOD["facts"][0]["text"], GOOD["facts"][1]["text"], GOOD["facts"][3]["text"]]


@pytest.mark.parametrize("failure", ["status-503", "status-429", "not-json", "refusal", "truncated", "timeout",
                                     "unsupported"])
def test_on_any_failure_the_offline_summariser_answers(fake, failure: str) -> None:
    memories, vectors = runs()
    fake.answer = GOOD
    if failure.startswith("status"):
        fake.status = int(failure.split("-")[1])
    elif failure == "not-json":
        fake.answer = "Here are your facts: User runs."
    elif failure == "refusal":
        fake.refusal = "I can't help with that."
    elif failure == "truncated":
        fake.finish_reason = "length"
    elif failure == "timeout":
        fake.delay = 1.0
    elif failure == "unsupported":  # fewer than three facts hold: the answer is not trusted
        fake.answer = {"facts": [GOOD["facts"][0], GOOD["facts"][2], GOOD["facts"][4]]}
    llm = summariser(fake, timeout=0.3)
    facts = llm.summarise(memories, vectors)
    assert llm.fallbacks == 1
    assert [f.kind for f in facts][:2] == ["habit", "span"]  # the offline summariser's facts
    assert facts[0].text == "User ran 8 times, about 2.5 times a week."


def test_nobody_listening_is_a_failure_too() -> None:
    with FakeOpenAI() as gone:
        url = gone.base_url
    llm = OpenAICompatibleSummariser(ChatCompletionsClient(url, MODEL, "sk-test", 0.5))
    memories, vectors = runs()
    assert llm.summarise(memories, vectors)[0].kind == "habit"
    assert llm.fallbacks == 1


def test_a_wrong_key_is_a_failure_not_a_crash(fake) -> None:
    llm = OpenAICompatibleSummariser(ChatCompletionsClient(fake.base_url, MODEL, "sk-wrong", 2.0))
    memories, vectors = runs()
    assert llm.summarise(memories, vectors)[0].kind == "habit"
    assert fake.requests == []


def consolidate_runs(tmp_path, fake: FakeOpenAI, embedder, clock) -> list[Memory]:
    settings = Settings(data_dir=tmp_path, summariser="openai", openai_base_url=fake.base_url,
                        openai_model=MODEL, openai_api_key=fake.api_key, openai_timeout_seconds=5)
    service = build_local(settings, clock=clock, embedder=embedder)
    try:
        start = clock.now() - timedelta(days=80)
        service.writer.write("t", "u", [NewFact(
            content=f"User went for a {5 + i % 6} km run along the river on day {i}.", category=Category.EPISODIC,
            subject=f"event:run_{i}", confidence=0.9, source=SourceKind.EXTRACTED,
            occurred_at=start + timedelta(days=i)) for i in range(55)], resolve_conflicts=False)
        service.consolidator.run("t")
        return [m for m in service.ports.memories.all_for_user("t", "u") if m.category is Category.SUMMARY]
    finally:
        service.close()


def test_consolidation_writes_the_models_summaries_with_their_provenance(tmp_path, fake, embedder, clock) -> None:
    def answer_from_the_prompt() -> None:
        # the fake "model" reads nothing; the test scripts an answer citing the episodes it was shown
        shown = [f"e{i}" for i in range(1, 56)]
        fake.answer = {"facts": [
            {"text": "User went for a run along the river 55 times.", "sources": shown},
            {"text": "User's runs were 5 to 10 km.", "sources": shown},
            {"text": "User ran about 7 times a week.", "sources": shown}]}

    answer_from_the_prompt()
    summaries = consolidate_runs(tmp_path, fake, embedder, clock)
    assert sorted(m.content for m in summaries) == sorted(f["text"] for f in fake.answer["facts"])
    assert {m.provenance.extractor for m in summaries} == {"openai-summariser"}
    assert all(len(m.provenance.memory_ids) == 55 for m in summaries)
    assert json.dumps(fake.requests[0]).count("along the river") == 55


def test_consolidation_goes_on_offline_when_the_endpoint_fails(tmp_path, fake, embedder, clock) -> None:
    fake.status = 500
    summaries = consolidate_runs(tmp_path, fake, embedder, clock)
    assert {m.provenance.extractor for m in summaries} == {"rule-based-summariser"}
    assert 3 <= len(summaries) <= 5
    assert all(m.status is Status.ACTIVE for m in summaries)


def test_settings_name_the_endpoint(tmp_path) -> None:
    with pytest.raises(ConfigurationError, match="MNEMO_OPENAI_BASE_URL"):
        build_local(Settings(data_dir=tmp_path, summariser="openai"))
    with pytest.raises(ConfigurationError, match="http"):
        build_local(Settings(data_dir=tmp_path, summariser="openai", openai_base_url="file:///etc/passwd",
                             openai_model=MODEL))
    assert "sk-secret" not in repr(Settings(openai_api_key="sk-secret"))
