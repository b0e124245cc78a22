"""The MCP server, through the official SDK's own client, over both transports against a real
`mnemo serve`: streamable HTTP at `/mcp` (Bearer-protected) and `mnemo mcp` over stdio."""

from __future__ import annotations

import json
import os
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent

from tests.e2e.conftest import KEYS, Server

TOOLS = {"remember", "recall", "search_memories", "list_memories", "forget", "update_memory", "delete_memory"}


def user() -> str:
    return f"user-{uuid.uuid4().hex[:8]}"


@asynccontextmanager
async def over_http(server: Server, key: str | None = KEYS["tenant_a"],
                    user_id: str | None = None) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    if user_id:
        headers["Mnemo-User-Id"] = user_id
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http, \
            streamable_http_client(server.base + "/mcp", http_client=http) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        yield session


@asynccontextmanager
async def over_stdio(server: Server, key: str = KEYS["tenant_a"],
                     user_id: str | None = None) -> AsyncIterator[ClientSession]:
    env = {**os.environ, "MNEMO_API_KEY": key}
    args = ["-m", "mnemo.cli", "mcp", "--url", server.base] + (["--user-id", user_id] if user_id else [])
    params = StdioServerParameters(command=sys.executable, args=args, env=env)
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


def text(result: CallToolResult) -> str:
    assert result.content
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


async def call(session: ClientSession, tool: str, **arguments: Any) -> Any:
    """A tool's structured result (its text answer for recall); a tool error fails the test."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, text(result)
    if tool == "recall":
        return text(result)
    assert result.structured_content is not None
    return result.structured_content.get("result", result.structured_content)


async def the_memory_loop(session: ClientSession, **who: str) -> None:
    """remember -> recall finds it -> search/list give its id -> update -> forget removes it ->
    delete removes another; ``who`` is {"user_id": ...} when the user is a tool argument."""
    listed = await session.list_tools()
    assert {t.name for t in listed.tools} == TOOLS
    for tool in listed.tools:  # written for a model: when to call it and what it returns
        assert tool.description
        assert len(tool.description) > 120, tool.name
        assert ("user_id" in tool.input_schema["properties"]) is bool(who)

    stored = await call(session, "remember", content="I am allergic to peanuts.", **who)
    assert stored["outcome"] == "created"
    block = await call(session, "recall", query="Suggest a snack for my hike", **who)
    assert "## What you know about this user" in block
    assert "allergic to peanuts" in block

    other = await call(session, "remember", content="I love fado music.", **who)
    found = await call(session, "search_memories", query="fado", **who)
    assert found[0]["memory_id"] == other["memory_id"]
    edited = await call(session, "update_memory", memory_id=other["memory_id"], content="I love jazz music.", **who)
    assert (edited["content"], edited["memory_id"]) == ("I love jazz music.", other["memory_id"])
    assert {m["content"] for m in await call(session, "list_memories", **who)} == {
        "I am allergic to peanuts.", "I love jazz music."}

    forgotten = await call(session, "forget", query="peanuts allergy", **who)
    assert forgotten["forgotten"] == [stored["memory_id"]]
    assert "peanuts" not in await call(session, "recall", query="Suggest a snack for my hike", **who)
    assert (await call(session, "delete_memory", memory_id=other["memory_id"], **who))["deleted"] == other["memory_id"]
    assert await call(session, "list_memories", **who) == []

    refused = await session.call_tool("delete_memory", {"memory_id": other["memory_id"], **who})
    assert refused.is_error
    assert "not_found" in text(refused)  # the API's error code, for the model to act on


def test_http_tools_with_the_user_bound_by_header(server: Server) -> None:
    async def main() -> None:
        async with over_http(server, user_id=user()) as session:
            await the_memory_loop(session)

    anyio.run(main)


def test_http_tools_with_the_user_as_an_argument(server: Server) -> None:
    async def main() -> None:
        async with over_http(server) as session:
            await the_memory_loop(session, user_id=user())

    anyio.run(main)


def test_stdio_tools_through_mnemo_mcp(server: Server) -> None:
    async def main() -> None:
        async with over_stdio(server, user_id=user()) as session:
            await the_memory_loop(session)
        async with over_stdio(server) as session:
            await the_memory_loop(session, user_id=user())

    anyio.run(main)


def test_tenants_are_isolated_over_both_transports(server: Server) -> None:
    u = user()

    async def main() -> None:
        async with over_http(server, user_id=u) as a:
            stored = await call(a, "remember", content="I love fado music.")
        for session_of in (over_http, over_stdio):
            async with session_of(server, key=KEYS["tenant_b"], user_id=u) as b:
                assert await call(b, "list_memories") == []
                assert await call(b, "search_memories", query="fado") == []
                assert "fado" not in await call(b, "recall", query="What music do I love?")
                refused = await b.call_tool("delete_memory", {"memory_id": stored["memory_id"]})
                assert refused.is_error  # another tenant's id is an unknown id
        async with over_http(server, user_id=u) as a:
            assert [m["content"] for m in await call(a, "list_memories")] == ["I love fado music."]

    anyio.run(main)


def test_http_without_a_key_is_401(server: Server) -> None:
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    for key in (None, "wrong-key"):
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        response = httpx2.post(server.base + "/mcp", headers=headers, content=json.dumps(initialize), timeout=30)
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == "Bearer"
        assert response.json()["error"]["code"] == "unauthorized"

    statuses: list[int] = []

    async def record(response: httpx2.Response) -> None:
        statuses.append(response.status_code)

    async def main() -> None:
        async with httpx2.AsyncClient(event_hooks={"response": [record]}) as http, \
                streamable_http_client(server.base + "/mcp", http_client=http) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()

    try:
        anyio.run(main)
    except Exception as exc:  # the SDK's client fails the handshake (inside an exception group)
        assert "error" in repr(exc)  # noqa: PT017
    else:
        raise AssertionError("the SDK's client connected without a key")
    assert statuses == [401]


def test_stdio_with_a_wrong_key_answers_each_tool_with_the_apis_error(server: Server) -> None:
    async def main() -> None:
        async with over_stdio(server, key="wrong-key", user_id=user()) as session:
            refused = await session.call_tool("list_memories", {})
            assert refused.is_error
            assert "unauthorized" in text(refused)

    anyio.run(main)


def test_a_bad_user_header_is_refused(server: Server) -> None:
    response = httpx2.post(server.base + "/mcp", headers={
        "Authorization": f"Bearer {KEYS['tenant_a']}", "Mnemo-User-Id": "no/slashes",
        "Accept": "application/json, text/event-stream", "Content-Type": "application/json"},
        content=b"{}", timeout=30)
    assert response.status_code == 400
    assert response.json()["error"]["details"][0]["field"] == "mnemo-user-id"


def test_only_post_is_served_and_nothing_is_held_open(server: Server) -> None:
    # a GET would open a server-to-client stream, which would hold a sync worker: 405 at once (the spec's
    # answer for a server without that stream), as for DELETE (no session to end)
    headers = {"Authorization": f"Bearer {KEYS['tenant_a']}", "Accept": "application/json, text/event-stream"}
    for method in ("GET", "DELETE"):
        response = httpx2.request(method, server.base + "/mcp", headers=headers, timeout=10)
        assert response.status_code == 405, method
        assert response.headers["allow"] == "POST"
    with httpx2.Client(base_url=server.base, headers=headers, timeout=10) as http:  # and the server still answers
        assert http.get("/health").status_code == 200
