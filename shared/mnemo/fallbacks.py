"""How often a model adapter's fallback answered instead of the model: an LLM extractor that fails
quietly still stores facts (the learned extractor's), so only this count shows that it is failing.

``EXTRACTOR_FALLBACKS`` is the process-wide counter the LLM extractors (OpenAI-compatible, Bedrock)
record into, labelled by extractor and reason. An exporter publishes it as the Prometheus counter
``mnemo_extractor_fallbacks_total{extractor="openai",reason="timeout"}``: ``samples()`` gives every
label set with its count. Reasons are few and fixed (see the adapters): timeout, connection,
http_4xx, http_5xx, invalid_json, schema, refusal, error.
"""

from __future__ import annotations

import threading


class FallbackCounter:
    """A monotonic, thread-safe counter labelled by (extractor, reason)."""

    def __init__(self, name: str, description: str) -> None:
        self.name = name
        self.description = description
        self._lock = threading.Lock()
        self._counts: dict[tuple[str, str], int] = {}

    def record(self, extractor: str, reason: str) -> None:
        with self._lock:
            self._counts[(extractor, reason)] = self._counts.get((extractor, reason), 0) + 1

    def count(self, extractor: str | None = None, reason: str | None = None) -> int:
        """The total over the label sets that match (None matches any)."""
        with self._lock:
            return sum(n for (e, r), n in self._counts.items()
                       if extractor in (None, e) and reason in (None, r))

    def samples(self) -> list[tuple[dict[str, str], int]]:
        """Every label set and its count, for a metrics exporter."""
        with self._lock:
            return [({"extractor": e, "reason": r}, n) for (e, r), n in sorted(self._counts.items())]


EXTRACTOR_FALLBACKS = FallbackCounter(
    "mnemo_extractor_fallbacks_total",
    "Extractions the fallback extractor answered because the LLM failed, by extractor and reason.")
