"""LLM extraction through any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, vLLM,
llama.cpp's server, LM Studio), for either home.

One POST to ``{base_url}/chat/completions`` with the slot vocabulary as a strict JSON schema
(``response_format: json_schema``, which all of those servers honour, so no tool-call variant is
needed). Secrets are redacted before the call, and the answer passes the same checks and screening
as Bedrock's (domain/extraction/llm.py). On an HTTP error, a timeout, a refusal, invalid JSON or a
schema violation the fallback extractor (the learned one) answers, and EXTRACTOR_FALLBACKS counts
it by reason. HTTP is urllib3: already in every bundle (botocore's own client) and a pooled,
thread-safe client with explicit timeouts; no retries here, since the fallback is the retry.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import urllib3

from mnemo.domain.extraction import Candidate, Extraction
from mnemo.domain.extraction.llm import (
    FACT_SCHEMA,
    PROMPT_VERSION,
    SYSTEM,
    TOOL_NAME,
    SchemaViolation,
    extraction,
    parse_answer,
    prompt,
)
from mnemo.domain.models import Message
from mnemo.fallbacks import EXTRACTOR_FALLBACKS, FallbackCounter
from mnemo.ports import Extractor

log = logging.getLogger("mnemo.openai")

# some local servers wrap the JSON in a markdown fence even under a schema
_FENCE = re.compile(r"^\s*```(?:json)?\s*(?P<body>.*?)\s*```\s*$", re.DOTALL)


class _Failed(Exception):
    def __init__(self, reason: str, status: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status


class OpenAIExtractor:
    name = "openai"

    def __init__(self, base_url: str, model: str, api_key: str, fallback: Extractor, *,
                 timeout_seconds: float = 30.0, max_tokens: int = 1500,
                 counter: FallbackCounter = EXTRACTOR_FALLBACKS, pool: urllib3.PoolManager | None = None) -> None:
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._model = model
        self._fallback = fallback
        self._max_tokens = max_tokens
        self._counter = counter
        self._timeout = urllib3.Timeout(total=timeout_seconds, connect=min(timeout_seconds, 5.0))
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if api_key:  # Ollama and llama.cpp need none; never an empty "Bearer " header
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._pool = pool or urllib3.PoolManager(num_pools=2, maxsize=4)
        self.version = f"{PROMPT_VERSION}+{model}"

    def classify(self, statement: str, when: datetime) -> Candidate | None:
        """One statement's slot: the fallback's answer (no model call on the write path of an import)."""
        return self._fallback.classify(statement, when)

    def extract(self, messages: Sequence[Message]) -> Extraction:
        sent = prompt(messages)
        if not sent.has_user_words:
            return Extraction(redacted_kinds=sent.redacted_kinds)  # nothing the user said: no call to make
        try:
            answer = parse_answer(self._complete(sent.user_text))
        except _Failed as exc:
            return self._fall_back(messages, exc.reason, exc.status)
        except SchemaViolation:
            return self._fall_back(messages, "schema", None)
        return extraction(answer, sent)

    def _fall_back(self, messages: Sequence[Message], reason: str, status: int | None) -> Extraction:
        self._counter.record(self.name, reason)
        # no user content and no answer text here: only what failed
        log.warning("OpenAI-compatible extraction failed; the fallback extractor answers",
                    extra={"reason": reason, "status": status, "model": self._model})
        return self._fallback.extract(messages)

    def _complete(self, text: str) -> Any:
        """The model's answer as parsed JSON (not yet checked against the schema)."""
        body = {
            "model": self._model,
            "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}],
            "temperature": 0,
            "max_tokens": self._max_tokens,
            "response_format": {"type": "json_schema", "json_schema": {
                "name": TOOL_NAME, "strict": True, "schema": FACT_SCHEMA}},
        }
        try:
            response = self._pool.request("POST", self._url, body=json.dumps(body).encode(), headers=self._headers,
                                          timeout=self._timeout, retries=False, redirect=False)
        except urllib3.exceptions.NewConnectionError as exc:  # refused or unresolved (a TimeoutError subclass)
            raise _Failed("connection") from exc
        except urllib3.exceptions.TimeoutError as exc:
            raise _Failed("timeout") from exc
        except urllib3.exceptions.HTTPError as exc:
            raise _Failed("connection") from exc
        if response.status != 200:
            raise _Failed(f"http_{response.status // 100}xx", response.status)
        try:
            choice = json.loads(response.data)["choices"][0]
            message = choice["message"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise _Failed("invalid_json", response.status) from exc
        if not isinstance(message, dict) or message.get("refusal"):
            raise _Failed("refusal", response.status)
        content = message.get("content")
        if not isinstance(content, str):
            raise _Failed("invalid_json", response.status)
        fenced = _FENCE.match(content)
        try:
            return json.loads(fenced.group("body") if fenced else content)
        except ValueError as exc:  # a cut-off answer (finish_reason "length") lands here too
            raise _Failed("invalid_json", response.status) from exc
