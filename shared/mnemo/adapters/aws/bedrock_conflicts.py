"""Conflict classification with Amazon Bedrock Converse (SPEC R6, DESIGN.md 6).

The rules settle restatements and same-slot contradictions on their own; what they cannot settle
is a pair of similar facts in different slots ("User works at Acme" / "User joined Globex last
month"). The model is asked only about such pairs, must answer through a tool, and any failure
leaves the pair as the rules left it: both kept, flagged as conflicting.
"""

from __future__ import annotations

from typing import Any

from mnemo.adapters.aws.bedrock_extractor import call_tool
from mnemo.domain.conflicts import Relation
from mnemo.domain.models import Memory
from mnemo.domain.sensitive import redact

PROMPT_VERSION = "conflicts-2026-11-26"
SYSTEM = (
    "You compare two facts stored about the same USER in a long-term memory and say how they relate. "
    "'same': they state the same thing in other words. 'contradicts': both cannot be true now (a changed "
    "job, city, diet, preference or plan; a negation of the other). 'independent': both can be true "
    "together. 'ambiguous': you cannot tell. Judge only from the two facts and their dates; never assume "
    "anything else. Answer only through the record_relation tool."
)
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "relation": {"type": "string", "enum": [r.value for r in Relation]},
        "reason": {"type": "string", "maxLength": 300},
    },
    "required": ["relation"],
}


class BedrockConflictJudge:
    name = "bedrock"
    version = PROMPT_VERSION

    def __init__(self, client: Any, model_id: str, max_tokens: int = 200) -> None:
        self._client = client
        self._model_id = model_id
        self._max_tokens = max_tokens

    def judge(self, new: Memory, other: Memory) -> Relation | None:
        text = (f"Stored fact (stated {other.created_at.date().isoformat()}, slot {other.subject}): "
                f"{redact(other.content)[0]}\n"
                f"New fact (stated {new.created_at.date().isoformat()}, slot {new.subject}): "
                f"{redact(new.content)[0]}")
        answer = call_tool(self._client, self._model_id, SYSTEM, text, "record_relation",
                           "How the new fact relates to the stored one.", SCHEMA, self._max_tokens)
        if answer is None:
            return None
        try:
            relation = Relation(str(answer.get("relation")))
        except ValueError:
            return None
        return None if relation is Relation.AMBIGUOUS else relation
