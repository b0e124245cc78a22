"""A small deterministic and careless "model" for the LLM extractor fakes (OpenAI-compatible, Bedrock).

It reads the numbered transcript the adapters send and answers facts in the slot schema
(domain/extraction/llm.py) from a few phrasings. It is careless on purpose: it reads the
assistant's lines as well as the user's, and any line it does not understand becomes a "likes" fact
with the whole line as its value (redaction markers, identity claims and injected instructions
included), so the tests check that the adapter, not the model, decides what may be stored.
"""

from __future__ import annotations

import re
from typing import Any

LINE = re.compile(r"^\[(\d+)\] (user|assistant|system|tool): ", re.MULTILINE)
_END = r"(?P<v>[^.,!?;\n]+?)(?=\s+and\b|\s+but\b|[.,!?;\n]|$)"
PATTERNS: list[tuple[str, bool, re.Pattern[str]]] = [
    ("home_location", False, re.compile(r"\b(?:i|you) (?:live|am based|are based|moved) (?:in|to) " + _END, re.I)),
    ("allergy", False, re.compile(r"\ballergic to " + _END, re.I)),
    ("name", False, re.compile(r"\bmy name is " + _END, re.I)),
    ("diet", True, re.compile(r"\bnot (?:doing|eating) (?P<v>\w+) any ?more\b", re.I)),
    ("diet", False, re.compile(r"\b(?:i|you) (?:am|are|'m|'re) (?:a )?(?P<v>vegetarian|vegan)\b", re.I)),
    ("likes", False, re.compile(r"\b(?:i|you) (?:love|like) " + _END, re.I)),
    ("job", False, re.compile(r"\bi work (?:as|at) (?:an? )?" + _END, re.I)),
]
FORGET = re.compile(r"\bforget (?:about )?(?P<v>[^.!?\n]+)", re.I)


def transcript_lines(text: str) -> list[tuple[int, str, str]]:
    """(number, role, words) of every message of an adapter's transcript (messages may span lines)."""
    marks = list(LINE.finditer(text))
    out = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        out.append((int(m.group(1)), m.group(2), text[m.end():end].rstrip("\n")))
    return out


def careless_answer(text: str) -> dict[str, Any]:
    facts: list[dict[str, Any]] = []
    forget: list[dict[str, Any]] = []
    for number, _role, said in transcript_lines(text):
        if not said.strip():
            continue
        wanted = FORGET.search(said)
        if wanted:
            forget.append({"message": number, "what": wanted.group("v")})
            continue
        found = False
        for slot, negated, pattern in PATTERNS:
            for m in pattern.finditer(said):
                found = True
                facts.append({"message": number, "slot": slot, "value": m.group("v"), "negated": negated,
                              "evidence": m.group(0)})
        if not found:
            facts.append({"message": number, "slot": "likes", "value": said.strip(), "negated": False,
                          "evidence": said.strip()})
    return {"facts": facts, "forget": forget}
