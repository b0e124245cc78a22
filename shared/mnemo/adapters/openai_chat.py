"""The one client for OpenAI-compatible chat completions (OpenAI, Ollama, vLLM, llama.cpp's server,
LM Studio), shared by the extractor and the summariser.

One POST to ``{base_url}/chat/completions``: a system and a user message, and a JSON schema the
answer must match (``response_format`` ``json_schema`` in strict mode, which all of those servers
honour). The answer comes back parsed (a markdown fence some local servers add is taken off). Every
failure (connection, timeout, an HTTP error, a refusal, a truncated or non-JSON answer) is a
``ChatFailed``: a ``BackendUnavailable`` that callers fall back on, with a short ``reason`` for the
fallback counters. HTTP is urllib3: already in every bundle (botocore's own client), pooled,
thread-safe, explicit timeouts; no retries here, since the caller's fallback is the retry. Neither
the prompt nor the answer is logged.
"""

from __future__ import annotations

import json
import re
from typing import Any

import urllib3

from mnemo.errors import BackendUnavailable

# some local servers wrap the JSON in a markdown fence even under a schema
_FENCE = re.compile(r"^\s*```(?:json)?\s*(?P<body>.*?)\s*```\s*$", re.DOTALL)


class ChatFailed(BackendUnavailable):
    """The endpoint gave no usable answer; ``reason`` is one of connection, timeout, http_4xx,
    http_5xx, refusal, invalid_json (no user content in it)."""

    def __init__(self, reason: str, status: int | None = None, detail: str = "") -> None:
        super().__init__(f"chat completions failed: {detail or reason}")
        self.reason = reason
        self.status = status


class ChatCompletionsClient:
    def __init__(self, base_url: str, model: str, api_key: str = "", timeout_seconds: float = 30.0, *,
                 pool: urllib3.PoolManager | None = None) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError("base_url must be an http(s) URL such as https://api.openai.com/v1")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self._timeout = urllib3.Timeout(total=timeout_seconds, connect=min(timeout_seconds, 5.0))
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if api_key:  # Ollama and llama.cpp need none; never an empty "Bearer " header
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._pool = pool or urllib3.PoolManager(num_pools=2, maxsize=4)

    def answer(self, system: str, user: str, schema_name: str, schema: dict[str, Any],
               max_tokens: int = 1000) -> Any:
        """The model's answer as parsed JSON (not yet checked against the schema); ChatFailed on any failure."""
        body = {
            "model": self.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "temperature": 0,
            "max_tokens": max_tokens,
            "response_format": {"type": "json_schema",
                                "json_schema": {"name": schema_name, "strict": True, "schema": schema}},
        }
        try:
            response = self._pool.request("POST", self.url, body=json.dumps(body).encode(), headers=self._headers,
                                          timeout=self._timeout, retries=False, redirect=False)
        except urllib3.exceptions.NewConnectionError as exc:  # refused or unresolved (a TimeoutError subclass)
            raise ChatFailed("connection") from exc
        except urllib3.exceptions.TimeoutError as exc:
            raise ChatFailed("timeout") from exc
        except urllib3.exceptions.HTTPError as exc:
            raise ChatFailed("connection") from exc
        if response.status != 200:
            raise ChatFailed(f"http_{response.status // 100}xx", response.status, f"HTTP {response.status}")
        return _content(response.data, response.status)

    def structured(self, system: str, user: str, schema_name: str, schema: dict[str, Any],
                   max_tokens: int = 1000) -> dict[str, Any]:
        """The model's answer as a JSON object; ChatFailed on any failure."""
        data = self.answer(system, user, schema_name, schema, max_tokens)
        if not isinstance(data, dict):
            raise ChatFailed("invalid_json", 200, "the model's answer is not a JSON object")
        return data


def _content(raw: bytes, status: int) -> Any:
    try:
        choice = json.loads(raw)["choices"][0]
        message = choice["message"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise ChatFailed("invalid_json", status, "an answer without a choice") from exc
    if not isinstance(message, dict) or message.get("refusal"):
        raise ChatFailed("refusal", status, "the model refused")
    if choice.get("finish_reason") not in (None, "stop"):  # cut off ("length"): never a whole answer
        raise ChatFailed("invalid_json", status, f"the answer stopped early: {choice.get('finish_reason')}")
    content = message.get("content")
    if not isinstance(content, str):
        raise ChatFailed("invalid_json", status, "the answer has no text")
    fenced = _FENCE.match(content)
    try:
        return json.loads(fenced.group("body") if fenced else content)
    except ValueError as exc:
        raise ChatFailed("invalid_json", status, "the model's answer is not JSON") from exc
