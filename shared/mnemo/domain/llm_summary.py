"""What an LLM summariser asks and what it keeps: one prompt, one JSON schema, one check (issue 16).

The same for every model behind the Summariser port (an OpenAI-compatible endpoint, Bedrock): the
model sees one topic's episodes, each with a short id and its date, and must answer 3 to 5 facts,
each with the ids of the episodes it comes from. Nothing it says is taken on trust: a fact is kept
only when its sources are episodes of this topic, it passes the same screening as an extracted fact,
the sources bear out every claim it makes (``unsupported_claims``: dates, counts, rates, quantities,
names, trends) and it does not repeat a claim of a fact kept before it. Fewer than three facts left
means the answer is not trusted, and the offline summariser answers instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from mnemo.domain.grammar import third_person
from mnemo.domain.models import Memory
from mnemo.domain.screening import rejection_reason
from mnemo.domain.sensitive import redact
from mnemo.domain.summarise import SummaryFact, dates_in, unsupported_claims

PROMPT_VERSION = "summarise-2026-11-26"
MIN_FACTS, MAX_FACTS = 3, 5
SYSTEM = (
    "You condense one topic of episodic memories about a USER into 3 to 5 durable facts for a long-term "
    "memory. Each fact states something different: what the user does and how often (per week or per "
    "month, from the dates), the range and typical value of any quantity (distance, duration, amount), "
    "where and with whom when the episodes say so, the first and latest dates, and a trend if there is "
    "one. Write each fact in the third person starting with 'User', with dates as '12 January 2026'. "
    "Never state anything the listed episodes do not show, and never repeat a claim in two facts. For "
    "each fact give the ids of the episodes it is drawn from. Answer only with the JSON object."
)
# Strict structured output (OpenAI json_schema strict mode, Bedrock tool input): every property
# required, no extra ones; the 3-5 bound is checked here, since strict mode rejects minItems/maxItems
# on some endpoints.
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"facts": {"type": "array", "items": {
        "type": "object",
        "properties": {"text": {"type": "string", "description": "one fact, third person, starting with 'User'"},
                       "sources": {"type": "array", "items": {"type": "string"},
                                   "description": "ids of the episodes this fact is drawn from, e.g. e3"}},
        "required": ["text", "sources"], "additionalProperties": False}}},
    "required": ["facts"],
    "additionalProperties": False,
}


def listing(memories: Sequence[Memory]) -> tuple[str, dict[str, Memory]]:
    """The episodes as the model sees them (secrets redacted, short ids), oldest first, and the id map."""
    ordered = sorted(memories, key=lambda m: (m.created_at, m.memory_id))
    ids = {f"e{i + 1}": m for i, m in enumerate(ordered)}
    lines = [f"[{short}] {m.created_at.date().isoformat()}: {redact(m.content)[0]}" for short, m in ids.items()]
    return f"Episodes ({len(ordered)}):\n" + "\n".join(lines), ids


def _claims(text: str) -> set[str]:
    """The claims two facts must not both make: dates, counts, rates, names."""
    found = {d.isoformat() for d in dates_in(text)}
    found |= {f"count:{n}" for n in re.findall(r"\b(\d+) times\b(?! (?:a|per|each) (?:week|month))", text)}
    found |= {f"rate:{n}" for n in re.findall(r"(\d+(?:\.\d+)?) (?:times )?(?:a|per|each) (?:week|month)", text)}
    return found


def accept(answer: Any, ids: dict[str, Memory], author: str) -> list[SummaryFact]:
    """The model's facts that hold, in its order, at most five; [] when fewer than three hold."""
    raw = answer.get("facts") if isinstance(answer, dict) else None
    if not isinstance(raw, list):
        return []
    kept: list[SummaryFact] = []
    said: set[str] = set()
    for item in raw:
        if not isinstance(item, dict) or not isinstance(item.get("text"), str) \
                or not isinstance(item.get("sources"), list):
            continue
        text = " ".join(item["text"].split())
        cited = dict.fromkeys(s for s in item["sources"] if isinstance(s, str) and s in ids)
        sources = [ids[s] for s in cited]
        if not text or not sources:
            continue
        if not text.lower().startswith("user"):
            text = third_person(text)
        if not re.search(r"\buser\b", text, re.IGNORECASE):
            continue  # about someone else, or not in the third person
        claims = _claims(text)
        if rejection_reason(text) is not None or unsupported_claims(text, sources) or claims & said \
                or any(f.text.lower() == text.lower() for f in kept):
            continue
        said |= claims
        kept.append(SummaryFact(text, f"llm-{len(kept) + 1}", tuple(m.memory_id for m in sources), author))
        if len(kept) == MAX_FACTS:
            break
    return kept if len(kept) >= MIN_FACTS else []
