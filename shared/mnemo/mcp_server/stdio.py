"""`mnemo mcp`: the memory tools over stdio, for desktop and IDE MCP clients.

It talks to a running mnemo server (`make run`, or the AWS API) through the Python client rather
than opening the data directory itself: `mnemo serve` holds that directory (one server per data
directory, with its extraction worker and schedule), and a client process started by an IDE should
neither compete for it nor run background jobs of its own. So the stdio server is a thin,
stateless bridge, and the same binary serves a local and a deployed mnemo.
"""

from __future__ import annotations

from mnemo.client import Client
from mnemo.mcp_server.tools import build_server


def run_stdio(url: str, api_key: str | None, user_id: str | None) -> None:
    """Serve until the client closes stdin. With ``user_id`` the tools are bound to that user."""
    with Client(url, api_key) as client:
        server = build_server(lambda: client, (lambda: user_id) if user_id else None)
        server.run("stdio")
