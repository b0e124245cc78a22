"""The examples in examples/ run as a developer would run them: against a real `mnemo serve` and an
OpenAI-compatible model (the HTTP fake of tests/contract, which keeps what it was sent)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest

from mnemo.client import Client
from tests.contract.openai_fake import FakeOpenAI
from tests.e2e.conftest import KEYS, Server, wait_for

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
def user() -> str:
    return f"user-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def model() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(api_key="sk-example") as fake:
        fake.answer = "Happy to help!"
        yield fake


def run_example(name: str, server: Server, model: FakeOpenAI, lines: list[str],
                *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENAI_BASE_URL": model.base_url, "OPENAI_API_KEY": "sk-example",
           "OPENAI_MODEL": "fake-model", "MNEMO_URL": server.base, "MNEMO_API_KEY": KEYS["tenant_a"]}
    result = subprocess.run([sys.executable, str(EXAMPLES / name), *args], input="".join(f"{x}\n" for x in lines),
                            capture_output=True, text=True, timeout=120, env=env, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def system_prompt(request: dict[str, Any]) -> str:
    first = request["messages"][0]
    assert first["role"] == "system"
    return str(first["content"])


def test_the_chat_loop_remembers_across_conversations(server: Server, client: Client,
                                                      model: FakeOpenAI) -> None:
    u = user()
    first = run_example("chat_loop.py", server, model, ["Hi! I'm vegetarian and I live in Lisbon."], "--user", u)
    assert first.stdout.strip() == "assistant: Happy to help!"
    assert "What you know about this user" not in system_prompt(model.requests[-1])  # nothing known yet
    # the turns were posted and the conversation closed: extraction runs
    learned = wait_for(lambda: [m.content for m in client.list_memories(u).items if "vegetarian" in m.content], 30.0)
    assert learned == ["User's diet: vegetarian."]

    run_example("chat_loop.py", server, model, ["Can you suggest a dinner recipe for tonight?"], "--user", u)
    prompt = system_prompt(model.requests[-1])
    assert "## What you know about this user" in prompt  # retrieve's block went into the prompt
    assert "vegetarian" in prompt
    assert model.requests[-1]["messages"][-1] == {"role": "user",
                                                   "content": "Can you suggest a dinner recipe for tonight?"}


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses resolve their annotations through sys.modules
    spec.loader.exec_module(module)
    return module


def test_the_langgraph_agent_recalls_what_it_was_told_to_remember(server: Server, client: Client,
                                                                  model: FakeOpenAI) -> None:
    u = user()
    run_example("langgraph_memory.py", server, model, ["remember I am allergic to peanuts"], "--user", u)
    stored = client.list_memories(u).items
    assert [m.content for m in stored] == ["I am allergic to peanuts"]
    assert "langgraph_key" in stored[0].metadata

    result = run_example("langgraph_memory.py", server, model, ["Suggest a snack for my hike"], "--user", u)
    assert result.stdout.strip() == "assistant: Happy to help!"
    assert '- "I am allergic to peanuts"' in system_prompt(model.requests[-1])  # recalled in a new thread


def test_the_mnemo_store_honours_the_basestore_operations(server: Server, client: Client) -> None:
    from langgraph.store.base import InvalidNamespaceError

    example = load("langgraph_memory")
    store = example.MnemoStore(client)
    u = user()
    namespace = ("memories", u)

    store.put(namespace, "food", {"content": "I love fado music.", "source": "settings-page"})
    item = store.get(namespace, "food")
    assert item is not None
    assert (item.key, item.value["content"], item.value["source"]) == ("food", "I love fado music.", "settings-page")
    assert store.get(namespace, "nothing-here") is None

    store.put(namespace, "food", {"content": "I love jazz music."})  # the same key: a new version
    memories = client.list_memories(u, status="active").items
    assert [(m.content, m.version) for m in memories] == [("I love jazz music.", 2)]

    found = store.search(namespace, query="jazz")
    assert [(i.key, i.value["content"]) for i in found] == [("food", "I love jazz music.")]
    assert found[0].score is not None
    assert found[0].score > 0
    assert [i.key for i in store.search(namespace)] == ["food"]
    assert store.search(namespace, filter={"category": "nothing"}) == []

    # facts mnemo extracted from conversations are in the store too, under their memory id
    client.add_turns(u, "c1", [{"role": "user", "content": "I have a dog named Rex."}])
    client.close_conversation(u, "c1")
    dog = wait_for(lambda: [i for i in store.search(namespace, query="dog") if "Rex" in i.value["content"]], 30.0)
    assert store.get(namespace, dog[0].key) is not None

    async def asynchronously() -> Any:
        return await store.aget(namespace, "food")

    assert anyio.run(asynchronously).value["content"] == "I love jazz music."
    store.delete(namespace, "food")
    assert store.get(namespace, "food") is None
    assert all(m.content != "I love jazz music." for m in client.list_memories(u, status="active").items)

    with pytest.raises(InvalidNamespaceError):
        store.put(("documents", u), "x", {"content": "y"})
    with pytest.raises(ValueError, match="content"):
        store.put(namespace, "x", {"text": "no content field"})
    with Client(server.base, api_key=KEYS["tenant_b"]) as other:
        assert example.MnemoStore(other).search(namespace, query="dog") == []  # another tenant's user
