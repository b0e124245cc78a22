"""The one fake OpenAI-compatible chat-completions server, on 127.0.0.1, speaking the real wire format
over HTTP (stdlib), for the extractor, the summariser and the examples alike.

``POST /v1/chat/completions`` with a Bearer key. A ``response_format`` of type ``json_schema`` is
checked against the strict-mode rules OpenAI enforces (every object closed and every property
required); the answer is in ``choices[0].message.content`` as a JSON string, exactly as OpenAI,
Ollama, vLLM, llama.cpp's server and LM Studio answer; errors are ``{"error": {...}}`` with the HTTP
status. What the "model" writes, first found: an answer queued in ``script``; ``answer`` (a JSON
value, or a str written as is); else fake_llm.careless_answer over the user message, validated
against the request's own schema as a strict server's constrained decoding guarantees.

Misbehaving: ``fail`` names one of FAILURES; ``status`` answers that HTTP error; ``refusal`` and
``finish_reason`` go into the message; ``delay`` stalls every answer. Everything received is kept in
``received`` (raw, with headers: what left the adapter), and the well-formed request bodies in
``requests``.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jsonschema

from tests.contract.fake_llm import careless_answer

API_KEY = "sk-test-0123456789abcdef"
FAILURES = ("http_500", "http_429", "timeout", "garbage", "prose", "schema", "refusal", "truncated", "fenced")
Answer = tuple[int, bytes, dict[str, str]]


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    raw: bytes

    @property
    def body(self) -> Any:
        return json.loads(self.raw)


def strict_problems(schema: Any, where: str = "schema") -> list[str]:
    """What OpenAI's structured outputs (strict: true) would refuse in a JSON schema."""
    problems: list[str] = []
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            if schema.get("additionalProperties") is not False:
                problems.append(f"{where}: additionalProperties must be false")
            if sorted(schema.get("required", [])) != sorted(schema.get("properties", {})):
                problems.append(f"{where}: every property must be required")
        for key, value in schema.items():
            problems.extend(strict_problems(value, f"{where}.{key}"))
    elif isinstance(schema, list):
        for i, value in enumerate(schema):
            problems.extend(strict_problems(value, f"{where}[{i}]"))
    return problems


def invalid(body: Any) -> str | None:
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
        if not isinstance(fmt, dict) or fmt.get("type") != "json_schema" or not isinstance(schema.get("name"), str) \
                or not isinstance(schema.get("schema"), dict):
            return "Invalid 'response_format'"
        problems = strict_problems(schema["schema"]) if schema.get("strict") else []
        if problems:
            return f"Invalid schema for response_format: {problems[0]}"
    return None


class FakeOpenAI:
    def __init__(self, api_key: str = API_KEY, delay_seconds: float = 2.0) -> None:
        self.api_key = api_key
        self.received: list[Received] = []
        self.requests: list[dict[str, Any]] = []
        self.fail: str | None = None
        self.script: list[Any] = []
        self.answer: Any = None
        self.status = 200
        self.refusal: str | None = None
        self.finish_reason = "stop"
        self.delay = 0.0
        self.delay_seconds = delay_seconds  # how long "timeout" stalls
        self._release = threading.Event()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                fake.received.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, raw))
                status, body, extra = fake.respond(self.path, self.headers.get("Authorization", ""), raw)
                try:
                    self.send_response(status)
                    for name, value in {"Content-Type": "application/json", **extra}.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (its timeout): nothing to answer

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def close(self) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeOpenAI:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @staticmethod
    def _error(status: int, message: str, kind: str, code: str | None = None) -> Answer:
        body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
        return status, json.dumps(body).encode(), {}

    def respond(self, path: str, authorization: str, raw: bytes) -> Answer:
        if path != "/v1/chat/completions":
            return self._error(404, f"Unknown path {path}", "invalid_request_error", "unknown_url")
        if authorization != f"Bearer {self.api_key}":
            return self._error(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key")
        try:
            request = json.loads(raw)
        except ValueError:
            request = None
        problem = invalid(request) if request is not None else "We could not parse the JSON body of your request."
        if problem:
            return self._error(400, problem, "invalid_request_error")
        self.requests.append(request)
        if self.delay:
            time.sleep(self.delay)
        failed = self._failed()
        if failed is not None:
            return failed
        content: str | None = self._content(request)
        finish, refusal = self.finish_reason, self.refusal
        if self.fail == "prose":
            content = "Sure! Here are the facts I found: the user lives somewhere nice."
        elif self.fail == "schema":
            content = json.dumps({"facts": [{"message": 0, "slot": "favourite_colour", "value": "blue",
                                             "negated": False, "evidence": "blue"}], "forget": []})
        elif self.fail == "refusal":
            refusal = "I'm sorry, I can't help with that."
        elif self.fail == "truncated":
            content, finish = (content or "")[: max(1, len(content or "") // 2)], "length"
        elif self.fail == "fenced":
            content = f"```json\n{content}\n```"
        if refusal:
            content = None
        reply = {
            "id": f"chatcmpl-fake{len(self.received)}", "object": "chat.completion", "created": int(time.time()),
            "model": request["model"], "system_fingerprint": "fp_fake",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content, "refusal": refusal},
                         "logprobs": None, "finish_reason": finish}],
            "usage": {"prompt_tokens": len(raw) // 4, "completion_tokens": len(content or "") // 4,
                      "total_tokens": (len(raw) + len(content or "")) // 4},
        }
        return 200, json.dumps(reply).encode(), {}

    def _failed(self) -> Answer | None:
        """The answers that are no completion at all."""
        if self.fail == "http_500":
            return self._error(500, "The server had an error while processing your request.", "server_error")
        if self.fail == "http_429":
            status, body, _ = self._error(429, "Rate limit reached.", "requests", "rate_limit_exceeded")
            return status, body, {"Retry-After": "1"}
        if self.fail == "garbage":
            return 200, b"<html><body>502 Bad Gateway</body></html>", {"Content-Type": "text/html"}
        if self.fail == "timeout":
            self._release.wait(self.delay_seconds)
        if self.status != 200:
            return self._error(self.status, "The server had an error", "server_error")
        return None

    def _content(self, request: dict[str, Any]) -> str:
        if self.script:
            answer = self.script.pop(0)
        elif self.answer is not None:
            answer = self.answer
        else:
            user = next((m["content"] for m in request["messages"] if m["role"] == "user"), "")
            answer = careless_answer(user)
            fmt = request.get("response_format")
            if fmt is not None:  # what a strict server's constrained decoding guarantees
                jsonschema.validate(answer, fmt["json_schema"]["schema"])
        return answer if isinstance(answer, str) else json.dumps(answer)
