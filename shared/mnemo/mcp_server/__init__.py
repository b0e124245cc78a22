"""mnemo's MCP server (the official `mcp` SDK): the memory tools for MCP clients, over stdio
(`mnemo mcp`, see stdio.py) and streamable HTTP at `/mcp` on the local server (see http.py).

Every tool goes through the Python client (`mnemo.client.Client`), so the MCP tools see exactly
the HTTP API: the same authentication, validation, quotas and errors. Only the client's transport
differs: the network for stdio, the worker's own WSGI application for `/mcp`.
"""
