"""LLM extraction through any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, vLLM,
llama.cpp's server, LM Studio), for either home.

The call is the shared chat-completions client's (openai_chat.py) with the slot vocabulary as a
strict JSON schema. Secrets are redacted before the call, and the answer passes the same checks and
screening as Bedrock's (domain/extraction/llm.py). On an HTTP error, a timeout, a refusal, invalid
JSON or a schema violation the fallback extractor (the learned one) answers, and EXTRACTOR_FALLBACKS
counts it by reason.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime

import urllib3

from mnemo.adapters.openai_chat import ChatCompletionsClient, ChatFailed
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


class OpenAIExtractor:
    name = "openai"

    def __init__(self, base_url: str, model: str, api_key: str, fallback: Extractor, *,
                 timeout_seconds: float = 30.0, max_tokens: int = 1500,
                 counter: FallbackCounter = EXTRACTOR_FALLBACKS, pool: urllib3.PoolManager | None = None) -> None:
        self._client = ChatCompletionsClient(base_url, model, api_key, timeout_seconds, pool=pool)
        self._model = model
        self._fallback = fallback
        self._max_tokens = max_tokens
        self._counter = counter
        self.version = f"{PROMPT_VERSION}+{model}"

    def classify(self, statement: str, when: datetime) -> Candidate | None:
        """One statement's slot: the fallback's answer (no model call on the write path of an import)."""
        return self._fallback.classify(statement, when)

    def extract(self, messages: Sequence[Message]) -> Extraction:
        sent = prompt(messages)
        if not sent.has_user_words:
            return Extraction(redacted_kinds=sent.redacted_kinds)  # nothing the user said: no call to make
        try:
            answer = parse_answer(self._client.answer(SYSTEM, sent.user_text, TOOL_NAME, FACT_SCHEMA,
                                                      self._max_tokens))
        except ChatFailed as exc:
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
