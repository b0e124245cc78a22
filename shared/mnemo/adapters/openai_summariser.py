"""The Summariser port over an OpenAI-compatible chat-completions endpoint (issue 16).

The prompt, the schema and what is kept of the answer are the core's (mnemo.domain.llm_summary),
shared with Bedrock. On any failure, or when fewer than three of the model's facts hold up against
their source episodes, the offline summariser answers, so consolidation never stops for a model.
"""

from __future__ import annotations

import logging

import numpy as np
import numpy.typing as npt

from mnemo.adapters.openai_chat import ChatCompletionsClient
from mnemo.domain import llm_summary
from mnemo.domain.models import Memory
from mnemo.domain.summarise import RuleBasedSummariser, SummaryFact
from mnemo.errors import BackendUnavailable
from mnemo.ports import Summariser

log = logging.getLogger("mnemo.summariser")


class OpenAICompatibleSummariser:
    name = "openai-summariser"
    version = llm_summary.PROMPT_VERSION

    def __init__(self, client: ChatCompletionsClient, fallback: Summariser | None = None,
                 max_tokens: int = 1200) -> None:
        self._client = client
        self._fallback = fallback or RuleBasedSummariser()
        self._max_tokens = max_tokens
        self.fallbacks = 0  # how often the offline summariser had to answer (a metric for operators)

    def summarise(self, memories: list[Memory], vectors: npt.NDArray[np.float32]) -> list[SummaryFact]:
        text, ids = llm_summary.listing(memories)
        try:
            answer = self._client.structured(llm_summary.SYSTEM, text, "record_summary", llm_summary.SCHEMA,
                                             self._max_tokens)
        except BackendUnavailable as exc:
            log.warning("LLM summary failed; the offline summariser answers", extra={"error": exc.message})
            answer = None
        facts = llm_summary.accept(answer, ids, self.name) if answer is not None else []
        if facts:
            return facts
        if answer is not None:
            log.warning("LLM summary not supported by its episodes; the offline summariser answers")
        self.fallbacks += 1
        return self._fallback.summarise(memories, vectors)
