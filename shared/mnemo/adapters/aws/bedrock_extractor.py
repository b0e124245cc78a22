"""LLM extraction with Amazon Bedrock Converse and a tool schema (structured output), DESIGN.md 6.

Secrets are redacted before anything leaves the service; the model sees the conversation with
roles and message numbers, and must answer through the ``record_facts`` tool, whose schema is the
slot vocabulary (docs/slots.md). Its facts then become candidates exactly as the learned pipeline's
do and pass the same screening (domain/extraction/llm.py, shared with the OpenAI-compatible
extractor): guesses, one-offs, identity claims, secrets and the assistant's words are refused
whatever the model says. On any failure (timeout, throttling, a malformed answer) the fallback
extractor takes over, so a turn is never lost, and EXTRACTOR_FALLBACKS counts it. The prompt is
versioned with the extractor.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from mnemo.domain import llm_summary
from mnemo.domain.extraction import Candidate, Extraction, RuleBasedExtractor
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
from mnemo.domain.summarise import SummaryFact
from mnemo.fallbacks import EXTRACTOR_FALLBACKS, FallbackCounter
from mnemo.ports import Extractor

log = logging.getLogger("mnemo.bedrock")

TOOL_SCHEMA: dict[str, Any] = FACT_SCHEMA
# told of every fallback as (tool, error code): the Lambda runtime counts them (metric BedrockFallback,
# alarmed), so a stage whose model or IAM is wrong does not quietly run on the rules
FALLBACK_LISTENERS: list[Callable[[str, str], None]] = []
# answers that mean the configuration is wrong (model id, inference profile, IAM), not a passing fault
MISCONFIGURED = frozenset({"AccessDeniedException", "ValidationException", "ResourceNotFoundException",
                           "UnrecognizedClientException"})


class BedrockExtractor:
    name = "bedrock"
    version = PROMPT_VERSION

    def __init__(self, client: Any, model_id: str, fallback: Extractor | None = None,
                 max_tokens: int = 1500, counter: FallbackCounter = EXTRACTOR_FALLBACKS) -> None:
        self._client = client
        self._model_id = model_id
        self._fallback = fallback or RuleBasedExtractor()
        self._max_tokens = max_tokens
        self._counter = counter

    def classify(self, statement: str, when: datetime) -> Candidate | None:
        """One statement's slot: the fallback's answer (no model call on the write path of an import)."""
        return self._fallback.classify(statement, when)

    def extract(self, messages: Sequence[Message]) -> Extraction:
        sent = prompt(messages)
        if not sent.has_user_words:
            return Extraction(redacted_kinds=sent.redacted_kinds)  # nothing the user said: no call to make
        answer = call_tool(self._client, self._model_id, SYSTEM, sent.user_text,
                           TOOL_NAME, "Record the facts to keep.", TOOL_SCHEMA, self._max_tokens)
        if answer is None:
            return self._fall_back(messages, "error")
        try:
            return extraction(parse_answer(answer), sent)
        except SchemaViolation:
            return self._fall_back(messages, "schema")

    def _fall_back(self, messages: Sequence[Message], reason: str) -> Extraction:
        self._counter.record(self.name, reason)
        return self._fallback.extract(messages)


def call_tool(client: Any, model_id: str, system: str, text: str, tool: str, description: str,
              schema: dict[str, Any], max_tokens: int) -> dict[str, Any] | None:
    """One Converse call that must answer through ``tool``; None on any failure (the caller falls back)."""
    try:
        response = client.converse(
            modelId=model_id, system=[{"text": system}], messages=[{"role": "user", "content": [{"text": text}]}],
            toolConfig={"tools": [{"toolSpec": {"name": tool, "description": description,
                                                "inputSchema": {"json": schema}}}],
                        "toolChoice": {"tool": {"name": tool}}},
            inferenceConfig={"maxTokens": max_tokens, "temperature": 0.0})
        return _tool_input(response, tool)
    except (ClientError, BotoCoreError, KeyError, TypeError, ValueError) as exc:
        code = exc.response.get("Error", {}).get("Code", "ClientError") if isinstance(exc, ClientError) \
            else type(exc).__name__
        extra = {"tool": tool, "error": code, "fallback": f"bedrock:{tool}"}
        if code in MISCONFIGURED:
            log.error("Bedrock refuses the configured model (check bedrock_model_id and its IAM); the rules take "
                      "over", extra={**extra, "model": model_id})
        else:
            log.warning("Bedrock call failed; the rules take over", extra=extra)
        for listener in FALLBACK_LISTENERS:
            listener(tool, code)
        return None


def _tool_input(response: dict[str, Any], tool: str) -> dict[str, Any]:
    for block in response["output"]["message"]["content"]:
        if "toolUse" in block and block["toolUse"]["name"] == tool:
            data = block["toolUse"]["input"]
            return data if isinstance(data, dict) else json.loads(data)
    raise ValueError(f"the model did not call {tool}")


class BedrockSummariser:
    """The Summariser port on Bedrock Converse: the core's prompt and schema (mnemo.domain.llm_summary)
    as a tool; facts the source episodes do not support are dropped, and the offline summariser
    answers whenever Bedrock cannot or fewer than three facts hold."""

    name = "bedrock-summariser"
    version = llm_summary.PROMPT_VERSION

    def __init__(self, client: Any, model_id: str, fallback: Any = None, max_tokens: int = 1200) -> None:
        from mnemo.domain.summarise import RuleBasedSummariser

        self._client = client
        self._model_id = model_id
        self._fallback = fallback or RuleBasedSummariser()
        self._max_tokens = max_tokens
        self.fallbacks = 0

    def summarise(self, memories: list[Any], vectors: Any) -> list[SummaryFact]:
        text, ids = llm_summary.listing(memories)
        answer = call_tool(self._client, self._model_id, llm_summary.SYSTEM, text, "record_summary",
                           "The summary facts, each with its source episodes.", llm_summary.SCHEMA,
                           self._max_tokens)
        facts = llm_summary.accept(answer, ids, self.name) if answer is not None else []
        if facts:
            return facts
        self.fallbacks += 1
        return list(self._fallback.summarise(memories, vectors))
