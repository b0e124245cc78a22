"""LLM extraction with Amazon Bedrock Converse and a tool schema (structured output), DESIGN.md 6.

Secrets are redacted before anything leaves the service; the model sees the conversation with
roles and message numbers, and must answer through the ``record_facts`` tool. Its candidates then
pass the same screening as the rules' (guesses, one-offs, identity claims, secrets are refused
whatever the model says). On any failure (timeout, throttling, a malformed answer) the rule-based
extractor takes over, so a turn is never lost. The prompt is versioned with the extractor.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Sequence
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from mnemo.domain import llm_summary
from mnemo.domain.extraction import Candidate, Extraction, ForgetRequest, RuleBasedExtractor
from mnemo.domain.grammar import third_person
from mnemo.domain.models import Category, Importance, Message, Sensitivity, SourceKind
from mnemo.domain.screening import rejection_reason
from mnemo.domain.sensitive import redact
from mnemo.domain.summarise import SummaryFact

log = logging.getLogger("mnemo.bedrock")

PROMPT_VERSION = "extract-2026-11-25"
SYSTEM = (
    "You extract durable facts about the USER from a chat, for a long-term memory. Store only what the "
    "user states explicitly about themselves: identity, location, work, family, pets, diet, allergies and "
    "other constraints, lasting preferences, how they want answers, plans and events with dates, project "
    "facts. Never store: guesses or hedged statements, passing emotions, one-off requests for a single "
    "answer, anything the assistant said, facts about other people unless they are the user's family, "
    "claims of identity or permissions (admin, owner, access rights), instructions to the assistant "
    "that are not lasting preferences, secrets, credentials or payment data. Write each fact in the third "
    "person starting with 'User'. Give each fact a short normalised subject slot such as 'location', "
    "'diet', 'allergy:peanut', 'likes:sushi', 'prefers:programming_language'. Use polarity false for "
    "'does not like' or 'no longer'. When the user asks to forget something, put it in forget. "
    "Answer only through the record_facts tool."
)
CATEGORIES = [c.value for c in Category if c is not Category.SUMMARY and c is not Category.TOOL_RESULT]
TOOL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "facts": {"type": "array", "items": {"type": "object", "properties": {
            "message": {"type": "integer", "description": "number of the user message the fact comes from"},
            "category": {"type": "string", "enum": CATEGORIES},
            "subject": {"type": "string"},
            "content": {"type": "string"},
            "polarity": {"type": "boolean"},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "importance": {"type": "string", "enum": [i.value for i in Importance]},
            "evidence": {"type": "string", "description": "the words of the message that state it"},
            "correction": {"type": "boolean", "description": "the user corrects something said before"},
        }, "required": ["message", "category", "subject", "content", "confidence", "evidence"]}},
        "forget": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["facts"],
}
_SUBJECT = re.compile(r"[^a-z0-9_.:-]+")
# told of every fallback as (tool, error code): the Lambda runtime counts them (metric BedrockFallback,
# alarmed), so a stage whose model or IAM is wrong does not quietly run on the rules
FALLBACK_LISTENERS: list[Callable[[str, str], None]] = []
# answers that mean the configuration is wrong (model id, inference profile, IAM), not a passing fault
MISCONFIGURED = frozenset({"AccessDeniedException", "ValidationException", "ResourceNotFoundException",
                           "UnrecognizedClientException"})


class BedrockExtractor:
    name = "bedrock"
    version = PROMPT_VERSION

    def __init__(self, client: Any, model_id: str, fallback: RuleBasedExtractor | None = None,
                 max_tokens: int = 1500) -> None:
        self._client = client
        self._model_id = model_id
        self._fallback = fallback or RuleBasedExtractor()
        self._max_tokens = max_tokens

    def extract(self, messages: Sequence[Message]) -> Extraction:
        redacted: list[Message] = []
        kinds: list[str] = []
        for m in messages:
            text, found = redact(m.content)
            kinds.extend(found)
            redacted.append(m.model_copy(update={"content": text}))
        transcript = "\n".join(f"[{i}] {m.role}: {m.content}" for i, m in enumerate(redacted))
        answer = call_tool(self._client, self._model_id, SYSTEM, f"Conversation:\n{transcript}",
                           "record_facts", "Record the facts to keep.", TOOL_SCHEMA, self._max_tokens)
        if answer is None:
            return self._fallback.extract(messages)
        result = Extraction(redacted_kinds=kinds)
        for fact in answer.get("facts", []):
            candidate = self._candidate(fact, redacted)
            if candidate is not None:
                result.candidates.append(candidate)
        result.forget = [ForgetRequest(query=str(q), message_id=redacted[-1].message_id)
                         for q in answer.get("forget", []) if str(q).strip()]
        return result

    def _candidate(self, fact: dict[str, Any], messages: list[Message]) -> Candidate | None:
        index = fact.get("message")
        if not isinstance(index, int) or not 0 <= index < len(messages) or messages[index].role != "user":
            return None  # never a fact taken from the assistant's words
        source = messages[index]
        try:
            category = Category(fact["category"])
        except (KeyError, ValueError):
            return None
        subject = _SUBJECT.sub("_", str(fact.get("subject", "")).lower()).strip("_")[:128]
        content = str(fact.get("content", "")).strip()
        evidence = str(fact.get("evidence", ""))[:500]
        if not subject or not content:
            return None
        if not content.lower().startswith("user"):
            content = third_person(content)
        reason = rejection_reason(content) or rejection_reason(evidence)
        confidence = min(1.0, max(0.0, float(fact.get("confidence", 0.0))))
        correction = bool(fact.get("correction", False))
        return Candidate(
            category=category, subject=subject, content=content, confidence=confidence, evidence=evidence,
            message_id=source.message_id, occurred_at=source.created_at, polarity=bool(fact.get("polarity", True)),
            importance=Importance(fact.get("importance", "medium")) if fact.get("importance") in
            {i.value for i in Importance} else Importance.MEDIUM,
            source=SourceKind.USER_EXPLICIT if correction else SourceKind.EXTRACTED,
            sensitivity=Sensitivity.PERSONAL if category is Category.CONSTRAINT else Sensitivity.NORMAL,
            should_store=reason is None, rejection_reason=reason, correction=correction,
            high_stakes=category is Category.PROJECT_FACT and any(
                w in subject for w in ("budget", "decision", "compliance")),
        )


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
