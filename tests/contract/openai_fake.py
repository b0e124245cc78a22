"""A fake OpenAI-compatible chat-completions server over real HTTP (stdlib, 127.0.0.1 only).

It answers as the OpenAI API does: ``POST /v1/chat/completions`` with a bearer key, a
``chat.completion`` object whose ``choices[0].message.content`` holds the JSON the request's
``response_format`` (json_schema, strict) asked for; errors as ``{"error": {...}}`` with the HTTP
status; a refusal in ``message.refusal``; ``finish_reason: "length"`` for a truncated answer. It
checks the request's shape the way the API would (400 for a malformed body) and keeps every request
for the test to read.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeChatCompletions:
    def __init__(self, api_key: str = "sk-test") -> None:
        self.api_key = api_key
        self.requests: list[dict[str, Any]] = []
        self.answer: Any = {"facts": []}  # the JSON the "model" writes, or a str written as is
        self.status = 200  # another status answers an error body
        self.refusal: str | None = None
        self.finish_reason = "stop"
        self.delay = 0.0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep test output clean
                return

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path != "/v1/chat/completions":
                    return self._send(404, {"error": {"message": "Not found", "type": "invalid_request_error"}})
                if self.headers.get("Authorization") != f"Bearer {fake.api_key}":
                    return self._send(401, {"error": {"message": "Incorrect API key provided",
                                                      "type": "invalid_request_error", "code": "invalid_api_key"}})
                try:
                    body = json.loads(raw)
                    problem = _invalid(body)
                except json.JSONDecodeError:
                    problem = "We could not parse the JSON body of your request."
                if problem:
                    return self._send(400, {"error": {"message": problem, "type": "invalid_request_error"}})
                fake.requests.append(body)
                if fake.delay:
                    time.sleep(fake.delay)
                if fake.status != 200:
                    return self._send(fake.status, {"error": {"message": "The server had an error",
                                                              "type": "server_error"}})
                content = fake.answer if isinstance(fake.answer, str) else json.dumps(fake.answer)
                message = {"role": "assistant", "content": None if fake.refusal else content,
                           "refusal": fake.refusal}
                return self._send(200, {
                    "id": "chatcmpl-1", "object": "chat.completion", "created": int(time.time()),
                    "model": body["model"], "system_fingerprint": "fp_test",
                    "choices": [{"index": 0, "message": message, "logprobs": None,
                                 "finish_reason": fake.finish_reason}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}})

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> FakeChatCompletions:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _invalid(body: Any) -> str | None:
    """What the API would answer 400 for, in the parts of the request we use."""
    if not isinstance(body, dict) or not isinstance(body.get("model"), str) or not body["model"]:
        return "you must provide a model parameter"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages or any(
            not isinstance(m, dict) or m.get("role") not in {"system", "user", "assistant", "developer"}
            or not isinstance(m.get("content"), str) for m in messages):
        return "Invalid 'messages'"
    fmt = body.get("response_format")
    if fmt is not None:
        schema = fmt.get("json_schema", {}) if isinstance(fmt, dict) else {}
        if fmt.get("type") != "json_schema" or not isinstance(schema.get("name"), str) \
                or not isinstance(schema.get("schema"), dict):
            return "Invalid 'response_format'"
        if schema.get("strict") and not _strict_ok(schema["schema"]):
            return "Invalid schema for response_format: In strict mode, every object must set " \
                   "'additionalProperties': false and list all its properties in 'required'"
    return None


def _strict_ok(schema: dict[str, Any]) -> bool:
    if schema.get("type") == "object":
        props = schema.get("properties", {})
        if schema.get("additionalProperties") is not False or set(schema.get("required", [])) != set(props):
            return False
        return all(_strict_ok(p) for p in props.values())
    if schema.get("type") == "array":
        return _strict_ok(schema.get("items", {}))
    return True
