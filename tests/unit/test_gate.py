import pytest

from mnemo.domain.gate import GateDecision, decide, is_open_ended


@pytest.mark.parametrize("query", ["Hi!", "hello there", "Good morning", "hey"])
def test_greetings_load_the_profile_only(query: str) -> None:
    assert decide(query).decision is GateDecision.PROFILE_ONLY


@pytest.mark.parametrize("query", [
    "What is the capital of France?", "How many bones are in the human body?", "Define entropy.",
    "Who wrote Hamlet?",
])
def test_general_knowledge_skips_retrieval(query: str) -> None:
    assert decide(query).decision is GateDecision.SKIP


@pytest.mark.parametrize("query", [
    "What should I cook for dinner?", "Remind me what we discussed last time", "Where do I live?",
    "Can you recommend a restaurant?", "Write a function that parses a date",
    # counting down to a date the user never names ("how many weeks left" till their deadline)
    "how many weeks left", "How long until the exam?", "when is the deadline",
])
def test_personal_or_personalisable_queries_retrieve(query: str) -> None:
    assert decide(query).decision is GateDecision.RETRIEVE


@pytest.mark.parametrize(("query", "expected"), [
    ("plan my weekend", True),
    ("What I can do tonight to relax?", True),
    ("im bored after school this week, ideas?", True),
    ("whats a fun way to spend my saturday", True),
    ("what can I do with my free time", True),
    ("fix my flaky test", False),
    ("what is a fun fact about owls", False),  # nothing of the user's own
])
def test_an_open_ended_personal_request(query: str, expected: bool) -> None:
    assert is_open_ended(query) is expected
