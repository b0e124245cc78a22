"""A minimal client for OpenAI-compatible chat completions (OpenAI, Ollama, vLLM, llama.cpp's server).

One method: send a system and a user message, demand a JSON object matching a schema (structured
output, ``response_format`` ``json_schema`` in strict mode), return the parsed object. Standard
library HTTP only: the endpoint is one POST, and the Lambda bundle gains nothing. Every failure
(connection, timeout, an HTTP error, a refusal, a truncated or non-JSON answer) comes out as
``BackendUnavailable`` so that callers have one thing to catch and fall back on. Neither the prompt
nor the answer is logged.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from mnemo.errors import BackendUnavailable


class ChatCompletionsClient:
    def __init__(self, base_url: str, model: str, api_key: str = "", timeout_seconds: float = 30.0) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError("base_url must be an http(s) URL such as https://api.openai.com/v1")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self._api_key = api_key
        self._timeout = timeout_seconds

    def structured(self, system: str, user: str, schema_name: str, schema: dict[str, Any],
                   max_tokens: int = 1000) -> dict[str, Any]:
        """The model's answer as a JSON object; raises BackendUnavailable on any failure."""
        body = {
            "model": self.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "temperature": 0,
            "max_tokens": max_tokens,
            "response_format": {"type": "json_schema",
                                "json_schema": {"name": schema_name, "schema": schema, "strict": True}},
        }
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        request = urllib.request.Request(self.url, data=json.dumps(body).encode(), headers=headers,  # noqa: S310 - http(s) checked above
                                         method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:  # noqa: S310 - http(s) only
                payload = json.loads(response.read())
        except urllib.error.HTTPError as exc:
            raise BackendUnavailable(f"chat completions answered HTTP {exc.code}") from exc
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            raise BackendUnavailable(f"chat completions unreachable: {type(exc).__name__}") from exc
        except json.JSONDecodeError as exc:
            raise BackendUnavailable("chat completions answered something that is not JSON") from exc
        return _content(payload)


def _content(payload: Any) -> dict[str, Any]:
    try:
        choice = payload["choices"][0]
        message = choice["message"]
    except (KeyError, IndexError, TypeError) as exc:
        raise BackendUnavailable("chat completions answer without a choice") from exc
    if message.get("refusal"):
        raise BackendUnavailable("the model refused")
    if choice.get("finish_reason") not in (None, "stop"):
        raise BackendUnavailable(f"the answer stopped early: {choice.get('finish_reason')}")
    try:
        data = json.loads(message.get("content") or "")
    except (json.JSONDecodeError, TypeError) as exc:
        raise BackendUnavailable("the model's answer is not JSON") from exc
    if not isinstance(data, dict):
        raise BackendUnavailable("the model's answer is not a JSON object")
    return data
