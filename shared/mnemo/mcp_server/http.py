"""`/mcp` on `mnemo serve`: the MCP tools over streamable HTTP, inside a gunicorn sync worker.

Why this shape: `mnemo serve` runs WSGI sync workers, one request at a time per process (see
serving.py); the SDK's streamable HTTP transport is an ASGI application. We run it in the SDK's
**stateless mode with JSON responses**: every POST carries one JSON-RPC message and gets its whole
answer in the response body, with no session to keep between requests and no SSE stream held open.
That is exactly a sync worker's request/response, so each `/mcp` request runs the ASGI application
to completion on a short-lived event loop (`anyio.run`) inside the worker, and any worker can serve
any request (no sticky sessions across processes). The alternative, a separate ASGI server (uvicorn)
beside gunicorn with the edge proxying to it, would add a second server to run, a port, and a hop,
for streaming features (server-initiated messages, resumable streams) that memory tools do not use.

Authentication is the edge's: `WsgiApp` refuses `/mcp` without a tenant's key (401) and counts it
against the tenant's quota like any request. The tools then call the API through the Python client
over `httpx2.WSGITransport` onto the worker's own application (without a second quota check),
forwarding the caller's `Authorization`: the same tenant, validation and errors as over HTTP.
The user: the `Mnemo-User-Id` header (or `?user_id=`) binds it and the tools take no user argument;
without it every tool takes `user_id`.
"""

from __future__ import annotations

import contextvars
import logging
import re
import threading
from collections.abc import Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

import anyio
import httpx2
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

from mnemo.client import Client, RetryPolicy
from mnemo.mcp_server.tools import build_server

USER_HEADER = "mnemo-user-id"
_ID = re.compile(r"^[A-Za-z0-9._:@-]{1,128}$")
_client: contextvars.ContextVar[Client] = contextvars.ContextVar("mnemo_mcp_client")
_user: contextvars.ContextVar[str] = contextvars.ContextVar("mnemo_mcp_user")
# the edge has checked the Host (open mode) and the key; the SDK's own DNS-rebinding check would
# refuse the non-loopback hosts a keyed server legitimately answers on
NO_HOST_CHECK = TransportSecuritySettings(enable_dns_rebinding_protection=False)

WsgiCallable = Callable[[dict[str, Any], Callable[..., Any]], Any]


class McpEndpoint:
    """One worker's `/mcp`: ``handle(...)`` answers one HTTP request with (status, headers, body)."""

    def __init__(self, api: WsgiCallable, max_body_bytes: int, timeout_seconds: float = 30.0) -> None:
        # their INFO lines name the in-process request's path, which holds user ids (our access log names the
        # route only), and announce every stateless session: warnings and errors only
        for name in ("httpx2", "mcp"):
            logging.getLogger(name).setLevel(logging.WARNING)
        self._api = api
        self._max_body = max_body_bytes
        self._timeout = timeout_seconds
        self._servers: dict[bool, MCPServer[Any]] = {
            False: build_server(_client.get),
            True: build_server(_client.get, _user.get),
        }
        # each request gives its server a fresh session manager (``streamable_http_app``), kept on the server
        # object: with request threads (`mnemo serve --threads`) two at once would swap each other's; one at a
        # time per worker (an `/mcp` request waits here, never for a resolver: it holds none meanwhile)
        self._one_at_a_time = threading.Lock()

    def user_of(self, headers: dict[str, str], query: str) -> str | None:
        values = parse_qs(query).get("user_id") or [""]
        return headers.get(USER_HEADER) or values[0] or None

    def handle(self, method: str, headers: dict[str, str], body: bytes,
               query: str) -> tuple[int, list[tuple[str, str]], bytes]:
        if method != "POST":
            # GET would open the server-to-client SSE stream and DELETE end a session: stateless, we keep
            # neither, and a held-open stream would tie up a sync worker. The spec's answer is 405.
            return 405, [("Content-Type", "application/json"), ("Allow", "POST")], (
                b'{"error": {"code": "method_not_allowed", "message": "/mcp serves POST only (stateless, JSON '
                b'responses)", "details": null}}')
        user = self.user_of(headers, query)
        if user is not None and not _ID.match(user):
            return 400, [("Content-Type", "application/json")], (
                b'{"error": {"code": "invalid_input", "message": "Mnemo-User-Id: must be 1-128 characters of '
                b'A-Z a-z 0-9 . _ : @ -", "details": [{"field": "mnemo-user-id", "reason": "invalid id"}]}}')
        forwarded = {"Authorization": headers["authorization"]} if headers.get("authorization") else {}
        # no retries in-process: there is no network between the tools and the API here
        client = Client("http://127.0.0.1", transport=httpx2.WSGITransport(self._api),
                        retry=RetryPolicy(max_retries=0), headers=forwarded)
        context = contextvars.copy_context()
        context.run(_client.set, client)
        if user is not None:
            context.run(_user.set, user)
        try:
            with self._one_at_a_time:
                return context.run(anyio.run, self._serve, self._servers[user is not None], method, headers, body,
                                   query)
        finally:
            client.close()

    async def _serve(self, server: MCPServer[Any], method: str, headers: dict[str, str], body: bytes,
                     query: str) -> tuple[int, list[tuple[str, str]], bytes]:
        # a fresh session manager per request: stateless, and run() may be entered once per manager
        app = server.streamable_http_app(streamable_http_path="/mcp", stateless_http=True, json_response=True,
                                         transport_security=NO_HOST_CHECK, max_request_body_size=self._max_body)
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
            "path": "/mcp", "raw_path": b"/mcp", "query_string": query.encode("latin-1"), "root_path": "",
            "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()],
            "client": ("127.0.0.1", 0), "server": ("127.0.0.1", 80),
        }
        delivered = anyio.Event()
        status = 500
        out_headers: list[tuple[str, str]] = []
        chunks: list[bytes] = []

        async def receive() -> dict[str, Any]:
            if not delivered.is_set():
                delivered.set()
                return {"type": "http.request", "body": body, "more_body": False}
            await anyio.sleep_forever()  # the answer is written before a disconnect could matter
            raise AssertionError("unreachable")

        async def send(message: MutableMapping[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                out_headers.extend((k.decode("latin-1"), v.decode("latin-1")) for k, v in message.get("headers", []))
            elif message["type"] == "http.response.body":
                chunks.append(bytes(message.get("body", b"")))

        with anyio.move_on_after(self._timeout) as deadline:
            async with server.session_manager.run():
                await app(scope, receive, send)
        if deadline.cancelled_caught:  # answer before gunicorn's timeout kills the worker
            return 504, [("Content-Type", "application/json")], (
                b'{"error": {"code": "timeout", "message": "the MCP request did not finish in time", "details": null}}')
        return status, out_headers, b"".join(chunks)
